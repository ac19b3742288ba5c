/**
 * Structured results of `pulumi up|preview|refresh|destroy`: the engine's own events instead of its human output.
 *
 * The CLI writes every engine event, one JSON object per line, to the file given with `--event-log <file>`; it
 * registers that flag only when `PULUMI_DEBUG_COMMANDS` is true (pkg/v3 cmd/pulumi/operations/preview.go, up.go,
 * refresh.go, destroy.go: `if env.DebugCommands.Value() {…}`; without it: `unknown flag: --event-log`).
 * {@link runEngineEvents} runs a command that way and parses the file; the events have the shape of the Automation
 * API's `EngineEvent` (the same file is what it tails), whose types this module reuses. The `drift` and `gate`
 * commands read a stack through it; the repository's tests and scripts use it through `scripts/lib/engine.ts`.
 */
import type { EngineEvent, OpType, PropertyDiff } from "@pulumi/pulumi/automation";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { runPulumi, type StackRef } from "./stack";

export type { EngineEvent, OpType, PropertyDiff };

/** The engine commands this module runs. */
export type EngineCommand = "up" | "preview" | "refresh" | "destroy";

/**
 * How many resources an operation did (or, in a preview, would do) per kind of step: the summary event's
 * `resourceChanges`, with every count present (0 when the engine reported none). `replace` counts a resource
 * replaced once (its `create-replacement`/`delete-replaced` steps are not counted separately, as in the CLI's
 * "N to replace" line). Refresh reports what it found as `update` (changed on the server) and `delete` (gone).
 */
export interface ChangeCounts {
  create: number;
  update: number;
  replace: number;
  delete: number;
  same: number;
  read: number;
  refresh: number;
  import: number;
  /** Every other op the engine counted (e.g. `discard`, `remove-pending-replace`), by its engine name. */
  other: Record<string, number>;
}

/** One step the engine planned or took for one resource (from its `resourcePreEvent`). */
export interface EngineStep {
  /** The step's op: `create`, `update`, `replace`, `create-replacement`, `delete-replaced`, `delete`, `same`, `refresh`, `read`, … */
  op: OpType;
  urn: string;
  /** The resource type, e.g. `pulumi-nodejs:dynamic/platform:Group`. */
  type: string;
  /** The resource's name: the last part of its URN. */
  name: string;
  /**
   * Top-level input keys that differ: the engine's `diffs` when it gave any; else (dynamic providers return no
   * detailed diff, and the engine then sends neither) the keys whose value differs between `oldInputs` and
   * `newInputs`, `__provider` (the serialized provider code) left out, as the CLI's own `[diff: ~key]` shows.
   * Empty when none, or when the step has not both old and new inputs.
   */
  diffs: string[];
  /**
   * Property paths with their kind (`add`, `update`, `delete`, `*-replace`): the engine's `detailedDiff` when it
   * gave one; else one entry per key of {@link EngineStep.diffs} (`add`, `update` or `delete`, `inputDiff: true`).
   */
  detailedDiff: Record<string, PropertyDiff>;
  /** Keys that force a replacement (the engine's `keys`), when any. */
  replaceKeys: string[];
  /** Inputs before the step (from state), when the resource existed. */
  oldInputs?: Record<string, unknown>;
  /** Inputs after the step (as declared), when the resource will exist. */
  newInputs?: Record<string, unknown>;
  /** Outputs before the step (from state), when the resource existed. */
  oldOutputs?: Record<string, unknown>;
  /** Outputs after the step, from its `resOutputsEvent` when the engine sent one (in a preview: the planned outputs, unknowns as the engine's placeholder). */
  newOutputs?: Record<string, unknown>;
  /**
   * The op of the step's `resOutputsEvent`, when one came: the same as `op`, except for a refresh, whose steps are
   * announced as `refresh` and end as what the read found: `same`, `update` (changed on the server) or `delete`
   * (gone).
   */
  outcome?: OpType;
  /** True when the engine reported this step failed (`resOpFailedEvent`). */
  failed: boolean;
}

/** One diagnostic message (a resource's or the program's log line, a warning, an error). */
export interface EngineDiagnostic {
  severity: "info" | "info#err" | "warning" | "error" | "debug";
  /** The message as the engine gave it, trimmed (it is what `pulumi` prints, without the colour codes). */
  message: string;
  /** The resource it is about, when any. */
  urn?: string;
}

/** One policy event: a violation (or a policy not evaluated until apply) reported by a policy pack. */
export interface EnginePolicyEvent {
  /** `mandatory`, `advisory`, `remediate` or `disabled`, as the engine gave it. */
  enforcementLevel: string;
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  /** The resource it is about; empty for stack policies. */
  urn: string;
  /** The full message (first line: the policy's description; then the violation's own text). */
  message: string;
}

