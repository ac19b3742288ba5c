/**
 * `platform-pulumi export --layout split --format yaml` (docs/export.md "One stack per top-level group"), through
 * the built bin and the real CLI on the emulator: an org with three top-level groups and references across them
 * that the org file can hold (a binding in one team's group of another team's identity, a team's custom role bound
 * to another team's identity) plus what it cannot (an identity in the root group, an account association, a tag),
 * exported as a set of org-setup programs, installed against the packed tarball, then:
 * - each project holds an org file and the program that declares it with `Org`; a child's file marks its top-level
 *   group `outside`, and its program reads that group's uid from the root's `uids` output;
 * - what the org file cannot hold is listed as skipped, as in the one-stack export;
 * - `pulumi up` of the root, then the children (at once), then cross adopts every object: no POST, PATCH or
 *   DELETE, no object's `updateTime` moves; then `preview --expect-no-changes` of each stack (three at once) plans
 *   nothing (what a second `up` would do) and writes nothing.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import type { PlatformClient } from "../provider/client/client";
import { runEngine } from "../scripts/lib/engine";
import { PulumiCli } from "../scripts/lib/pulumi";
import { runBin as bin } from "./harness/bin";
import { apiEnv, exportSplit, installSet, upAdopting, seedTeams, useExportFixture, writesSince } from "./harness/splitSet";
import { cleanEnv, tail } from "./consumer/toolchain";
import { subscriptionKind } from "../provider/kinds/subscription";
import { atMost } from "./harness/limit";

const made: Record<string, string> = {};

/** Seeds the org through the API: three teams, references across them, and objects the org file cannot hold. */
async function seed(c: PlatformClient, root: string): Promise<void> {
  const { viewer, editor, claim, eng, sec, ops, apps, infra } = await seedTeams(c, root);
  const releaser = await c.roles.create(eng.uid, { name: "releaser", capabilities: ["CAP_REPO_LIST"] } as never);
  await c.identities.create(root, { name: "root-bot", ...claim("root") } as never); // the org file cannot hold it
  const deployer = await c.identities.create(apps.uid, { name: "deployer", ...claim("app") } as never);
  const scanner = await c.identities.create(sec.uid, { name: "scanner", ...claim("scanner") } as never);
  const opsBot = await c.identities.create(infra.uid, { name: "ops-bot", ...claim("ops") } as never);
  await c.roleBindings.create(apps.uid, { identityUid: deployer.uid, roleUid: editor }); // inside one team
  await c.roleBindings.create(eng.uid, { identityUid: deployer.uid, roleUid: releaser.uid }); // a team's own role
  await c.roleBindings.create(sec.uid, { identityUid: scanner.uid, roleUid: viewer });
  await c.roleBindings.create(infra.uid, { identityUid: deployer.uid, roleUid: viewer }); // one team's identity in another's
  await c.roleBindings.create(apps.uid, { identityUid: opsBot.uid, roleUid: releaser.uid }); // a team's role to another's identity
  await c.roleBindings.create(infra.uid, { identityUid: opsBot.uid, roleUid: editor });
  const app = await c.repos.create(eng.uid, { name: "app", description: "The product" });
  await c.tags.create(app.uid, { name: "latest", digest: `sha256:${"1".repeat(64)}` }); // no tags in the org file
  await subscriptionKind.collection(c).create(sec.uid, { sink: "https://hooks.example.com/security" });
  await c.accountAssociations.create(ops.uid, { name: "ops-aws", amazon: { account: "123456789012" } } as never); // nor associations
  Object.assign(made, { eng: eng.uid, apps: apps.uid, deployer: deployer.uid, opsBot: opsBot.uid, releaser: releaser.uid });
}

const fx = useExportFixture("platform-pulumi-split-yaml-", "export split yaml", seed);

