/**
 * `--format sarif` of `access` and `gate` as GitHub code scanning takes it (docs/access.md "SARIF for code
 * scanning", provider/commands/sarif.ts `accessSarif`, provider/commands/gate.ts `gateSarif`,
 * provider/commands/sarifLog.ts `LogBuilder.log`):
 *
 * - one result per identity, scope and route, exactly the Markdown's rows (provider/access/report.ts
 *   `compactRows`), its capabilities listed in `properties`, its fingerprint the identity, scope and route;
 * - at most `MAX_SARIF_RESULTS` (5,000) results and `MAX_SARIF_BYTES` (10 MB) printed, the most severe kept, the rest
 *   counted in `run.properties`;
 * - the findings exclusions silenced listed in `run.properties` (code scanning ignores SARIF `suppressions`), and
 *   in the access Markdown as a folded block.
 *
 * Every log is checked against the OASIS SARIF 2.1.0 schema (test/harness/sarifSchema.ts).
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import type { SilencedFinding } from "../provider/access/exclusions";
import { ESCALATION_KINDS, effectiveAccess } from "../provider/access/model";
import { compactRows, diffGrants, reportGrants, type ReportChange, type ReportGrant, type ReportIdentity, type ReportVia } from "../provider/access/report";
import type { Severity } from "../provider/access/severity";
import { orgFromStack, type StackContext, type StackObject } from "../provider/access/stack";
import { SILENCED_MARKDOWN_CHARS, silencedMarkdown } from "../provider/commands/access";
import { gateSarif, type GateReport, type Violation } from "../provider/commands/gate";
import { LEFT_OUT_KEY, MAX_SARIF_BYTES, MAX_SARIF_RESULTS, SILENCED_KEY, accessFingerprint, accessSarif, type LeftOut, type SarifLog, type SilencedProperty } from "../provider/commands/sarif";
import { jsonText } from "../provider/text";
import { sarifSchemaErrors } from "./harness/sarifSchema";

/** `log` as the commands print it: its size in bytes, after checking it against the schema. */
function printed(log: SarifLog): number {
  expect(sarifSchemaErrors(log)).toBeUndefined();
  return Buffer.byteLength(`${jsonText(log)}\n`, "utf8");
}

const ctx: StackContext = {
  rootUid: "r",
  role: (uid) => (uid.startsWith("builtin-") ? { name: uid.slice("builtin-".length), capabilities: BUILTIN_ROLE_CAPABILITIES[uid.slice("builtin-".length) as keyof typeof BUILTIN_ROLE_CAPABILITIES] } : undefined),
};
const obj = (kind: string, name: string, props: Record<string, unknown>): StackObject => ({ kind, urn: `urn:pulumi:dev::p::platform:index:${kind}::${name}`, name, props });

/**
 * A small org: `/eng/ci/bot` bound at `/eng` to custom role `deployer` (`deployerCaps`), `/eng/ci/reader` bound
 * viewer at `/eng/ci` (unless `reader` is false).
 */
function org(deployerCaps: string[], reader = true): StackObject[] {
  return [
    obj("Group", "eng", { uid: "r/e", parentUid: "r", name: "eng" }),
    obj("Group", "ci", { uid: "r/e/c", parentUid: "r/e", name: "ci" }),
    obj("Identity", "bot", { uid: "r/e/c/b", parentUid: "r/e/c", name: "bot", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" } }),
    obj("Identity", "reader", { uid: "r/e/c/rd", parentUid: "r/e/c", name: "reader", claimMatch: { issuer: "https://gitlab.com", subject: "project_path:g/p:ref_type:tag" } }),
    obj("Role", "deployer", { uid: "r/e/d", parentUid: "r/e", name: "deployer", capabilities: deployerCaps }),
    obj("RoleBinding", "bot-deployer", { uid: "r/e/bb", identityUid: "r/e/c/b", groupUid: "r/e", roleUid: "r/e/d" }),
    ...(reader ? [obj("RoleBinding", "reader-viewer", { uid: "r/e/c/rb", identityUid: "r/e/c/rd", groupUid: "r/e/c", roleUid: "builtin-viewer", role: { name: "viewer" } })] : []),
  ];
}

/** Effective access of `objects`, as the report gives it. */
function grantsOf(objects: StackObject[]): ReportGrant[] {
  const so = orgFromStack(objects, ctx);
  return reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS }));
}

