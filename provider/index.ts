/**
 * platform-pulumi: Pulumi dynamic resources for the Platform API v2.
 *
 * Resources: {@link Group}, {@link Identity}, {@link RoleBinding}. Lookups: {@link getRoles}. A typed API
 * client: {@link PlatformClient}. Settings: stack config `platform:*` or `PLATFORM_*` environment variables
 * (see `config.ts`).
 */
export { Group, type GroupArgs, type GroupOutputs } from "./resources/group";
export { Identity, type IdentityArgs, type ClaimMatchArgs, type IdentityOutputs } from "./resources/identity";
export { RoleBinding, type RoleBindingArgs, type RoleBindingOutputs, type BindingRef } from "./resources/roleBinding";
export { getRoles, getRolesOutput, type GetRolesArgs } from "./lookups";
export { PlatformClient, type ClientOptions } from "./client/client";
export type { ListParams, Page, Paginator } from "./client/pagination";
export * from "./client/errors";
export type { Group as ApiGroup, Identity as ApiIdentity, Role as ApiRole, RoleBinding as ApiRoleBinding, Repo as ApiRepo, ClaimMatch } from "./client/schemas";
export { resolveSettings, SettingsError, type Settings } from "./config";
