/**
 * `platform-pulumi drift --stack <name> [--cwd <dir>] [--format table|json|markdown|sarif] [--unmanaged [--with <stack>]...]
 * [--json-out <file>] [--max-chars <n>]`: what changed outside Pulumi, kept apart from what the program would change
 * (README, "Drift detection: `platform-pulumi drift`"; the output options are every report command's, ./report.ts).
 *
 * - **Drift** is where the live API differs from the stack's state: an object changed or deleted outside Pulumi.
 * - **Pending** is every step `pulumi up --refresh` would take: the program against the refreshed state (a commit
 *   not yet applied, and the steps that would undo the drift).
 * - **Unmanaged** (with `--unmanaged`) is what `platform-pulumi unmanaged` finds: objects under the stack's groups
 *   that no stack of the project holds.
 *
 * One `pulumi preview --refresh` gives the first two, read from its engine events (`--event-log`, see
 * ./events.ts): its refresh steps (announced `refresh`, ended by a `resOutputsEvent` with the state before (`old`)
 * and what the provider's read found (`new`, absent when the object is gone)) are the drift; its plan steps after
 * the refresh are the pending changes. A preview writes neither the state nor the API, so the check changes
 * nothing. Exit codes: 0 when nothing drifted and nothing is unmanaged (pending changes alone are 0), 1 when
 * something drifted or is unmanaged, 2 when the check could not run (the reason on stderr).
 */
import { writeFileSync } from "node:fs";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { changes, errorLines, nameOf, runEngineEvents, type EngineStep } from "./events";
import { BoundedMarkdown, FORMATS, OUTPUT_OPTIONS, OUTPUT_USAGE, TIMEOUT_USAGE, formatUsage, outputArgs, shown, type OutputArgs, type ReportFormat } from "./report";
import { UsageError, runStackFrame } from "./frame";
import { clientFor, diagnose, exportStack, orgUidOf, stackConfig, table, type StackRef } from "./stack";
import { findUnmanaged, withStacksOf } from "./unmanaged";
import { jsonText, mdCode } from "../text";
import { locatorFor, type SourceLocator } from "./sarif";
import { INFORMATION_URI, LogBuilder, fingerprint, type SarifLocation, type SarifLog, type SarifRule } from "./sarifLog";
import { kindOfType } from "../typeTokens";

/** One field that differs between the state and the API. */
export interface DriftField {
  /** The field's path in the resource's inputs, dotted for nested objects (`claimMatch.subject`). */
  path: string;
  /** Its value in the stack's state (null when absent there). */
  state: unknown;
  /** Its value on the API, as the provider read it (null when absent there). */
  live: unknown;
}

/** A resource whose object on the API differs from the stack's state. */
export interface DriftedResource {
  urn: string;
  /** This package's kind (`Group`, `Identity`, …); another provider's resource keeps its full type token. */
  type: string;
  /** The Pulumi resource name (the URN's last part). */
  name: string;
  /** The object's uid (the resource's id in the state), or null when the state has none. */
  uid: string | null;
  /** `changed`: the object differs in {@link DriftedResource.fields}; `deleted`: the object is gone from the API. */
  change: "changed" | "deleted";
  /** The fields that differ (empty for `deleted`). */
  fields: DriftField[];
}

/** A step `pulumi up --refresh` would take. */
export interface PendingChange {
  urn: string;
  /** As {@link DriftedResource.type}. */
  type: string;
  name: string;
  /** `create`, `update`, `replace` (the engine's replace, create-replacement and delete-replaced steps, once) or `delete`. */
  op: "create" | "update" | "replace" | "delete";
  /** The top-level input fields that change (empty for `create` and `delete`). */
  fields: string[];
}

/** An object no stack holds, as `platform-pulumi unmanaged` finds it. */
export interface UnmanagedEntry {
  /** Its kind (`Group`, `Identity`, …). */
  type: string;
  uid: string;
  name: string;
  /** The group it lives under. */
  parentUid: string;
}

