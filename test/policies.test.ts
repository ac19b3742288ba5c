/**
 * Each policy's pass and fail cases, called with the arguments @pulumi/policy gives `validateResource`
 * (the pack object itself starts a server, so the policies are tested from their own module).
 */
import type { ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import {
  allowedIssuers,
  descriptionRequired,
  groupNameFormat,
  identityBoundAboveItsGroup,
  identityIssuerHttps,
  identityNameFormat,
  identitySubjectNotWildcard,
  matchesAnything,
  noOwnerAtRoot,
  policies,
  repoSyncSourceAllowed,
  sourceAllowed,
  subscriptionSinkHttps,
} from "../policies/rules";

const ROOT = "a".repeat(40);
const CHILD = `${ROOT}/0123456789abcdef`;

function violations(policy: ResourceValidationPolicy, kind: string, props: Record<string, unknown>, config: Record<string, unknown> = {}): string[] {
  const out: string[] = [];
  const args = {
    type: `pulumi-nodejs:dynamic/platform:${kind}`,
    props,
    urn: `urn:pulumi:s::p::pulumi-nodejs:dynamic/platform:${kind}::r`,
    name: "r",
    opts: {},
    isType: () => false,
    asType: () => undefined,
    getConfig: () => config,
  } as unknown as ResourceValidationArgs;
  void (policy.validateResource as (a: ResourceValidationArgs, r: (m: string) => void) => void)(args, (m) => out.push(m));
  return out;
}

describe("policy pack", () => {
  it("has the ten policies with the required enforcement levels", () => {
    expect(Object.fromEntries(policies.map((p) => [p.name, p.enforcementLevel]))).toEqual({
      "group-name-format": "mandatory",
      "identity-name-format": "mandatory",
      "identity-issuer-https": "mandatory",
      "identity-subject-not-wildcard": "advisory",
      "no-owner-at-root": "advisory",
      "description-required": "advisory",
      "allowed-issuers": "mandatory",
      "repo-sync-source-allowed": "mandatory",
      "subscription-sink-https": "mandatory",
      "identity-bound-above-its-group": "advisory",
    });
  });
});

describe("group-name-format / identity-name-format", () => {
  it("passes a good name and ignores other kinds", () => {
    expect(violations(groupNameFormat, "Group", { name: "platform team" })).toEqual([]);
    expect(violations(groupNameFormat, "Identity", { name: "BAD" })).toEqual([]);
  });
  it("quotes the name and the rule when the name breaks it", () => {
    expect(violations(groupNameFormat, "Group", { name: "Platform!" })).toEqual(['Group name "Platform!" must match ^[a-z0-9 ._-]{1,}$']);
    expect(violations(identityNameFormat, "Identity", { name: "ab" })).toEqual(['Identity name "ab" must be 3-63 characters long (it has 2)']);
    expect(violations(groupNameFormat, "Group", { name: "x".repeat(64) })[0]).toMatch(/3-63 characters long \(it has 64\)/);
  });
});

describe("identity-issuer-https", () => {
  it("passes an https issuer and an anchored pattern", () => {
    expect(violations(identityIssuerHttps, "Identity", { claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "s" } })).toEqual([]);
    expect(violations(identityIssuerHttps, "Identity", { claimMatch: { issuerPattern: "^https://gitlab\\.example\\.com$", subject: "s" } })).toEqual([]);
  });
  it("flags an http issuer and an unanchored pattern", () => {
    expect(violations(identityIssuerHttps, "Identity", { claimMatch: { issuer: "http://ci.example", subject: "s" } })).toEqual(['claimMatch.issuer "http://ci.example" is not an https URL']);
    expect(violations(identityIssuerHttps, "Identity", { claimMatch: { issuerPattern: "https://.*\\.example\\.com", subject: "s" } })[0]).toMatch(/not anchored/);
  });
});

describe("identity-subject-not-wildcard", () => {
  it("flags patterns that match anything", () => {
    for (const p of [".*", ".+", "^.*$", "^.+$", "(.*)", "[\\s\\S]*", ".*.*"]) expect(matchesAnything(p), p).toBe(true);
    expect(violations(identitySubjectNotWildcard, "Identity", { claimMatch: { issuer: "https://i", subjectPattern: ".*" } })[0]).toMatch(/matches any subject/);
  });
  it("passes narrow patterns", () => {
    for (const p of ["repo:my-org/.+:ref:refs/heads/main", "^system:serviceaccount:prod:[a-z-]+$", "x"]) expect(matchesAnything(p), p).toBe(false);
    expect(violations(identitySubjectNotWildcard, "Identity", { claimMatch: { issuer: "https://i", subjectPattern: "repo:my-org/app:.*" } })).toEqual([]);
  });
});

