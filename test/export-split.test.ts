/**
 * `platform-pulumi export --layout split` (docs/export.md "One stack per top-level group"), through the real CLI on
 * the emulator: an org with three top-level groups and references across them (a binding at the root of a team's
 * identity, a root role bound in a team, a binding in one team of another team's identity, a repo syncing from
 * another team's repo) exported as a set of projects, installed against the packed tarball, then:
 * - `pulumi up` of the root, then the children, then cross adopts every object: no POST, no DELETE, no PATCH, no
 *   object's `updateTime` moves;
 * - each stack's `preview --expect-no-changes` passes, and `platform-pulumi drift` of each finds nothing drifted
 *   and nothing pending but in the one stack whose group was changed behind its back;
 * - `gate` on a child stack judges what it sees as one stack would: the root's grant to the security team's identity,
 *   moved into the team's stack, is refused there (a real escalation), its message naming the groups by path;
 *   the operations stack, a root identity bound in the team, passes;
 * - `gate` on a change to one stack judges it against the whole set and the org (`--with` the other stacks): a new
 *   owner binding in the operations stack opens owner to the engineering stack's identity through the cross stack's
 *   binding, the route marked as going through an identity another stack manages;
 * - `platform-pulumi unmanaged` on the root stack reports the children's objects until given the other stacks with
 *   `--with`, then nothing; an object made behind the set's back in a team's subtree is reported.
 * Also the README's `Org` in a split layout: a root stack's `Org` with a top-level group, and a team stack's `Org`
 * under it, its `parentUid` read from the root's `groupUids` through a StackReference.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../provider/client/client";
import type { GateReport } from "../provider/commands/gate";
import { PulumiCli } from "../scripts/lib/pulumi";
import { runBin as bin } from "./harness/bin";
import { apiEnv, exportSplit, installSet, upAdopting, seedTeams, useExportFixture } from "./harness/splitSet";
import { cleanEnv, tail } from "./consumer/toolchain";
import { subscriptionKind } from "../provider/kinds/subscription";
import { atMost } from "./harness/limit";

const made: Record<string, string> = {};

/** Seeds the org through the API: three teams and references across them. */
async function seed(c: PlatformClient, root: string): Promise<void> {
  const { viewer, editor, claim, eng, sec, ops, apps, infra } = await seedTeams(c, root);
  const auditor = await c.roles.create(root, { name: "auditor", capabilities: ["CAP_IAM_GROUPS_LIST"] } as never);
  const releaser = await c.roles.create(eng.uid, { name: "releaser", capabilities: ["CAP_REPO_LIST"] } as never);
  const rootBot = await c.identities.create(root, { name: "root-bot", ...claim("root") } as never);
  const deployer = await c.identities.create(apps.uid, { name: "deployer", ...claim("app") } as never);
  const scanner = await c.identities.create(sec.uid, { name: "scanner", ...claim("scanner") } as never);
  const opsBot = await c.identities.create(infra.uid, { name: "ops-bot", ...claim("ops") } as never);
  await c.roleBindings.create(apps.uid, { identityUid: deployer.uid, roleUid: editor }); // inside one team
  await c.roleBindings.create(eng.uid, { identityUid: deployer.uid, roleUid: releaser.uid }); // a team's own role
  await c.roleBindings.create(root, { identityUid: scanner.uid, roleUid: auditor.uid }); // at the root, of a team's identity
  await c.roleBindings.create(sec.uid, { identityUid: scanner.uid, roleUid: auditor.uid }); // a root role in a team
  await c.roleBindings.create(ops.uid, { identityUid: rootBot.uid, roleUid: viewer }); // a root identity in a team
  await c.roleBindings.create(infra.uid, { identityUid: deployer.uid, roleUid: editor }); // one team's identity in another's
  await c.roleBindings.create(infra.uid, { identityUid: opsBot.uid, roleUid: editor });
  const app = await c.repos.create(eng.uid, { name: "app", description: "The product" });
  await c.tags.create(app.uid, { name: "latest", digest: `sha256:${"1".repeat(64)}` });
  await c.repos.create(ops.uid, { name: "app-mirror", sync_config: { source: app.uid } }); // from another team's repo
  await subscriptionKind.collection(c).create(sec.uid, { sink: "https://hooks.example.com/security" });
  await c.accountAssociations.create(ops.uid, { name: "ops-aws", amazon: { account: "123456789012" } } as never);
  Object.assign(made, { eng: eng.uid, sec: sec.uid, ops: ops.uid, apps: apps.uid, infra: infra.uid, deployer: deployer.uid, opsBot: opsBot.uid });
}

