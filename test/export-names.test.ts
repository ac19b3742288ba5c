/**
 * Generated identifiers never collide (docs/export.md): an org whose names are the generator's own identifiers
 * (`uids`, `pulumi`, `org`, `org-uid`, `config`, `counts`), reserved words (`class`, `delete`), names equal once
 * camel-cased (`a-b`, `a_b`, `a.b`, `a b`), and objects of other kinds with the same names, referred to across top-level groups (so a split set's stacks import and export them), exported
 * through the built bin in every layout and format; each project is installed against the packed tarball and
 * `pulumi up` runs it (a TypeScript program is type-checked first), adopting everything, changing nothing.
 * The four layouts run at once, each with an org of its own (an emulator seeded alike), its own output folder,
 * project folders, state folder and stacks; the install of the tarball is made once for all of them.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { startEmulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runEngine } from "../scripts/lib/engine";
import { runBin as bin } from "./harness/bin";
import { apiEnv, exportSplit, installSet, sharedInstall, upTiers, useExportFixture, writesSince, type ExportFixture } from "./harness/splitSet";
import { cleanEnv, tail } from "./consumer/toolchain";

const refused: string[] = [];

// The API takes lowercase names of 3 to 63 characters only (`A`, `a` and `orgUid` are refused), so names that
// differ only in case cannot reach the generator; `org-uid`, `under-uid`, `get-role-output` and `platform-config`
// camel-case to identifiers the generator declares or imports.
const TOP = ["uids", "a-b", "a_b", "a.b", "a b", "class", "pulumi", "org", "org-uid", "under-uid", "get-role-output", "platform-config", "config", "counts", "delete", "outside"];

/**
 * Seeds the org: clashing top-level group names, the same names one level down and as identities and roles, bound
 * across groups. A name the API refuses goes to `refusals`.
 */
async function seed(c: PlatformClient, root: string, refusals: string[] = refused): Promise<void> {
  const groups = new Map<string, string>();
  for (const name of TOP) {
    try {
      groups.set(name, (await c.groups.create(root, { name })).uid);
    } catch (err) {
      refusals.push(`${name}: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  const claim = (s: string) => ({ claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:my-org/${s}:ref:refs/heads/main` } });
  const viewer = (await c.roles.list({ pageSize: 200 }).collect()).find((r) => r.name === "viewer")!.uid;
  const uids = groups.get("uids")!;
  const nested = await c.groups.create(uids, { name: "uids" });
  const idUids = await c.identities.create(groups.get("class")!, { name: "uids", ...claim("uids") } as never);
  const idPulumi = await c.identities.create(nested.uid, { name: "pulumi", ...claim("pulumi") } as never);
  const roleOrg = await c.roles.create(groups.get("a-b")!, { name: "org", capabilities: ["CAP_IAM_GROUPS_LIST"] } as never);
  const roleClass = await c.roles.create(root, { name: "class", capabilities: ["CAP_IAM_GROUPS_LIST"] } as never);
  // Across top-level groups: a split set's stacks read these through the `uids` outputs.
  await c.roleBindings.create(groups.get("a_b")!, { identityUid: idUids.uid, roleUid: roleOrg.uid });
  await c.roleBindings.create(groups.get("pulumi")!, { identityUid: idPulumi.uid, roleUid: roleClass.uid });
  await c.roleBindings.create(groups.get("org")!, { identityUid: idUids.uid, roleUid: viewer });
  await c.repos.create(groups.get("config")!, { name: "uids", description: "a repo named like the output" });
}

const fx = useExportFixture("platform-pulumi-names-", "export names", async (c, root) => {
  await seed(c, root);
  if (refused.length) process.stderr.write(`export names: the API refused ${refused.join("; ")}\n`);
});

/**
 * A layout's own org: an emulator seeded as the file's (the same names, uids of its own; every name taken,
 * asserted), closed when the test ends. Each layout asserts that only GETs reached the API during its `up`s
 * (`writesSince`, the emulator's request log), so the layouts, run at once, must not share a log. The work folder,
 * the tarball and `keep` are the file's.
 */
async function ownOrg({ expect, onTestFinished }: TestContext): Promise<ExportFixture> {
  const emu = await startEmulator({ seed: {} });
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  onTestFinished(async () => {
    await client.close();
    await emu.close();
  });
  const refusals: string[] = [];
  await seed(client, emu.orgUid, refusals);
  expect(refusals, "the API took every name").toEqual([]);
  return {
    emu,
    client,
    work: fx.work,
    tarball: fx.tarball,
    get keep() {
      return fx.keep;
    },
    set keep(v: boolean) {
      fx.keep = v;
    },
  };
}

