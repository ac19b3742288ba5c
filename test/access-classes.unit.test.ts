/**
 * Class rows (docs/access.md "Classes"): from CLASS_ROWS_FROM members, a class of identities that present for each
 * other has what it holds listed once, with its members, so N identities trusting one workload give a report in
 * proportion to N, not N². Proved against the member-by-member model it replaces: on random orgs and random
 * changes, the class rows and their diff, expanded to members, hold exactly what the member-by-member rows hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, effectiveAccess, type AccessOrg } from "../provider/access/model";
import { accessQuery, whoCan } from "../provider/access/query";
import { formatGate, gateSarif, type GateReport, type Violation } from "../provider/commands/gate";
import { classTable, compactRows, diffGrants, holderCount, identitiesIn, identityWords, markdown, reportGrants, textTable, withMembers, type ReportChange, type ReportGrant } from "../provider/access/report";
import type { StackOrg } from "../provider/access/stack";
import { wireName } from "../provider/capabilities";
import { covers } from "../provider/access/exclusions";
import { capabilitySeverity } from "../provider/access/severity";
import { findUnused, uidsToRead } from "../provider/access/unused";
import { jsonText } from "../provider/text";

const GHA = "https://token.actions.githubusercontent.com";
const builtins = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));

/** `n` identities trusting one subject, each bound at a group of its own (the bench org's shape: the harshest). */
function ownGroups(n: number): StackOrg {
  const org: AccessOrg = {
    groups: [{ id: "root", name: "" }, ...Array.from({ length: n }, (_, i) => ({ id: `g${i}`, parentId: i % 5 === 0 ? "root" : `g${i - (i % 5)}`, name: `g${i}` }))],
    roles: [...builtins, { id: "deployer", name: "deployer", groupId: "root", capabilities: ["CAP_REPO_CREATE", "CAP_TAG_CREATE", "CAP_REPO_LIST"] }],
    identities: Array.from({ length: n }, (_, i) => ({ id: `i${i}`, name: `ci-${i}`, groupId: `g${i}`, claimMatch: { issuer: GHA, subject: "repo:my-org/app:ref:refs/heads/main" } })),
    bindings: Array.from({ length: n }, (_, i) => ({ identityId: `i${i}`, roleId: i % 7 === 0 ? "role:editor" : i % 2 ? "deployer" : "role:viewer", groupId: `g${i}` })),
  };
  return { org, identityUid: new Map(org.identities.map((i) => [i.id, i.id])) };
}

/** A random org: a group tree, identities of which some trust one subject (a class), random bindings and custom roles. */
function randomOrg(r: () => number): AccessOrg {
  const groups = [{ id: "root", name: "" }];
  for (let i = 0; i < 3 + Math.floor(r() * 6); i++) groups.push({ id: `g${i}`, parentId: groups[Math.floor(r() * groups.length)]!.id, name: `g${i}` } as never);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const caps = ["CAP_REPO_LIST", "CAP_REPO_CREATE", "CAP_IAM_IDENTITY_UPDATE", "CAP_IAM_ROLES_UPDATE", "CAP_TAG_CREATE", "CAP_IAM_ROLE_BINDINGS_CREATE"];
  const roles = [...builtins, { id: "c1", name: "custom-1", groupId: pick(groups).id, capabilities: caps.filter(() => r() < 0.4) }, { id: "c2", name: "custom-2", groupId: pick(groups).id, capabilities: caps.filter(() => r() < 0.3) }];
  const identities = Array.from({ length: 3 + Math.floor(r() * 9) }, (_, i) => ({
    id: `i${i}`,
    name: `id-${i}`,
    groupId: pick(groups).id,
    ...(r() < 0.6 ? { claimMatch: { issuer: GHA, subject: r() < 0.8 ? "repo:o/a:ref:refs/heads/main" : "repo:o/b:ref:refs/heads/main" } } : {}),
  }));
  const roleIds = ["role:viewer", "role:viewer", "role:registry.pull", "c1", "c2", "role:editor", "role:owner"];
  const bindings = Array.from({ length: identities.length + Math.floor(r() * 6) }, () => ({ identityId: pick(identities).id, roleId: pick(roleIds), groupId: pick(groups).id }));
  return { groups, roles, identities, bindings };
}

