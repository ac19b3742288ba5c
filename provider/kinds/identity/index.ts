/**
 * Identity: a workload identity under a group, trusted through OIDC claim matching
 * (`pulumi-nodejs:dynamic/platform:Identity`).
 *
 * Life cycle: create POSTs under `parentUid`; a change of `parentUid` replaces; a change of `name`,
 * `description` or `claimMatch` PATCHes exactly those fields; read returns the server's values as inputs so
 * drift shows; delete treats NOT_FOUND as done (the server also removes the identity's role bindings).
 */
import { isTrustworthyIssuer } from "../../validation";
import * as pulumi from "@pulumi/pulumi";
import type { ClaimMatch as ApiClaimMatch, ApiIdentity } from "../../client/types";
import { isUnknown, nameProblem, optionalStringProblem, re2Problem, uidpProblem, type Failures } from "../../validation";
import { z } from "zod";
import { createOnly, declareResource, mutable, output, parent } from "../../engine/declare";
import { adoptUidArg, createTime, descriptionArg, lookupsByName, nameArg, named, stringMap, uidArg, updateTime } from "../../engine/fieldTypes";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { IdentityArgs, IdentityInputs, IdentityOutputs, IdentityOutputProperties } from "./types";
export type { ClaimMatchArgs, ClaimMatch, StaticKeysArgs, StaticKeys, AwsIdentityArgs, AwsIdentity, IdentityArgs, IdentityInputs, IdentityOutputs, IdentityOutputProperties } from "./types";

/** The relationship kinds; an identity has exactly one, and switching kind replaces it. */
export const RELATIONSHIP_KINDS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;

/** Service principal names the API knows. */
export const SERVICE_PRINCIPALS = [
  "SERVICE_PRINCIPAL_COSIGNED", "SERVICE_PRINCIPAL_INGESTER", "SERVICE_PRINCIPAL_CATALOG_SYNCER", "SERVICE_PRINCIPAL_APKO_BUILDER",
  "SERVICE_PRINCIPAL_ENTITLEMENT_SYNCER", "SERVICE_PRINCIPAL_TENANT_SCANNER", "SERVICE_PRINCIPAL_SEDIMENTOLOGY", "SERVICE_PRINCIPAL_SKILLUP",
  "SERVICE_PRINCIPAL_MATERIALIZER", "SERVICE_PRINCIPAL_MICROFLOW", "SERVICE_PRINCIPAL_GUARDENER", "SERVICE_PRINCIPAL_MICROVM", "SERVICE_PRINCIPAL_SKILLS",
];

const PAIRS = [
  ["issuer", "issuerPattern", true],
  ["subject", "subjectPattern", true],
  ["audience", "audiencePattern", false],
] as const;