/** The `drift` command's report: exactly the object `--format json` prints (README, "Drift detection"). */
export interface DriftReport {
  stack: string;
  drifted: DriftedResource[];
  pending: PendingChange[];
  /** Empty unless `--unmanaged` was given. */
  unmanaged: UnmanagedEntry[];
}

/** The kind for this package's types, else the type token as it is. */
function kindOf(type: string): string {
  return kindOfType(type) ?? type;
}

/** True for the resources a drift report is about: not the stack, not a provider. */
function reported(type: string): boolean {
  return type !== "pulumi:pulumi:Stack" && !type.startsWith("pulumi:providers:");
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The fields that differ between two property maps, nested objects walked into (paths dotted), arrays and
 * scalars compared whole; `__provider` (the serialized provider code) left out.
 */
export function diffFields(state: Record<string, unknown>, live: Record<string, unknown>, prefix = ""): DriftField[] {
  const out: DriftField[] = [];
  for (const k of [...new Set([...Object.keys(state), ...Object.keys(live)])].sort()) {
    if (prefix === "" && k === "__provider") continue;
    const a = state[k];
    const b = live[k];
    const p = prefix ? `${prefix}.${k}` : k;
    if (isPlainObject(a) && isPlainObject(b)) out.push(...diffFields(a, b, p));
    else if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: p, state: a ?? null, live: b ?? null });
  }
  return out;
}

/** The server-set outputs compared only when a read gave no inputs (an older provider): they move on every write. */
const VOLATILE = new Set(["createTime", "updateTime"]);

/**
 * The drift in the engine events of a `pulumi preview --refresh` (or `pulumi refresh --preview-only`): for each
 * refresh step, the read's result against the state. Resources in `external` (URNs of objects the stack only reads,
 * with `X.get`: `external: true` in the state) are left out: the stack does not manage them. The resource's inputs are compared (the provider's read
 * returns the inputs that would produce what it found); outputs, server timestamps left out, only when a read
 * returned no inputs.
 */
export function driftOf(events: readonly EngineEvent[], external: ReadonlySet<string> = new Set()): DriftedResource[] {
  const refreshing = new Set<string>();
  const out: DriftedResource[] = [];
  for (const e of events) {
    const pre = e.resourcePreEvent?.metadata;
    if (pre?.op === "refresh") refreshing.add(pre.urn);
    const done = e.resOutputsEvent?.metadata;
    if (!done || !refreshing.has(done.urn)) continue;
    refreshing.delete(done.urn);
    const old = done.old;
    if (!old || !reported(done.type) || external.has(done.urn)) continue;
    const base = { urn: done.urn, type: kindOf(done.type), name: nameOf(done.urn), uid: old.id ? old.id : typeof old.outputs?.["uid"] === "string" ? (old.outputs["uid"] as string) : null };
    if (!done.new || done.op === "delete") {
      out.push({ ...base, change: "deleted", fields: [] });
      continue;
    }
    const withInputs = Object.keys(done.new.inputs ?? {}).some((k) => k !== "__provider");
    const fields = withInputs
      ? diffFields(old.inputs ?? {}, done.new.inputs ?? {})
      : diffFields(old.outputs ?? {}, done.new.outputs ?? {}).filter((f) => !VOLATILE.has(f.path));
    if (fields.length > 0) out.push({ ...base, change: "changed", fields });
  }
  // The engine refreshes in parallel: sort, so one state and one API give one report.
  return out.sort((a, b) => a.urn.localeCompare(b.urn));
}

/** The `Org` component's type (`ORG_TYPE` of provider/org, not imported here: the CLI does not load the SDK for it). */
const ORG_COMPONENT_TYPE = "platform:index:Org";

/**
 * The steps `pulumi up --refresh` would take, from the plan steps of a `pulumi preview --refresh`, one per resource.
 * The `Org` component's own steps are left out: it has no API object (its file's layout and source are its inputs,
 * so every edit of the file "updates" it); its children are listed.
 */
