/**
 * The effective-access model on hand-built orgs: direct grants listed once per subtree, and the escalation paths
 * an adversarial review carried out on the emulator (a custom role edited from below, an identity rewritten from
 * below), each reported with its steps. Its agreement with the API's enforcement is `test/conformance/access-agreement.unit.test.ts`.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_ROLES } from "../emulator/access";
import { capabilityMatcher, diffGrants, markdown, reportGrants, rolesFor, textTable } from "../provider/access/report";
import { orgFromStack, type StackObject } from "../provider/access/stack";
import { dottedName } from "../provider/capabilities";
import { objectsFromPlan } from "../provider/commands/access";
import { outsideStack } from "../provider/access/orgRead";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { capabilitySeverity, parseSeverities, severityOf } from "../provider/access/severity";
import { OrgIndex, effectiveAccess, holds, type AccessOrg, type AccessRole } from "../provider/access/model";

const builtins: AccessRole[] = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));

/** root ─ eng ─ platform; root ─ sales. */
function org(extra: Partial<AccessOrg>): AccessOrg {
  return {
    groups: [
      { id: "root", name: "acme" },
      { id: "eng", parentId: "root", name: "engineering" },
      { id: "plat", parentId: "eng", name: "platform" },
      { id: "sales", parentId: "root", name: "sales" },
      ...(extra.groups ?? []),
    ],
    identities: extra.identities ?? [],
    roles: [...builtins, ...(extra.roles ?? [])],
    bindings: extra.bindings ?? [],
    identityProviders: extra.identityProviders ?? [],
  };
}

describe("effective access: direct grants", () => {
  it("the built-in roles are the emulator's, capability for capability", () => {
    expect(Object.fromEntries(BUILTIN_ROLES.map((r) => [r.name, [...r.capabilities].sort()]))).toEqual(
      Object.fromEntries(Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([n, c]) => [n, [...c].sort()])),
    );
  });

  it("a binding grants the role's capabilities at its group, listed once at the subtree's root", () => {
    const o = org({
      identities: [{ id: "ci", name: "ci", groupId: "plat" }],
      bindings: [
        { identityId: "ci", roleId: "role:viewer", groupId: "eng" },
        { identityId: "ci", roleId: "role:viewer", groupId: "plat" },
      ],
    });
    const grants = effectiveAccess(o, { escalations: [] });
    expect(grants.map((g) => g.capability).sort()).toEqual([...BUILTIN_ROLE_CAPABILITIES.viewer].sort());
    expect(new Set(grants.map((g) => g.groupId))).toEqual(new Set(["eng"]));
    const ix = new OrgIndex(o);
    expect(holds(ix, grants, "ci", "CAP_IAM_GROUPS_LIST", "plat")?.groupId).toBe("eng");
    expect(holds(ix, grants, "ci", "CAP_IAM_GROUPS_LIST", "sales")).toBeUndefined();
    expect(ix.groupPath("plat")).toBe("/engineering/platform");
    expect(ix.groupPath("root")).toBe("/");
    expect(grants[0]!.via).toEqual([{ kind: "binding", roleId: "role:viewer", role: "viewer", boundAt: "eng", steps: [], path: [] }]);
  });

  it("a viewer has no escalation: the closure adds nothing", () => {
    const o = org({ identities: [{ id: "v", name: "v", groupId: "eng" }], bindings: [{ identityId: "v", roleId: "role:viewer", groupId: "root" }] });
    expect(effectiveAccess(o)).toEqual(effectiveAccess(o, { escalations: [] }));
  });
});