/**
 * `sharedInstall` (test/harness/splitSet.ts) of the tarball for `project`, once per dependency list in this file:
 * the generated projects' package.json are alike (the same dependencies, `file:` the same number of folders up), so
 * the first layout to need the install makes it and the others wait for that one instead of running npm beside
 * it; `installSet` then finds it made.
 */
const installs = new Map<string, Promise<string>>();
function installOnce(tarball: string, project: string): Promise<string> {
  const m = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as { dependencies?: object; devDependencies?: object };
  const key = JSON.stringify([tarball, m.dependencies ?? {}, m.devDependencies ?? {}]);
  if (!installs.has(key)) installs.set(key, sharedInstall(tarball, project));
  return installs.get(key)!;
}

describe("export of an org named like the generator's identifiers", () => {
  it("the API took every name", () => {
    expect(refused).toEqual([]);
  });

  for (const format of ["ts", "yaml"] as const) {
    it.concurrent(`--layout split --format ${format}: every project compiles and its up adopts everything`, async (ctx) => {
      const { expect } = ctx;
      const org = await ownOrg(ctx);
      const out = path.join(fx.work, `split-${format}`);
      const { tiers } = await exportSplit(org, out, ["--format", format]);
      const setWork = path.join(fx.work, `split-${format}-work`);
      mkdirSync(setWork);
      await installOnce(await fx.tarball, path.join(out, tiers.flat()[0]!));
      const clis = await installSet({ tarball: await fx.tarball, out, projects: tiers.flat(), work: setWork, env: apiEnv(org) });
      const mark = org.emu.requests.length;
      if (!(await upTiers(tiers, clis))) fx.keep = true;
      expect(writesSince(org, mark)).toEqual([]);
    }, 900_000);
  }

  it.concurrent("--layout one --format ts: the project compiles and its up adopts everything", async (ctx) => {
    const { expect } = ctx;
    const org = await ownOrg(ctx);
    const out = path.join(fx.work, "one-ts");
    const r = await bin(["export", "--org", org.emu.orgUid, "--out", path.join(out, "org"), "--stack", "dev"], cleanEnv(undefined, apiEnv(org)));
    expect(r.code, tail(r)).toBe(0);
    const src = readFileSync(path.join(out, "org", "index.ts"), "utf8");
    const declared = [...src.matchAll(/^(?:export )?const (\w+) =/gm)].map((m) => m[1]!);
    expect(declared.length - new Set(declared).size).toBe(0);
    const setWork = path.join(fx.work, "one-ts-work");
    mkdirSync(setWork);
    await installOnce(await fx.tarball, path.join(out, "org"));
    const clis = await installSet({ tarball: await fx.tarball, out, projects: ["org"], work: setWork, env: apiEnv(org) });
    const mark = org.emu.requests.length;
    if (!(await upTiers([["org"]], clis))) fx.keep = true;
    expect(writesSince(org, mark)).toEqual([]);
  }, 900_000);

  it.concurrent("--layout one --format yaml: the org file runs in the org-setup program and its up adopts everything", async (ctx) => {
    const { expect } = ctx;
    const org = await ownOrg(ctx);
    const out = path.join(fx.work, "one-yaml");
    const r = await bin(["export", "--org", org.emu.orgUid, "--out", out, "--format", "yaml"], cleanEnv(undefined, apiEnv(org)));
    expect(r.code, tail(r)).toBe(0);
    const program = path.join(REPO_ROOT, "test", "programs", "org");
    const backend = path.join(fx.work, "one-yaml-state");
    mkdirSync(backend);
    const cli = new PulumiCli({ cwd: program, backendDir: backend, stack: "names", env: { ...apiEnv(org), PLATFORM_ORG_UID: org.emu.orgUid, ORG_FILE: path.join(out, "org.yaml") } });
    try {
      await cli.initStack();
      const mark = org.emu.requests.length;
      const up = await runEngine(cli, "up", ["--yes"]);
      expect(up.code, tail(up, 60)).toBe(0);
      expect(up.summary).toMatchObject({ update: 0, delete: 0, replace: 0 });
      expect(writesSince(org, mark)).toEqual([]);
    } finally {
      rmSync(path.join(program, "Pulumi.names.yaml"), { force: true });
    }
  }, 600_000);
});