/** Drops unset and empty entries so server-filled blanks never show as drift. */
export function normalizeClaimMatch(cm: ApiClaimMatch | Record<string, unknown> | undefined): ApiClaimMatch {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cm ?? {})) {
    if (v === undefined || v === null || v === "") continue;
    if (typeof v === "object" && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out as ApiClaimMatch;
}

function claimMatchFailures(cm: unknown, f: Failures): void {
  if (isUnknown(cm)) return;
  if (typeof cm !== "object" || cm === null || Array.isArray(cm)) {
    f.add("claimMatch", "is required: an object with issuer (or issuerPattern) and subject (or subjectPattern)");
    return;
  }
  const o = cm as Record<string, unknown>;
  const issuer = o["issuer"];
  if (typeof issuer === "string" && !isUnknown(issuer) && !isTrustworthyIssuer(issuer)) {
    f.add("claimMatch.issuer", `must be an https URL (or http on loopback, for local issuers), got "${issuer}"`);
  }
  for (const [exact, pattern, required] of PAIRS) {
    const hasExact = o[exact] !== undefined && o[exact] !== "";
    const hasPattern = o[pattern] !== undefined && o[pattern] !== "";
    if (hasExact && hasPattern) f.add(`claimMatch.${exact}`, `set only one of ${exact} and ${pattern}`);
    else if (required && !hasExact && !hasPattern) f.add(`claimMatch.${exact}`, `one of ${exact} and ${pattern} is required`);
    f.add(`claimMatch.${exact}`, optionalStringProblem(o[exact]));
    f.add(`claimMatch.${pattern}`, optionalStringProblem(o[pattern]) ?? re2Problem(o[pattern]));
  }
  const cp = o["claimPatterns"];
  if (cp !== undefined && cp !== null && !isUnknown(cp)) {
    if (typeof cp !== "object" || Array.isArray(cp)) f.add("claimMatch.claimPatterns", "must be an object: claim name → RE2 pattern");
    else for (const [claim, p] of Object.entries(cp)) f.add(`claimMatch.claimPatterns[${JSON.stringify(claim)}]`, optionalStringProblem(p) ?? re2Problem(p));
  }
}

/** The relationship kind set in `o`, or undefined. */
export function kindOf(o: Partial<Record<(typeof RELATIONSHIP_KINDS)[number], unknown>>): (typeof RELATIONSHIP_KINDS)[number] | undefined {
  return RELATIONSHIP_KINDS.find((k) => o[k] !== undefined && o[k] !== null);
}

function relationshipOf(o: object): Partial<IdentityInputs> {
  const i = o as Record<string, unknown>;
  const kind = kindOf(i);
  if (!kind) return {};
  if (kind === "servicePrincipal") return { servicePrincipal: i[kind] as string };
  return { [kind]: normalizeClaimMatch(i[kind] as Record<string, unknown>) };
}

function staticKeysFailures(v: unknown, f: Failures): void {
  if (v === undefined || isUnknown(v)) return;
  if (typeof v !== "object" || v === null) return void f.add("staticKeys", "must be an object { issuer, subject, issuerKeys, ... }");
  const o = v as Record<string, unknown>;
  for (const k of ["issuer", "subject", "issuerKeys"]) if (!isUnknown(o[k]) && (typeof o[k] !== "string" || o[k] === "")) f.add(`staticKeys.${k}`, "is required (a string)");
  if (typeof o["issuerKeys"] === "string" && !isUnknown(o["issuerKeys"])) {
    try {
      const jwks = JSON.parse(o["issuerKeys"]) as { keys?: unknown };
      if (!Array.isArray(jwks.keys)) f.add("staticKeys.issuerKeys", 'must be a JWKS JSON document ({"keys": [...]})');
    } catch {
      f.add("staticKeys.issuerKeys", "is not JSON; give the issuer's JWKS document");
    }
  }
  // An expirationTime in the past is not an error here: checks must not start failing as time passes.
  if (o["expirationTime"] !== undefined && !isUnknown(o["expirationTime"]) && Number.isNaN(Date.parse(String(o["expirationTime"])))) {
    f.add("staticKeys.expirationTime", "must be an RFC 3339 timestamp");
  }
}

function awsFailures(v: unknown, f: Failures): void {
  if (v === undefined || isUnknown(v)) return;
  if (typeof v !== "object" || v === null) return void f.add("awsIdentity", "must be an object { awsAccount, arn | arnPattern, ... }");
  const o = v as Record<string, unknown>;
  if (!isUnknown(o["awsAccount"]) && !/^\d{12}$/.test(String(o["awsAccount"] ?? ""))) f.add("awsIdentity.awsAccount", "must be a 12-digit AWS account id");
  const has = (k: string) => o[k] !== undefined && o[k] !== "";
  if (has("arn") && has("arnPattern")) f.add("awsIdentity.arn", "set only one of arn and arnPattern");
  if (has("userId") && has("userIdPattern")) f.add("awsIdentity.userId", "set only one of userId and userIdPattern");
  if (!has("arn") && !has("arnPattern") && !has("userId") && !has("userIdPattern")) f.add("awsIdentity.arn", "one of arn, arnPattern, userId, userIdPattern is required");
  for (const k of ["arnPattern", "userIdPattern"]) f.add(`awsIdentity.${k}`, re2Problem(o[k]));
}

/** Relationship values in check's normal form: objects without unset or empty entries. */
function normalizeRelationship(v: unknown): unknown {
  return typeof v === "object" && v !== null ? normalizeClaimMatch(v as Record<string, unknown>) : v;
}

/** Identity.claimMatch (seed §2): OIDC claim rules, exact values or RE2 patterns. */
const ClaimMatchType = named(
  "iam",
  "ClaimMatch",
  z
    .object({
      issuer: z.string().optional().describe("Exact issuer URL, e.g. `https://token.actions.githubusercontent.com`."),
      issuerPattern: z.string().optional().describe("Issuer pattern, RE2 syntax (instead of `issuer`)."),
      subject: z.string().optional().describe("Exact subject, e.g. `repo:my-org/my-repo:ref:refs/heads/main`."),
      subjectPattern: z.string().optional().describe("Subject pattern, RE2 syntax (instead of `subject`)."),
      audience: z.string().optional().describe("Exact audience; default: the API's own audience."),
      audiencePattern: z.string().optional().describe("Audience pattern, RE2 syntax (instead of `audience`)."),
      claims: stringMap("Further claims that must equal these values: claim name → value."),
      claimPatterns: stringMap("Further claims that must match these patterns, RE2 syntax: claim name → pattern."),
    })
    .describe("The OIDC claims a token must carry to act as this identity. Exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal."),
);

/** Identity.staticKeys (seed §2): an issuer whose keys are given inline. */
const StaticKeysType = named(
  "iam",
  "StaticKeys",
  z
    .object({
      issuer: z.string().describe("The issuer URL tokens carry."),
      subject: z.string().describe("The subject tokens carry."),
      issuerKeys: z.string().describe("The issuer's public keys as a JWKS JSON string."),
      expirationTime: z.string().optional().describe("RFC 3339; after it the keys are no longer trusted."),
      audiences: z.array(z.string()).optional().describe("Audiences accepted; default: the API's own audience."),
    })
    .describe("An issuer whose keys are given inline. Exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal."),
);

/** Identity.awsIdentity (seed §2): an AWS principal. */
const AwsIdentityType = named(
  "iam",
  "AwsIdentity",
  z
    .object({
      awsAccount: z.string().describe("The 12-digit AWS account id."),
      arn: z.string().optional().describe("Exact principal ARN."),
      arnPattern: z.string().optional().describe("Principal ARN pattern, RE2 syntax (instead of `arn`)."),
      userId: z.string().optional().describe("Exact AWS user id."),
      userIdPattern: z.string().optional().describe("AWS user id pattern, RE2 syntax (instead of `userId`)."),
    })
    .describe("An AWS principal: `awsAccount` and `arn` | `arnPattern` and/or `userId` | `userIdPattern`. Exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal."),
);

/** The Identity kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const identityKind = declareResource<IdentityInputs, IdentityOutputs, ApiIdentity>({
  kind: "Identity",
  module: "iam",
  what: "identity",
  description: "A workload identity under a group, trusted through OIDC claim matching (`claimMatch`), inline keys (`staticKeys`), an AWS principal (`awsIdentity`) or a service principal.",
  collection: (c) => c.identities,
  blocksGroupDelete: true,
  lookups: lookupsByName("Identities", {
    listName: "Exact identity name. Default: any name.",
    name: "Exact identity name.",
    parentUid: "uid of the group the identity is in (`uidp.children_of`). Default: any group.",
    list: "Lists identities the caller can see, walking pages lazily. Identities in a group are its children (`childrenOf: groupUid`); user identities are root-level (`inRoot: true`).",
    listExample: "const ci = await getIdentities({ childrenOf: teamUid, name: \"github-actions\" });",
    oneExample: "const ci = await getIdentity({ name: \"github-actions\", parentUid: teamUid });",
  }),
  fields: {
    parentUid: parent({ type: uidArg("uid of the group the identity lives in. Changing it replaces the identity.") }),
    name: mutable({ check: nameProblem, type: nameArg("Identity") }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    claimMatch: mutable({ nested: claimMatchFailures, normalize: normalizeRelationship, type: ClaimMatchType.optional() }),
    staticKeys: mutable({ nested: staticKeysFailures, normalize: normalizeRelationship, type: StaticKeysType.optional() }),
    awsIdentity: mutable({ nested: awsFailures, normalize: normalizeRelationship, type: AwsIdentityType.optional() }),
    servicePrincipal: mutable({
      type: named("iam", "ServicePrincipal", z.enum(SERVICE_PRINCIPALS).describe("A service principal by enum name (seed §2).")).optional().describe("A service principal by enum name, e.g. `SERVICE_PRINCIPAL_COSIGNED`. Exactly one of claimMatch, staticKeys, awsIdentity, servicePrincipal."),
      check: (sp) => (sp === undefined || isUnknown(sp) || SERVICE_PRINCIPALS.includes(sp as string) ? undefined : `"${String(sp)}" is not one of ${SERVICE_PRINCIPALS.join(", ")}`),
    }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("identity") }),
  },
  // lastSeenTime moves on its own: output only, never an input, never a diff.
  server: {
    createTime,
    updateTime,
    lastSeenTime: output(z.string().describe("When a token for the identity was last seen, RFC 3339, set by the server (`\"\"` when it sends none). It moves on its own: never an input, never a diff.")),
  },
  hooks: {
    /** Exactly one relationship kind (a one-of on the wire). */
    check(n, f) {
      const set = RELATIONSHIP_KINDS.filter((k) => n[k] !== undefined && n[k] !== null);
      if (set.length === 0) f.add("claimMatch", `one of ${RELATIONSHIP_KINDS.join(", ")} is required`);
      else if (set.length > 1) f.add(set[1]!, `only one of ${RELATIONSHIP_KINDS.join(", ")} may be set, got ${set.join(" and ")}`);
    },
    /** A switch of relationship kind replaces; a change within the kind updates. */
    diff(olds, news, d) {
      const before = kindOf(olds);
      const after = kindOf(news);
      return before !== after && after !== undefined ? { changes: true, replaces: [...(d.replaces ?? []), after] } : d;
    },
    /** Only the relationship the identity has, normalized, so server-filled blanks never show as drift. */
    outputs(o, api) {
      const { claimMatch: _c, staticKeys: _s, awsIdentity: _a, servicePrincipal: _p, ...rest } = o;
      return { ...rest, ...relationshipOf(api) } as IdentityOutputs;
    },
    toWire: (i) => ({ name: i.name, description: i.description, ...relationshipOf(i) }),
    checkAdopted(existing, inputs) {
      if (kindOf(existing) !== kindOf(inputs)) {
        throw new Error(`adoptUid: identity ${existing.uid} is a ${kindOf(existing) ?? "user"} identity, not ${kindOf(inputs)} as declared`);
      }
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Identity extends IdentityOutputProperties {}

/**
 * A workload identity that tokens from an OIDC issuer can assume.
 *
 * @example
 * ```ts
 * const bot = new Identity("ci-bot", {
 *   parentUid: ci.uid,
 *   name: "ci-bot",
 *   claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
 * });
 * ```
 */
export class Identity extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = identityKind;

  /**
   * @param name Pulumi resource name (unique in the stack; not the identity's name).
   * @param args the identity's fields.
   * @param opts resource options.
   */
  constructor(name: string, args: IdentityArgs, opts?: pulumi.CustomResourceOptions) {
    super(identityKind, name, args, opts);
  }
}

export { isTrustworthyIssuer };
