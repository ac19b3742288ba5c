/**
 * platform-pulumi: Pulumi dynamic resources for the Platform API v2.
 *
 * Resources: {@link Group}, {@link Identity}, {@link Role}, {@link RoleBinding}, {@link IdentityProvider},
 * {@link AccountAssociation}, {@link GroupInvite}, {@link Repo}, {@link Tag}, {@link Overlay}, {@link OverlayBinding},
 * {@link Subscription}. Lookups: `get<Kind>` / `get<Kinds>` with `...Output` twins for groups, identities, roles,
 * role bindings, repos, tags, overlays, overlay bindings, subscriptions and advisories. A typed API client:
 * {@link PlatformClient}. Settings: stack config `platform:*` or `PLATFORM_*` environment variables (see
 * `config.ts`); credentials: a token, or workload identity through the token exchange (see `credentials.ts`).
 */
export { Group, type GroupArgs, type GroupOutputs } from "./kinds/group";
export {
  Identity,
  type IdentityArgs,
  type ClaimMatchArgs,
  type StaticKeysArgs,
  type AwsIdentityArgs,
  type IdentityOutputs,
  RELATIONSHIP_KINDS,
  SERVICE_PRINCIPALS,
} from "./kinds/identity";
export { Role, type RoleArgs, type RoleOutputs } from "./kinds/role";
export { RoleBinding, type RoleBindingArgs, type RoleBindingOutputs, type BindingRef } from "./kinds/roleBinding";
export { IdentityProvider, type IdentityProviderArgs, type OidcArgs, type IdentityProviderOutputs } from "./kinds/identityProvider";
export { AccountAssociation, type AccountAssociationArgs, type AccountAssociationOutputs, ACCOUNT_KINDS } from "./kinds/accountAssociation";
export { GroupInvite, type GroupInviteArgs, type GroupInviteOutputs } from "./kinds/groupInvite";
export { Repo, type RepoArgs, type RepoOutputs, type SyncConfigArgs, CATALOG_TIERS } from "./kinds/repo";
export { Tag, type TagArgs, type TagOutputs } from "./kinds/tag";
export { Overlay, type OverlayArgs, type OverlayConfigArgs, type OverlayOutputs } from "./kinds/overlay";
export { OverlayBinding, type OverlayBindingArgs, type OverlayBindingOutputs } from "./kinds/overlayBinding";
export { Subscription, type SubscriptionArgs, type SubscriptionOutputs, type SubscriptionWire } from "./kinds/subscription";
/** @deprecated A subscription as the API returns it: `SubscriptionWire` (derived from the kind's declaration). */
export type { SubscriptionWire as ApiSubscription } from "./kinds/subscription";
export * from "./lookups";
export { CAPABILITY_NAMES, dottedName, wireName, dottedNames } from "./capabilities";
export { PlatformClient, type ClientOptions, type CollectionDescription, type RetryInfo, type TagListParams, type AdvisoryListParams, type OverlayBindingListParams } from "./client/client";
export { DEFAULT_RETRY, type RetryPolicy } from "./client/retry";
export type { ListParams, Page, Paginator } from "./client/pagination";
export * from "./client/errors";
export type {
  ApiGroup,
  ApiResourceLimits,
  ApiIdentity,
  ApiStaticKeys,
  ApiAwsIdentity,
  ApiRole,
  ApiRoleBinding,
  ApiBindingRef,
  ApiBindingIdentityRef,
  ApiRepo,
  ApiRepoReadme,
  ApiSyncConfig,
  ApiCustomOverlay,
  ApiOverlayFile,
  ApiOverlay,
  ApiOverlayBinding,
  CatalogTier,
  ApiTag,
  ApiAdvisory,
  ApiAdvisoryEvent,
  ApiIdentityProvider,
  ApiOidc,
  ApiAccountAssociation,
  ApiGroupInvite,
  ApiInviteRole,
  ClaimMatch,
  Parser,
} from "./client/types";
export { resolveSettings, SettingsError, type Settings } from "./config";
export { orgUid } from "./orgUid";
export { tokenSource, CredentialError, TokenExchangeError, type TokenSource, type CredentialSettings } from "./credentials";
export {
  Org,
  ORG_TYPE,
  OrgFileError,
  parseOrgFile,
  checkOrgSpec,
  type OrgArgs,
  type OrgOutside,
  type OrgOutsidePaths,
  type OrgCounts,
  type OrgSpec,
  type OrgGroup,
  type OrgIdentity,
  type OrgRole,
  type OrgBinding,
  type OrgRepo,
  type OrgSubscription,
  type OrgLayout,
  type FlatGroup,
} from "./org";