export function pendingOf(steps: readonly EngineStep[]): PendingChange[] {
  const out = new Map<string, PendingChange>();
  for (const s of changes({ steps: [...steps] })) {
    if (s.type === ORG_COMPONENT_TYPE) continue;
    const op = s.op === "create" || s.op === "import" ? "create" : s.op === "update" ? "update" : s.op === "delete" ? "delete" : /replace/.test(s.op) ? "replace" : undefined;
    if (op === undefined || out.has(s.urn)) continue;
    out.set(s.urn, { urn: s.urn, type: kindOf(s.type), name: s.name, op, fields: op === "update" || op === "replace" ? [...s.diffs] : [] });
  }
  return [...out.values()].sort((a, b) => a.urn.localeCompare(b.urn));
}

/**
 * Computes the drift report of a stack: its state (`pulumi stack export`, to know which resources it only reads),
 * one `pulumi preview --refresh` (nothing written), and with `unmanaged` the `platform-pulumi unmanaged` scan
 * through the API (reads only).
 * @throws StackCommandError when the preview fails (its error diagnostics, or what to do when the stack is locked
 *   or the backend damaged); SettingsError when `unmanaged` is asked and the API settings are missing.
 */
export async function driftReport(ref: StackRef, opts: { unmanaged?: boolean; with?: readonly string[] } = {}): Promise<DriftReport> {
  const state = await exportStack(ref);
  const external = new Set((state.deployment.resources ?? []).filter((r) => r["external"] === true).map((r) => r.urn));
  const run = await runEngineEvents(ref, "preview", ["--refresh"]);
  if (run.code !== 0) {
    throw diagnose(ref, `pulumi preview --refresh --stack ${ref.stack}`, [...errorLines(run), run.stdout, run.stderr].join("\n"), errorLines(run));
  }
  const report: DriftReport = { stack: ref.stack, drifted: driftOf(run.events, external), pending: pendingOf(run.steps), unmanaged: [] };
  if (opts.unmanaged) {
    const config = await stackConfig(ref);
    const client = clientFor(config);
    try {
      report.unmanaged = (await findUnmanaged(ref, client, orgUidOf(config), opts.with)).map((o) => ({ type: o.kind, uid: o.uid, name: o.name, parentUid: o.parentUid }));
    } finally {
      await client.close();
    }
  }
  return report;
}

/** The report's exit code: 1 when something drifted or is unmanaged, else 0 (pending changes alone are 0). */
export function driftExitCode(r: DriftReport): 0 | 1 {
  return r.drifted.length > 0 || r.unmanaged.length > 0 ? 1 : 0;
}

/**
 * The report as text: `json` (one object, {@link DriftReport}), `markdown` (tables under headings, within
 * `opts.maxChars`, default 60,000: rows past it are left out and counted in a closing line naming the full JSON
 * report, `opts.jsonFile` when given; ./report.ts {@link BoundedMarkdown}) or `table` (a terminal's, every row).
 */
