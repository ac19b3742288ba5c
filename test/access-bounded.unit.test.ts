/**
 * Access reports bounded by construction (docs/access.md, "Output"): identities that can `present` for each
 * other form one class, closed over once, and a report lists at most ROUTES_LISTED routes per grant, counting the
 * rest. The sizes are counted here; the time and memory are measured by `npm run bench:present`
 * (bench/present-classes.ts), never asserted.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { effectiveAccess, presentClasses, type AccessOrg } from "../provider/access/model";
import { ROUTES_LISTED, diffGrants, markdown, reportGrants, textTable } from "../provider/access/report";
import type { StackOrg } from "../provider/access/stack";
import { jsonText } from "../provider/text";

const GHA = "https://token.actions.githubusercontent.com";
const GROUPS = ["platform", "ci", "release", "data", "etl", "sales", "crm", "security"];
const ROLES = ["viewer", "registry.pull", "deployer", "viewer", "registry.pull", "deployer", "viewer", "registry.pull", "deployer", "editor"];

/**
 * `n` identities whose `claimMatch` all accept one workload's token (one exact subject), spread over 8 groups
 * under the root, each bound one role at its group (every tenth `editor`, so escalations open), plus `extra` more.
 */
function trustingOne(n: number, extra = 0): StackOrg {
  const builtins = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));
  const org: AccessOrg = {
    groups: [{ id: "root", name: "" }, ...GROUPS.map((g) => ({ id: g, parentId: "root", name: g }))],
    roles: [...builtins, { id: "deployer", name: "deployer", groupId: "root", capabilities: ["CAP_REPO_CREATE", "CAP_TAG_CREATE", "CAP_REPO_LIST"] }],
    identities: Array.from({ length: n + extra }, (_, i) => ({ id: `i${i}`, name: `wl-${i}`, groupId: GROUPS[i % GROUPS.length]!, claimMatch: { issuer: GHA, subject: "repo:my-org/app:ref:refs/heads/main" } })),
    bindings: Array.from({ length: n + extra }, (_, i) => ({ identityId: `i${i}`, roleId: ROLES[i % ROLES.length] === "deployer" ? "deployer" : `role:${ROLES[i % ROLES.length]}`, groupId: GROUPS[i % GROUPS.length]! })),
  };
  return { org, identityUid: new Map(org.identities.map((i) => [i.id, i.id])) };
}

const jsonBytes = (so: StackOrg, grants = effectiveAccess(so.org)) => {
  const rows = reportGrants(so, grants);
  return { rows, bytes: Buffer.byteLength(jsonText({ stack: "s", grants: rows })) };
};

describe("access reports bounded by construction", () => {
  it("identities trusting one subject are one class, each member one present step from any other", () => {
    const so = trustingOne(200);
    const pc = presentClasses(so.org.identities);
    expect(pc.members).toHaveLength(1);
    expect(pc.members[0]).toHaveLength(200);
    expect(pc.clique(0)).toBe(true);
    expect(pc.chain("i3", "i150")).toEqual([{ kind: "present", actorId: "i3", targetId: "i150" }]);
    expect(pc.chain("i3", "i3")).toEqual([]);
    // One that trusts a pattern, whose own tokens the others do not accept (they also require a claim its
    // claimMatch does not pin), stays alone; the others reach it in one step. Presenting is not transitive: a
    // component that is not a clique is not one class.
    const exact = so.org.identities.slice(0, 3).map((i) => ({ ...i, claimMatch: { ...i.claimMatch!, claims: { environment: "prod" } } }));
    const withPattern = [...exact, { id: "p", name: "p", groupId: "root", claimMatch: { issuer: GHA, subjectPattern: "repo:my-org/.*" } }];
    const pc2 = presentClasses(withPattern);
    expect(pc2.members.map((m) => m.length).sort()).toEqual([1, 3]);
    expect(pc2.out[pc2.classOf.get("i0")!]).toEqual([["i0", "p"]]);
  });

  it(`200 identities trusting one subject: the JSON per identity is no larger than at 50, each grant lists at most ${ROUTES_LISTED} routes, and a member enters the class in one step`, () => {
    const so = trustingOne(200);
    const grants = effectiveAccess(so.org);
    const small = jsonBytes(trustingOne(50));
    const large = jsonBytes(so, grants);
    // Every identity is reported with every grant it holds: 4 times the identities, 4 times the grants.
    expect(large.rows.length).toBe(4 * small.rows.length);
    expect(large.bytes / 200).toBeLessThanOrEqual(1.05 * (small.bytes / 50));
    for (const g of large.rows) expect(g.via.length).toBeLessThanOrEqual(ROUTES_LISTED);
    // Each escalated route starts with at most one step into the class (its member's present), never round it.
    for (const g of grants) {
      for (const v of g.via) {
        const presents = v.path.filter((s) => s.kind === "present" && s.actorId === g.identityId);
        expect(presents.length, `${g.identityId} ${g.capability}: ${v.steps.join(" / ")}`).toBeLessThanOrEqual(1);
        expect(v.path.some((s) => s.kind === "present" && s.targetId === g.identityId), `${g.identityId} ${g.capability}: ${v.steps.join(" / ")}`).toBe(false);
      }
    }
    // The change that adds one more such identity gains that identity's grants, and nothing for the others.
    const plus = trustingOne(200, 1);
    const changes = diffGrants(large.rows, reportGrants(plus, effectiveAccess(plus.org)));
    expect(new Set(changes.map((c) => c.identity.name))).toEqual(new Set(["wl-200"]));
    expect(changes.every((c) => c.change === "gained")).toBe(true);
  }, 60_000);

  it(`a grant held more than ${ROUTES_LISTED} ways lists the first ${ROUTES_LISTED} (bindings first) and counts the rest, in JSON, the table, Markdown and the diff`, () => {
    const builtins = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));
    const org: AccessOrg = {
      groups: [{ id: "root", name: "" }, { id: "g", parentId: "root", name: "g" }],
      roles: [...builtins, { id: "c1", name: "lister-1", groupId: "root", capabilities: ["CAP_REPO_LIST"] }, { id: "c2", name: "lister-2", groupId: "root", capabilities: ["CAP_REPO_LIST"] }],
      identities: [{ id: "x", name: "x", groupId: "g" }],
      bindings: ["role:viewer", "role:editor", "role:owner", "c1", "c2"].map((roleId) => ({ identityId: "x", roleId, groupId: "g" })),
    };
    const so: StackOrg = { org, identityUid: new Map([["x", "x"]]) };
    const model = effectiveAccess(org, { escalations: [] }).find((g) => g.capability === "CAP_REPO_LIST")!;
    expect(model.via).toHaveLength(5); // the model keeps every binding
    const rows = reportGrants(so, effectiveAccess(org, { escalations: [] }));
    const repoList = rows.find((r) => r.capability === "repo.list")!;
    expect(repoList.via.map((v) => v.role)).toHaveLength(ROUTES_LISTED);
    expect(repoList.moreRoutes).toBe(2);
    expect(JSON.parse(jsonText({ grants: rows })).grants.find((r: { capability: string }) => r.capability === "repo.list").moreRoutes).toBe(2);
    // A grant with every route listed has no count.
    expect(rows.find((r) => r.capability === "groups.delete")).not.toHaveProperty("moreRoutes");
    expect(textTable(rows, true)).toContain("(and 2 more routes not listed)");
    expect(markdown("s", rows, true)).toContain("*and 2 more routes not listed*");
    const gained = diffGrants([], rows).find((r) => r.capability === "repo.list")!;
    expect(gained.moreRoutes).toBe(2);
  });
});
