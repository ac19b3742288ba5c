/**
 * IdentityProvider: an OIDC identity provider for an org's users (`pulumi-nodejs:dynamic/platform:IdentityProvider`).
 *
 * `clientSecret` is a secret input of its own (not inside `oidc`), so only it is secret in state. The API never
 * returns it: outputs keep it from the inputs, and a change of it PATCHes `oidc` with the new secret. A change
 * of `parentUid` replaces; the other fields PATCH in place.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiIdentityProvider as ApiIdp } from "../../client/types";
import { isUnknown, nameProblem, optionalStringProblem, uidpProblem, type Failures } from "../../validation";
import { z } from "zod";
import { createOnly, declareResource, mutable, parent } from "../../engine/declare";
import { adoptUidArg, createTime, descriptionArg, nameArg, named, uidArg, updateTime } from "../../engine/fieldTypes";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { IdentityProviderArgs, IdentityProviderInputs, IdentityProviderOutputs, IdentityProviderOutputProperties } from "./types";
export type { OidcArgs, Oidc, IdentityProviderArgs, IdentityProviderInputs, IdentityProviderOutputs, IdentityProviderOutputProperties } from "./types";

function normalizeOidc(o: object | undefined): IdentityProviderInputs["oidc"] {
  const { clientSecret: _secret, ...rest } = (o ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0) || v === false) continue;
    out[k] = v;
  }
  return out as unknown as IdentityProviderInputs["oidc"];
}

function oidcFailures(v: unknown, f: Failures): void {
  if (typeof v !== "object" || v === null || isUnknown(v)) return;
  const oidc = v as Record<string, unknown>;
  const issuer = oidc["issuer"];
  if (!isUnknown(issuer) && !(typeof issuer === "string" && /^https:\/\/\S+$/.test(issuer))) f.add("oidc.issuer", `must be an https URL, got ${JSON.stringify(issuer)}`);
  if (!isUnknown(oidc["clientId"]) && (typeof oidc["clientId"] !== "string" || oidc["clientId"] === "")) f.add("oidc.clientId", "is required");
  if ("clientSecret" in oidc) f.add("oidc.clientSecret", "give the secret as the top-level clientSecret argument, so only it is secret in state");
}

/** IdentityProvider.oidc (seed §2): the OIDC settings, without the client secret (its own field). */
const OidcType = named(
  "iam",
  "Oidc",
  z
    .object({
      issuer: z.string().describe("Issuer URL (https)."),
      clientId: z.string().describe("OAuth client id at the issuer."),
      additionalScopes: z.array(z.string()).optional().describe("Scopes requested besides `openid`; default none."),
      groupsClaim: z.string().optional().describe("Claim holding the user's groups; default none."),
      pkceEnabled: z.boolean().optional().describe("Use PKCE; default false."),
    })
    .describe("OIDC settings (the client secret is its own field, `clientSecret`)."),
);

/** The IdentityProvider kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const identityProviderKind = declareResource<IdentityProviderInputs, IdentityProviderOutputs, ApiIdp>({
  kind: "IdentityProvider",
  module: "iam",
  what: "identity provider",
  description: "An OIDC identity provider for an organization's users.",
  collection: (c) => c.identityProviders,
  blocksGroupDelete: true,
  fields: {
    parentUid: parent({ type: uidArg("uid of the group the provider belongs to. Changing it replaces the provider.") }),
    name: mutable({ check: nameProblem, type: nameArg("Identity provider") }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    oidc: mutable({
      type: OidcType,
      check: (v) => (isUnknown(v) || (typeof v === "object" && v !== null) ? undefined : "is required: { issuer, clientId, ... }"),
      nested: oidcFailures,
      normalize: (v) => (typeof v === "object" ? normalizeOidc(v as object) : v),
      fromServer: (v) => normalizeOidc(v as object | undefined),
    }),
    // Write-only (the API never returns it): kept from the inputs, sent inside `oidc`, always sent on adoption.
    clientSecret: mutable({
      type: z.string().describe("OAuth client secret: kept secret in state; the API never returns it, so it is sent inside `oidc` and never read back."),
      check: (v) => (isUnknown(v) || (typeof v === "string" && v !== "") ? undefined : "is required (a string; pass it as a secret)"),
      secret: true,
      writeOnly: true,
      maskPath: "oidc",
      fromServer: (_v, _api, local) => local["clientSecret"] ?? "",
    }),
    defaultRole: mutable({ check: uidpProblem, optional: true, fromServer: (v) => v || undefined, type: z.string().optional().describe("uid of the role new users get; default none.") }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("identity provider") }),
  },
  server: { createTime, updateTime },
  hooks: {
    toWire: (i) => ({ name: i.name, description: i.description, oidc: { ...i.oidc, clientSecret: i.clientSecret }, ...(i.defaultRole ? { defaultRole: i.defaultRole } : {}) }),
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface IdentityProvider extends IdentityProviderOutputProperties {}

/**
 * An OIDC identity provider for the org's users.
 *
 * `IdentityProvider.get` (read by uid, unmanaged): Its `clientSecret` output is `""`: the API never returns the secret.
 *
 * @example
 * ```ts
 * new IdentityProvider("okta", {
 *   parentUid: orgUid, name: "okta",
 *   oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3" },
 *   clientSecret: config.requireSecret("oktaClientSecret"),
 * });
 * ```
 */
export class IdentityProvider extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = identityProviderKind;

  /** @param name Pulumi resource name. @param args the provider's fields. @param opts resource options. */
  constructor(name: string, args: IdentityProviderArgs, opts?: pulumi.CustomResourceOptions) {
    super(identityProviderKind, name, args, opts);
  }
}