export function formatDrift(r: DriftReport, format: ReportFormat, withUnmanaged: boolean, opts: OutputArgs = {}): string {
  if (format === "json") return `${jsonText(r)}\n`;
  const driftRows = r.drifted.flatMap((d) =>
    d.change === "deleted" ? [[d.type, d.name, d.uid ?? "", "deleted", "", "", ""]] : d.fields.map((f) => [d.type, d.name, d.uid ?? "", "changed", f.path, shown(f.state), shown(f.live)]),
  );
  const pendingRows = r.pending.map((p) => [p.type, p.name, p.op, p.fields.join(", ")]);
  const unmanagedRows = r.unmanaged.map((u) => [u.type, u.name, u.uid, u.parentUid]);
  const summary = `${r.drifted.length} drifted, ${r.pending.length} pending${withUnmanaged ? `, ${r.unmanaged.length} unmanaged` : ""}`;
  if (format === "markdown") {
    const md = new BoundedMarkdown(opts.maxChars);
    md.lines(`### Drift of stack ${mdCode(r.stack)}: ${summary}`, "");
    md.lines("**Drifted** (the API differs from the state: changed or deleted outside Pulumi)", "");
    md.table(["type", "name", "uid", "change", "field", "in state", "on the API"], driftRows);
    md.lines("**Pending** (what `pulumi up --refresh` would do)", "");
    md.table(["type", "name", "op", "fields"], pendingRows);
    if (withUnmanaged) {
      md.lines("**Unmanaged** (objects under the stack's groups that no stack holds)", "");
      md.table(["type", "name", "uid", "under"], unmanagedRows);
    }
    return md.text(opts.jsonFile);
  }
  const parts = [`stack ${r.stack}: ${summary}`, ""];
  parts.push("drifted (the API differs from the state: changed or deleted outside Pulumi):");
  parts.push(driftRows.length ? table(["type", "name", "uid", "change", "field", "in state", "on the API"], driftRows) : "  none", "");
  parts.push("pending (what `pulumi up --refresh` would do):");
  parts.push(pendingRows.length ? table(["type", "name", "op", "fields"], pendingRows) : "  none", "");
  if (withUnmanaged) {
    parts.push("unmanaged (objects under the stack's groups that no stack holds; `platform-pulumi unmanaged` gives the adoptUid lines):");
    parts.push(unmanagedRows.length ? table(["type", "name", "uid", "under"], unmanagedRows) : "  none", "");
  }
  return `${parts.join("\n")}`;
}

/** The `drift` subcommand's usage. */
export const DRIFT_USAGE = `usage: platform-pulumi drift --stack <name> [--cwd <dir>] [--format table|json|markdown|sarif] [--unmanaged] [--with <stack>]...
                           [--json-out <file>] [--max-chars <n>] [--timeout <d>]
  Reports what changed outside Pulumi (drifted: the API differs from the state), apart from what the program
  would change (pending: every step \`pulumi up --refresh\` would take). Runs one \`pulumi preview --refresh\`:
  changes neither the state nor the API. The stack's backend and credentials come from the environment.
  --stack <name>          the stack (required; or PULUMI_STACK)
  --cwd <dir>             the Pulumi project's folder (default: the current one)
${formatUsage(FORMATS)}
  --unmanaged             also list objects under the stack's groups that no stack holds (as \`platform-pulumi unmanaged\`)
  --with <stack>          with --unmanaged: a stack of another project, <org>/<project>/<stack>, whose objects count
                          as managed too (the other projects of a split export); repeat it for each
${OUTPUT_USAGE}
${TIMEOUT_USAGE}`;

/** What `drift`'s exit code 1 means (0: nothing drifted or unmanaged; pending changes alone are 0). */
const DRIFT_FOUND = "something drifted (or, with --unmanaged, is unmanaged); pending changes alone are 0";

/**
 * `platform-pulumi drift …`: parses `argv` (the arguments after `drift`), prints the report on stdout.
 * @returns the exit code (./frame.ts: 0 nothing drifted, 1 drift or unmanaged objects, 2 could not run).
 */