describe("access: one result per identity, scope and route (the Markdown's rows)", () => {
  it("--current: a result per compactRows row, its capabilities in properties, its message naming who, what, where and how", () => {
    const objects = org(["groups.list", "repo.list"]);
    const rows = grantsOf(objects);
    const compact = compactRows(rows);
    expect(rows.length).toBeGreaterThan(compact.length); // the viewer role alone is 13 grants
    const log = accessSarif({ stack: "dev", current: true, rows, objects, ctx });
    printed(log);
    const results = log.runs[0]!.results;
    expect(results).toHaveLength(compact.length);
    expect(results.map((r) => r.properties["capabilities"])).toEqual(compact.map((r) => r.capabilities));
    const reader = results.find((r) => r.properties["identity"] === "/eng/ci/reader")!;
    expect(reader).toMatchObject({ ruleId: "access/binding", level: "note", properties: { severity: "low", status: "held", group: "/eng/ci", gives: "viewer", route: ["viewer bound at /eng/ci"] } });
    expect(reader.message.text).toBe("/eng/ci/reader holds viewer at /eng/ci, through a binding: viewer bound at /eng/ci");
    expect((reader.properties["capabilities"] as string[]).length).toBe(BUILTIN_ROLE_CAPABILITIES.viewer.length);
    const bot = results.find((r) => r.properties["identity"] === "/eng/ci/bot")!;
    expect(bot.message.text).toBe("/eng/ci/bot holds groups.list, repo.list at /eng, through a binding: deployer bound at /eng");
    expect(bot.properties["capabilities"]).toEqual(["groups.list", "repo.list"]);
    expect(bot.partialFingerprints).toEqual(accessFingerprint(compact.find((r) => r.identity.path === "/eng/ci/bot")!));
  });

  it("the fingerprint is the identity, scope and route: the route giving more keeps it; another identity or route has its own", () => {
    const fp = (caps: string[]) => {
      const objects = org(caps);
      const log = accessSarif({ stack: "dev", current: true, rows: grantsOf(objects), objects, ctx });
      return new Map(log.runs[0]!.results.map((r) => [r.properties["identity"] as string, r]));
    };
    const a = fp(["groups.list"]);
    const b = fp(["groups.list", "groups.create", "repo.list"]);
    expect(b.get("/eng/ci/bot")!.properties["capabilities"]).toEqual(["groups.create", "groups.list", "repo.list"]);
    expect(b.get("/eng/ci/bot")!.partialFingerprints).toEqual(a.get("/eng/ci/bot")!.partialFingerprints);
    expect(b.get("/eng/ci/bot")!.level).toBe("error"); // groups.create is high: the row's severity is its highest
    expect(a.get("/eng/ci/reader")!.partialFingerprints).not.toEqual(a.get("/eng/ci/bot")!.partialFingerprints);
  });

  it("a change: one result per gained row (losses are no findings), baselineState new", () => {
    const before = grantsOf(org(["groups.list"]));
    const afterObjects = org(["groups.list", "groups.create", "repo.create"], false);
    const changes = diffGrants(before, grantsOf(afterObjects));
    expect(changes.filter((c) => c.change === "gained")).toHaveLength(2);
    expect(changes.filter((c) => c.change === "lost").length).toBe(BUILTIN_ROLE_CAPABILITIES.viewer.length);
    const log = accessSarif({ stack: "dev", current: false, rows: changes, objects: afterObjects, ctx });
    printed(log);
    expect(log.runs[0]!.results).toHaveLength(1);
    expect(log.runs[0]!.results[0]).toMatchObject({
      baselineState: "new",
      level: "error",
      message: { text: "/eng/ci/bot gains groups.create, repo.create at /eng, through a binding: deployer bound at /eng" },
      properties: { status: "gained", severity: "high", capabilities: ["groups.create", "repo.create"] },
    });
  });
});

// ---- the caps ----

const identity = (path: string): ReportIdentity => ({ name: path.slice(path.lastIndexOf("/") + 1), path, uid: null });
const binding = (role: string, boundAt: string): ReportVia => ({ kind: "binding", role, boundAt, steps: [] });

/** `n` rows of `severity`, one identity each (`/<prefix>/<i>`), each with `caps` capabilities through one route. */
function rowsOf(prefix: string, n: number, severity: Severity, caps: string[], via: (i: number) => ReportVia = () => binding("deployer", "/")): ReportGrant[] {
  const out: ReportGrant[] = [];
  for (let i = 0; i < n; i++) for (const capability of caps) out.push({ identity: identity(`/${prefix}/${i}`), capability, group: "/", severity, via: [via(i)] });
  return out;
}

/** GitHub's documented limits (GitHub Docs, "SARIF support for code scanning"): the results shown of a run, a file's size. */
const SHOWN = 5_000;
const TEN_MB = 10_000_000;

