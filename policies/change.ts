/**
 * Judging the change, not the stack (README "Policy gate"): every finding carries a severity, and a finding the
 * stack already had before the change is marked "already present".
 *
 * `platform-pulumi gate` writes the stack's state before the change (its resources of this package, as
 * {@link BaselineFile}) to a file and names it in `PLATFORM_GATE_BASELINE` for the preview; the pack reads it here.
 * Each policy then runs twice: on the change (the preview's resources) and on the baseline. A finding of the
 * change is "already present" when the same policy found one at the same resource in the baseline with the same
 * or a higher severity; otherwise it is new (a worse severity is new). Without a baseline (the pack run by hand,
 * `pulumi preview --policy-pack`), every finding is judged as before: there is nothing to compare with.
 *
 * A finding's severity and status travel in its message, as a leading tag the gate parses ({@link parseTag}):
 * `[critical] …`, `[low; already present] …`. A policy may tag its own messages ({@link tagged}); an untagged one
 * gets its level's severity: `high` when mandatory, `low` otherwise.
 */
import type { PolicyResource, ReportViolation, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { StackObject } from "../provider/access/stack";
import { compareSeverity, type Severity } from "../provider/access/severity";
import { DYNAMIC_TYPE_PREFIX } from "../provider/typeTokens";

import { BASELINE_ENV, GATE_INPUTS_POLICY, GATE_OUT_ENV, sha256, type GateInputs } from "../provider/access/gateChannel";

export { BASELINE_ENV, GATE_INPUTS_POLICY, GATE_OUT_ENV };

/** The baseline the gate writes: the stack's resources of this package before the change. */
export interface BaselineFile {
  /** Each resource's kind, URN, name and its inputs and outputs from the state. */
  objects: StackObject[];
}

let cached: { path: string; file: BaselineFile | undefined; sha256: string } | undefined;

/**
 * The baseline named by {@link BASELINE_ENV}, or undefined when the variable is unset (the pack run by hand).
 * @throws Error naming the file when it is set but cannot be read as a baseline.
 */
export function loadBaseline(): BaselineFile | undefined {
  const p = process.env[BASELINE_ENV];
  if (!p) return undefined;
  if (cached?.path === p) return cached.file;
  let file: BaselineFile;
  let text: string;
  try {
    text = readFileSync(p, "utf8");
    file = JSON.parse(text) as BaselineFile;
  } catch (err) {
    throw new Error(`${BASELINE_ENV}=${p}: not a readable baseline (${(err as Error).message})`, { cause: err });
  }
  if (!Array.isArray(file.objects)) throw new Error(`${BASELINE_ENV}=${p}: not a baseline (no "objects" array)`);
  // Read once per run: every policy judges against the same bytes, the ones {@link gateInputs} reports.
  cached = { path: p, file, sha256: sha256(text) };
  return file;
}

/** What the pack wrote for the gate this run, by file name (the whole content, appends included). */
const written = new Map<string, string>();

/**
 * Writes (or appends to) `name` in the folder {@link GATE_OUT_ENV} names, when the gate named one, and remembers
 * the content so {@link gateInputs} can report its digest. Does nothing outside the gate.
 */
export function writeGateFile(name: string, content: string, append = false): void {
  const out = process.env[GATE_OUT_ENV];
  if (!out) return;
  const all = `${append ? (written.get(name) ?? "") : ""}${content}`;
  written.set(name, all);
  writeFileSync(path.join(out, name), all);
}

/**
 * `gate-inputs` (advisory; reports only under the gate, when {@link BASELINE_ENV} or {@link GATE_OUT_ENV} is set):
 * the digests of the baseline the pack judged against and of every file it wrote for the gate, reported through
 * the engine's policy events, which the program under review cannot write. The program runs with the same
 * environment and can rewrite those files; the gate compares the digests with what it wrote and what it reads,
 * and refuses to judge when they differ (docs/policy.md "What the gate trusts"). It must be the pack's last
 * policy: @pulumi/policy runs stack policies in order, so every file is written by then.
 */
export const gateInputs: StackValidationPolicy = {
  name: GATE_INPUTS_POLICY,
  description: "The gate's integrity check: what the pack read and wrote for `platform-pulumi gate` (reported only under the gate).",
  enforcementLevel: "advisory",
  validateStack: (_args, report) => {
    if (!process.env[BASELINE_ENV] && !process.env[GATE_OUT_ENV]) return;
    let baseline: string | null = null;
    try {
      if (loadBaseline()) baseline = cached?.sha256 ?? null;
    } catch {
      baseline = "unreadable";
    }
    const inputs: GateInputs = { baseline, files: Object.fromEntries([...written].map(([k, v]) => [k, sha256(v)])) };
    report(JSON.stringify(inputs));
  },
};

/** The baseline's objects as the resources a stack policy sees (every value known, no property dependencies). */
export function baselineResources(file: BaselineFile): PolicyResource[] {
  return file.objects.map((o) => {
    const type = `${DYNAMIC_TYPE_PREFIX}${o.kind}`; // a baseline object is read by kind (kindOfType), whichever way it was served
    const r = {
      type,
      urn: o.urn,
      name: o.name,
      props: o.props,
      opts: {},
      dependencies: [],
      propertyDependencies: {},
      isType: () => false,
      asType: () => undefined,
    };
    return r as unknown as PolicyResource;
  });
}

const TAG = /^\[(critical|high|low)(?:; (already present))?\] /;

/** `message` with its severity tag in front. */
export function tagged(severity: Severity, message: string): string {
  return `[${severity}] ${message}`;
}

/** A finding's message taken apart: its severity and status, when tagged, and the text. */
export function parseTag(message: string): { severity?: Severity; alreadyPresent: boolean; text: string } {
  const m = TAG.exec(message);
  if (!m) return { alreadyPresent: false, text: message };
  return { severity: m[1] as Severity, alreadyPresent: m[2] !== undefined, text: message.slice(m[0].length) };
}

type Finding = { severity: Severity; text: string; urn: string | undefined };

function findingOf(message: string, urn: string | undefined, fallback: Severity): Finding {
  const t = parseTag(message);
  return { severity: t.severity ?? fallback, text: t.text, urn };
}

function fallbackOf(p: { enforcementLevel?: string | undefined }): Severity {
  return p.enforcementLevel === "mandatory" ? "high" : "low";
}

/** Reports `now`, each tagged with its severity, and "already present" where `before` has as bad a finding at its resource. */
function reportJudged(now: readonly Finding[], before: readonly Finding[] | undefined, report: ReportViolation): void {
  for (const f of now) {
    const present = before?.some((b) => b.urn === f.urn && compareSeverity(b.severity, f.severity) <= 0) ?? false;
    report(`[${f.severity}${present ? "; already present" : ""}] ${f.text}`, f.urn);
  }
}

/**
 * `policy` judging the change: its findings tagged with severity, and "already present" where the baseline has
 * the same finding. A policy that compares before and after itself (`no-new-access`) is only tagged.
 */
export function judgeChange<P extends ResourceValidationPolicy | StackValidationPolicy>(policy: P, opts: { comparesItself?: boolean } = {}): P {
  const fallback = fallbackOf(policy);
  if ("validateResource" in policy && policy.validateResource) {
    const inner = policy.validateResource;
    const fns = Array.isArray(inner) ? inner : [inner];
    const validateResource: ResourceValidationPolicy["validateResource"] = async (args, report) => {
      const now: Finding[] = [];
      for (const fn of fns) await fn(args, (m, u) => now.push(findingOf(m, u ?? args.urn, fallback)));
      if (now.length === 0) return;
      const file = opts.comparesItself ? undefined : loadBaseline();
      let before: Finding[] | undefined;
      if (file) {
        before = [];
        const old = baselineResources(file).find((r) => r.urn === args.urn);
        if (old) {
          try {
            for (const fn of fns) await fn({ ...args, type: old.type, props: old.props, name: old.name, urn: old.urn }, (m, u) => before!.push(findingOf(m, u ?? old.urn, fallback)));
          } catch {
            // The old resource cannot be judged (a value the policy needs is missing): its findings count as new.
          }
        }
      }
      reportJudged(now, before, report);
    };
    return { ...policy, validateResource };
  }
  const stack = policy as StackValidationPolicy;
  const inner = stack.validateStack;
  const validateStack: StackValidationPolicy["validateStack"] = async (args, report) => {
    const now: Finding[] = [];
    await inner(args, (m, u) => now.push(findingOf(m, u, fallback)));
    if (now.length === 0) return;
    const file = opts.comparesItself ? undefined : loadBaseline();
    let before: Finding[] | undefined;
    if (file) {
      before = [];
      try {
        await inner({ ...args, resources: baselineResources(file) }, (m, u) => before!.push(findingOf(m, u, fallback)));
      } catch {
        // The baseline cannot be judged: every finding counts as new.
      }
    }
    reportJudged(now, before, report);
  };
  return { ...stack, validateStack } as P;
}