describe("no-owner-at-root", () => {
  it("flags an owner binding at the root group (configured role uid, or the hydrated role name)", () => {
    expect(violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, identityUid: "i", roleUid: "o".repeat(40) }, { ownerRoleUids: ["o".repeat(40)] })[0]).toMatch(/owner role at the root group/);
    expect(violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, identityUid: "i", roleUid: "r", role: { name: "owner" } })).toHaveLength(1);
  });
  it("passes an owner binding below the root, and other roles at the root", () => {
    expect(violations(noOwnerAtRoot, "RoleBinding", { groupUid: CHILD, roleUid: "o", role: { name: "owner" } })).toEqual([]);
    expect(violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, roleUid: "v", role: { name: "viewer" } })).toEqual([]);
  });
  it("uses the configured root group", () => {
    const other = "b".repeat(40);
    expect(violations(noOwnerAtRoot, "RoleBinding", { groupUid: other, role: { name: "owner" } }, { rootGroupUid: ROOT })).toEqual([]);
  });
});

describe("description-required", () => {
  it("flags a missing description on the default kinds and passes a described one", () => {
    expect(violations(descriptionRequired, "Group", { name: "team", description: "" })).toEqual(['Group "team" has no description']);
    expect(violations(descriptionRequired, "Group", { name: "team", description: "The team" })).toEqual([]);
    expect(violations(descriptionRequired, "RoleBinding", {})).toEqual([]);
  });
  it("takes the kinds from config", () => {
    expect(violations(descriptionRequired, "Group", { name: "team" }, { kinds: ["Identity"] })).toEqual([]);
    expect(violations(descriptionRequired, "RoleBinding", {}, { kinds: ["RoleBinding"] })).toHaveLength(1);
  });
});

describe("allowed-issuers", () => {
  it("checks nothing until issuers are configured", () => {
    expect(violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://anything" } })).toEqual([]);
  });
  it("flags an issuer outside the list, and patterns it cannot check", () => {
    const cfg = { issuers: ["https://token.actions.githubusercontent.com"] };
    expect(violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://token.actions.githubusercontent.com" } }, cfg)).toEqual([]);
    expect(violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://evil.example" } }, cfg)[0]).toMatch(/not one of the allowed issuers/);
    expect(violations(allowedIssuers, "Identity", { claimMatch: { issuerPattern: "^https://.*$" } }, cfg)[0]).toMatch(/cannot be checked/);
  });
});

describe("repo-sync-source-allowed", () => {
  const cfg = { sources: ["chainguard/nginx", "cgr.dev/chainguard/*"] };
  it("checks nothing until sources are configured, and passes repos that do not sync", () => {
    expect(violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "anyone/anything" } })).toEqual([]);
    expect(violations(repoSyncSourceAllowed, "Repo", { name: "app" }, cfg)).toEqual([]);
  });
  it("passes a listed source (exact or by prefix*) and names the source and the list otherwise", () => {
    expect(sourceAllowed("cgr.dev/chainguard/python", cfg.sources)).toBe(true);
    expect(violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "chainguard/nginx" } }, cfg)).toEqual([]);
    expect(violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "docker.io/library/nginx" } }, cfg)).toEqual([
      'repo "m" syncs from "docker.io/library/nginx", which is not one of the allowed sources: chainguard/nginx, cgr.dev/chainguard/*',
    ]);
    expect(violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "chainguard/nginx-fips" } }, cfg)).toHaveLength(1);
  });
});

describe("subscription-sink-https", () => {
  it("passes an https sink and flags anything else, quoting it", () => {
    expect(violations(subscriptionSinkHttps, "Subscription", { sink: "https://hooks.example.com/x" })).toEqual([]);
    expect(violations(subscriptionSinkHttps, "Subscription", { sink: "http://hooks.example.com/x" })).toEqual([
      'subscription sink "http://hooks.example.com/x" is not an https URL; events would travel unencrypted or nowhere',
    ]);
    expect(violations(subscriptionSinkHttps, "Subscription", { sink: "hooks.example.com" })).toHaveLength(1);
    expect(violations(subscriptionSinkHttps, "Group", { sink: "http://x" })).toEqual([]);
  });
});

describe("identity-bound-above-its-group", () => {
  const GRANDCHILD = `${CHILD}/fedcba9876543210`;
  it("flags a binding at an ancestor of the identity's group, naming both groups and the takeover", () => {
    const [v] = violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: ROOT, identityUid: `${GRANDCHILD}/1111111111111111`, roleUid: "r", role: { name: "editor" } });
    expect(v).toMatch(new RegExp(`lives in group ${GRANDCHILD} but is granted role editor at ${ROOT}, above it: anyone who may edit identities in ${GRANDCHILD}`));
    expect(violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: CHILD, identityUid: `${GRANDCHILD}/1111111111111111`, roleUid: "r" })).toHaveLength(1);
  });
  it("passes a binding at the identity's own group or below, in another branch, and for users", () => {
    expect(violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: CHILD, identityUid: `${CHILD}/1111111111111111` })).toEqual([]);
    expect(violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: GRANDCHILD, identityUid: `${CHILD}/1111111111111111` })).toEqual([]);
    expect(violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: `${ROOT}/2222222222222222`, identityUid: `${CHILD}/1111111111111111` })).toEqual([]);
    expect(violations(identityBoundAboveItsGroup, "RoleBinding", { groupUid: ROOT, identityUid: "b".repeat(40) })).toEqual([]);
  });
});
