/**
 * The API's built-in roles and the capabilities each grants, as the contract describes them (README "Access
 * review"; the emulator serves the same set, and `test/access-model.unit.test.ts` holds the two equal). Built-in roles
 * are found by name: their uids differ from one API to another.
 */

import type { CapabilityName } from "../capabilities";

// Typed by the one capability list (provider/capabilities.ts): a capability it does not name does not compile.
const READ: readonly CapabilityName[] = [
  "CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST", "CAP_IAM_ROLES_LIST", "CAP_IAM_ROLE_BINDINGS_LIST", "CAP_IAM_IDENTITY_PROVIDERS_LIST",
  "CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST", "CAP_IAM_GROUP_INVITES_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_ADVISORIES_LIST",
  "CAP_REGISTRY_OVERLAYS_LIST", "CAP_EVENTS_SUBSCRIPTION_LIST",
];
const WRITE: readonly CapabilityName[] = [
  "CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE",
  "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE",
  "CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE", "CAP_IAM_GROUP_INVITES_CREATE",
  "CAP_REPO_CREATE", "CAP_REPO_UPDATE", "CAP_TAG_CREATE", "CAP_TAG_UPDATE", "CAP_REGISTRY_OVERLAYS_EDIT",
  "CAP_EVENTS_SUBSCRIPTION_CREATE", "CAP_EVENTS_SUBSCRIPTION_UPDATE",
];
const ADMIN: readonly CapabilityName[] = [
  "CAP_IAM_GROUPS_DELETE", "CAP_IAM_IDENTITY_DELETE", "CAP_IAM_IDENTITY_PROVIDERS_DELETE", "CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE",
  "CAP_IAM_GROUP_INVITES_DELETE", "CAP_IAM_ROLES_CREATE", "CAP_IAM_ROLES_UPDATE", "CAP_IAM_ROLES_DELETE",
  "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLE_BINDINGS_UPDATE", "CAP_IAM_ROLE_BINDINGS_DELETE",
  "CAP_REPO_DELETE", "CAP_TAG_DELETE", "CAP_EVENTS_SUBSCRIPTION_DELETE",
];

/** Names of the built-in roles. */
export type BuiltinRoleName = "viewer" | "editor" | "owner" | "registry.pull";

/**
 * The built-in roles by name, each with its capabilities in wire form: viewer (gets and lists), editor (viewer
 * plus creates and updates), owner (editor plus deletes, roles and role bindings), registry.pull (repo and tag
 * reads).
 */
export const BUILTIN_ROLE_CAPABILITIES: Readonly<Record<BuiltinRoleName, readonly CapabilityName[]>> = {
  viewer: READ,
  editor: [...READ, ...WRITE],
  owner: [...READ, ...WRITE, ...ADMIN],
  "registry.pull": ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET"],
};

/** Whether `name` is a built-in role's name. */
export function isBuiltinRoleName(name: string): name is BuiltinRoleName {
  return Object.hasOwn(BUILTIN_ROLE_CAPABILITIES, name);
}