describe("platform-pulumi export --layout split --format yaml", () => {
  const out = () => path.join(fx.work, "org");
  let tiers: string[][] = [];
  const clis = new Map<string, PulumiCli>();
  const projects = () => tiers.flat();
  const index: Record<string, string> = {};
  const file: Record<string, Record<string, Array<Record<string, unknown>>>> = {};

  it("writes one org-setup program per project, the children's top-level groups outside, read from the root's uids", async () => {
    const { r, tiers: written } = await exportSplit(fx, out(), ["--format", "yaml"]);
    tiers = written;
    expect(tiers).toEqual([["org"], ["org.engineering", "org.operations", "org.security"], ["org-cross"]]);
    for (const p of projects()) {
      index[p] = readFileSync(path.join(out(), p, "index.ts"), "utf8");
      file[p] = parseYaml(readFileSync(path.join(out(), p, "org.yaml"), "utf8")) as Record<string, Array<Record<string, unknown>>>;
    }
    // The root declares the top-level groups under the org's root group and gives their uids to the others.
    expect(file["org"]!["groups"]!.map((g) => [g["name"], g["uid"], g["groups"]])).toEqual([
      ["engineering", made["eng"], undefined],
      ["operations", expect.any(String), undefined],
      ["security", expect.any(String), undefined],
    ]);
    expect(index["org"]).toContain("parentUid: orgUid,");
    expect(index["org"]).not.toContain("StackReference");
    expect(index["org"]).toMatch(/export const uids = \{[^}]*\bengineering: org\.groupUids\.apply\(\(u\) => u\["engineering"\]\),/s);
    // A child places its groups under its top-level group, outside, whose uid it reads from the root's stack.
    expect(file["org.engineering"]!["groups"]).toEqual([{ name: "engineering", outside: true, groups: [{ name: "apps", uid: made["apps"] }] }]);
    expect(index["org.engineering"]).toContain('"engineering": _uid("org", "engineering"),');
    expect(index["org.engineering"]).not.toContain("parentUid");
    expect(file["org.engineering"]!["roles"]!.map((x) => `${String(x["group"])}/${String(x["name"])}`)).toEqual(["engineering/releaser"]);
    // Cross: another team's identity and role are outside too, read from the stacks that declare them.
    expect(file["org-cross"]!["bindings"]!.map((b) => `${String(b["identity"])}@${String(b["group"])}#${String(b["role"])}`).sort()).toEqual([
      "engineering/apps/deployer@operations/infra#viewer",
      "operations/infra/ops-bot@engineering/apps#releaser",
    ]);
    expect(index["org-cross"]).toMatch(/identities: \{\s*"engineering\/apps\/deployer": _uid\("org\.engineering", "\w+"\),\s*"operations\/infra\/ops-bot": _uid\("org\.operations", "\w+"\),/s);
    expect(index["org-cross"]).toMatch(/roles: \{\s*"engineering\/releaser": _uid\("org\.engineering", "\w+"\),/s);
    // What the org file cannot hold is listed, as in the one-stack export.
    expect(r.stdout).toMatch(/^\s*Identity\s+1\s+in the group the file's top-level groups live in \(the root or the --under group\)/m);
    // ... and each such object is named, to adopt another way.
    expect(r.stdout).toMatch(/left out, and managed by no stack this export makes[^\n]*\n(\s+\w+ .* \(uid [0-9a-f/]+\)\n)*\s+Identity \S+ \(uid [0-9a-f]{40}\/[0-9a-f]{16}\)/);
    expect(r.stdout).toMatch(/^\s*AccountAssociation\s+1\s+/m);
    expect(r.stdout).toMatch(/^\s*Tag\s+1\s+/m);
    // Every object of the one-stack org file is in exactly one file of the set.
    const one = path.join(fx.work, "one");
    expect((await bin(["export", "--org", fx.emu.orgUid, "--out", one, "--format", "yaml"], cleanEnv(undefined, apiEnv(fx)))).code).toBe(0);
    const uids = (text: string) => [...text.matchAll(/^\s*(?:- )?uid: (\S+)$/gm)].map((m) => m[1]!).sort();
    expect(projects().flatMap((p) => uids(readFileSync(path.join(out(), p, "org.yaml"), "utf8"))).sort()).toEqual(uids(readFileSync(path.join(one, "org.yaml"), "utf8")));
  }, 120_000);

  it("installs the projects against the packed tarball", async () => {
    for (const [p, cli] of await installSet({ tarball: await fx.tarball, out: out(), projects: projects(), work: fx.work, env: apiEnv(fx) })) clis.set(p, cli);
  }, 600_000);

  it("pulumi up of the set in the tiers' order adopts everything; then a preview of each stack plans nothing (a second up would change nothing)", async () => {
    // No write, no updateTime moved; each object in exactly one stack, the one its file puts it in.
    const { held, mark } = await upAdopting(fx, tiers, clis);
    expect(held.get(`Group:${made["eng"]}`)).toBe("org");
    expect(held.get(`Group:${made["apps"]}`)).toBe("org.engineering");
    expect(held.get(`Role:${made["releaser"]}`)).toBe("org.engineering");
    expect(held.get(`Identity:${made["opsBot"]}`)).toBe("org.operations");
    // A second up of a stack would carry out exactly the plan its preview shows: with --expect-no-changes the
    // preview fails on any step (create, update, delete, replace or other), so none would be taken and nothing written.
    // The previews run at once, three at a time (the widest tier): the set's stacks are distinct stacks of one file
    // backend, all deployed by now, and a preview takes no lock and writes no state (docs/cli.md, "When another
    // update holds the stack's lock"); one engine run keeps about 1.5 of this machine's 2 cores busy
    // (docs/testing.md, "Pool settings"). Each is judged after all have ended, in the tiers' order.
    const order = tiers.flat();
    const previews = await atMost(3, order, (p) => runEngine(clis.get(p)!, "preview", ["--expect-no-changes"]));
    for (const [i, p] of order.entries()) {
      const again = previews[i]!;
      expect(again.code, `${p}: ${tail(again, 60)}`).toBe(0);
      expect(again.summary, p).toMatchObject({ create: 0, update: 0, delete: 0, replace: 0 });
    }
    expect(writesSince(fx, mark)).toEqual([]);
  }, 900_000);
});