const fx = useExportFixture("platform-pulumi-split-", "export split", seed);

/**
 * The most engine runs this file starts at once ({@link atMost}): the widest tier of the set (three children). The
 * stacks of the set are distinct stacks of one file backend, and what runs at once only reads them: a preview (and
 * `drift` and `gate`, which only preview) takes no lock (docs/cli.md, "When another update holds the stack's lock"),
 * and recover and unmanaged read state with `pulumi stack export`.
 */
const AT_ONCE = 3;

describe("platform-pulumi export --layout split", () => {
  const out = () => path.join(fx.work, "org");
  let tiers: string[][] = [];
  const clis = new Map<string, PulumiCli>();
  const projects = () => tiers.flat();
  const files: Record<string, string> = {};

  it("writes a root project, one per top-level group and cross, wired through stack references", async () => {
    tiers = (await exportSplit(fx, out())).tiers;
    expect(tiers).toEqual([["org"], ["org.engineering", "org.operations", "org.security"], ["org-cross"]]);
    for (const p of projects()) files[p] = readFileSync(path.join(out(), p, "index.ts"), "utf8");
    // The root declares the top-level groups and exports what the others read; it reads no other stack.
    expect(files["org"]).toMatch(/const engineering = new Group\("engineering"/);
    expect(files["org"]).not.toContain("StackReference");
    expect(files["org"]).toMatch(/export const uids = \{[^}]*\bengineering: engineering\.uid,/s);
    expect(files["org"]).toMatch(/export const uids = \{[^}]*\bauditor: auditor\.uid,/s);
    // A child reads its top-level group (and the root's role) from the root's outputs and does not declare them.
    expect(files["org.security"]).toContain('const security = { uid: _uid("org", "security") };');
    expect(files["org.security"]).toContain('const auditor = { uid: _uid("org", "auditor") };');
    expect(files["org.security"]).not.toMatch(/new Group\("security"/);
    // The root's binding of the security team's identity lives with that identity.
    expect(files["org.security"]).toMatch(/new RoleBinding\("security\/scanner@\/#auditor"/);
    expect(files["org"]).not.toContain("security/scanner@");
    // The root keeps only the owner's binding (an identity outside the export, protected).
    expect(files["org"]!.match(/new RoleBinding\(/g)).toHaveLength(1);
    // What refers to two teams' objects is in cross, reading both.
    expect(files["org-cross"]).toMatch(/new RoleBinding\("engineering\/apps\/deployer@operations\/infra#editor"/);
    expect(files["org-cross"]).toMatch(/new Repo\("operations\/app-mirror"/);
    expect(files["org-cross"]).toContain('_uid("org.engineering", "app")');
    expect(files["org.engineering"]).toMatch(/export const uids = \{[^}]*\bapp: app\.uid,/s);
    // Every declaration adopts.
    for (const p of projects()) for (const m of files[p]!.matchAll(/^(?:const \w+ = )?new (\w+)\(/gm)) expect(m[1]).toMatch(/^(Group|Identity|Role|RoleBinding|Repo|Tag|Subscription|AccountAssociation)$/);
  }, 120_000);

  it("--children 2 deals the three teams out to two children; every exported object is declared once in the set", async () => {
    const env = cleanEnv(undefined, apiEnv(fx));
    const dir = path.join(fx.work, "two");
    const r = await bin(["export", "--org", fx.emu.orgUid, "--out", dir, "--layout", "split", "--children", "2"], env);
    expect(r.code, tail(r)).toBe(0);
    const total = Number(/^total\s+(\d+)$/m.exec(r.stdout)![1]);
    const two = (JSON.parse(readFileSync(path.join(dir, "layout.json"), "utf8")) as { tiers: string[][] }).tiers;
    expect(two[1]).toHaveLength(2);
    const declared = two.flat().flatMap((p) => [...readFileSync(path.join(dir, p, "index.ts"), "utf8").matchAll(/^ {4}(?:adoptUid: "[^"]+"|adopt: true),$/gm)].map((m) => m[0].trim()));
    expect(declared).toHaveLength(total);
    expect(new Set(declared.filter((d) => d.startsWith("adoptUid"))).size).toBe(declared.filter((d) => d.startsWith("adoptUid")).length);
    const bad = await bin(["export", "--org", fx.emu.orgUid, "--out", dir, "--children", "2"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--children "2" is not allowed: only with --layout split/);
  }, 120_000);

  it("installs the projects against the packed tarball", async () => {
    for (const [p, cli] of await installSet({ tarball: await fx.tarball, out: out(), projects: projects(), work: fx.work, env: apiEnv(fx) })) clis.set(p, cli);
  }, 600_000);

  it("pulumi up of the set, root, then children, then cross, adopts everything: no POST, PATCH or DELETE, no updateTime moved", async () => {
    // No write, no updateTime moved, and every object the export declared is in exactly one stack's state.
    const { held } = await upAdopting(fx, tiers, clis);
    expect(held.get(`Group:${made["eng"]}`)).toBe("org");
    expect(held.get(`Group:${made["apps"]}`)).toBe("org.engineering");
    expect(held.get(`Identity:${made["deployer"]}`)).toBe("org.engineering");
  }, 600_000);

  // That drift finds nothing on the adopted set (nothing drifted, nothing pending) is the next test's: it runs drift
  // on every stack once, with one object changed behind one stack's back, and every other stack must report nothing.
  it("each stack: preview --expect-no-changes passes, recover has nothing to do", async () => {
    // The stacks at once (atMost); each stack's preview, then its recover, in turn.
    await atMost(AT_ONCE, projects(), async (p) => {
      const cli = clis.get(p)!;
      await cli.ok(["preview", "--expect-no-changes"]);
      const r = await bin(["recover", "--stack", "dev", "--cwd", cli.opts.cwd], cli.env());
      expect(r.code, `${p}: ${tail(r)}`).toBe(0);
      expect(r.stdout).toMatch(/no pending operations, nothing to recover/);
    });
  }, 600_000);

  it("drift sees a change made behind a child stack's back, in that stack only; every other stack: nothing drifted, nothing pending", async () => {
    await fx.client.groups.patch(made["apps"]!, { description: "changed by hand" }, ["description"]);
    try {
      // Every stack's drift at once (atMost), then each judged in the set's order.
      const drifts = await atMost(AT_ONCE, projects(), (p) => bin(["drift", "--stack", "dev", "--cwd", clis.get(p)!.opts.cwd, "--format", "json"], clis.get(p)!.env()));
      for (const [i, p] of projects().entries()) {
        const d = drifts[i]!;
        const report = JSON.parse(d.stdout) as { drifted: Array<{ uid: string; fields: Array<{ path: string }> }>; pending: Array<{ type: string; op: string; fields: string[] }> };
        const drifted = report.drifted.map((x) => [x.uid, x.fields.map((f) => f.path)]);
        const pending = report.pending.map((x) => [x.type, x.op, x.fields]);
        // The changed stack: that one field of that one group drifted, and the one step pending is its undoing.
        expect([d.code, drifted, pending], `${p}: ${tail(d)}`).toEqual(p === "org.engineering" ? [1, [[made["apps"], ["description"]]], [["Group", "update", ["description"]]]] : [0, [], []]);
      }
    } finally {
      await fx.client.groups.patch(made["apps"]!, { description: "" }, ["description"]);
    }
  }, 600_000);

  it("gate previews a child stack with the shipped policy pack: the root's grant to the team's identity is in that stack, and refused there as in one stack", async () => {
    const cli = clis.get("org.security")!;
    // The three gates at once (three stacks, read only: atMost).
    // The set is deployed: --all judges what the stack holds, as a review of a new split would.
    // The auditor role only reads, so the finding is low: it fails when low fails too.
    const [g, ops, eng] = await atMost(AT_ONCE, [
      ["gate", "--stack", "dev", "--cwd", cli.opts.cwd, "--format", "json", "--all", "--fail-severity", "critical,high,low"],
      ["gate", "--stack", "dev", "--cwd", clis.get("org.operations")!.opts.cwd, "--format", "json", "--all", "--fail-severity", "critical,high,low"],
      ["gate", "--stack", "dev", "--cwd", clis.get("org.engineering")!.opts.cwd, "--format", "json", "--all"],
    ], (args) => bin(args, cli.env()));
    expect(g!.code, tail(g!)).toBe(1);
    const report = JSON.parse(g!.stdout) as { violations: Array<{ level: string; policy: string; resource: string; message: string }> };
    const mandatory = report.violations.filter((v) => v.level === "mandatory");
    expect(mandatory.map((v) => `${v.policy} ${v.resource}`)).toEqual(["identity-bound-above-its-group RoleBinding::security/scanner@/#auditor"]);
    // A real escalation (scanner lives in /security, granted at / above it), judged as the one-stack program would:
    // the groups this stack does not declare (its top-level group, the root) are named from the API, not left as uids.
    expect(mandatory[0]!.message).toMatch(/^role binding "security\/scanner@\/#auditor": identity \/security\/scanner lives in group \/security but is granted role auditor at \/, above it/);
    // Operations holds a root identity bound in the team and team-own grants: nothing above, nothing refused.
    expect(ops!.code, tail(ops!)).toBe(0);
    // Engineering's grant of its role at engineering to an identity of engineering/apps is above that identity too:
    // the role only lists repos, so the finding is low, reported by the rule's advisory twin, and the gate passes
    // at the default failing severities (docs/policy.md "One verdict from every door").
    expect(eng!.code, tail(eng!)).toBe(0);
    const engReport = JSON.parse(eng!.stdout) as { violations: Array<{ level: string; severity: string; policy: string; resource: string; message: string }> };
    const above = engReport.violations.filter((v) => v.policy === "identity-bound-above-its-group");
    expect(above.map((v) => `${v.severity} ${v.level} ${v.resource}`)).toEqual(["low advisory RoleBinding::engineering/apps/deployer@engineering#engineering/releaser"]);
    expect(above[0]!.message).toMatch(/identity \/engineering\/apps\/deployer lives in group \/engineering\/apps but is granted role releaser at \/engineering, above it/);
  }, 600_000);

  it("gate judges a change to one stack against the whole set and the org: ops-bot made owner at /operations opens it to engineering's deployer, through the cross stack's binding", async () => {
    // The pull request, in the operations stack: ops-bot (operations/infra) bound owner at /operations. deployer
    // (the engineering stack's identity) is editor at operations/infra through the cross stack's binding, so it may
    // rewrite ops-bot's claimMatch and assume it: the change opens owner at /operations to deployer too.
    const ops = clis.get("org.operations")!;
    const index = path.join(ops.opts.cwd, "index.ts");
    const program = readFileSync(index, "utf8");
    writeFileSync(
      index,
      `${program}\nconst platform = require("platform-pulumi") as typeof import("platform-pulumi");\nnew platform.RoleBinding("ops-bot-owner", { groupUid: ${JSON.stringify(made["ops"])}, identityUid: ${JSON.stringify(made["opsBot"])}, roleUid: platform.getRoleOutput({ name: "owner" }).uid });\n`,
    );
    try {
      const withs = projects().filter((p) => p !== "org.operations").flatMap((p) => ["--with", `organization/${p}/dev`]);
      const r = await bin(["gate", "--stack", "dev", "--cwd", ops.opts.cwd, "--format", "json", ...withs], ops.env());
      expect(r.code, tail(r)).toBe(1);
      const report = JSON.parse(r.stdout) as GateReport;
      expect(report.scope).toBe("org");
      const gains = report.access!.changes.filter((c) => c.change === "gained" && c.group === "/operations" && c.capability === "groups.delete");
      const rows = gains.map((c) => `${c.identity.path} (${c.identity.managed}) ${c.via[0]!.kind}${c.via[0]!.outside ? ` through ${c.via[0]!.outside.join(", ")}` : ""}`);
      expect(rows, JSON.stringify({ scope: report.scope, errors: report.errors, changes: report.access?.changes.slice(0, 12).map((c) => `${c.change} ${c.identity.path} ${c.capability} ${c.group}`) })).toEqual([
        "/engineering/apps/deployer (stack organization/org.engineering/dev) escalation through /engineering/apps/deployer (stack organization/org.engineering/dev)",
        "/operations/infra/ops-bot (this stack) binding",
      ]);
      expect(gains[0]!.via[0]!.steps[0]).toMatch(/^"deployer" rewrites the claimMatch of identity "ops-bot" \(\/operations\/infra\/ops-bot; identity\.update held at \/operations\/infra\)/);
    } finally {
      writeFileSync(index, program);
    }
  }, 600_000);

  it("unmanaged on the root stack: the children's objects until given the other stacks, then nothing; a stray object is found", async () => {
    const root = clis.get("org")!;
    const withs = projects().slice(1).flatMap((p) => ["--with", `organization/${p}/dev`]);
    // Before the stray object is made: these four read the set at once (atMost); the refused --with (last) stops
    // at its arguments.
    const [alone, all, drift, bad] = await atMost(4, [
      ["unmanaged", "--stack", "dev", "--cwd", root.opts.cwd, "--json"],
      ["unmanaged", "--stack", "dev", "--cwd", root.opts.cwd, ...withs],
      ["drift", "--stack", "dev", "--cwd", root.opts.cwd, "--unmanaged", "--format", "json", ...withs],
      ["unmanaged", "--stack", "dev", "--cwd", root.opts.cwd, "--with", "org.engineering"],
    ], (args) => bin(args, root.env()));
    expect(alone!.code, tail(alone!)).toBe(1);
    expect((JSON.parse(alone!.stdout) as { unmanaged: Array<{ uid: string }> }).unmanaged.map((o) => o.uid)).toContain(made["deployer"]);
    expect(all!.code, tail(all!)).toBe(0);
    expect(all!.stdout).toMatch(/no unmanaged objects/);
    expect(drift!.code, tail(drift!)).toBe(0);
    expect(JSON.parse(drift!.stdout)).toMatchObject({ drifted: [], unmanaged: [] });
    const stray = await fx.client.identities.create(made["apps"]!, { name: "stray", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/stray:ref:refs/heads/main" } } as never);
    try {
      const found = await bin(["unmanaged", "--stack", "dev", "--cwd", root.opts.cwd, "--json", ...withs], root.env());
      expect(found.code, tail(found)).toBe(1);
      expect((JSON.parse(found.stdout) as { unmanaged: Array<{ uid: string }> }).unmanaged.map((o) => o.uid)).toEqual([stray.uid]);
    } finally {
      await fx.client.identities.delete(stray.uid);
    }
    expect(bad!.code).toBe(2);
    expect(bad!.stderr).toMatch(/--with "org\.engineering" is not allowed: a fully qualified stack, <org>\/<project>\/<stack>/);
  }, 600_000);

  it("Org in a split layout: a team stack's Org under the root stack's group, through a StackReference", async () => {
    const base = path.join(fx.work, "org-files");
    const project = (name: string, index: string, file: string, text: string) => {
      const dir = path.join(base, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\nmain: index.js\n`);
      writeFileSync(path.join(dir, "index.js"), index);
      writeFileSync(path.join(dir, file), text);
      symlinkSync(path.join(out(), projects()[0]!, "node_modules"), path.join(dir, "node_modules"), "dir");
      return new PulumiCli({ cwd: dir, backendDir: path.join(fx.work, "state"), stack: "dev", env: apiEnv(fx) });
    };
    const root = project(
      "files-root",
      ['const pulumi = require("@pulumi/pulumi");', 'const { Org } = require("platform-pulumi");', 'const org = new Org("org", { parentUid: new pulumi.Config("platform").require("orgUid"), file: "org.yaml" });', "exports.groupUids = org.groupUids;", ""].join("\n"),
      "org.yaml",
      "groups:\n  - name: platform-team\n",
    );
    const team = project(
      "files-team",
      [
        'const pulumi = require("@pulumi/pulumi");',
        'const { Org } = require("platform-pulumi");',
        "const root = new pulumi.StackReference(`${pulumi.getOrganization()}/files-root/${pulumi.getStack()}`);",
        'const team = new Org("team", { parentUid: root.requireOutput("groupUids").apply((u) => u["platform-team"]), file: "team.yaml" });',
        "exports.groupUids = team.groupUids;",
        "",
      ].join("\n"),
      "team.yaml",
      "groups:\n  - name: apps\nidentities:\n  - name: deployer\n    group: apps\n    claimMatch: { issuer: https://token.actions.githubusercontent.com, subject: repo:my-org/team:ref:refs/heads/main }\nbindings:\n  - { identity: apps/deployer, group: apps, role: viewer }\n",
    );
    // Two projects' stacks made at once (no engine run; the backend's .pulumi/meta.yaml was written by installSet).
    await Promise.all([root.initStack().then(() => root.ok(["config", "set", "platform:orgUid", fx.emu.orgUid])), team.initStack()]);
    // No destroy afterwards: the file's emulator and state folder go with it (afterAll), and nothing here is
    // asserted of a destroy.
    await root.ok(["up", "--yes"]);
    await team.ok(["up", "--yes"]);
    const top = ((await root.outputs())["groupUids"] as Record<string, string>)["platform-team"]!;
    const apps = ((await team.outputs())["groupUids"] as Record<string, string>)["apps"]!;
    expect(top.startsWith(`${fx.emu.orgUid}/`)).toBe(true);
    expect(apps.slice(0, apps.lastIndexOf("/"))).toBe(top);
    expect((await fx.client.identities.list({ childrenOf: apps }).collect()).map((i) => i.name)).toEqual(["deployer"]);
  }, 600_000);
});
