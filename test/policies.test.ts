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
  identityIssuerHttps,
  identityNameFormat,
  identitySubjectNotWildcard,
  matchesAnything,
  noOwnerAtRoot,
  policies,
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
  it("has the seven policies with the required enforcement levels", () => {
    expect(Object.fromEntries(policies.map((p) => [p.name, p.enforcementLevel]))).toEqual({
      "group-name-format": "mandatory",
      "identity-name-format": "mandatory",
      "identity-issuer-https": "mandatory",
      "identity-subject-not-wildcard": "advisory",
      "no-owner-at-root": "advisory",
      "description-required": "advisory",
      "allowed-issuers": "mandatory",
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
