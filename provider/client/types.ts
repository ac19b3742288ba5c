/**
 * The API's objects as plain TypeScript interfaces: the shapes the client returns and the lookups resolve to.
 *
 * Why plain interfaces: the package's public `.d.ts` must compile in a project made by
 * `pulumi new typescript` (strict, no `esModuleInterop`, no `skipLibCheck`), which zod's own declarations do not;
 * and a type with an index signature (zod's loose objects) makes every property lifted through `pulumi.Output`
 * an `Output<unknown>`. The zod schemas that check responses live in `schemas.ts`, behind this boundary, and are
 * declared against these interfaces, so the compiler keeps the two in step.
 *
 * Parsing is lenient (contract: "Responses may carry fields the seed does not list ... Parse leniently: never
 * fail on an unknown field, never drop a known one"): fields the server sends that are not declared here are
 * still carried on the objects at run time; they are just not part of the type.
 *
 * Timestamps are RFC 3339 strings with milliseconds and a `Z` suffix (contract §2, Common rules).
 */

/** What the client parses a response with: a zod schema, or anything with the same `safeParse`. */
export interface Parser<T> {
  /** Checks `value`; on success `data` is the parsed object, on failure `error.issues` say where and why. */
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

/**
 * A group's limits (contract §2, Group: "empty object when no limits are set; the v1 form shows integer members
 * `clusters`, `idps`, `repositories`"). Members the server sends besides these are carried at run time.
 */
export interface ApiResourceLimits {
  /** Most clusters the group may hold; absent when unlimited or not reported. */
  clusters?: number | undefined;
  /** Most identity providers the group may hold; absent when unlimited or not reported. */
  idps?: number | undefined;
  /** Most registry repositories the group may hold; absent when unlimited or not reported. */
  repositories?: number | undefined;
}

/** An IAM group as the API returns it (contract §2, Group). */
export interface ApiGroup {
  /** The group's uid: 40 hex characters for a root group, then `/` + 16 hex characters per level. */
  uid: string;
  /** Name, `^[a-z0-9 ._-]{1,}$`. */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** Limits set on the group; `{}` when none are set or the server sends none (or something that is not an object). */
  resourceLimits: ApiResourceLimits;
  /** Whether the group is verified; `false` for a new group, and when the server sends none (or a non-boolean). */
  verified: boolean;
  /** Creation time, RFC 3339; absent when the server sends none. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339; absent when the server sends none. */
  updateTime?: string | undefined;
}

/**
 * Identity.claimMatch: the OIDC claims a token must carry. Patterns are RE2 regular expressions (Go's regexp)
 * matched against the whole claim.
 */
export interface ClaimMatch {
  /** Exact issuer URL. */
  issuer?: string | undefined;
  /** Issuer pattern (RE2), instead of `issuer`. */
  issuerPattern?: string | undefined;
  /** Exact subject claim. */
  subject?: string | undefined;
  /** Subject pattern (RE2), instead of `subject`. */
  subjectPattern?: string | undefined;
  /** Exact audience. */
  audience?: string | undefined;
  /** Audience pattern (RE2), instead of `audience`. */
  audiencePattern?: string | undefined;
  /** Further claims that must equal these values: claim name → value. */
  claims?: Record<string, string> | undefined;
  /** Further claims that must match these patterns (RE2): claim name → pattern. */
  claimPatterns?: Record<string, string> | undefined;
}

/** Identity.staticKeys: an issuer whose signing keys are given inline. */
export interface ApiStaticKeys {
  /** Issuer URL. */
  issuer?: string | undefined;
  /** Subject claim to match. */
  subject?: string | undefined;
  /** The issuer's public keys, as a JWKS JSON string. */
  issuerKeys?: string | undefined;
  /** RFC 3339; after it the keys are no longer trusted. */
  expirationTime?: string | undefined;
  /** Audiences accepted. */
  audiences?: string[] | undefined;
}

/** Identity.awsIdentity: an AWS principal (exact ARN / user id, or RE2 patterns). */
export interface ApiAwsIdentity {
  /** Exact role or user ARN. */
  arn?: string | undefined;
  /** ARN pattern (RE2). */
  arnPattern?: string | undefined;
  /** Exact AWS user id. */
  userId?: string | undefined;
  /** User id pattern (RE2). */
  userIdPattern?: string | undefined;
  /** The 12-digit AWS account id. */
  awsAccount?: string | undefined;
}

/** An IAM identity as the API returns it (contract §2, Identity); exactly one relationship field is set, or none for a user. */
export interface ApiIdentity {
  /** The identity's uid (its group's uid + `/` + 16 hex characters; single segment for users). */
  uid: string;
  /** Name. */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** When a token for this identity was last seen, RFC 3339, set by the server; `""` when the server sends none. */
  lastSeenTime: string;
  /** Creation time, RFC 3339; absent when the server sends none. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339; absent when the server sends none. */
  updateTime?: string | undefined;
  /** OIDC claim rules (claimMatch identities). */
  claimMatch?: ClaimMatch | undefined;
  /** Inline issuer keys (staticKeys identities). */
  staticKeys?: ApiStaticKeys | undefined;
  /** An AWS principal (awsIdentity identities). */
  awsIdentity?: ApiAwsIdentity | undefined;
  /** A service principal's enum name (servicePrincipal identities). */
  servicePrincipal?: string | undefined;
  /** The user's email (user identities). */
  email?: string | undefined;
}

/** An IAM role (built-in or custom) as the API returns it. */
export interface ApiRole {
  /** The role's uid: one 40-hex segment for a built-in role; its group's uid + `/` + 16 hex for a custom one. */
  uid: string;
  /** Name, e.g. `viewer`. */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** Capabilities in wire form (`CAP_IAM_GROUPS_LIST`); `[]` when the server sends none. */
  capabilities: string[];
  /** Creation time, RFC 3339; absent for built-in roles and when the server sends none. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339; absent when the server sends none. */
  updateTime?: string | undefined;
}

/** A group or role a role binding refers to, hydrated by the server (contract §2, RoleBinding). */
export interface ApiBindingRef {
  /** Its uid. */
  uid: string;
  /** Its name; `""` when the server sends none. */
  name: string;
  /** Its description; `""` when the server sends none. */
  description: string;
}

/** The identity a role binding refers to, hydrated by the server: `{uid, name, description, subject, issuer}`. */
export interface ApiBindingIdentityRef extends ApiBindingRef {
  /** The subject the identity matches (claimMatch identities). */
  subject?: string | undefined;
  /** The issuer the identity trusts (claimMatch identities). */
  issuer?: string | undefined;
  /** The user's email (user identities). */
  email?: string | undefined;
}

/** A role binding as the API returns it, hydrated with its identity, group and role (contract §2, RoleBinding). */
export interface ApiRoleBinding {
  /** The binding's uid (its group's uid + `/` + 16 hex characters). */
  uid: string;
  /** uid of the bound identity, when the server sends it (else see `identity.uid`). */
  identityUid?: string | undefined;
  /** uid of the bound role, when the server sends it (else see `role.uid`). */
  roleUid?: string | undefined;
  /** Creation time, RFC 3339 (bindings have no update time). */
  createTime?: string | undefined;
  /** The identity, hydrated. */
  identity?: ApiBindingIdentityRef | undefined;
  /** The group the binding is in, hydrated. */
  group?: ApiBindingRef | undefined;
  /** The role, hydrated. */
  role?: ApiBindingRef | undefined;
}

/**
 * registry.v2beta1.CatalogTier: the catalog tier a repo belongs to (OpenAPI `Repo.catalogTier`), by enum name.
 * `CATALOG_TIER_UNSPECIFIED` when none is set.
 */
export type CatalogTier =
  | "CATALOG_TIER_UNSPECIFIED"
  | "CATALOG_TIER_APPLICATION"
  | "CATALOG_TIER_BASE"
  | "CATALOG_TIER_FIPS"
  | "CATALOG_TIER_AI"
  | "CATALOG_TIER_DEVTOOLS"
  | "CATALOG_TIER_COMMERCIAL";

/** A `{name, content}` file of a custom overlay (an APK signing key or a PEM certificate). */
export interface ApiOverlayFile {
  /** File name. */
  name: string;
  /** PEM-encoded content. */
  content: string;
}

/**
 * registry.v2beta1.CustomOverlay: apko image customizations applied when a repo's images are rebuilt (a repo's
 * `customOverlay`; an overlay's `config`, which carries `contents.packages` only).
 */
export interface ApiCustomOverlay {
  /** Image contents: packages to append, runtime APK repositories and signing keys. */
  contents?:
    | {
        /** Packages to append to the image. */
        packages?: string[] | undefined;
        /** APK repository URLs written to /etc/apk/repositories (replacing the defaults). */
        runtimeRepositories?: string[] | undefined;
        /** APK signing public keys written to /etc/apk/keys. */
        runtimeKeyring?: ApiOverlayFile[] | undefined;
      }
    | undefined;
  /** Environment variables set in the image; keys starting `CHAINGUARD_` are refused by the API. */
  environment?: Record<string, string> | undefined;
  /** OCI annotations; keys starting `dev.chainguard.` or `org.opencontainers.` are refused by the API. */
  annotations?: Record<string, string> | undefined;
  /** Accounts: the run-as user, users and groups to add. */
  accounts?:
    | {
        /** Run-as user. */
        runAs?: string | undefined;
        /** Users to add (`username` required; ids are int32). */
        users?: Array<{ username: string; uid?: number | undefined; gid?: number | undefined; groupName?: string | undefined; homeDir?: string | undefined; shell?: string | undefined }> | undefined;
        /** Groups to add (`groupname` required). */
        groups?: Array<{ groupname: string; gid?: number | undefined; members?: string[] | undefined }> | undefined;
      }
    | undefined;
  /** Certificates: provider packages and additional PEM certificates. */
  certificates?: { providers?: string[] | undefined; additional?: ApiOverlayFile[] | undefined } | undefined;
}

/**
 * registry.v2beta1.SyncConfig as the API returns it (the repo's `sync_config`): `source` is always a repo UIDP in
 * responses; `expirationTime`, `gracePeriod`, `uniqueTags` and `apkoOverlay` are set by the service.
 */
export interface ApiSyncConfig {
  /** The source repo's uid (a catalog name or image reference given on write is stored as the uid). */
  source: string;
  /** AWS ECR repository images are also synced to. */
  amazon?: string | undefined;
  /** Google Artifact Registry repository images are also synced to. */
  google?: string | undefined;
  /** Azure ACR repository images are also synced to. */
  azure?: string | undefined;
  /** When syncing stops, RFC 3339 (14 days after creation by default). Set by the service. */
  expirationTime?: string | undefined;
  /** Whether the EOL grace period is on (the organization's setting). Set by the service. */
  gracePeriod?: boolean | undefined;
  /** Whether exported tags are uniquely labelled (the organization's setting). Set by the service. */
  uniqueTags?: boolean | undefined;
  /** The apko overlay applied on rebuilds during sync. Set by the service. */
  apkoOverlay?: string | undefined;
}

/** A registry repo as the API returns it (OpenAPI `registry.v2beta1.Repo`). */
export interface ApiRepo {
  /** The repo's uid (its group's uid + `/` + 16 hex characters). */
  uid: string;
  /** Name, e.g. `nginx` (an OCI repository name: the last part of the image reference). */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** Equivalent image names; `[]` when none. A synced repo shows its source's. */
  aliases?: string[] | undefined;
  /** Actively maintained tags; `[]` when none. A synced repo shows its source's. */
  activeTags?: string[] | undefined;
  /** Sales grouping labels; `[]` when none. A synced repo shows its source's. */
  bundles?: string[] | undefined;
  /** Catalog tier, a {@link CatalogTier} name (kept as sent when the enum grows); a synced repo shows its source's. */
  catalogTier?: string | undefined;
  /** Custom apko overlay applied on rebuilds; absent when none. */
  customOverlay?: ApiCustomOverlay | undefined;
  /** Sync settings (JSON name `sync_config`, as the OpenAPI spells it); absent for a repo that does not sync. */
  sync_config?: ApiSyncConfig | undefined;
  /** Creation time, RFC 3339; absent when the server sends none. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339; absent when the server sends none. */
  updateTime?: string | undefined;
}

/** A repo's README (OpenAPI `RepoReadme`, the `/repos/{uid}/readme` sub-resource). */
export interface ApiRepoReadme {
  /** The repo's uid. */
  uid: string;
  /** Raw Markdown; `""` when the repo has none. A synced repo's README is its source's. */
  content: string;
}

/** A named, reusable package overlay under a group (OpenAPI `registry.v2beta1.Overlay`). */
export interface ApiOverlay {
  /** The overlay's uid (its group's uid + `/` + 16 hex characters). */
  uid: string;
  /** Name, unique among the group's overlays. */
  name: string;
  /** Its content, rendered packages-only: `{ contents: { packages } }`. */
  config: ApiCustomOverlay;
  /** Creation time, RFC 3339, when the server sends one. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339, when the server sends one. */
  updateTime?: string | undefined;
}

/** An overlay bound to one repo under exact tags (OpenAPI `registry.v2beta1.OverlayBinding`). */
export interface ApiOverlayBinding {
  /** The binding's uid (its repo's uid + `/` + 16 hex characters). */
  uid: string;
  /** uid of the repo it applies to. */
  repo?: string | undefined;
  /** The exact tag names it applies to. */
  tags: string[];
  /** The overlay, expanded inline (uid, name, packages-only config). */
  overlay?: { uid: string; name?: string | undefined; config?: ApiCustomOverlay | undefined } | undefined;
  /** Creation time, RFC 3339, when the server sends one. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339, when the server sends one. */
  updateTime?: string | undefined;
}

/** The OIDC settings of an identity provider as the API returns them; the API never returns the client secret. */
export interface ApiOidc {
  /** Issuer URL. */
  issuer?: string | undefined;
  /** OAuth client id. */
  clientId?: string | undefined;
  /** Never sent by the API; present only in requests. */
  clientSecret?: string | undefined;
  /** Scopes requested besides `openid`. */
  additionalScopes?: string[] | undefined;
  /** Claim holding the user's groups. */
  groupsClaim?: string | undefined;
  /** Whether PKCE is used. */
  pkceEnabled?: boolean | undefined;
}

/** An OIDC identity provider as the API returns it. */
export interface ApiIdentityProvider {
  /** The provider's uid. */
  uid: string;
  /** Name. */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** uid of the role new users get. */
  defaultRole?: string | undefined;
  /** OIDC settings (never the client secret). */
  oidc?: ApiOidc | undefined;
  /** Creation time, RFC 3339. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339. */
  updateTime?: string | undefined;
}

/** A group's association with cloud accounts as the API returns it; its uid is the group's uid. */
export interface ApiAccountAssociation {
  /** The group's uid. */
  uid: string;
  /** Name; `""` when none. */
  name: string;
  /** Description; `""` when none. */
  description: string;
  /** AWS: the 12-digit account id. */
  amazon?: { account?: string | undefined } | undefined;
  /** Google Cloud project. */
  google?: { projectId?: string | undefined; projectNumber?: string | undefined } | undefined;
  /** Azure tenant and client ids (name → client id). */
  azure?: { tenantId?: string | undefined; clientIds?: Record<string, string> | undefined } | undefined;
  /** GitHub app installations, as the API holds them (free-form JSON). */
  github?: Record<string, unknown> | undefined;
  /** Chainguard service bindings, as the API holds them (free-form JSON). */
  chainguard?: Record<string, unknown> | undefined;
  /** Creation time, RFC 3339. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339. */
  updateTime?: string | undefined;
}

/** The role an invite grants, hydrated by the server. */
export interface ApiInviteRole extends ApiBindingRef {
  /** Its capabilities in wire form; `[]` when the server sends none. */
  capabilities: string[];
}

/** An invitation to a group as the API returns it; `code` is present only in the create response. */
export interface ApiGroupInvite {
  /** The invite's uid. */
  uid: string;
  /** Email the invite is for; `""` when any. */
  email: string;
  /** uid of the role granted. */
  roleUid?: string | undefined;
  /** Whether the code works once only. */
  singleUse?: boolean | undefined;
  /** Id of the key that signed the code. */
  keyId?: string | undefined;
  /** The invite code (create response only). Secret. */
  code?: string | undefined;
  /** Creation time, RFC 3339. */
  createTime?: string | undefined;
  /** When the invite expires, RFC 3339. */
  expirationTime?: string | undefined;
  /** The role granted, hydrated. */
  role?: ApiInviteRole | undefined;
}

/** A registry tag (under a repo) as the API returns it. */
export interface ApiTag {
  /** The tag's uid (its repo's uid + `/` + 16 hex characters). */
  uid: string;
  /** Name, e.g. `latest`. */
  name: string;
  /** The digest it points at, e.g. `sha256:…`. */
  digest?: string | undefined;
  /** Whether the tag is deprecated. */
  deprecated?: boolean | undefined;
  /** Bundles the tag belongs to. */
  bundles?: string[] | undefined;
  /** Last update time, RFC 3339. */
  updateTime?: string | undefined;
}

/** One event in an advisory's history, as the API holds it (free-form JSON: its members are not part of the contract). */
export type ApiAdvisoryEvent = Record<string, unknown>;

/** A vulnerability advisory as the API returns it. */
export interface ApiAdvisory {
  /** The advisory's uid. */
  uid: string;
  /** Advisory id, e.g. `CGA-2x4m-7v6q-9r3c`. */
  advisoryId?: string | undefined;
  /** The artifact it is about, e.g. `nginx`. */
  artifactName?: string | undefined;
  /** The artifact's type. */
  artifactType?: string | undefined;
  /** The artifact's architecture. */
  artifactArchitecture?: string | undefined;
  /** The affected component. */
  componentName?: string | undefined;
  /** The affected component's type. */
  componentType?: string | undefined;
  /** Other ids of the same vulnerability (CVE, GHSA, …). */
  aliases?: string[] | undefined;
  /** The advisory's history. */
  events?: ApiAdvisoryEvent[] | undefined;
  /** Creation time, RFC 3339. */
  createTime?: string | undefined;
  /** Last update time, RFC 3339. */
  updateTime?: string | undefined;
}

/**
 * A webhook subscription as the deprecated `PlatformClient.subscriptions` returns it (the kind's own wire type is
 * `SubscriptionWire`, derived from its declaration).
 */
export interface LegacySubscriptionRow {
  /** uid. */
  uid: string;
  /** The https sink; `""` when the server sends none. */
  sink: string;
  /** Creation time. */
  createTime?: string | undefined;
  /** Update time. */
  updateTime?: string | undefined;
}
