/**
 * Severity: how much an access finding is worth, from what it gives (README "Severity"; docs/access.md has the
 * table). One scale for every policy finding and every access change, so the gate can fail on what matters and
 * leave the rest advisory:
 *
 * | severity   | what is gained at a scope                                                                    |
 * |------------|----------------------------------------------------------------------------------------------|
 * | `critical` | owner-equivalent, or an IAM write that grants access: `role_bindings.*`, `roles.create`,      |
 * |            | `roles.update`, `identity.update`, `group_invites.create`, `identity_providers.*`             |
 * | `high`     | any other write or delete (`groups.delete`, `repo.create`, `advisories.delete`, …)            |
 * | `low`      | reads only (`*.list`, `repo.blobs_get`, `manifest.metadata_list`, `referrers.list`)           |
 *
 * The gate fails on `critical` and `high` by default (`--fail-severity` changes that); `low` is advisory.
 */
import { wireName } from "../capabilities";

/** A finding's severity, highest first. */
export type Severity = "critical" | "high" | "low";

/** Every severity, highest first. */
export const SEVERITIES: readonly Severity[] = ["critical", "high", "low"];

/** The severities the gate fails on unless told otherwise. */
export const DEFAULT_FAIL_SEVERITIES: readonly Severity[] = ["critical", "high"];

/** Capabilities (wire form) whose holder can grant access, its own included: `critical` wherever they are held. */
export const CRITICAL_CAPABILITIES: ReadonlySet<string> = new Set([
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_ROLE_BINDINGS_DELETE",
  "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_IDENTITY_UPDATE",
  "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_IDENTITY_PROVIDERS_DELETE",
]);

/** Whether a capability (wire form) only reads: a `*_LIST`, or a blob or manifest read. */
export function isReadOnly(wire: string): boolean {
  return /_LIST$/.test(wire) || wire === "CAP_REPO_BLOBS_GET";
}

/** The severity of holding one capability (wire or dotted form; an unknown name counts as a write, `high`). */
export function capabilitySeverity(capability: string): Severity {
  const wire = wireName(capability) ?? capability;
  if (CRITICAL_CAPABILITIES.has(wire)) return "critical";
  return isReadOnly(wire) ? "low" : "high";
}

/** The highest severity among `capabilities` (wire or dotted form); `low` for none. */
export function severityOf(capabilities: Iterable<string>): Severity {
  let best: Severity = "low";
  for (const c of capabilities) {
    const s = capabilitySeverity(c);
    if (s === "critical") return s;
    if (s === "high") best = s;
  }
  return best;
}

/** `a` compared with `b`: negative when `a` is more severe. */
export function compareSeverity(a: Severity, b: Severity): number {
  return SEVERITIES.indexOf(a) - SEVERITIES.indexOf(b);
}

/**
 * Parses a comma-separated list of severities (`critical,high`).
 * @throws Error naming the value and the allowed words when one is not a severity.
 */
export function parseSeverities(value: string, flag = "--fail-severity"): Severity[] {
  const words = value.split(",").map((w) => w.trim().toLowerCase()).filter((w) => w !== "");
  const bad = words.find((w) => !(SEVERITIES as readonly string[]).includes(w));
  if (bad !== undefined || words.length === 0) {
    throw new Error(`${flag}: "${value}" is not a list of severities; allowed: ${SEVERITIES.join(", ")} (comma-separated, e.g. critical,high)`);
  }
  return [...new Set(words as Severity[])];
}
