/**
 * Authorization: a token's identity may act only where it holds role bindings, and a binding on a group reaches
 * that group and all its descendants. A role grants capabilities (`CAP_*`); each route needs one capability
 * at one group (its scope). Forbidden is PERMISSION_DENIED (code 7).
 *
 * Built-in roles: viewer (get and list), editor (viewer + create and update; also overlay and binding deletes,
 * since the vendor's only overlay write capability is CAP_REGISTRY_OVERLAYS_EDIT), owner (editor + delete, roles
 * and role bindings), registry.pull (repo and tag reads).
 */
import { permissionDenied } from "./errors";
import type { Row, Store } from "./store";
import { isDescendant } from "./uidp";

/**
 * Capability names the emulator knows (the IAM, registry, events and vulnerability families of the API's enum).
 * Overlays and overlay bindings have only `CAP_REGISTRY_OVERLAYS_LIST` and `CAP_REGISTRY_OVERLAYS_EDIT` in the
 * vendor's enum (EDIT covers create and delete); subscriptions have `CAP_EVENTS_SUBSCRIPTION_*`.
 */
export const CAPABILITIES = [
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

/** A capability name. */
export type Capability = (typeof CAPABILITIES)[number];

const READ: Capability[] = [
  "CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST", "CAP_IAM_ROLES_LIST", "CAP_IAM_ROLE_BINDINGS_LIST", "CAP_IAM_IDENTITY_PROVIDERS_LIST",
  "CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST", "CAP_IAM_GROUP_INVITES_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_ADVISORIES_LIST",
  "CAP_REGISTRY_OVERLAYS_LIST", "CAP_EVENTS_SUBSCRIPTION_LIST",
];
const WRITE: Capability[] = [
  "CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE",
  "CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE", "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_REPO_CREATE", "CAP_REPO_UPDATE", "CAP_TAG_CREATE", "CAP_TAG_UPDATE", "CAP_REGISTRY_OVERLAYS_EDIT",
  "CAP_EVENTS_SUBSCRIPTION_CREATE", "CAP_EVENTS_SUBSCRIPTION_UPDATE",
];
const ADMIN: Capability[] = [
  "CAP_IAM_GROUPS_DELETE", "CAP_IAM_IDENTITY_DELETE", "CAP_IAM_IDENTITY_PROVIDERS_DELETE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE",
  "CAP_IAM_GROUP_INVITES_DELETE", "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE", "CAP_IAM_ROLES_DELETE",
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_ROLE_BINDINGS_DELETE",
  "CAP_REPO_DELETE", "CAP_TAG_DELETE", "CAP_EVENTS_SUBSCRIPTION_DELETE",
];

/** The built-in roles: name, description and capabilities. Immutable through the API. */
export const BUILTIN_ROLES: ReadonlyArray<{ name: string; description: string; capabilities: Capability[] }> = [
  { name: "viewer", description: "Built-in role: get and list at the group and its descendants.", capabilities: READ },
  { name: "editor", description: "Built-in role: viewer plus create and update.", capabilities: [...READ, ...WRITE] },
  { name: "owner", description: "Built-in role: editor plus deletes, roles and role bindings.", capabilities: [...READ, ...WRITE, ...ADMIN] },
  {
    name: "registry.pull",
    description: "Built-in role: pull images (read repos, tags and manifests).",
    capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET"],
  },
];

/** Computes what an identity may do, from the role bindings and roles in the store. */
export class Access {
  constructor(private readonly store: Store) {}

  /** Groups where `identityUid` holds `cap` (each reaching its descendants). */
  grants(identityUid: string, cap: Capability): string[] {
    const out: string[] = [];
    for (const b of this.store.roleBindings.where("identityUid", identityUid)) {
      const role = this.store.roles.get(b["roleUid"] as string);
      if ((role?.["capabilities"] as string[] | undefined)?.includes(cap)) out.push(b.uid.slice(0, b.uid.lastIndexOf("/")));
    }
    return out;
  }

  /** Whether `identityUid` holds `cap` at `scope` (a binding at `scope` or any ancestor). */
  can(identityUid: string, cap: Capability, scope: string): boolean {
    return this.grants(identityUid, cap).some((g) => g === scope || isDescendant(scope, g));
  }

  /**
   * Requires `cap` at `scope`.
   * @throws StatusError PERMISSION_DENIED naming the capability and the group.
   */
  require(identityUid: string, cap: Capability, scope: string): void {
    if (!this.can(identityUid, cap, scope)) throw permissionDenied(`identity ${identityUid} lacks ${cap} at ${scope}`);
  }

  /**
   * A List's visibility filter: rows whose scope the caller holds `cap` at, or null when the caller sees every
   * row of the org (a grant at the root group).
   * @param scopeOf the group a row's permissions are checked at, or undefined for rows everyone may read.
   */
  visibility(identityUid: string, cap: Capability, orgUid: string, scopeOf: (uid: string) => string | undefined): ((row: Row) => boolean) | null {
    const grants = this.grants(identityUid, cap);
    // A grant at the root reaches every row of the org; rows outside it (built-in roles, user identities) are
    // readable by everyone in this emulator. No filter means the List needs no scan.
    if (grants.includes(orgUid)) return null;
    return (row: Row) => {
      if (row.uid === identityUid) return true; // an identity always sees itself
      const scope = scopeOf(row.uid);
      if (scope === undefined) return true;
      return grants.some((g) => g === scope || isDescendant(scope, g));
    };
  }
}
