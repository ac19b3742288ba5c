/**
 * Each policy's pass and fail cases, called with the arguments @pulumi/policy gives `validateResource`
 * (the pack object itself starts a server, so the policies are tested from their own module).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { PolicyResource, ResourceValidationArgs, ResourceValidationPolicy, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { outsideWorkloads } from "../provider/access/claims";
import { BASELINE_ENV, failSeverities, FAIL_SEVERITY_ENV, judgeChange, parseTag, tagged } from "../policies/change";
import { ruleOf } from "../provider/access/gateChannel";
import { afterEach, describe, expect, it } from "vitest";
import { groupInviteNarrowWith, identityBoundAboveItsGroupWith, identityProviderDefaultRoleWith, noNewAccessWith, noOwnerAtRootWith, type RoleLookup } from "../policies/access";
import {
  allowedIssuers,
  customRoleNoEscalation,
  descriptionRequired,
  groupNameFormat,
  identityBoundAboveItsGroup,
  identityIssuerHttps,
  identityNameFormat,
  identitySubjectNotWildcard,
  matchesAnything,
  policies,
  repoSyncSourceAllowed,
  roleBoundAboveItsGroup,
  sourceAllowed,
  subscriptionSinkHttps,
} from "../policies/rules";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { readDocs } from "./harness/docs";

const ROOT = "a".repeat(40);
const CHILD = `${ROOT}/0123456789abcdef`;

/** @pulumi/policy's signal for a value not known during preview (matched by name, as the pack does). */
class UnknownValueError extends Error {
  override name = "UnknownValueError";
}

/** `props` whose `unknown` fields throw as @pulumi/policy's proxy does during preview. */
function withUnknown(props: Record<string, unknown>, unknown: readonly string[]): Record<string, unknown> {
  return new Proxy(props, {
    get: (o, k) => {
      if (typeof k === "string" && unknown.includes(k)) throw new UnknownValueError(`string value at .${k} can't be known during preview`);
      return (o as Record<string | symbol, unknown>)[k];
    },
  });
}

/** Built-in roles by uid, as the API would describe them (uids of one API; the pack finds roles by name). */
const ROLE_UID: Record<string, string> = { viewer: "1".repeat(40), editor: "2".repeat(40), owner: "3".repeat(40), "registry.pull": "4".repeat(40) };
const lookup: RoleLookup = async (uid) => {
  const name = Object.entries(ROLE_UID).find(([, u]) => u === uid)?.[0];
  return name ? { name, capabilities: BUILTIN_ROLE_CAPABILITIES[name as keyof typeof BUILTIN_ROLE_CAPABILITIES] } : undefined;
};
const noLookup: RoleLookup = async () => undefined;
const noOwnerAtRoot = noOwnerAtRootWith(() => lookup);

/** A finding's text without its severity tag (policies/change.ts); the tags have tests of their own. */
const bare = (m: string): string => parseTag(m).text;

async function violations(policy: ResourceValidationPolicy, kind: string, props: Record<string, unknown>, config: Record<string, unknown> = {}): Promise<string[]> {
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
  await (policy.validateResource as (a: ResourceValidationArgs, r: (m: string) => void) => Promise<void> | void)(args, (m) => out.push(m));
  return out.map(bare);
}

/** One resource of a stack policy's view: `unknown` fields throw, and follow `deps` (field → resource). */
interface Res {
  kind: string;
  name: string;
  props: Record<string, unknown>;
  unknown?: string[];
  deps?: Record<string, Res>;
}

/** Runs a stack policy over `resources` and returns its messages. */
async function stackViolations(policy: StackValidationPolicy, resources: Res[], config: Record<string, unknown> = {}, tags = false): Promise<string[]> {
  const made = new Map<Res, PolicyResource>();
  for (const r of resources) {
    made.set(r, {
      type: `pulumi-nodejs:dynamic/platform:${r.kind}`,
      urn: `urn:pulumi:s::p::pulumi-nodejs:dynamic/platform:${r.kind}::${r.name}`,
      name: r.name,
      props: withUnknown(r.props, r.unknown ?? []),
      opts: {},
      dependencies: [],
      propertyDependencies: {},
    } as unknown as PolicyResource);
  }
  for (const r of resources) for (const [f, d] of Object.entries(r.deps ?? {})) made.get(r)!.propertyDependencies[f] = [made.get(d)!];
  const out: string[] = [];
  const args = { resources: [...made.values()], getConfig: () => config, stackTags: new Map(), notApplicable: () => undefined as never } as unknown as StackValidationArgs;
  await (policy.validateStack as (a: StackValidationArgs, r: (m: string) => void) => Promise<void> | void)(args, (m) => out.push(tags ? m : bare(m)));
  return out;
}