export function driftCommand(argv: readonly string[]): Promise<number> {
  const frame = { name: "drift", usage: DRIFT_USAGE, found: DRIFT_FOUND, formats: FORMATS, options: { unmanaged: { type: "boolean", default: false }, with: { type: "string", multiple: true }, ...OUTPUT_OPTIONS } } as const;
  return runStackFrame(frame, argv, async ({ ref, format, values }) => {
    const withUnmanaged = values["unmanaged"] === true;
    let others: string[];
    try {
      others = withStacksOf(values);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (others.length > 0 && !withUnmanaged) throw new UsageError(`--with ${JSON.stringify(others[0])} is not allowed: only with --unmanaged`);
    let output: OutputArgs;
    try {
      output = outputArgs(values);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const report = await driftReport(ref, { unmanaged: withUnmanaged, with: others });
    if (output.jsonFile !== undefined) writeFileSync(output.jsonFile, formatDrift(report, "json", withUnmanaged));
    if (format === "sarif") process.stdout.write(`${jsonText(driftSarif(report, await locatorFor(ref, [], false)))}\n`);
    else process.stdout.write(formatDrift(report, format, withUnmanaged, output));
    return driftExitCode(report);
  });
}

/** The drift rules: one per kind of finding. */
const DRIFT_RULES = {
  changed: { id: "drift/changed", text: "The object on the API differs from the stack's state: changed outside Pulumi.", level: "error" },
  deleted: { id: "drift/deleted", text: "The object is gone from the API: deleted outside Pulumi.", level: "error" },
  unmanaged: { id: "drift/unmanaged", text: "An object under the stack's groups that no stack holds (`platform-pulumi unmanaged` gives its adoptUid line).", level: "warning" },
  pending: { id: "drift/pending", text: "A step `pulumi up --refresh` would take: the program differs from the refreshed state (not drift; a change not yet applied).", level: "note" },
} as const;

function driftRule(kind: keyof typeof DRIFT_RULES): SarifRule {
  const r = DRIFT_RULES[kind];
  return { id: r.id, name: r.id, shortDescription: { text: r.text }, help: { text: `${r.text} Reported by \`platform-pulumi drift\` (README "Drift detection").` }, helpUri: INFORMATION_URI, defaultConfiguration: { level: r.level } };
}

/**
 * The drift report as SARIF: drifted resources (`drift/changed`, `drift/deleted`: error), unmanaged objects
 * (`drift/unmanaged`: warning, located by uid only: nothing declares them) and pending steps (`drift/pending`: note).
 */
export function driftSarif(r: DriftReport, locator?: SourceLocator): SarifLog {
  const b = new LogBuilder("drift", r.stack, locator);
  const at = (urn: string): SarifLocation => (locator ? locator.locate(urn) : { logicalLocations: [{ fullyQualifiedName: urn, kind: "resource" }] });
  for (const d of r.drifted) {
    const rule = driftRule(d.change);
    const what = d.change === "deleted" ? "deleted outside Pulumi" : `changed outside Pulumi: ${d.fields.map((f) => `${f.path} ${JSON.stringify(f.state)} in state, ${JSON.stringify(f.live)} on the API`).join("; ")}`;
    b.result(rule, {
      level: DRIFT_RULES[d.change].level,
      message: { text: `${d.type} ${d.name}${d.uid ? ` (${d.uid})` : ""}: ${what}` },
      locations: [at(d.urn)],
      partialFingerprints: fingerprint("drift", d.change, d.urn),
      properties: { status: "drifted", change: d.change, urn: d.urn, fields: d.fields.map((f) => f.path) },
    });
  }
  for (const u of r.unmanaged) {
    b.result(driftRule("unmanaged"), {
      level: "warning",
      message: { text: `${u.type} ${u.name} (${u.uid}) under ${u.parentUid} is held by no stack` },
      locations: [{ logicalLocations: [{ fullyQualifiedName: u.uid, name: u.name, kind: "object" }] }],
      partialFingerprints: fingerprint("drift", "unmanaged", u.type, u.uid),
      properties: { status: "unmanaged", type: u.type, uid: u.uid },
    });
  }
  for (const p of r.pending) {
    b.result(driftRule("pending"), {
      level: "note",
      message: { text: `${p.type} ${p.name}: pulumi up --refresh would ${p.op} it${p.fields.length ? ` (${p.fields.join(", ")})` : ""}` },
      locations: [at(p.urn)],
      partialFingerprints: fingerprint("drift", "pending", p.op, p.urn),
      properties: { status: "pending", op: p.op, urn: p.urn },
    });
  }
  return b.log();
}