describe("effective access: escalation", () => {
  it("(a) the owner of a child group edits a custom role of that group bound at the root, then binds itself owner at the root", () => {
    const o = org({
      identities: [{ id: "lead", name: "eng-lead", groupId: "eng" }],
      roles: [{ id: "reader", name: "org-reader", groupId: "eng", capabilities: ["CAP_IAM_GROUPS_LIST"] }],
      bindings: [
        { identityId: "lead", roleId: "role:owner", groupId: "eng" },
        { identityId: "lead", roleId: "reader", groupId: "root" },
      ],
    });
    const direct = effectiveAccess(o, { escalations: [] });
    const ix = new OrgIndex(o);
    expect(holds(ix, direct, "lead", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
    const closed = effectiveAccess(o);
    const del = holds(ix, closed, "lead", "CAP_IAM_GROUPS_DELETE", "root")!;
    expect(del.groupId).toBe("root");
    expect(del.via[0]).toMatchObject({ kind: "escalation", role: "org-reader", boundAt: "root" });
    expect(del.via[0]!.steps).toEqual(['"eng-lead" adds groups.delete to custom role "org-reader" (defined at /engineering; roles.update held at /engineering)']);
    const bind = holds(ix, closed, "lead", "CAP_IAM_ROLE_BINDINGS_CREATE", "root")!;
    expect(bind.via[0]!.path.map((s) => s.kind)).toEqual(["editRole"]);
    // Owner's other capabilities at the root come from the edit too: nothing at the root is out of reach.
    for (const cap of BUILTIN_ROLE_CAPABILITIES.owner) expect(holds(ix, closed, "lead", cap, "root"), cap).toBeDefined();
  });

  it("(a') with only role_bindings.create added, the path goes on to bind owner at the root", () => {
    const o = org({
      identities: [{ id: "lead", name: "eng-lead", groupId: "eng" }],
      roles: [{ id: "binder", name: "binder", groupId: "eng", capabilities: ["CAP_IAM_ROLE_BINDINGS_CREATE"] }],
      bindings: [{ identityId: "lead", roleId: "binder", groupId: "root" }, { identityId: "lead", roleId: "role:owner", groupId: "eng" }],
    });
    const ix = new OrgIndex(o);
    const del = holds(ix, effectiveAccess(o, { escalations: ["bind"] }), "lead", "CAP_IAM_GROUPS_DELETE", "root")!;
    expect(del.via[0]).toMatchObject({ kind: "escalation", role: "owner", boundAt: "root", steps: ['"eng-lead" binds itself "owner" at / (role_bindings.create)'] });
  });

  it("(b) an editor of a child group rewrites the claimMatch of an identity of its group bound owner at the root, and acts as org owner", () => {
    const o = org({
      identities: [
        { id: "ed", name: "eng-editor", groupId: "eng" },
        { id: "deployer", name: "deployer", groupId: "eng" },
      ],
      bindings: [
        { identityId: "ed", roleId: "role:editor", groupId: "eng" },
        { identityId: "deployer", roleId: "role:owner", groupId: "root" },
      ],
    });
    const ix = new OrgIndex(o);
    const closed = effectiveAccess(o, { escalations: ["assume"] });
    const del = holds(ix, closed, "ed", "CAP_IAM_GROUPS_DELETE", "root")!;
    expect(del.groupId).toBe("root");
    expect(del.via[0]).toMatchObject({ kind: "escalation", role: "owner", boundAt: "root" });
    expect(del.via[0]!.steps).toEqual(['"eng-editor" rewrites the claimMatch of identity "deployer" (/engineering/deployer; identity.update held at /engineering) and exchanges a token for it']);
    // An editor elsewhere (sales) cannot reach the deployer.
    const o2 = { ...o, bindings: [{ identityId: "ed", roleId: "role:editor", groupId: "sales" }, o.bindings[1]!] };
    expect(holds(new OrgIndex(o2), effectiveAccess(o2, { escalations: ["assume"] }), "ed", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
  });

  it("an editor's invites and identity providers reach owner at its group, not above", () => {
    const o = org({ identities: [{ id: "ed", name: "ed", groupId: "eng" }], bindings: [{ identityId: "ed", roleId: "role:editor", groupId: "eng" }] });
    const ix = new OrgIndex(o);
    const inv = effectiveAccess(o, { escalations: ["invite"] });
    expect(holds(ix, inv, "ed", "CAP_IAM_GROUPS_DELETE", "plat")?.via[0]).toMatchObject({ role: "owner", boundAt: "eng", steps: ['"ed" creates an invite to /engineering with role "owner" and redeems it (group_invites.create)'] });
    expect(holds(ix, inv, "ed", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
    const idp = effectiveAccess(o, { escalations: ["identityProvider"] });
    expect(holds(ix, idp, "ed", "CAP_IAM_ROLE_BINDINGS_CREATE", "eng")?.via[0]!.steps[0]).toMatch(/creates an identity provider at \/engineering whose default role is "owner"/);
  });

  it("steps chain: take over an identity, then use its role_bindings.create", () => {
    const o = org({
      identities: [
        { id: "ed", name: "ed", groupId: "plat" },
        { id: "binder", name: "binder", groupId: "plat" },
      ],
      roles: [{ id: "rb", name: "rb-only", groupId: "root", capabilities: ["CAP_IAM_ROLE_BINDINGS_CREATE"] }],
      bindings: [
        { identityId: "ed", roleId: "role:editor", groupId: "plat" },
        { identityId: "binder", roleId: "rb", groupId: "sales" },
      ],
    });
    const ix = new OrgIndex(o);
    const g = holds(ix, effectiveAccess(o, { escalations: ["assume", "bind"] }), "ed", "CAP_IAM_GROUPS_DELETE", "sales")!;
    expect(g.via[0]!.path.map((s) => s.kind)).toEqual(["assume", "bind"]);
    expect(g.via[0]!.steps[1]).toBe('"binder" binds itself "owner" at /sales (role_bindings.create)');
  });
});

describe("a preview's plan: objects not created yet are named by path", () => {
  // `pulumi preview --json` (CLI 3.248) of examples/policy-gate/program on a new stack: a group, an identity in it
  // and a binding whose group and identity uids are the engine's unknown value (trimmed to this package's steps).
  const plan = JSON.parse(readFileSync(path.join(__dirname, "fixtures", "access", "preview-new-binding.json"), "utf8"));
  const editorUid = "9c89c9f06c431a9518d789db62b2b087bbffc7a4";
  it("follows unknown uids to the resources they come from and reports the new identity by path, uid null", () => {
    const objs = objectsFromPlan(plan, []);
    const so = orgFromStack(objs, { role: (uid) => (uid === editorUid ? { name: "editor", capabilities: BUILTIN_ROLE_CAPABILITIES.editor } : undefined) });
    const grants = reportGrants(so, effectiveAccess(so.org, { escalations: [] }));
    expect(grants.map((g) => g.capability).sort()).toEqual(BUILTIN_ROLE_CAPABILITIES.editor.map(dottedName).sort());
    expect(grants[0]).toEqual({
      identity: { name: "payments-ci", path: "/payments/payments-ci", uid: null },
      capability: grants[0]!.capability,
      group: "/payments",
      severity: capabilitySeverity(grants[0]!.capability),
      via: [{ kind: "binding", role: "editor", boundAt: "/payments", steps: [] }],
    });
  });
  it("a binding to a role nobody can describe grants nothing (the command stops instead: exit 2)", () => {
    const so = orgFromStack(objectsFromPlan(plan, []));
    expect(effectiveAccess(so.org)).toEqual([]);
  });
});

describe("a stack's references to objects it does not declare", () => {
  it("includes an identity outside the stack, bound by uid, by its uid", () => {
    const root = "a".repeat(40);
    const outsider = `${root}/0123456789abcdef/1111111111111111`;
    const objs = [
      { kind: "Group", urn: "urn:g", name: "g", props: { uid: `${root}/2222222222222222`, name: "platform", parentUid: root } },
      { kind: "RoleBinding", urn: "urn:b", name: "b", props: { identityUid: outsider, groupUid: `${root}/2222222222222222`, roleUid: "9".repeat(40), role: { name: "viewer" } } },
    ];
    const so = orgFromStack(objs, { rootUid: root });
    const [g] = reportGrants(so, effectiveAccess(so.org));
    expect(g!.identity).toEqual({ name: outsider, path: outsider, uid: outsider });
    expect(g!.group).toBe("/platform");
    expect(g!.via[0]).toEqual({ kind: "binding", role: "viewer", boundAt: "/platform", steps: [] });
  });
});

describe("the whole org: a route through identities the stack does not manage (docs/access.md \"The whole org\")", () => {
  // The stack holds eng, eng/team and ybot; outside it, ops/xbot is bound owner at eng/team (made by hand). The
  // change binds ybot owner at eng: xbot, owner where ybot lives, can rewrite ybot's claimMatch and assume it.
  const root = "a".repeat(40);
  const eng = `${root}/1111111111111111`;
  const team = `${eng}/2222222222222222`;
  const ops = `${root}/3333333333333333`;
  const ybot = `${team}/4444444444444444`;
  const xbot = `${ops}/5555555555555555`;
  const owner = "9".repeat(40);
  const claim = (s: string) => ({ issuer: "https://token.actions.githubusercontent.com", subject: `repo:my-org/${s}:ref:refs/heads/main` });
  const stackBefore: StackObject[] = [
    { kind: "Group", urn: "urn:eng", name: "eng", props: { uid: eng, name: "eng", parentUid: root } },
    { kind: "Group", urn: "urn:team", name: "team", props: { uid: team, name: "team", parentUid: eng } },
    { kind: "Identity", urn: "urn:ybot", name: "ybot", props: { uid: ybot, name: "ybot", parentUid: team, claimMatch: claim("team") } },
  ];
  const stackAfter: StackObject[] = [...stackBefore, { kind: "RoleBinding", urn: "urn:new", name: "new", props: { identityUid: ybot, groupUid: eng, roleUid: owner, role: { name: "owner" } } }];
  const outside: StackObject[] = [
    { kind: "Group", urn: `api:${ops}`, name: "ops", props: { uid: ops, name: "ops", parentUid: root } },
    { kind: "Identity", urn: `api:${xbot}`, name: "xbot", props: { uid: xbot, name: "xbot", parentUid: ops, claimMatch: claim("ops") } },
    { kind: "RoleBinding", urn: `api:${team}/6666666666666666`, name: "x", props: { uid: `${team}/6666666666666666`, identityUid: xbot, groupUid: team, roleUid: owner, role: { name: "owner" } } },
  ];
  const role = (uid: string) => (uid === owner ? { name: "owner", capabilities: BUILTIN_ROLE_CAPABILITIES.owner } : undefined);
  const report = (objs: readonly StackObject[], whole: boolean) => {
    const so = orgFromStack(whole ? [...objs, ...outside] : objs, { rootUid: root, role });
    if (whole) so.managed = new Map(so.org.identities.map((i) => [i.id, i.id === xbot ? "unmanaged" : "this stack"]));
    return reportGrants(so, effectiveAccess(so.org));
  };
  it("the change opens owner at /eng for xbot through ybot, the route marked as going through xbot, unmanaged; the stack alone shows only ybot", () => {
    const changes = diffGrants(report(stackBefore, true), report(stackAfter, true)).filter((c) => c.change === "gained");
    const x = changes.filter((c) => c.identity.path === "/ops/xbot" && c.group === "/eng");
    expect(x.length).toBeGreaterThan(10);
    const del = x.find((c) => c.capability === "groups.delete")!;
    expect(del.via[0]).toMatchObject({ kind: "escalation", outside: ["/ops/xbot (unmanaged)"] });
    // ybot's own gain is a binding of the stack's: no mark.
    expect(changes.find((c) => c.identity.path === "/eng/team/ybot" && c.capability === "groups.delete")!.via[0]!.outside).toBeUndefined();
    // The renderers say it where the route is.
    expect(markdown("s", changes, false)).toContain("<br>*through objects outside this stack: /ops/xbot (unmanaged)* |");
    expect(textTable(changes, false)).toContain("    (through objects outside this stack: /ops/xbot (unmanaged))");
    const alone = diffGrants(report(stackBefore, false), report(stackAfter, false)).filter((c) => c.change === "gained");
    expect(new Set(alone.map((c) => c.identity.path))).toEqual(new Set(["/eng/team/ybot"]));
  });
});

describe("the live org outside a stack (orgRead.ts outsideStack)", () => {
  it("matches by kind and uid: a stack holding a group's account association (whose uid is the group's, seed §2) does not hold the group", () => {
    const g = `${"a".repeat(40)}/1111111111111111`;
    const live: StackObject[] = [
      { kind: "Group", urn: `api:${g}`, name: "operations", props: { uid: g, name: "operations" } },
      { kind: "Identity", urn: `api:${g}/2222222222222222`, name: "bot", props: { uid: `${g}/2222222222222222`, name: "bot", parentUid: g } },
    ];
    const stack: StackObject[] = [
      { kind: "AccountAssociation", urn: "urn:aws", name: "aws", props: { uid: g, groupUid: g, name: "aws" } },
      { kind: "Identity", urn: "urn:bot", name: "bot", props: { uid: `${g}/2222222222222222`, name: "bot", parentUid: g } },
    ];
    expect(outsideStack(live, stack).map((o) => `${o.kind} ${o.name}`)).toEqual(["Group operations"]);
  });
});

describe("a plan that deletes a binding", () => {
  it("reports the access it held as lost, once per subtree", () => {
    const root = "a".repeat(40);
    const g = `${root}/2222222222222222`;
    const state = [
      { kind: "Group", urn: "urn:g", name: "g", props: { uid: g, name: "platform", parentUid: root } },
      { kind: "Identity", urn: "urn:i", name: "i", props: { uid: `${g}/3333333333333333`, name: "deployer", parentUid: g } },
      { kind: "RoleBinding", urn: "urn:b", name: "b", props: { uid: `${g}/4444444444444444`, identityUid: `${g}/3333333333333333`, groupUid: g, roleUid: "9".repeat(40), role: { name: "viewer" } } },
    ];
    const after = objectsFromPlan({ steps: [{ op: "same", urn: "urn:g" }, { op: "delete", urn: "urn:b" }] }, state);
    expect(after.map((o) => o.urn)).toEqual(["urn:g", "urn:i"]);
    const report = (objs: readonly StackObject[]) => {
      const so = orgFromStack(objs, { rootUid: root });
      return reportGrants(so, effectiveAccess(so.org));
    };
    const changes = diffGrants(report(state), report(after));
    expect(new Set(changes.map((c) => `${c.change} ${c.identity.path} ${c.group}`))).toEqual(new Set(["lost /platform/deployer /platform"]));
    expect(changes.map((c) => c.capability).sort()).toEqual(BUILTIN_ROLE_CAPABILITIES.viewer.map(dottedName).sort());
  });
});

describe("--fail-on globs", () => {
  it("match the dotted name, or the iam-qualified one for IAM capabilities; * spans dots", () => {
    const iam = capabilityMatcher(["iam.*"]);
    expect([iam("groups.create"), iam("role_bindings.delete"), iam("repo.create")]).toEqual([true, true, false]);
    const del = capabilityMatcher(["*.delete,role_bindings.create"]);
    expect([del("role_bindings.delete"), del("repo.delete"), del("role_bindings.create"), del("roles.create")]).toEqual([true, true, true, false]);
    expect(capabilityMatcher(["groups.?ist"])("groups.list")).toBe(true);
    expect(capabilityMatcher(["groups.(list)"])("groups.list")).toBe(false); // regex syntax is literal
    expect(() => capabilityMatcher(["iam.*,"])).toThrow(/an empty capability pattern/);
  });
  it("are bounded before they are compiled: a 1 MB glob and 1,001 globs are refused naming the size", () => {
    expect(() => capabilityMatcher(["*".repeat(1_000_000)])).toThrow(/--fail-on: a capability pattern of 1000000 characters \(at most 256\)/);
    expect(() => capabilityMatcher([Array.from({ length: 1001 }, () => "iam.*").join(",")])).toThrow(/--fail-on: 1001 capability patterns \(at most 1000\)/);
  });
});

describe("the closure as a review of the gate found it", () => {
  it("creating a custom role is a step: an owner reaches capabilities no built-in role holds, so a new read-only role is no gain for anyone", () => {
    const reader: AccessRole = { id: "reader", name: "repo-reader", groupId: "eng", capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] };
    const before = org({
      identities: [{ id: "lead", name: "lead", groupId: "eng" }, { id: "ci", name: "ci", groupId: "plat" }],
      bindings: [{ identityId: "lead", roleId: "role:owner", groupId: "eng" }, { identityId: "ci", roleId: "role:viewer", groupId: "plat" }],
    });
    const ix = new OrgIndex(before);
    const scim = holds(ix, effectiveAccess(before), "lead", "CAP_IAM_SCIM_MANAGE", "eng")!;
    expect(scim.via[0]!.path.map((s) => s.kind)).toEqual(["createRole"]);
    expect(scim.via[0]!.steps[0]).toBe('"lead" creates a custom role at /engineering with scim.manage (roles.create) and binds itself to it at /engineering (role_bindings.create)');
    // Without the step, the same change shows gains that are not new (the old model's false report).
    const after = { ...before, roles: [...before.roles, reader], bindings: [...before.bindings, { identityId: "ci", roleId: "reader", groupId: "plat" }] };
    const report = (o: AccessOrg, escalations?: Parameters<typeof effectiveAccess>[1]) => reportGrants(orgFromStack([]), effectiveAccess(o, escalations)).map((g) => ({ ...g, identity: { ...g.identity, uid: g.identity.path } }));
    expect(diffGrants(report(before), report(after)).filter((c) => c.change === "gained")).toEqual([]);
    const noCreate = { escalations: ["assume", "bind", "rebind", "editRole", "invite", "identityProvider"] as const };
    expect(diffGrants(report(before, { escalations: [...noCreate.escalations] }), report(after, { escalations: [...noCreate.escalations] })).filter((c) => c.change === "gained").length).toBeGreaterThan(0);
  });

  it("an escalation never hides a direct grant: a binding is listed beside the escalated grant above it, direct first", () => {
    const o = org({
      identities: [{ id: "ed", name: "ed", groupId: "eng" }, { id: "boss", name: "boss", groupId: "eng" }],
      bindings: [{ identityId: "ed", roleId: "role:editor", groupId: "eng" }, { identityId: "boss", roleId: "role:owner", groupId: "root" }],
    });
    const upd = effectiveAccess(o).filter((g) => g.identityId === "ed" && g.capability === "CAP_IAM_GROUPS_UPDATE");
    expect(upd.map((g) => [g.groupId, g.via[0]!.kind])).toEqual([["root", "escalation"], ["eng", "binding"]]);
    const rows = reportGrants({ org: o, identityUid: new Map() }, effectiveAccess(o)).filter((g) => g.identity.name === "ed" && g.capability === "groups.update");
    expect(rows.map((r) => r.group).sort()).toEqual(["/", "/engineering"]);
  });

  it("each step is credited to the identity whose token takes it, and no step repeats", () => {
    const o = org({
      // z first: x's own takeover of z (with identity.update it holds as y) is found before y's.
      identities: [
        { id: "z", name: "z", groupId: "plat" },
        { id: "x", name: "x", groupId: "sales" },
        { id: "y", name: "y", groupId: "sales" },
      ],
      roles: [{ id: "idm", name: "id-maintainer", groupId: "root", capabilities: ["CAP_IAM_IDENTITY_UPDATE"] }],
      bindings: [
        { identityId: "x", roleId: "role:editor", groupId: "sales" },
        { identityId: "y", roleId: "idm", groupId: "plat" },
        { identityId: "z", roleId: "role:owner", groupId: "root" },
      ],
    });
    const g = holds(new OrgIndex(o), effectiveAccess(o, { escalations: ["assume"] }), "x", "CAP_IAM_GROUPS_DELETE", "root")!;
    expect(g.via[0]!.path.map((s) => [s.kind, s.actorId])).toEqual([["assume", "x"], ["assume", "y"]]);
    expect(g.via[0]!.steps[1]).toMatch(/^"y" rewrites the claimMatch of identity "z" \(\/engineering\/platform\/z; identity.update held at \/engineering\/platform\)/);
    for (const grant of effectiveAccess(o)) for (const v of grant.via) expect(new Set(v.steps).size).toBe(v.steps.length);
  });

  it("a token that matches another identity's claimMatch is a step needing no capability (present)", () => {
    const gha = "https://token.actions.githubusercontent.com";
    const o = org({
      identities: [
        { id: "release", name: "release", groupId: "root", claimMatch: { issuer: gha, subjectPattern: "repo:my-org/.*" } },
        { id: "bot", name: "bot", groupId: "sales", claimMatch: { issuer: gha, subject: "repo:my-org/app:pull_request" } },
        { id: "other", name: "other", groupId: "sales", claimMatch: { issuer: "https://gitlab.com", subject: "repo:my-org/app:pull_request" } },
        { id: "aud", name: "aud", groupId: "sales", claimMatch: { issuer: gha, subject: "repo:my-org/app:pull_request", audience: "sts.example" } },
      ],
      bindings: [
        { identityId: "release", roleId: "role:owner", groupId: "root" },
        { identityId: "bot", roleId: "role:viewer", groupId: "sales" },
      ],
    });
    const ix = new OrgIndex(o);
    const closed = effectiveAccess(o);
    expect(holds(ix, closed, "bot", "CAP_IAM_GROUPS_DELETE", "root")?.via[0]!.steps).toEqual([
      `"bot"'s own workload token matches the claimMatch of identity "release" (/release), so it exchanges that token for it`,
    ]);
    expect(holds(ix, closed, "other", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined(); // another issuer
    expect(holds(ix, closed, "aud", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined(); // an audience release does not accept
    expect(holds(ix, effectiveAccess(o, { escalations: [] }), "bot", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
  });
});

describe("severity and the reviewer's words", () => {
  it("critical for IAM writes that grant access, high for other writes and deletes, low for reads", () => {
    expect(["role_bindings.create", "roles.update", "identity.update", "group_invites.create", "identity_providers.delete"].map(capabilitySeverity)).toEqual(Array(5).fill("critical"));
    expect(["groups.delete", "repo.create", "advisories.delete", "CAP_IAM_SCIM_MANAGE"].map(capabilitySeverity)).toEqual(Array(4).fill("high"));
    expect(["groups.list", "repo_blobs.get", "CAP_TAG_LIST"].map(capabilitySeverity)).toEqual(Array(3).fill("low"));
    expect(severityOf(BUILTIN_ROLE_CAPABILITIES.viewer)).toBe("low");
    expect(severityOf(BUILTIN_ROLE_CAPABILITIES.editor)).toBe("critical");
    expect(() => parseSeverities("critical,urgent")).toThrow(/--fail-severity: "critical,urgent" is not a list of severities; allowed: critical, high, low/);
  });

  it("capabilities are said with the fewest roles, whole families as family.*", () => {
    const all = (r: keyof typeof BUILTIN_ROLE_CAPABILITIES) => BUILTIN_ROLE_CAPABILITIES[r].map(dottedName);
    expect(rolesFor(all("owner"))).toBe("owner");
    expect(rolesFor([...all("owner"), "policy.create", "policy.update", "policy.list", "policy.delete", "scim.manage"])).toBe("owner + 5 more: policy.*, scim.manage");
    expect(rolesFor(["repo.list", "tag.list"])).toBe("repo.list, tag.list");
    expect(rolesFor([...all("viewer"), ...all("registry.pull")])).toBe("viewer + registry.pull");
  });
});
