/**
 * What the gate (provider/commands/gate.ts) and the policy pack (policies/change.ts) exchange during a preview,
 * and how the gate knows the program under review did not change it (docs/policy.md "What the gate trusts").
 *
 * The gate names two paths in the preview's environment: the baseline it wrote ({@link BASELINE_ENV}) and a
 * folder for the pack's results ({@link GATE_OUT_ENV}). The program under review runs with the same environment,
 * so it can rewrite both. The pack's last policy, {@link GATE_INPUTS_POLICY}, reports the SHA-256 of the baseline
 * it judged against and of every file it wrote, as a policy event: the engine's event stream, which only the
 * engine and the analyzers write. The gate compares those digests with what it wrote and what it reads, and
 * refuses to judge (exit 2) when they differ.
 */
import { createHash } from "node:crypto";
import type { StackObject } from "./stack";

/**
 * The baseline the gate writes for the pack: the stack's resources of this package before the change and, when
 * the review reads the whole org (docs/access.md "The whole org"), the live org's objects outside the stack.
 */
export interface BaselineFile {
  /** Each resource's kind, URN, name and its inputs and outputs from the state. */
  objects: StackObject[];
  /** The objects under the org's root that the stack does not hold, read from the API (provider/access/orgRead.ts); absent: the stack alone. */
  outside?: StackObject[];
  /** Where each object of {@link outside} is managed, by uid: `stack <name>` or `unmanaged`. */
  managed?: Record<string, string>;
}

/**
 * The live org outside the stack, as the gate hands it to the pack when it reads the whole org: written while the
 * preview runs (the read and the preview side by side), as one rename, so the pack sees all of it or none.
 */
export interface OrgFile {
  /** As {@link BaselineFile.outside}. */
  outside: StackObject[];
  /** As {@link BaselineFile.managed}. */
  managed: Record<string, string>;
  /** Set when the org could not be read: the pack judges the stack alone, and the gate reports why (exit 2). */
  failed?: boolean;
}

/** The environment variable naming the {@link OrgFile} the gate writes for the pack (set only when it reads the org). */
export const ORG_ENV = "PLATFORM_GATE_ORG";

/** The environment variable naming the baseline file the gate writes for the pack. */
export const BASELINE_ENV = "PLATFORM_GATE_BASELINE";
/** The environment variable naming the folder where the pack leaves its structured results for the gate. */
export const GATE_OUT_ENV = "PLATFORM_GATE_OUT";
/**
 * The environment variable holding the severities a finding fails at (`critical,high` when unset, `none` for
 * never), read by the pack to split each rule's findings between the rule and its advisory twin
 * ({@link ADVISORY_SUFFIX}); the gate sets it from `--fail-severity`, so the engine's own verdict and the gate's are
 * the same (docs/policy.md "One verdict from every door").
 */
export const FAIL_SEVERITY_ENV = "PLATFORM_POLICY_FAIL_SEVERITY";
/**
 * The name suffix of a rule's advisory twin: `identity-bound-above-its-group.advisory` reports that rule's findings
 * below the failing severity, always advisory, so a plain `pulumi preview --policy-pack` fails on exactly the
 * findings the gate fails on.
 */
export const ADVISORY_SUFFIX = ".advisory";
/** The rule a policy name reports for: `x.advisory` is rule `x`'s advisory twin. */
export function ruleOf(policyName: string): string {
  return policyName.endsWith(ADVISORY_SUFFIX) ? policyName.slice(0, -ADVISORY_SUFFIX.length) : policyName;
}

/** The pack's policy that reports {@link GateInputs} (advisory; silent outside the gate). */
export const GATE_INPUTS_POLICY = "gate-inputs";

/** What the pack read and wrote for the gate, as SHA-256 digests (lower-case hex): the message of {@link GATE_INPUTS_POLICY}. */
export interface GateInputs {
  /** The digest of the baseline the pack judged against; null when it read none, `unreadable` when it could not. */
  baseline: string | null;
  /** The digest of the org file ({@link ORG_ENV}) the pack judged with; null or absent when it read none. */
  org?: string | null;
  /** Each file the pack wrote to the gate's folder (by name) and the digest of its whole content. */
  files: Record<string, string>;
}

/** The SHA-256 of `text` (UTF-8), in lower-case hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The {@link GateInputs} in a policy message (the engine's message is the policy's description, then the text).
 * @returns undefined when no line of `message` is a JSON object of that shape.
 */
export function parseGateInputs(message: string): GateInputs | undefined {
  for (const line of message.split("\n").reverse()) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const v = JSON.parse(t) as Partial<GateInputs>;
      const files = v.files;
      const org = v.org === undefined || v.org === null || typeof v.org === "string" ? (v.org ?? null) : undefined;
      if ((v.baseline === null || typeof v.baseline === "string") && org !== undefined && files && typeof files === "object" && Object.values(files).every((d) => typeof d === "string")) return { baseline: v.baseline, org, files };
    } catch {
      // not this line
    }
  }
  return undefined;
}