/** Everything one engine command reported. */
export interface EngineRun {
  /** Every event, in sequence order. */
  events: EngineEvent[];
  /** The summary event's counts; undefined when the command stopped before the engine summarised (e.g. a program that does not compile). */
  summary?: ChangeCounts;
  /** The summary event's `result` (`succeeded`, `failed`, …), when it came. */
  result?: string;
  /** Steps in the order the engine announced them; resources whose op is `same` included. */
  steps: EngineStep[];
  /** Diagnostics in order, `debug` ones left out (the engine logs many). */
  diagnostics: EngineDiagnostic[];
  /** Policy events in order (violations, and policies @pulumi/policy could not evaluate during a preview). */
  policies: EnginePolicyEvent[];
  /**
   * The policy packs that ran (the summary event's `PolicyPacks`), with the name the pack declares (a local pack's
   * engine name is `<name>|local|<path>`) and its version; empty when none ran or no summary came.
   */
  policyPacks: Array<{ name: string; version: string }>;
}


const COUNTED = ["create", "update", "replace", "delete", "same", "read", "refresh", "import"] as const;

/**
 * Parses engine events given one JSON object per line (an `--event-log` file, or the streamed JSON of
 * `pulumi preview --json` under `PULUMI_ENABLE_STREAMING_JSON_PREVIEW`). Lines that are not JSON objects with a
 * numeric `sequence` are skipped (the streamed preview mixes in no others, but a truncated last line of a killed
 * run is possible). Returns the events sorted by `sequence`.
 */
export function parseEventLines(text: string): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    let e: unknown;
    try {
      e = JSON.parse(t);
    } catch {
      continue;
    }
    if (e && typeof e === "object" && typeof (e as { sequence?: unknown }).sequence === "number") events.push(e as EngineEvent);
  }
  return events.sort((a, b) => a.sequence - b.sequence);
}

/** Counts from a summary event's `resourceChanges` (missing kinds are 0). */
export function changeCounts(resourceChanges: Record<string, number | undefined> | undefined): ChangeCounts {
  const counts: ChangeCounts = { create: 0, update: 0, replace: 0, delete: 0, same: 0, read: 0, refresh: 0, import: 0, other: {} };
  for (const [op, n] of Object.entries(resourceChanges ?? {})) {
    if ((COUNTED as readonly string[]).includes(op)) counts[op as (typeof COUNTED)[number]] = n ?? 0;
    else counts.other[op] = n ?? 0;
  }
  return counts;
}