describe("policy pack", async () => {
  it("has the sixteen policies with the required enforcement levels (escalation paths mandatory)", async () => {
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
      "identity-bound-above-its-group": "mandatory",
      "role-bound-above-its-group": "mandatory",
      "custom-role-no-escalation": "mandatory",
      "identity-provider-default-role": "mandatory",
      "group-invite-narrow": "mandatory",
      "no-new-access": "mandatory",
      "unused-access": "advisory",
      "unreviewed-resource": "mandatory",
    });
  });

  it("the policy table (docs/policy.md) lists every policy of the pack, with its level", async () => {
    const readme = readDocs();
    const start = readme.indexOf("| policy | level | what |");
    expect(start).toBeGreaterThan(0);
    const rows = readme.slice(start).split("\n").slice(2);
    const table = rows.slice(0, rows.findIndex((l) => !l.startsWith("|")));
    const listed = table.map((l) => l.split("|").map((c) => c.trim())).map((c) => [c[1]!.replace(/`/g, ""), c[2]!.replace(/ once configured$/, "")]);
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(policies.map((p) => [p.name, p.enforcementLevel])));
    expect(listed.map(([n]) => n)).toEqual(policies.map((p) => p.name));
  });
});

describe("group-name-format / identity-name-format", async () => {
  it("passes a good name and ignores other kinds", async () => {
    expect((await violations(groupNameFormat, "Group", { name: "platform team" }))).toEqual([]);
    expect((await violations(groupNameFormat, "Identity", { name: "BAD" }))).toEqual([]);
  });
  it("quotes the name and the rule when the name breaks it", async () => {
    expect((await violations(groupNameFormat, "Group", { name: "Platform!" }))).toEqual(['Group name "Platform!" must match ^[a-z0-9 ._-]{1,}$']);
    expect((await violations(identityNameFormat, "Identity", { name: "ab" }))).toEqual(['Identity name "ab" must be 3-63 characters long (it has 2)']);
    expect((await violations(groupNameFormat, "Group", { name: "x".repeat(64) }))[0]).toMatch(/3-63 characters long \(it has 64\)/);
  });
});

describe("identity-issuer-https", async () => {
  it("passes an https issuer and an anchored pattern", async () => {
    expect((await violations(identityIssuerHttps, "Identity", { claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "s" } }))).toEqual([]);
    expect((await violations(identityIssuerHttps, "Identity", { claimMatch: { issuerPattern: "^https://gitlab\\.example\\.com$", subject: "s" } }))).toEqual([]);
  });
  it("flags an http issuer and an unanchored pattern", async () => {
    expect((await violations(identityIssuerHttps, "Identity", { claimMatch: { issuer: "http://ci.example", subject: "s" } }))).toEqual(['claimMatch.issuer "http://ci.example" is not an https URL (nor http on a loopback address, a local test issuer)']);
    expect(await violations(identityIssuerHttps, "Identity", { claimMatch: { issuer: "http://127.0.0.1:8080/oidc", subject: "s" } })).toEqual([]);
    expect((await violations(identityIssuerHttps, "Identity", { claimMatch: { issuerPattern: "https://.*\\.example\\.com", subject: "s" } }))[0]).toMatch(/not anchored/);
  });
});

describe("identity-subject-not-wildcard", async () => {
  it("flags patterns that match anything", async () => {
    for (const p of [".*", ".+", "^.*$", "^.+$", "(.*)", "[\\s\\S]*", ".*.*"]) expect(matchesAnything(p), p).toBe(true);
    expect((await violations(identitySubjectNotWildcard, "Identity", { claimMatch: { issuer: "https://i", subjectPattern: ".*" } }))[0]).toMatch(/matches any subject/);
  });
  it("passes narrow patterns", async () => {
    for (const p of ["repo:my-org/.+:ref:refs/heads/main", "^system:serviceaccount:prod:[a-z-]+$", "x"]) expect(matchesAnything(p), p).toBe(false);
    expect((await violations(identitySubjectNotWildcard, "Identity", { claimMatch: { issuer: "https://i", subjectPattern: "repo:my-org/app:.*" } }))).toEqual([]);
  });
  it("says, for a well-known issuer, which workloads outside the org present a matching token", async () => {
    const gh = "https://token.actions.githubusercontent.com";
    const [broad] = await violations(identitySubjectNotWildcard, "Identity", { claimMatch: { issuer: gh, subjectPattern: "repo:my-org/.*" } });
    expect(broad).toMatch(/^claimMatch.subjectPattern "repo:my-org\/\.\*" admits tokens of GitHub Actions: any workflow of any repository under my-org; GitHub Actions: pull-request workflows of any repository under my-org, including pull requests from forks/);
    expect(outsideWorkloads({ issuer: gh, subjectPattern: "repo:my-org/app:.*" })).toEqual([
      "GitHub Actions: pull-request workflows of my-org/app, including pull requests from forks (code anyone can propose)",
      "GitHub Actions: a workflow on any branch of my-org/app (anyone who may push a branch)",
      "GitHub Actions: a workflow in any environment of my-org/app",
    ]);
    expect(outsideWorkloads({ issuer: gh, subjectPattern: "^repo:my-org/payments:ref:refs/heads/(main|release)$" })).toEqual([]);
    expect(outsideWorkloads({ issuer: "https://gitlab.com", subjectPattern: "project_path:grp/.*" })[0]).toBe("GitLab CI: any pipeline of any project under grp");
    expect(outsideWorkloads({ issuer: "https://accounts.google.com", subjectPattern: "[0-9]+" })).toEqual(["Google: any Google account or service account"]);
    expect(outsideWorkloads({ issuer: "https://agent.buildkite.com", subjectPattern: "organization:acme:pipeline:.*" })[0]).toBe("Buildkite: any pipeline of the Buildkite organization acme");
    expect(outsideWorkloads({ issuer: "https://issuer.example", subjectPattern: ".*" })).toEqual([]);
  });
});

describe("no-owner-at-root", async () => {
  it("flags an owner binding at the root group (configured role uid, or the hydrated role name)", async () => {
    expect((await violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, identityUid: "i", roleUid: "o".repeat(40) }, { ownerRoleUids: ["o".repeat(40)] }))[0]).toMatch(/owner role at the root group/);
    expect((await violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, identityUid: "i", roleUid: "r", role: { name: "owner" } }))).toHaveLength(1);
  });
  it("passes an owner binding below the root, and other roles at the root", async () => {
    expect((await violations(noOwnerAtRoot, "RoleBinding", { groupUid: CHILD, roleUid: "o", role: { name: "owner" } }))).toEqual([]);
    expect((await violations(noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, roleUid: "v", role: { name: "viewer" } }))).toEqual([]);
  });
  it("uses the configured root group", async () => {
    const other = "b".repeat(40);
    expect((await violations(noOwnerAtRoot, "RoleBinding", { groupUid: other, role: { name: "owner" } }, { rootGroupUid: ROOT }))).toEqual([]);
  });
});

describe("description-required", async () => {
  it("flags a missing description on the default kinds and passes a described one", async () => {
    expect((await violations(descriptionRequired, "Group", { name: "team", description: "" }))).toEqual(['Group "team" has no description']);
    expect((await violations(descriptionRequired, "Group", { name: "team", description: "The team" }))).toEqual([]);
    expect((await violations(descriptionRequired, "RoleBinding", {}))).toEqual([]);
  });
  it("takes the kinds from config", async () => {
    expect((await violations(descriptionRequired, "Group", { name: "team" }, { kinds: ["Identity"] }))).toEqual([]);
    expect((await violations(descriptionRequired, "RoleBinding", {}, { kinds: ["RoleBinding"] }))).toHaveLength(1);
  });
});

describe("allowed-issuers", async () => {
  it("checks nothing until issuers are configured", async () => {
    expect((await violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://anything" } }))).toEqual([]);
  });
  it("flags an issuer outside the list, and patterns it cannot check", async () => {
    const cfg = { issuers: ["https://token.actions.githubusercontent.com"] };
    expect((await violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://token.actions.githubusercontent.com" } }, cfg))).toEqual([]);
    expect((await violations(allowedIssuers, "Identity", { claimMatch: { issuer: "https://evil.example" } }, cfg))[0]).toMatch(/not one of the allowed issuers/);
    expect((await violations(allowedIssuers, "Identity", { claimMatch: { issuerPattern: "^https://.*$" } }, cfg))[0]).toMatch(/cannot be checked/);
  });
});

describe("repo-sync-source-allowed", async () => {
  const cfg = { sources: ["chainguard/nginx", "cgr.dev/chainguard/*"] };
  it("checks nothing until sources are configured, and passes repos that do not sync", async () => {
    expect((await violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "anyone/anything" } }))).toEqual([]);
    expect((await violations(repoSyncSourceAllowed, "Repo", { name: "app" }, cfg))).toEqual([]);
  });
  it("passes a listed source (exact or by prefix*) and names the source and the list otherwise", async () => {
    expect(sourceAllowed("cgr.dev/chainguard/python", cfg.sources)).toBe(true);
    expect((await violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "chainguard/nginx" } }, cfg))).toEqual([]);
    expect((await violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "docker.io/library/nginx" } }, cfg))).toEqual([
      'repo "m" syncs from "docker.io/library/nginx", which is not one of the allowed sources: chainguard/nginx, cgr.dev/chainguard/*',
    ]);
    expect((await violations(repoSyncSourceAllowed, "Repo", { name: "m", syncConfig: { source: "chainguard/nginx-fips" } }, cfg))).toHaveLength(1);
  });
});

describe("subscription-sink-https", async () => {
  it("passes an https sink and flags anything else, quoting it", async () => {
    expect((await violations(subscriptionSinkHttps, "Subscription", { sink: "https://hooks.example.com/x" }))).toEqual([]);
    expect((await violations(subscriptionSinkHttps, "Subscription", { sink: "http://hooks.example.com/x" }))).toEqual([
      'subscription sink "http://hooks.example.com/x" is not an https URL; events would travel unencrypted or nowhere',
    ]);
    expect((await violations(subscriptionSinkHttps, "Subscription", { sink: "hooks.example.com" }))).toHaveLength(1);
    expect((await violations(subscriptionSinkHttps, "Group", { sink: "http://x" }))).toEqual([]);
  });
});

describe("identity-bound-above-its-group (stack policy, judged by path)", () => {
  const GRANDCHILD = `${CHILD}/fedcba9876543210`;
  const binding = (identityUid: string, groupUid: string, role = "editor"): Res => ({ kind: "RoleBinding", name: "b", props: { identityUid, groupUid, roleUid: ROLE_UID[role], role: { name: role } } });
  it("flags a binding at an ancestor of the identity's group, naming both groups and the takeover", async () => {
    const [v] = await stackViolations(identityBoundAboveItsGroup, [binding(`${GRANDCHILD}/1111111111111111`, ROOT)]);
    expect(v).toBe(
      `role binding "b": identity ${GRANDCHILD}/1111111111111111 lives in group ${GRANDCHILD} but is granted role editor at /, above it: anyone who may update identities in ${GRANDCHILD} can rewrite this identity (its claimMatch) and assume that role at /; bind it at its own group or move the identity to /`,
    );
    expect(await stackViolations(identityBoundAboveItsGroup, [binding(`${GRANDCHILD}/1111111111111111`, CHILD)])).toHaveLength(1);
  });
  it("passes a binding at the identity's own group or below, in another branch, and for users", async () => {
    expect(await stackViolations(identityBoundAboveItsGroup, [binding(`${CHILD}/1111111111111111`, CHILD)])).toEqual([]);
    expect(await stackViolations(identityBoundAboveItsGroup, [binding(`${CHILD}/1111111111111111`, GRANDCHILD)])).toEqual([]);
    expect(await stackViolations(identityBoundAboveItsGroup, [binding(`${CHILD}/1111111111111111`, `${ROOT}/2222222222222222`)])).toEqual([]);
    expect(await stackViolations(identityBoundAboveItsGroup, [binding("b".repeat(40), ROOT)])).toEqual([]);
  });
  it("judges new identities and groups by path: an identity created in a new child group, bound owner at the root", async () => {
    const team: Res = { kind: "Group", name: "team", props: { name: "payments", parentUid: ROOT }, unknown: ["uid"] };
    const ci: Res = { kind: "Identity", name: "ci", props: { name: "payments-ci", parentUid: undefined }, unknown: ["uid", "parentUid"], deps: { parentUid: team } };
    const b: Res = { kind: "RoleBinding", name: "ci-owner", props: { groupUid: ROOT, roleUid: ROLE_UID["owner"] }, unknown: ["identityUid", "uid", "role"], deps: { identityUid: ci } };
    const [v] = await stackViolations(identityBoundAboveItsGroup, [team, ci, b]);
    expect(v).toMatch(/^role binding "ci-owner": identity \/payments\/payments-ci lives in group \/payments but is granted role 3{40} at \/, above it/);
    const inTeam: Res = { ...b, props: { roleUid: ROLE_UID["owner"] }, unknown: ["identityUid", "groupUid", "uid", "role"], deps: { identityUid: ci, groupUid: team } };
    expect(await stackViolations(identityBoundAboveItsGroup, [team, ci, inTeam])).toEqual([]);
  });
});

describe("identity-bound-above-its-group in a stack of a split export (docs/export.md \"One stack per top-level group\")", () => {
  // The security team's stack: its identity lives in its top-level group, which the root's stack declares (its uid
  // read through a StackReference, known at preview); the root's grant of a root role to that identity was moved
  // here by the split. The root group and the role are referred to by uid only.
  const SEC = `${ROOT}/5555555555555555`;
  const ENG = `${ROOT}/6666666666666666`;
  const APPS = `${ENG}/7777777777777777`;
  const INFRA = `${ROOT}/8888888888888888/9999999999999999`;
  const AUDITOR = `${ROOT}/aaaaaaaaaaaaaaaa`;
  const scanner: Res = { kind: "Identity", name: "security/scanner", props: { uid: `${SEC}/1111111111111111`, name: "scanner", parentUid: SEC } };
  const atRoot: Res = { kind: "RoleBinding", name: "security/scanner@/#auditor", props: { identityUid: `${SEC}/1111111111111111`, groupUid: ROOT, roleUid: AUDITOR } };
  const names: Record<string, string> = { [SEC]: "security", [ENG]: "engineering", [APPS]: "apps" };
  const named = identityBoundAboveItsGroupWith(() => ({ role: noLookup, group: async (u) => names[u] }));
  const unnamed = identityBoundAboveItsGroupWith(() => ({ role: noLookup, group: async () => undefined }));
  const expected = `role binding "security/scanner@/#auditor": identity /security/scanner lives in group /security but is granted role ${AUDITOR} at /, above it: anyone who may update identities in /security can rewrite this identity (its claimMatch) and assume that role at /; bind it at its own group or move the identity to /`;

  it("refuses the root's grant to a team's identity in the team's stack, as the one stack of the whole org does, naming the groups it does not declare", async () => {
    const secGroup: Res = { kind: "Group", name: "security", props: { uid: SEC, name: "security", parentUid: ROOT } };
    const oneStack = await stackViolations(unnamed, [secGroup, scanner, atRoot]);
    expect(oneStack).toEqual([expected]);
    expect(await stackViolations(named, [scanner, atRoot])).toEqual(oneStack);
    // Without the API to name the group, the same verdict, the group shown by its uid.
    expect(await stackViolations(unnamed, [scanner, atRoot])).toEqual([expected.replaceAll("/security", SEC)]);
  });

  it("refuses nothing it cannot see, and nothing that is not above: a root identity in a team, one team's identity in another's", async () => {
    const rootBot: Res = { kind: "RoleBinding", name: "/root-bot@security#viewer", props: { identityUid: `${ROOT}/2222222222222222`, groupUid: SEC, roleUid: ROLE_UID["viewer"] } };
    const across: Res = { kind: "RoleBinding", name: "engineering/apps/deployer@operations/infra#viewer", props: { identityUid: `${APPS}/3333333333333333`, groupUid: INFRA, roleUid: ROLE_UID["viewer"] } };
    const ownGroup: Res = { kind: "RoleBinding", name: "security/scanner@security#viewer", props: { identityUid: `${SEC}/1111111111111111`, groupUid: SEC, roleUid: ROLE_UID["viewer"] } };
    expect(await stackViolations(named, [scanner, rootBot, across, ownGroup])).toEqual([]);
    // An identity whose group comes from another stack's output not known at preview (no resource of this stack
    // declares it): nothing to judge it by, so no refusal on a guess.
    const ref: Res = { kind: "StackReference", name: "org", props: {} };
    const pending: Res = { kind: "Identity", name: "security/new-bot", props: { name: "new-bot" }, unknown: ["uid", "parentUid"], deps: { parentUid: ref } };
    const grant: Res = { kind: "RoleBinding", name: "security/new-bot@/#viewer", props: { groupUid: ROOT, roleUid: ROLE_UID["viewer"] }, unknown: ["identityUid", "uid"], deps: { identityUid: pending } };
    expect(await stackViolations(named, [ref, pending, grant])).toEqual([]);
  });
});

describe("role-bound-above-its-group (stack policy)", () => {
  it("(a) flags a custom role of a child group bound at the root, and passes one bound at its own group", async () => {
    const role: Res = { kind: "Role", name: "reader", props: { uid: `${CHILD}/aaaaaaaaaaaaaaaa`, name: "org-reader", parentUid: CHILD, capabilities: ["groups.list"] } };
    const atRoot: Res = { kind: "RoleBinding", name: "lead-reader", props: { identityUid: `${CHILD}/1111111111111111`, groupUid: ROOT, roleUid: `${CHILD}/aaaaaaaaaaaaaaaa` } };
    expect(await stackViolations(roleBoundAboveItsGroup, [role, atRoot])).toEqual([
      `role binding "lead-reader": custom role "org-reader" is defined in ${CHILD} but bound at /, above it: anyone who may update roles in ${CHILD} can add capabilities to it (role_bindings.create, groups.delete, …) and use them at /; define the role at /`,
    ]);
    expect(await stackViolations(roleBoundAboveItsGroup, [role, { ...atRoot, props: { ...atRoot.props, groupUid: CHILD } }])).toEqual([]);
  });
});

describe("the review's risky configurations each fire a policy", () => {
  const id = (relationship: Record<string, unknown>) => ({ name: "ci-bot", parentUid: CHILD, ...relationship });
  const gh = "https://token.actions.githubusercontent.com";
  const cases: Array<[string, ResourceValidationPolicy, string, Record<string, unknown>, RegExp]> = [
    ["subjectPattern repo:.*", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subjectPattern: "repo:.*" } }), /subjectPattern "repo:\.\*" matches what a foreign workload presents \("repo:attacker-org/],
    ["subjectPattern [^!]*", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subjectPattern: "[^!]*" } }), /matches what a foreign workload presents \(""\)/],
    ["subjectPattern any namespace", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subjectPattern: "system:serviceaccount:.*:default" } }), /attacker:default/],
    ["subjectPattern any repo of any org", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subjectPattern: "repo:[^/]+/[^:]+:ref:refs/heads/main" } }), /foreign workload/],
    ["audiencePattern .*", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subject: "s", audiencePattern: ".*" } }), /claimMatch.audiencePattern ".\*" matches/],
    ["audiencePattern https://.*", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subject: "s", audiencePattern: "https://.*" } }), /attacker\.example/],
    ["claimPatterns .*", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subject: "s", claimPatterns: { repository_owner: ".*" } } }), /claimPatterns.repository_owner/],
    ["claimPatterns .+", identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subject: "s", claimPatterns: { ref: ".+" } } }), /claimPatterns.ref ".\+" matches/],
    ["awsIdentity.arnPattern .*", identitySubjectNotWildcard, "Identity", id({ awsIdentity: { awsAccount: "123456789012", arnPattern: ".*" } }), /awsIdentity.arnPattern/],
    ["awsIdentity.arnPattern any account", identitySubjectNotWildcard, "Identity", id({ awsIdentity: { awsAccount: "123456789012", arnPattern: "arn:aws:iam::[0-9]+:role/.*" } }), /arn:aws:iam::000000000000:role\/attacker/],
    ["awsIdentity.userIdPattern .*", identitySubjectNotWildcard, "Identity", id({ awsIdentity: { awsAccount: "123456789012", userIdPattern: ".*" } }), /awsIdentity.userIdPattern/],
    ["issuerPattern ^https://.*$ without an issuer list", identityIssuerHttps, "Identity", id({ claimMatch: { issuerPattern: "^https://.*$", subject: "s" } }), /matches a foreign issuer \("https:\/\/attacker.example"\)/],
    ["issuerPattern any host", identityIssuerHttps, "Identity", id({ claimMatch: { issuerPattern: "^https://[a-z.]+$", subject: "s" } }), /foreign issuer/],
    ["identity provider defaultRole owner", identityProviderDefaultRoleWith(() => lookup), "IdentityProvider", { name: "sso", defaultRole: ROLE_UID["owner"] }, /gives everyone who signs in through it the role "owner"/],
    ["reusable owner invite valid for a year", groupInviteNarrowWith(() => lookup), "GroupInvite", { parentUid: ROOT, roleUid: ROLE_UID["owner"], ttl: "8760h", singleUse: false }, /grants "owner" and is reusable/],
    ["a viewer invite valid for a year", groupInviteNarrowWith(() => lookup), "GroupInvite", { parentUid: ROOT, roleUid: ROLE_UID["viewer"], ttl: "31536000s", singleUse: true }, /stays valid 31536000s, longer than 259200s/],
    ["custom role at the root that may create role bindings and edit roles", customRoleNoEscalation, "Role", { parentUid: ROOT, name: "admin-ish", capabilities: ["role_bindings.create", "CAP_IAM_ROLES_UPDATE"] }, /role_bindings.create lets its holder bind itself any role.*roles.update lets/],
    ["custom role that may rewrite bindings", customRoleNoEscalation, "Role", { parentUid: CHILD, name: "rebinder", capabilities: ["role_bindings.update"] }, /role_bindings.update/],
    ["owner at the root under the example config (no ownerRoleUids)", noOwnerAtRoot, "RoleBinding", { groupUid: ROOT, identityUid: `${CHILD}/1111111111111111`, roleUid: ROLE_UID["owner"] }, /is bound to the owner role at the root group/],
  ];
  it.each(cases)("%s", async (_what, policy, kind, props, message) => {
    const config = JSON.parse(readFileSync(path.join(__dirname, "..", "policies", "config.example.json"), "utf8"))[policy.name] ?? {};
    const found = await violations(policy, kind, props, config);
    expect(found.join("\n")).toMatch(message);
  });
  it("their narrow counterparts pass", async () => {
    expect(await violations(identitySubjectNotWildcard, "Identity", id({ claimMatch: { issuer: gh, subjectPattern: "repo:my-org/app:ref:refs/heads/(main|release-.+)", audiencePattern: "https://aud-[0-9]+\\.my-org\\.com", claimPatterns: { ref: "refs/heads/(main|release-.*)" } } }))).toEqual([]);
    expect(await violations(identitySubjectNotWildcard, "Identity", id({ awsIdentity: { awsAccount: "123456789012", arnPattern: "arn:aws:iam::123456789012:role/deployer-.+" } }))).toEqual([]);
    expect(await violations(identityIssuerHttps, "Identity", id({ claimMatch: { issuerPattern: "^https://gitlab\\.my-org\\.com$", subject: "s" } }))).toEqual([]);
    expect(await violations(identityProviderDefaultRoleWith(() => lookup), "IdentityProvider", { name: "sso", defaultRole: ROLE_UID["viewer"] })).toEqual([]);
    expect(await violations(groupInviteNarrowWith(() => lookup), "GroupInvite", { roleUid: ROLE_UID["owner"], ttl: "24h", singleUse: true })).toEqual([]);
    expect(await violations(customRoleNoEscalation, "Role", { name: "deployer", capabilities: ["groups.list", "repo.create"] })).toEqual([]);
  });
});

describe("no-owner-at-root decides from what is known at preview", () => {
  it("flags an owner binding of a new identity on the root group (identity unknown, role by name)", async () => {
    const props = withUnknown({ groupUid: ROOT, roleUid: ROLE_UID["owner"] }, ["identityUid", "role"]);
    expect(await violations(noOwnerAtRoot, "RoleBinding", props)).toEqual([`the identity of role binding "r" (created by this change) is bound to the owner role at the root group / (uid ${ROOT}); bind it lower in the tree or with a narrower role`]);
  });
  it("passes without reading unknowns: a group the change creates, a role it creates", async () => {
    expect(await violations(noOwnerAtRoot, "RoleBinding", withUnknown({ roleUid: ROLE_UID["owner"] }, ["groupUid", "identityUid"]))).toEqual([]);
    expect(await violations(noOwnerAtRoot, "RoleBinding", withUnknown({ groupUid: ROOT }, ["roleUid", "identityUid", "role"]))).toEqual([]);
  });
  it("says so when it cannot tell which built-in role a uid is (no API settings)", async () => {
    const [v] = await violations(noOwnerAtRootWith(() => noLookup), "RoleBinding", { groupUid: ROOT, identityUid: "i", roleUid: ROLE_UID["viewer"] });
    expect(v).toMatch(/cannot tell which role that is: give the pack the API's settings/);
  });
});

describe("no-new-access (stack policy)", () => {
  const policy = noNewAccessWith(() => lookup);
  const team: Res = { kind: "Group", name: "team", props: { uid: CHILD, name: "platform", parentUid: ROOT } };
  const ci: Res = { kind: "Identity", name: "ci", props: { name: "deployer" }, unknown: ["uid", "parentUid"], deps: { parentUid: team } };
  const bind = (role: string): Res => ({ kind: "RoleBinding", name: "ci-b", props: { groupUid: CHILD, roleUid: ROLE_UID[role] }, unknown: ["identityUid", "uid", "role"], deps: { identityUid: ci } });
  it("checks nothing until capabilities are configured", async () => {
    expect(await stackViolations(policy, [team, ci, bind("owner")])).toEqual([]);
  });
  it("flags a new identity gaining a matching capability, by path, with the way it gets it", async () => {
    const [v, more] = await stackViolations(policy, [team, ci, bind("editor")], { capabilities: ["groups.delete"] });
    expect(more).toBeUndefined();
    expect(v).toBe(`identity /platform/deployer would hold groups.delete at /platform (escalation: 1. "deployer" creates an invite to /platform with role "owner" and redeems it (group_invites.create)); it is not in no-new-access's allowedIdentities`);
    expect(await stackViolations(policy, [team, ci, bind("editor")], { capabilities: ["iam.groups.create"] })).toEqual([expect.stringContaining("groups.create at /platform (editor bound at /platform)")]);
  });
  it("passes allowed identities (by path or name) and capabilities outside the patterns", async () => {
    expect(await stackViolations(policy, [team, ci, bind("owner")], { capabilities: ["*.delete"], allowedIdentities: ["/platform/deployer"] })).toEqual([]);
    expect(await stackViolations(policy, [team, ci, bind("viewer")], { capabilities: ["*.delete", "*.create"] })).toEqual([]);
  });
});

describe("judging the change (policies/change.ts)", () => {
  const urn = "urn:pulumi:s::p::pulumi-nodejs:dynamic/platform:Identity::r";
  it("tags each finding with its severity, and 'already present' where the baseline has as bad a finding at the resource", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "baseline-"));
    const file = path.join(dir, "baseline.json");
    writeFileSync(file, JSON.stringify({ objects: [{ kind: "Identity", urn, name: "r", props: { claimMatch: { issuer: "http://old.example", subject: "s" } } }] }));
    const [judged] = judgeChange(identityIssuerHttps);
    const run = async (props: Record<string, unknown>, at = urn) => {
      const out: string[] = [];
      const args = { type: "pulumi-nodejs:dynamic/platform:Identity", props, urn: at, name: "r", opts: {}, isType: () => false, asType: () => undefined, getConfig: () => ({}) };
      await (judged.validateResource as (a: unknown, r: (m: string) => void) => Promise<void>)(args, (m) => out.push(m));
      return out;
    };
    const http = { claimMatch: { issuer: "http://new.example", subject: "s" } };
    try {
      expect(await run(http)).toEqual([expect.stringMatching(/^\[high\] claimMatch.issuer "http:\/\/new.example"/)]); // no baseline: nothing to compare
      process.env[BASELINE_ENV] = file;
      expect(await run(http)).toEqual([expect.stringMatching(/^\[high; already present\] claimMatch.issuer/)]);
      expect(await run(http, urn.replace("::r", "::other"))).toEqual([expect.stringMatching(/^\[high\] /)]);
      expect(parseTag("[low; already present] text")).toEqual({ severity: "low", alreadyPresent: true, text: "text" });
      expect(parseTag("no tag")).toEqual({ alreadyPresent: false, text: "no tag" });
    } finally {
      delete process.env[BASELINE_ENV];
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("one verdict from every door: each rule and its advisory twin (policies/change.ts)", () => {
  const urn = "urn:pulumi:s::p::pulumi-nodejs:dynamic/platform:Group::g";
  // A mandatory rule that finds one thing at each severity on every resource.
  const rule: ResourceValidationPolicy = {
    name: "three-findings",
    description: "finds three things",
    enforcementLevel: "mandatory",
    validateResource: (_a, report) => {
      report(tagged("critical", "worst"));
      report(tagged("high", "bad"));
      report(tagged("low", "minor"));
    },
  };
  const args = (at: string) => ({ type: "pulumi-nodejs:dynamic/platform:Group", props: {}, urn: at, name: "g", opts: {}, isType: () => false, asType: () => undefined, getConfig: () => ({}) });
  /** Runs the rule then its twin on `at`, as @pulumi/policy does (in pack order): what each reported. */
  const both = async (at = urn) => {
    const [judged, twin] = judgeChange(rule);
    const out: { rule: string[]; twin: string[] } = { rule: [], twin: [] };
    await (judged.validateResource as (a: unknown, r: (m: string) => void) => Promise<void>)(args(at), (m) => out.rule.push(m));
    await (twin.validateResource as (a: unknown, r: (m: string) => void) => Promise<void>)(args(at), (m) => out.twin.push(m));
    return { out, judged, twin };
  };
  afterEach(() => {
    delete process.env[FAIL_SEVERITY_ENV];
  });
  it("the rule keeps its level and reports critical and high; the twin, advisory with the rule's description, reports the rest once", async () => {
    const { out, judged, twin } = await both();
    expect(judged.enforcementLevel).toBe("mandatory");
    expect(twin).toMatchObject({ name: "three-findings.advisory", description: "finds three things", enforcementLevel: "advisory" });
    expect(ruleOf(twin.name)).toBe("three-findings");
    expect(out).toEqual({ rule: ["[critical] worst", "[high] bad"], twin: ["[low] minor"] });
    // Once: the twin run again on the same resource has nothing left.
    const again: string[] = [];
    await (twin.validateResource as (a: unknown, r: (m: string) => void) => Promise<void>)(args(urn), (m) => again.push(m));
    expect(again).toEqual([]);
  });
  it(`follows ${"PLATFORM_POLICY_FAIL_SEVERITY"} (the gate's --fail-severity): critical only, none, and a bad value named`, async () => {
    process.env[FAIL_SEVERITY_ENV] = "critical";
    expect((await both()).out).toEqual({ rule: ["[critical] worst"], twin: ["[high] bad", "[low] minor"] });
    process.env[FAIL_SEVERITY_ENV] = "none";
    expect((await both()).out).toEqual({ rule: [], twin: ["[critical] worst", "[high] bad", "[low] minor"] });
    process.env[FAIL_SEVERITY_ENV] = "critical,high,low";
    expect((await both()).out).toEqual({ rule: ["[critical] worst", "[high] bad", "[low] minor"], twin: [] });
    process.env[FAIL_SEVERITY_ENV] = "severe";
    expect(() => failSeverities()).toThrow(`PLATFORM_POLICY_FAIL_SEVERITY: "severe" is not a list of severities; allowed: critical, high, low`);
  });
  it("every rule of the shipped pack has its twin right after it, and every name is one CrossGuard accepts", () => {
    const all = policies.flatMap((p) => judgeChange(p));
    expect(all).toHaveLength(policies.length * 2);
    all.forEach((p, i) => {
      expect(p.name).toMatch(/^[a-zA-Z0-9-_.]{1,100}$/);
      if (i % 2 === 1) expect(p.name).toBe(`${all[i - 1]!.name}.advisory`);
    });
  });
});

describe("no-owner-at-root names the identity by path", () => {
  it("as every other finding does: /<group>/…/<identity>, from the hydrated name or the API; the uid when a name cannot be read", async () => {
    const identity = `${CHILD}/1111111111111111`;
    const names = { identity: async (u: string) => (u === identity ? "release-bot" : undefined), group: async (u: string) => (u === CHILD ? "platform" : undefined) };
    const policy = noOwnerAtRootWith(() => lookup, () => names);
    expect(await violations(policy, "RoleBinding", { groupUid: ROOT, identityUid: identity, roleUid: ROLE_UID["owner"] })).toEqual([
      `identity /platform/release-bot is bound to the owner role at the root group / (uid ${ROOT}); bind it lower in the tree or with a narrower role`,
    ]);
    const unnamed = noOwnerAtRootWith(() => lookup, () => ({ identity: async () => undefined, group: async () => undefined }));
    expect((await violations(unnamed, "RoleBinding", { groupUid: ROOT, identityUid: identity, roleUid: ROLE_UID["owner"] }))[0]).toContain(`identity ${identity} is bound`);
  });
});