/** A random change of `org`: bindings added and removed, an identity joining or leaving the class. */
function changed(org: AccessOrg, r: () => number): AccessOrg {
  const identities = org.identities.map((i) => (r() < 0.15 ? (i.claimMatch ? { ...i, claimMatch: undefined } : { ...i, claimMatch: { issuer: GHA, subject: "repo:o/a:ref:refs/heads/main" } }) : i));
  if (r() < 0.5) identities.push({ id: "new", name: "id-new", groupId: org.groups[Math.floor(r() * org.groups.length)]!.id, claimMatch: { issuer: GHA, subject: "repo:o/a:ref:refs/heads/main" } });
  const bindings = org.bindings.filter(() => r() > 0.2);
  for (let k = 0; k < 3; k++) if (r() < 0.5) bindings.push({ identityId: identities[Math.floor(r() * identities.length)]!.id, roleId: r() < 0.3 ? "role:owner" : "role:viewer", groupId: org.groups[Math.floor(r() * org.groups.length)]!.id });
  return { ...org, identities: identities.map((i) => (i.claimMatch === undefined ? (({ claimMatch: _c, ...rest }) => rest)(i) : i)), bindings };
}

const so = (org: AccessOrg): StackOrg => ({ org, identityUid: new Map(org.identities.map((i) => [i.id, i.id])) });

/** Each row as the (identity, change, capability, group) it gives each identity it stands for. */
function expand(rows: ReadonlyArray<ReportGrant | ReportChange>): string[] {
  const out = new Set<string>();
  for (const r of rows) {
    const change = "change" in r ? r.change : "";
    const except = new Set((r.identity.except ?? []).map((x) => x.path));
    for (const m of r.identity.members ?? [r.identity]) if (!except.has(m.path)) out.add(`${m.path} ${change} ${r.capability} ${r.group}`);
  }
  return [...out].sort();
}

