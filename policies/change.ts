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
import { readFileSync } from "node:fs";
import type { StackObject } from "../provider/access/stack";
import { compareSeverity, type Severity } from "../provider/access/severity";
import { DYNAMIC_TYPE_PREFIX } from "../provider/typeTokens";

/** The environment variable naming the baseline file. */
export const BASELINE_ENV = "PLATFORM_GATE_BASELINE";
/** The environment variable naming the folder where the pack leaves its structured results for the gate. */
export const GATE_OUT_ENV = "PLATFORM_GATE_OUT";

/** The baseline the gate writes: the stack's resources of this package before the change. */
export interface BaselineFile {
  /** Each resource's kind, URN, name and its inputs and outputs from the state. */
  objects: StackObject[];
}

let cached: { path: string; file: BaselineFile | undefined } | undefined;

/**
 * The baseline named by {@link BASELINE_ENV}, or undefined when the variable is unset (the pack run by hand).
 * @throws Error naming the file when it is set but cannot be read as a baseline.
 */
export function loadBaseline(): BaselineFile | undefined {
  const p = process.env[BASELINE_ENV];
  if (!p) return undefined;
  if (cached?.path === p) return cached.file;
  let file: BaselineFile;
  try {
    file = JSON.parse(readFileSync(p, "utf8")) as BaselineFile;
  } catch (err) {
    throw new Error(`${BASELINE_ENV}=${p}: not a readable baseline (${(err as Error).message})`, { cause: err });
  }
  if (!Array.isArray(file.objects)) throw new Error(`${BASELINE_ENV}=${p}: not a baseline (no "objects" array)`);
  cached = { path: p, file };
  return file;
}

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
