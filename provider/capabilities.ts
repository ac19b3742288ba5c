/**
 * Capability names. The API's wire form is the enum name (`CAP_IAM_GROUPS_LIST`); people and `chainctl` use the
 * dotted form (`groups.list`): the enum name without `CAP_` and `IAM_`, lower case, with the verb after a dot.
 * A `Role` takes either form and sends the wire form.
 */

/**
 * Capabilities this package knows, in wire form (the IAM, registry, events and vulnerability families): the one
 * list the provider (a Role's capabilities), the access model (provider/access) and the policy pack derive from;
 * `test/resources.unit.test.ts` holds it equal to the emulator's own copy (emulator/access.ts).
 */
export const CAPABILITY_NAMES = [
  "CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_DELETE",
  "CAP_IAM_GROUP_INVITES_CREATE", "CAP_IAM_GROUP_INVITES_LIST", "CAP_IAM_GROUP_INVITES_DELETE",
  "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE", "CAP_IAM_ROLES_LIST", "CAP_IAM_ROLES_DELETE",
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_ROLE_BINDINGS_LIST", "CAP_IAM_ROLE_BINDINGS_DELETE",
  "CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST", "CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE",
  "CAP_IAM_POLICY_CREATE", "CAP_IAM_POLICY_UPDATE", "CAP_IAM_POLICY_LIST", "CAP_IAM_POLICY_DELETE",
  "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE", "CAP_IAM_IDENTITY_LIST", "CAP_IAM_IDENTITY_DELETE",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_IDENTITY_PROVIDERS_LIST", "CAP_IAM_IDENTITY_PROVIDERS_DELETE",
  "CAP_IAM_SCIM_MANAGE",
  "CAP_REPO_BLOBS_GET", "CAP_REPO_CREATE", "CAP_REPO_UPDATE", "CAP_REPO_LIST", "CAP_REPO_DELETE",
  "CAP_MANIFEST_CREATE", "CAP_MANIFEST_UPDATE", "CAP_MANIFEST_LIST", "CAP_MANIFEST_DELETE", "CAP_MANIFEST_METADATA_LIST",
  "CAP_TAG_CREATE", "CAP_TAG_UPDATE", "CAP_TAG_LIST", "CAP_TAG_DELETE", "CAP_REFERRERS_LIST",
  "CAP_VULN_REPORT_CREATE", "CAP_VULN_REPORT_LIST", "CAP_VULN_CREATE",
  "CAP_ADVISORIES_CREATE", "CAP_ADVISORIES_UPDATE", "CAP_ADVISORIES_LIST", "CAP_ADVISORIES_DELETE", "CAP_ADVISORIES_APPROVE",
  "CAP_REGISTRY_OVERLAYS_EDIT", "CAP_REGISTRY_OVERLAYS_LIST",
  "CAP_EVENTS_SUBSCRIPTION_CREATE", "CAP_EVENTS_SUBSCRIPTION_UPDATE", "CAP_EVENTS_SUBSCRIPTION_LIST", "CAP_EVENTS_SUBSCRIPTION_DELETE",
] as const;

/** A capability this package knows, in wire form. */
export type CapabilityName = (typeof CAPABILITY_NAMES)[number];

/** The dotted form of a wire name: `CAP_IAM_ROLE_BINDINGS_CREATE` → `role_bindings.create`. */
export function dottedName(wire: string): string {
  const body = wire.replace(/^CAP_/, "").replace(/^IAM_/, "").toLowerCase();
  const i = body.lastIndexOf("_");
  return i < 0 ? body : `${body.slice(0, i)}.${body.slice(i + 1)}`;
}

const BY_DOTTED = new Map(CAPABILITY_NAMES.map((w) => [dottedName(w), w]));
const WIRE = new Set<string>(CAPABILITY_NAMES);

/** The wire name of a capability given in either form, or undefined when it is not a known capability. */
export function wireName(name: string): string | undefined {
  if (WIRE.has(name)) return name;
  return BY_DOTTED.get(name.trim().toLowerCase());
}

/** Every known capability in dotted form, sorted (for error messages and docs). */
export function dottedNames(): string[] {
  return [...BY_DOTTED.keys()].sort();
}