describe("class rows", () => {
  it("on 200 random orgs and changes, the class rows and their diff hold exactly what the member-by-member rows hold", () => {
    let classRows = 0;
    let classChanges = 0;
    let n = -1;
    // Random orgs and changes from fast-check's seeded stream of numbers in [0, 1).
    const numbers = fc.noShrink(fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })));
    fc.assert(fc.property(numbers, (stream) => {
      n++;
      const it = stream[Symbol.iterator]();
      const r = () => it.next().value as number;
      const before = randomOrg(r);
      const after = changed(before, r);
      const perMember = (o: AccessOrg) => reportGrants(so(o), effectiveAccess(o));
      const byClass = (o: AccessOrg) => reportGrants(so(o), effectiveAccess(o, { classRowsFrom: 2 }));
      const [b1, a1, b2, a2] = [perMember(before), perMember(after), byClass(before), byClass(after)];
      classRows += a2.filter((x) => x.identity.members).length;
      expect(expand(b2), `org ${n}: the grants`).toEqual(expand(b1));
      const d2 = diffGrants(b2, a2);
      classChanges += d2.filter((x) => x.identity.members).length;
      expect(expand(d2), `org ${n}: the changes`).toEqual(expand(diffGrants(b1, a1)));
      // Unused access (every third identity idle): the same identities, each holding the same at high or critical at
      // each group (the reads a route also gives are said beside them, and a class's route may differ).
      const idle = new Map(after.identities.map((i, k) => [i.id, { lastSeenTime: k % 3 ? "2026-11-28T00:00:00Z" : "2025-01-02T00:00:00Z", createTime: "2025-01-01T00:00:00Z" }]));
      const unusedOf = (rows: ReportGrant[]) =>
        findUnused("s", rows, idle, { days: 90, now: new Date("2026-11-29T00:00:00Z") }).unused.map((u) => `${u.identity.path} ${u.severity} ${[...new Set(u.holds.flatMap((h) => h.capabilities.filter((c) => capabilitySeverity(wireName(c)!) !== "low").map((c) => `${c}@${h.group}`)))].sort().join(",")}`);
      expect(unusedOf(a2), `org ${n}: unused access`).toEqual(unusedOf(a1));
      expect(new Set(uidsToRead(a2))).toEqual(new Set(uidsToRead(a1)));
      // --who-can and --can: the same holders of the same capabilities at every group.
      const q1 = accessQuery(so(after));
      const q2 = accessQuery(so(after), ESCALATION_KINDS, 2);
      for (const g of after.groups) {
        const at = q1.ix.groupPath(g.id);
        const who = (q: typeof q1) => whoCan(q, "*", at).map((h) => `${h.holder.identity.path} ${h.holder.capability} ${h.grant.identityId}`);
        expect(who(q2), `org ${n}: who can at ${at}`).toEqual(who(q1));
      }
      // Read back from JSON (the pack's access.json), the same rows again.
      const { rows, classes } = classTable(d2);
      expect(expand(withMembers(JSON.parse(jsonText(rows)) as ReportChange[], JSON.parse(jsonText(classes))))).toEqual(expand(d2));
    }), { seed: 20261129, numRuns: 200 });
    // The random orgs did exercise classes, in the grants and in the changes.
    expect(classRows).toBeGreaterThan(100);
    expect(classChanges).toBeGreaterThan(20);
  });

  it("1,000 identities trusting one subject, each bound at a group of its own: rows and JSON in proportion to N, the members listed once", () => {
    const sizes = [100, 1000].map((n) => {
      const s = ownGroups(n);
      const rows = reportGrants(s, effectiveAccess(s.org, { classRowsFrom: CLASS_ROWS_FROM }));
      const { rows: listed, classes } = classTable(rows);
      return { n, rows, classes, bytes: Buffer.byteLength(jsonText({ stack: "s", classes, grants: listed })) };
    });
    const [small, large] = sizes as [(typeof sizes)[0], (typeof sizes)[0]];
    // Member by member, each of the 1,000 would hold what all 1,000 bindings give: about N² rows.
    expect(large.rows.length / small.rows.length).toBeLessThan(11);
    expect(large.bytes / 1000).toBeLessThanOrEqual(1.1 * (small.bytes / 100));
    expect(large.classes).toHaveLength(1);
    expect(large.classes[0]!.members).toHaveLength(1000);
    const cls = large.rows.filter((x) => x.identity.members);
    expect(cls.length).toBeGreaterThan(0);
    expect(holderCount(cls[0]!.identity)).toBe(1000);
    expect(identitiesIn(large.rows)).toBe(1000);
    // One more identity trusting it, bound at a group of its own: it gains what the class holds, named by itself,
    // and the class gains that group (each member presents as it); nothing else changes.
    const plus = ownGroups(1001);
    const changes = diffGrants(large.rows, reportGrants(plus, effectiveAccess(plus.org, { classRowsFrom: CLASS_ROWS_FROM })));
    expect(changes.every((c) => c.change === "gained")).toBe(true);
    const byClass = changes.filter((c) => c.identity.members);
    expect(new Set(changes.filter((c) => !c.identity.members).map((c) => c.identity.path))).toEqual(new Set(["/g1000/ci-1000"]));
    expect(byClass.length).toBeGreaterThan(0);
    expect(new Set(byClass.map((c) => c.group))).toEqual(new Set(["/g1000"]));
    // One row per capability for the whole class of 1,001 (the newcomer's own binding is its own row beside it).
    expect(byClass.every((c) => holderCount(c.identity) === 1001 && c.identity.except === undefined)).toBe(true);
    expect(byClass.length).toBe(changes.filter((c) => !c.identity.members && c.group === "/g1000").length);
    // The table and Markdown say the class once, with its size.
    const table = textTable(large.rows, true);
    expect(table).toContain("/g0/ci-0 and 999 more identities that present for each other");
    expect(table.split("\n")[0]).toContain("held by 1000 identities");
    const md = markdown("s", large.rows, true);
    expect(md).toContain("**ci-0** `/g0/ci-0` and 999 more identities that present for each other");
    expect(compactRows(cls).every((x) => x.identity.members?.length === 1000)).toBe(true);
  }, 60_000);

  it("unused access reads every member of a class and reports each idle one with what the class holds; one member's exclusion does not silence the class's rows", () => {
    const s = ownGroups(20);
    const rows = reportGrants(s, effectiveAccess(s.org, { classRowsFrom: CLASS_ROWS_FROM }));
    expect(rows.some((r) => r.identity.members)).toBe(true);
    const uids = uidsToRead(rows);
    expect(new Set(uids)).toEqual(new Set(s.org.identities.map((i) => i.id)));
    // i3 idle for a year, every other seen yesterday.
    const now = new Date("2026-11-29T00:00:00Z");
    const activity = new Map(uids.map((u) => [u, u === "i3" ? { lastSeenTime: "2025-11-01T00:00:00Z", createTime: "2025-01-01T00:00:00Z" } : { lastSeenTime: "2026-11-28T00:00:00Z", createTime: "2025-01-01T00:00:00Z" }]));
    const r = findUnused("s", rows, activity, { days: 90, now });
    expect(r.unused.map((u) => u.identity.path)).toEqual(["/g0/g3/ci-3"]);
    // It holds, member by member, what the class holds: editor's groups.delete at /g0 (ci-0 is bound editor there).
    const held = r.unused[0]!.holds;
    expect(held.some((h) => h.group === "/g0" && h.capabilities.includes("groups.delete"))).toBe(true);
    // An exclusion naming the class's first member by path does not silence the class row.
    const classRow = rows.find((x) => x.identity.members)!;
    expect(covers({ identity: classRow.identity.path, capability: "*", group: "/", reason: "r", expires: "2099-01-01" } as never, classRow)).toBe(false);
  });

  it("the gate's report keeps a class's members once and renders its rows from them: Markdown, table and a SARIF result per class row", () => {
    const before = ownGroups(20);
    const after = ownGroups(21);
    const rows = (o: StackOrg) => reportGrants(o, effectiveAccess(o.org, { classRowsFrom: CLASS_ROWS_FROM }));
    const changes = diffGrants(rows(before), rows(after));
    // As the pack writes access.json and the gate reads it back.
    const { rows: listed, classes } = classTable(changes);
    const access = JSON.parse(JSON.stringify({ changes: listed, classes })) as GateReport["access"];
    const classRow = compactRows(changes.filter((c) => c.identity.members && c.change === "gained"))[0]!;
    const violation: Violation = { level: "mandatory", severity: classRow.severity, status: "new", policy: "no-new-access", pack: "platform", urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", resource: "Stack::p-dev", message: `identity ${identityWords(classRow.identity)} gains ${classRow.gives} at ${classRow.group} (escalation: ${classRow.how.map((h, i) => `${i + 1}. ${h}`).join(" ")})` };
    const report = { stack: "dev", scope: "org", passed: false, failSeverities: ["critical", "high"], all: false, violations: [violation], notEvaluated: [], access, errors: [] } as GateReport;
    // The JSON lists the 21 members once, not on each row.
    const json = formatGate(report, "json", 1);
    expect(json.split('"members"').length - 1).toBe(1);
    expect((JSON.parse(json) as { access: { classes: Array<{ members: unknown[] }> } }).access.classes[0]!.members).toHaveLength(21);
    expect(formatGate(report, "markdown", 1)).toContain("and 20 more identities that present for each other");
    expect(formatGate(report, "table", 1)).toContain("/g0/ci-0 and 20 more identities that present for each other");
    const sarif = gateSarif(report);
    expect(sarif.runs[0]!.results).toHaveLength(1);
    // The finding found its class row: its properties name the capabilities the row gives.
    expect(sarif.runs[0]!.results[0]!.properties?.["capabilities"]).toEqual(classRow.capabilities);
  });
});
