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
 *
 * One verdict from every door (docs/policy.md): a finding fails when its policy is mandatory and its severity is a
 * failing one ({@link FAIL_SEVERITY_ENV}, `critical,high` by default, the gate's `--fail-severity`). CrossGuard sets
 * the enforcement level per policy, not per finding, so every rule comes as two policies ({@link judgeChange}): the
 * rule, reporting its findings at a failing severity at its own (configurable) level, and its twin `<rule>.advisory`,
 * reporting the others, always advisory. A plain `pulumi preview --policy-pack`, a Pulumi Cloud policy group and
 * `platform-pulumi gate` then fail on the same findings.
 */
import type { PolicyResource, ReportViolation, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { compareSeverity, type Severity } from "../provider/access/severity";
import { DYNAMIC_TYPE_PREFIX } from "../provider/typeTokens";

import { ADVISORY_SUFFIX, BASELINE_ENV, FAIL_SEVERITY_ENV, GATE_INPUTS_POLICY, GATE_OUT_ENV, ORG_ENV, sha256, type BaselineFile, type GateInputs, type OrgFile } from "../provider/access/gateChannel";
import { DEFAULT_FAIL_SEVERITIES, parseSeverities } from "../provider/access/severity";

export { ADVISORY_SUFFIX, BASELINE_ENV, FAIL_SEVERITY_ENV, GATE_INPUTS_POLICY, GATE_OUT_ENV, type BaselineFile };

/**
 * The severities a finding fails at: {@link FAIL_SEVERITY_ENV} (comma-separated, or `none`), `critical,high` when
 * unset or empty.
 * @throws Error naming the variable, its value and the allowed words when it is not a list of severities.
 */
export function failSeverities(env: NodeJS.ProcessEnv = process.env): readonly Severity[] {
  const v = env[FAIL_SEVERITY_ENV]?.trim();
  if (!v) return DEFAULT_FAIL_SEVERITIES;
  if (v.toLowerCase() === "none") return [];
  return parseSeverities(v, FAIL_SEVERITY_ENV);
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

let orgCached: { path: string; file: OrgFile | undefined; sha256: string } | undefined;

/** How long the pack waits for the gate's org file ({@link ORG_ENV}): the gate's own --timeout bounds the run. */
const ORG_WAIT_MS = 600_000;

/**
 * The org the gate read outside the stack ({@link ORG_ENV}), once it has written it (the gate reads the org while
 * the preview runs, and renames the whole file into place), or undefined when the variable is unset.
 * @throws Error naming the file when it does not appear within {@link ORG_WAIT_MS} or cannot be read.
 */
export async function loadOrg(waitMs = ORG_WAIT_MS): Promise<OrgFile | undefined> {
  const p = process.env[ORG_ENV];
  if (!p) return undefined;
  if (orgCached?.path === p) return orgCached.file;
  const deadline = Date.now() + waitMs;
  while (!existsSync(p)) {
    if (Date.now() > deadline) throw new Error(`${ORG_ENV}=${p}: the gate did not write the org within ${Math.round(waitMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let text: string;
  let file: OrgFile;
  try {
    text = readFileSync(p, "utf8");
    file = JSON.parse(text) as OrgFile;
  } catch (err) {
    orgCached = { path: p, file: undefined, sha256: "unreadable" };
    throw new Error(`${ORG_ENV}=${p}: not a readable org file (${(err as Error).message})`, { cause: err });
  }
  if (!Array.isArray(file.outside)) {
    orgCached = { path: p, file: undefined, sha256: "unreadable" };
    throw new Error(`${ORG_ENV}=${p}: not an org file (no "outside" array)`);
  }
  // Read once per run; gate-inputs reports the digest of these bytes.
  orgCached = { path: p, file: file.failed ? undefined : file, sha256: sha256(text) };
  return orgCached.file;
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
    const inputs: GateInputs = { baseline, org: orgCached?.sha256 ?? null, files: Object.fromEntries([...written].map(([k, v]) => [k, sha256(v)])) };
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

/**
 * The findings below the failing severity a rule left for its advisory twin, by rule and resource (a rule runs
 * just before its twin on the same resource, and on the stack: @pulumi/policy runs a pack's policies in order).
 */
const leftForTwin = new Map<string, Array<{ message: string; urn: string | undefined }>>();
const twinKey = (rule: string, urn: string | undefined) => `${rule}\u0000${urn ?? ""}`;

/**
 * Reports `now`, each tagged with its severity, and "already present" where `before` has as bad a finding at its
 * resource; findings below the failing severity are left for the rule's advisory twin under `key`.
 */
function reportJudged(now: readonly Finding[], before: readonly Finding[] | undefined, report: ReportViolation, key: string): void {
  const failing = failSeverities();
  const low: Array<{ message: string; urn: string | undefined }> = [];
  for (const f of now) {
    const present = before?.some((b) => b.urn === f.urn && compareSeverity(b.severity, f.severity) <= 0) ?? false;
    const message = `[${f.severity}${present ? "; already present" : ""}] ${f.text}`;
    if (failing.includes(f.severity)) report(message, f.urn);
    else low.push({ message, urn: f.urn });
  }
  if (low.length) leftForTwin.set(key, low);
}

/** Reports what the rule left under `key` for its twin, once. */
function reportLeft(key: string, report: ReportViolation): void {
  const left = leftForTwin.get(key);
  leftForTwin.delete(key);
  for (const f of left ?? []) report(f.message, f.urn);
}

/**
 * `policy` judging the change, as two policies: the rule, reporting its findings at a failing severity
 * ({@link failSeverities}) at its own level, and its twin `<name>.advisory` ({@link ADVISORY_SUFFIX}), reporting
 * the rest, always advisory, with the rule's description. Findings are tagged with their severity, and "already
 * present" where the baseline has the same finding. A policy that compares before and after itself
 * (`no-new-access`) is only tagged. The twin must follow the rule in the pack; a rule disabled in the pack's config
 * leaves its twin nothing to report.
 */
export function judgeChange<P extends ResourceValidationPolicy | StackValidationPolicy>(policy: P, opts: { comparesItself?: boolean } = {}): [P, P] {
  const judged = judgeWhole(policy, opts);
  const twinBase = { name: `${policy.name}${ADVISORY_SUFFIX}`, description: policy.description, enforcementLevel: "advisory" as const };
  if ("validateResource" in judged && judged.validateResource) {
    const twin: ResourceValidationPolicy = { ...twinBase, validateResource: (args, report) => reportLeft(twinKey(policy.name, args.urn), report) };
    return [judged, twin as P];
  }
  const twin: StackValidationPolicy = { ...twinBase, validateStack: (_args, report) => reportLeft(twinKey(policy.name, undefined), report) };
  return [judged, twin as P];
}

function judgeWhole<P extends ResourceValidationPolicy | StackValidationPolicy>(policy: P, opts: { comparesItself?: boolean }): P {
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
      reportJudged(now, before, report, twinKey(policy.name, args.urn));
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
    reportJudged(now, before, report, twinKey(policy.name, undefined));
  };
  return { ...stack, validateStack } as P;
}