describe("the cap: at most 5,000 results and 10 MB, the most severe kept, the rest counted", () => {
  it("the caps are GitHub's limits", () => {
    expect([MAX_SARIF_RESULTS, MAX_SARIF_BYTES]).toEqual([SHOWN, TEN_MB]);
  });

  it("6,000 rows: 5,000 results (every critical and high one), 1,000 low left out and their 2,000 grants counted", () => {
    const rows = [...rowsOf("low", 2000, "low", ["groups.list", "repo.list"]), ...rowsOf("crit", 2000, "critical", ["role_bindings.create"]), ...rowsOf("high", 2000, "high", ["groups.create"])];
    expect(compactRows(rows)).toHaveLength(6000);
    const log = accessSarif({ stack: "big", current: true, rows, objects: [], ctx: {} });
    const bytes = printed(log);
    expect(bytes).toBeLessThanOrEqual(TEN_MB);
    const run = log.runs[0]!;
    expect(run.results).toHaveLength(SHOWN);
    const count = (s: Severity) => run.results.filter((r) => r.properties["severity"] === s).length;
    expect([count("critical"), count("high"), count("low")]).toEqual([2000, 2000, 1000]);
    const left = run.properties?.[LEFT_OUT_KEY] as LeftOut;
    expect(left).toMatchObject({ results: 1000, grants: 2000 });
    expect(left.reason).toMatch(/at most 5000 results/);
    expect(left.fullReport).toMatch(/--format json, or --json-out <file>/);
  });

  it("a gate log past 5,000 results keeps the most severe whatever the engine's order", () => {
    const v = (i: number, severity: Severity): Violation => ({ level: "mandatory", severity, status: "new", policy: "p", pack: "pack", urn: `urn:pulumi:dev::p::platform:index:Group::g${i}`, resource: `Group::g${i}`, message: "m" });
    const violations = [...Array.from({ length: 3000 }, (_, i) => v(i, "low")), ...Array.from({ length: 3000 }, (_, i) => v(3000 + i, "critical"))];
    const report = { stack: "dev", scope: "org", passed: false, failSeverities: ["critical"], all: false, violations, notEvaluated: [], access: null, errors: [] } as GateReport;
    const log = gateSarif(report, undefined, "gate.json");
    printed(log);
    const run = log.runs[0]!;
    expect(run.results).toHaveLength(SHOWN);
    expect(run.results.filter((r) => r.properties["severity"] === "critical")).toHaveLength(3000);
    expect(run.results[0]!.properties["severity"]).toBe("critical");
    expect(run.properties?.[LEFT_OUT_KEY]).toMatchObject({ results: 1000, grants: 1000, fullReport: "the full report is in gate.json (--json-out)" });
  });

  it("rows under 5,000 that would print past 10 MB: cut to 10 MB, the most severe kept, the rest counted", () => {
    // Long escalation routes: each result is some 4.5 KB printed (the route in the message and in properties).
    const route = (i: number): ReportVia => ({ kind: "escalation", role: "owner", boundAt: "/", steps: [], route: [`step ${i}: ${"x".repeat(1500)}`, `then ${"y".repeat(500)}`] });
    const rows = [...rowsOf("low", 1500, "low", ["groups.list"], route), ...rowsOf("high", 1500, "high", ["groups.create", "groups.delete"], route)];
    const all = compactRows(rows).length;
    expect(all).toBe(3000);
    const log = accessSarif({ stack: "big", current: true, rows, objects: [], ctx: {} });
    const bytes = printed(log);
    expect(bytes).toBeLessThanOrEqual(TEN_MB);
    expect(bytes).toBeGreaterThan(TEN_MB * 0.95); // the estimate leaves little unused
    const run = log.runs[0]!;
    const kept = run.results.length;
    expect(kept).toBeLessThan(all);
    expect(run.results.filter((r) => r.properties["severity"] === "high")).toHaveLength(1500);
    const left = run.properties?.[LEFT_OUT_KEY] as LeftOut;
    expect(left.results).toBe(all - kept);
    expect(left.grants).toBe(all - kept); // the low rows hold one capability each
    expect(left.reason).toMatch(/at most 10000000 bytes/);
  });

  it("a log within both limits is whole, with no run.properties", () => {
    const rows = rowsOf("a", 10, "high", ["groups.create"]);
    const log = accessSarif({ stack: "small", current: true, rows, objects: [], ctx: {} });
    printed(log);
    expect(log.runs[0]!.results).toHaveLength(10);
    expect(log.runs[0]!.properties).toBeUndefined();
  });
});

// ---- silenced findings ----

const silenced: SilencedFinding[] = [
  { policy: "no-new-access", identity: identity("/eng/ci/bot"), capability: "groups.create", group: "/eng", severity: "high", reason: "deploys groups; reviewed by security", expires: "2099-12-31" },
  { policy: "no-new-access", identity: identity("/eng/ci/bot"), capability: "groups.delete", group: "/eng", severity: "high", reason: "deploys groups; reviewed by security", expires: "2099-12-31" },
];
const listed = silenced.map((s) => ({ policy: s.policy, identity: s.identity.path, capability: s.capability, group: s.group, severity: s.severity, reason: s.reason, expires: s.expires }));

