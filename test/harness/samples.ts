/**
 * Sample inputs of every kind of the registry, with every declared field set across a kind's samples: the export
 * round trip (`export-fields.unit.test.ts`) checks each field reaches the written program, and the native import
 * test (`native-import.test.ts`) imports one object of each kind by uid.
 */

export const DIGEST = `sha256:${"ab".repeat(32)}`;

/** What the samples refer to: the uids made so far, by kind, in order. */
export type Made = Record<string, string[]>;

/**
 * Sample inputs of every kind, with every declared field set across a kind's samples (the test checks that), the
 * parent and adoption fields aside. A field added to a declaration needs a value here; `export` needs no edit.
 */
export const SAMPLES: Record<string, (top: string, u: Made) => Array<Record<string, unknown>>> = {
  Group: (top) => [{ parentUid: top, name: "team", description: "The team", deleteTimeoutSeconds: 60 }],
  Identity: (top) => [
    { parentUid: top, name: "deployer", description: "Deploys", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/app:ref:refs/heads/main" } },
    { parentUid: top, name: "scanner", staticKeys: { issuer: "https://scanner.example.com", subject: "scanner", issuerKeys: '{"keys":[]}', expirationTime: "2030-01-01T00:00:00.000Z" } },
    { parentUid: top, name: "aws-deployer", awsIdentity: { awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/deployer" } },
    { parentUid: top, name: "cosigned", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" },
  ],
  Role: (top) => [{ parentUid: top, name: "auditor", description: "Reads IAM", capabilities: ["groups.list", "identity.list"] }],
  RoleBinding: (top, u) => [{ groupUid: top, identityUid: u["Identity"]![0], roleUid: u["Role"]![0] }],
  IdentityProvider: (top, u) => [
    {
      parentUid: top,
      name: "okta",
      description: "Staff sign-in",
      oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3", additionalScopes: ["groups"], groupsClaim: "groups" },
      clientSecret: "sample-client-secret",
      defaultRole: u["Role"]![0],
    },
  ],
  AccountAssociation: (_top, u) => [
    {
      groupUid: u["Group"]![0],
      name: "team-accounts",
      description: "The team's accounts",
      amazon: { account: "123456789012" },
      google: { projectId: "team-prod", projectNumber: "1234567890" },
      azure: { tenantId: "0b3c8f4e-1111-2222-3333-444455556666", clientIds: { deployer: "8d2f-0001" } },
      github: { appInstallations: { "4242": { installations: [{ installationId: "777", name: "team-org" }] } } },
      chainguard: { serviceBindings: { builder: "binding-1" } },
    },
  ],
  GroupInvite: (top, u) => [{ parentUid: top, roleUid: u["Role"]![0], ttl: "72h", email: "new@example.com", singleUse: true }],
  Repo: (top) => [
    {
      parentUid: top,
      name: "app",
      description: "The product",
      aliases: ["product"],
      activeTags: ["latest"],
      bundles: ["core"],
      catalogTier: "CATALOG_TIER_APPLICATION",
      customOverlay: { contents: { packages: ["bash"] }, environment: { MODE: "prod" } },
      readme: "# app\n\nThe product image.\n",
    },
  ],
  Tag: (_top, u) => [{ repoUid: u["Repo"]![0], name: "1.0", digest: DIGEST, bundles: ["core"], deprecated: true }],
  Overlay: (top) => [{ parentUid: top, name: "debug-tools", config: { contents: { packages: ["bash", "curl"] } } }],
  OverlayBinding: (_top, u) => [{ repoUid: u["Repo"]![0], overlay: u["Overlay"]![0], tags: ["1.0"] }],
  Subscription: (top) => [{ parentUid: top, sink: "https://hooks.example.com/team" }],
};

/** Made after the others: a repo that syncs from the first (its inherited fields cannot be set beside it). */
export const SYNCED_REPO = (top: string, u: Made) => ({ parentUid: top, name: "app-mirror", description: "A mirror", syncConfig: { source: u["Repo"]![0], amazon: "123456789012.dkr.ecr.us-east-1.amazonaws.com/app" } });