/** The last part of a URN (`…::<type>::<name>`). */
export function nameOf(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The top-level keys whose values differ between two input maps (`__provider` left out), with their kind. */
function inputDiff(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, PropertyDiff> {
  const out: Record<string, PropertyDiff> = {};
  for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (k === "__provider" || JSON.stringify(before[k]) === JSON.stringify(after[k])) continue;
    const kind = !(k in before) ? "add" : !(k in after) ? "delete" : "update";
    out[k] = { diffKind: kind as PropertyDiff["diffKind"], inputDiff: true };
  }
  return out;
}

/**
 * Reads typed results from engine events (see {@link parseEventLines}): the summary, one {@link EngineStep} per
 * `resourcePreEvent` (completed by the matching `resOutputsEvent`/`resOpFailedEvent` of the same URN and op, or
 * of the same URN for a refresh step),
 * diagnostics (debug ones left out) and policy events.
 */
export function readEngineEvents(events: readonly EngineEvent[]): EngineRun {
  const steps: EngineStep[] = [];
  const open = new Map<string, EngineStep>();
  const diagnostics: EngineDiagnostic[] = [];
  const policies: EnginePolicyEvent[] = [];
  let summary: ChangeCounts | undefined;
  let result: string | undefined;
  let policyPacks: Array<{ name: string; version: string }> = [];
  for (const e of events) {
    const pre = e.resourcePreEvent?.metadata;
    if (pre) {
      const derived = pre.old && pre.new ? inputDiff(pre.old.inputs ?? {}, pre.new.inputs ?? {}) : {};
      const step: EngineStep = {
        op: pre.op,
        urn: pre.urn,
        type: pre.type,
        name: nameOf(pre.urn),
        diffs: pre.diffs?.length ? pre.diffs : Object.keys(derived),
        detailedDiff: pre.detailedDiff && Object.keys(pre.detailedDiff).length ? pre.detailedDiff : derived,
        replaceKeys: pre.keys ?? [],
        failed: false,
        ...(pre.old ? { oldInputs: pre.old.inputs ?? {}, oldOutputs: pre.old.outputs ?? {} } : {}),
        ...(pre.new ? { newInputs: pre.new.inputs ?? {} } : {}),
      };
      steps.push(step);
      open.set(`${pre.op} ${pre.urn}`, step);
    }
    const done = e.resOutputsEvent?.metadata;
    if (done) {
      // A refresh announces `refresh` and ends with what it found: then the URN's `refresh` step is the one.
      const step = open.get(`${done.op} ${done.urn}`) ?? open.get(`refresh ${done.urn}`);
      if (step) {
        step.outcome = done.op;
        if (done.new) step.newOutputs = done.new.outputs ?? {};
      }
    }
    const failed = e.resOpFailedEvent?.metadata;
    if (failed) {
      const step = open.get(`${failed.op} ${failed.urn}`);
      if (step) step.failed = true;
    }
    const d = e.diagnosticEvent;
    if (d && (d.severity as string) !== "debug") {
      diagnostics.push({ severity: d.severity, message: (d.message ?? "").trim(), ...(d.urn ? { urn: d.urn } : {}) });
    }
    const p = e.policyEvent;
    if (p) {
      policies.push({
        enforcementLevel: String(p.enforcementLevel),
        policyName: p.policyName,
        policyPackName: p.policyPackName,
        policyPackVersion: p.policyPackVersion,
        urn: p.resourceUrn ?? "",
        message: p.message ?? "",
      });
    }
    const s = e.summaryEvent as (EngineEvent["summaryEvent"] & { result?: string }) | undefined;
    if (s) {
      summary = changeCounts(s.resourceChanges as Record<string, number | undefined>);
      const packs = (s as { PolicyPacks?: Record<string, string> }).PolicyPacks ?? s.policyPacks ?? {};
      policyPacks = Object.entries(packs).map(([name, version]) => ({ name: name.split("|")[0]!, version }));
      if (s.result) result = s.result;
    }
  }
  return { events: [...events], ...(summary ? { summary } : {}), ...(result ? { result } : {}), steps, diagnostics, policies, policyPacks };
}

/**
 * The steps that change a resource of the program: every step whose op is not `same`, `read` or `refresh`, on
 * neither the stack resource (`pulumi:pulumi:Stack`) nor a provider (`pulumi:providers:*`, e.g. the default
 * provider's `create` on a first up; the summary counts neither).
 */
export function changes(run: Pick<EngineRun, "steps">): EngineStep[] {
  return run.steps.filter((s) => !["same", "read", "refresh"].includes(s.op) && s.type !== "pulumi:pulumi:Stack" && !s.type.startsWith("pulumi:providers:"));
}

/**
 * Why a run failed, as the engine said it: its error diagnostics, in order, each once (the engine repeats a
 * resource's error in the update's summary), each prefixed with the resource's name when it is about one that is
 * not the stack. The messages are the engine's and the provider's (server text included): print them inert
 * (provider/text.ts).
 */
export function errorLines(run: Pick<EngineRun, "diagnostics">): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of run.diagnostics) {
    if (d.severity !== "error" || d.message === "") continue;
    const about = d.urn && !d.urn.includes("::pulumi:pulumi:Stack::") ? `${nameOf(d.urn)}: ` : "";
    const line = `${about}${d.message}`;
    if (seen.has(d.message)) continue;
    seen.add(d.message);
    out.push(line);
  }
  return out;
}

/** The error diagnostics' messages, in order. */
export function errors(run: Pick<EngineRun, "diagnostics">): string[] {
  return run.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
}


/** What {@link runEngineEvents} returns: the parsed events and the CLI's exit code and output. */
export interface EngineCliRun extends EngineRun {
  /** The CLI's exit code. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `pulumi <command> <args...> --stack <stack> --non-interactive` in the stack's folder with
 * `PULUMI_DEBUG_COMMANDS=true` and `--event-log` in a temporary folder (removed afterwards), and resolves with the
 * parsed events and the process result, whatever the exit code. The backend and credentials are the caller's
 * environment's, as for any `pulumi` command.
 * @throws StackCommandError when the CLI cannot be started.
 */
export async function runEngineEvents(ref: StackRef, command: EngineCommand, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<EngineCliRun> {
  return withEventLog((file) => runPulumi(ref, [command, ...args, "--non-interactive", "--event-log", file], true, { ...env, PULUMI_DEBUG_COMMANDS: "true" }));
}

/**
 * Runs `run` with the path of a new event-log file in a temporary folder (removed afterwards), and resolves with
 * `run`'s result plus the engine events the file holds then. No file (the CLI stopped before the engine started,
 * e.g. on a bad flag) is no events; the result says why. The caller passes the path as `--event-log` with
 * `PULUMI_DEBUG_COMMANDS=true`.
 */
export async function withEventLog<R extends object>(run: (file: string) => Promise<R>): Promise<R & EngineRun> {
  const dir = mkdtempSync(path.join(tmpdir(), "platform-pulumi-events-"));
  const file = path.join(dir, "events.jsonl");
  try {
    const r = await run(file);
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      // no file: the CLI stopped before the engine started (e.g. a bad flag); the result says why.
    }
    return { ...r, ...readEngineEvents(parseEventLines(text)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