describe("silenced findings are listed, not dropped", () => {
  it("access: run.properties lists each silenced finding with its identity, capability, group, reason and expiry", () => {
    const objects = org(["groups.list"]);
    const log = accessSarif({ stack: "dev", current: true, rows: grantsOf(objects), objects, ctx, silenced });
    printed(log);
    expect(log.runs[0]!.properties?.[SILENCED_KEY]).toEqual({ count: 2, findings: listed } satisfies SilencedProperty);
  });

  it("gate: the report's silenced findings in run.properties", () => {
    const report = { stack: "dev", scope: "org", passed: true, failSeverities: ["critical"], all: false, violations: [], notEvaluated: [], access: { changes: [] }, errors: [], silenced } as GateReport;
    const log = gateSarif(report);
    printed(log);
    expect(log.runs[0]!.properties?.[SILENCED_KEY]).toEqual({ count: 2, findings: listed });
  });

  it("the access Markdown folds them in a details block, escaped; an expired exclusion's line stays text", () => {
    const notes = '\nexclusion of * for /a at / expired on 2020-01-01 ("old"): its 1 finding(s) count again\nsilenced by exclusions:\n  no-new-access: /eng/ci/bot at /eng: …\n';
    const hostile: SilencedFinding[] = [{ ...silenced[0]!, reason: "ok <img src=x> [l](https://evil.example)" }];
    const md = silencedMarkdown(notes, hostile);
    expect(md).toContain("<details><summary>1 finding(s) silenced by exclusions (until they expire)</summary>");
    expect(md).toMatch(/- no-new-access: \/eng\/ci\/bot at \/eng: 1 grant\(s\) \(groups\\\.create\) silenced until 2099-12-31: ok \\<img src=x\\> \\\[l\\\]/);
    expect(md).toContain("expired on 2020-01-01");
    expect(md).toContain("</details>");
    expect(silencedMarkdown("", undefined)).toBe("");
  });

  it("the access Markdown's silenced block stays within SILENCED_MARKDOWN_CHARS, the rest counted", () => {
    const many: SilencedFinding[] = Array.from({ length: 200 }, (_, i) => ({ ...silenced[0]!, identity: identity(`/eng/ci/bot-${i}`), reason: `reviewed ${"r".repeat(100)}` }));
    const md = silencedMarkdown("", many);
    const lines = md.split("\n").filter((l) => l.startsWith("- no-new-access"));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(200);
    expect(lines.join("\n").length).toBeLessThanOrEqual(SILENCED_MARKDOWN_CHARS);
    expect(md).toContain(`- *${200 - lines.length} more exclusion(s) not shown; every silenced finding is in the JSON output's \`silenced\`*`);
    expect(md).toContain("<details><summary>200 finding(s) silenced by exclusions");
  });
});

// ---- gate: the access findings ----

describe("gate: a no-new-access finding is one identity, scope and route", () => {
  /** The gate's report of a change gaining `caps` for bot through its deployer binding, as the pack reports it. */
  function gateOf(caps: string[]): GateReport {
    const changes: ReportChange[] = caps.map((capability) => ({ identity: identity("/eng/ci/bot"), change: "gained", capability, group: "/eng", severity: "high", via: [binding("deployer", "/eng")] }));
    const row = compactRows(changes)[0]!;
    const violation: Violation = { level: "mandatory", severity: "high", status: "new", policy: "no-new-access", pack: "platform", urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", resource: "Stack::p-dev", message: `identity ${row.identity.path} gains ${row.gives} at ${row.group} (${row.how[0]})` };
    return { stack: "dev", scope: "org", passed: false, failSeverities: ["critical", "high"], all: false, violations: [violation], notEvaluated: [], access: { changes }, errors: [] };
  }

  it("its capabilities in properties, its fingerprint that of access (kept when the route gives more)", () => {
    const one = gateSarif(gateOf(["groups.create"]));
    const two = gateSarif(gateOf(["groups.create", "groups.delete"]));
    printed(two);
    const a = one.runs[0]!.results[0]!;
    const b = two.runs[0]!.results[0]!;
    expect(b.properties).toMatchObject({ identity: "/eng/ci/bot", group: "/eng", capabilities: ["groups.create", "groups.delete"], route: ["deployer bound at /eng"] });
    expect(b.message.text).not.toBe(a.message.text);
    expect(b.partialFingerprints).toEqual(a.partialFingerprints);
    expect(b.partialFingerprints).toEqual(accessFingerprint(compactRows(gateOf(["groups.create"]).access!.changes)[0]!));
  });
});
