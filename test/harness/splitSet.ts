/**
 * The tests of `platform-pulumi export` against an emulator they seed (docs/export.md), and a set of exported
 * projects (`--layout split`, docs/export.md "One stack per top-level group") installed and applied as a user
 * would: one `npm install` of the packed tarball shared by every project, a stack `dev` of each on one file
 * backend, then `pulumi up` tier by tier (the stacks of a tier at once).
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../provider/client/client";
import { runEngine } from "../../scripts/lib/engine";
import { PulumiCli } from "../../scripts/lib/pulumi";
import { runBin, type BinResult } from "./bin";
import { cleanEnv, run, tail } from "../consumer/toolchain";
import { packedTarball } from "./tarball";

/** What {@link useExportFixture} sets up; the fields are set once its `beforeAll` has run. */
export interface ExportFixture {
  /** An emulator started empty (`seed: {}`), then seeded by the file's `seed`. */
  emu: Emulator;
  /** A client of that emulator with the owner's token. */
  client: PlatformClient;
  /** A fresh temporary folder, removed after the file unless {@link keep} is set. */
  work: string;
  /** The package packed once per build ({@link packedTarball}: shared, never moved or deleted). */
  tarball: Promise<string>;
  /** Set to keep {@link work} after the file (a failed `up`), its path printed. */
  keep: boolean;
}

/**
 * Registers `beforeAll` (a temporary folder named `<prefix>…`, the tarball's pack started, an emulator with no
 * seeded objects, a client, then `seed(client, orgUid)`) and `afterAll` (closes both; removes the folder or, when
 * `keep` was set, prints `<label>: kept <folder> for inspection`).
 */
export function useExportFixture(prefix: string, label: string, seed: (c: PlatformClient, orgUid: string) => Promise<void>): ExportFixture {
  const fx = { keep: false } as ExportFixture;
  beforeAll(async () => {
    fx.work = mkdtempSync(path.join(os.tmpdir(), prefix));
    fx.tarball = packedTarball();
    fx.tarball.catch(() => undefined);
    fx.emu = await startEmulator({ seed: {} });
    fx.client = new PlatformClient({ apiUrl: fx.emu.url, token: fx.emu.token });
    await seed(fx.client, fx.emu.orgUid);
  }, 300_000);
  afterAll(async () => {
    await fx.client?.close();
    await fx.emu?.close();
    if (fx.keep) process.stderr.write(`${label}: kept ${fx.work} for inspection\n`);
    else if (fx.work) rmSync(fx.work, { recursive: true, force: true });
  }, 300_000);
  return fx;
}

/** The API's settings for the fixture's emulator: `PLATFORM_API_URL` and the owner's `PLATFORM_TOKEN`. */
export function apiEnv(fx: ExportFixture): { PLATFORM_API_URL: string; PLATFORM_TOKEN: string } {
  return { PLATFORM_API_URL: fx.emu.url, PLATFORM_TOKEN: fx.emu.token };
}

/** Every object's `updateTime` (or `createTime`), by collection and uid: equal before and after an adopting `up`. */
export function updateTimes(emu: Emulator): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [collection, rows] of Object.entries(emu.dump())) {
    for (const r of rows as Array<Record<string, unknown>>) out[`${collection}:${String(r["uid"])}`] = String(r["updateTime"] ?? r["createTime"] ?? "");
  }
  return out;
}

/**
 * `platform-pulumi export --layout split --stack dev <extra>` of the fixture's org into `out`, which must exit 0
 * (asserted). @returns its result and the set's tiers from `layout.json`.
 */
export async function exportSplit(fx: ExportFixture, out: string, extra: readonly string[] = []): Promise<{ r: BinResult; tiers: string[][] }> {
  const r = await runBin(["export", "--org", fx.emu.orgUid, "--out", out, "--stack", "dev", "--layout", "split", ...extra], cleanEnv(undefined, apiEnv(fx)));
  expect(r.code, tail(r)).toBe(0);
  return { r, tiers: (JSON.parse(readFileSync(path.join(out, "layout.json"), "utf8")) as { tiers: string[][] }).tiers };
}

/**
 * {@link upTiers} of an exported set that must adopt: no request but GETs reaches the API (asserted) and no
 * object's `updateTime` moves (asserted); a failed `up` sets `fx.keep`. Then reads every stack's state: each
 * platform object must be in exactly one stack (asserted).
 * @returns which project holds each object, by `<Kind>:<uid>`, and the request log's length before the `up`s.
 */
export async function upAdopting(fx: ExportFixture, tiers: readonly (readonly string[])[], clis: ReadonlyMap<string, PulumiCli>): Promise<{ held: Map<string, string>; mark: number }> {
  const before = updateTimes(fx.emu);
  const mark = fx.emu.requests.length;
  if (!(await upTiers(tiers, clis))) fx.keep = true;
  expect(writesSince(fx, mark)).toEqual([]);
  expect(updateTimes(fx.emu)).toEqual(before);
  const held = new Map<string, string>();
  for (const p of tiers.flat()) {
    for (const r of (await clis.get(p)!.exportState()).deployment.resources ?? []) {
      const type = String(r["type"]);
      if (!type.startsWith("pulumi-nodejs:dynamic/platform:")) continue;
      const key = `${type.split(":").pop()}:${String(r["id"])}`;
      expect(held.get(key), key).toBeUndefined();
      held.set(key, p);
    }
  }
  return { held, mark };
}

/** The requests other than GET that reached the emulator since the log held `mark` of them, as `METHOD path`. */
export function writesSince(fx: ExportFixture, mark: number): string[] {
  return fx.emu.requests.slice(mark).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
}

/**
 * The `node_modules` of `npm install <tarball>` in a project whose package.json is `project`'s, installed once per
 * tarball and dependency list: kept beside the tarball (`install-<hash>/`, under the per-build pack folder of
 * test/harness/tarball.ts), so every generated project of every file in this and later runs on the same build links
 * one install instead of running npm again (about 30 s each here). Safe when two processes install at once: each
 * installs into a folder of its own and the first rename wins.
 * @returns the absolute path of that `node_modules`. Fails the test when the install fails.
 */
export async function sharedInstall(tarball: string, project: string): Promise<string> {
  const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")) as { dependencies?: object; devDependencies?: object };
  const key = createHash("sha256").update(JSON.stringify([tarball, manifest.dependencies ?? {}, manifest.devDependencies ?? {}])).digest("hex").slice(0, 16);
  const dir = path.join(path.dirname(tarball), `install-${key}`);
  if (existsSync(path.join(dir, "node_modules"))) return path.join(dir, "node_modules");
  const tmp = mkdtempSync(path.join(path.dirname(tarball), `.install-${key}-`));
  try {
    copyFileSync(path.join(project, "package.json"), path.join(tmp, "package.json"));
    const r = await run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"], { cwd: tmp, env: cleanEnv(), timeoutMs: 600_000 });
    expect(r.code, tail(r)).toBe(0);
    writeFileSync(path.join(tmp, "node_modules", ".platform-pulumi-install"), `${tarball}\n`);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      if (!existsSync(path.join(dir, "node_modules"))) throw err; // another process installed the same first
    }
    return path.join(dir, "node_modules");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Links every project's `node_modules` to {@link sharedInstall}'s install of `tarball` (the same dependencies in
 * every project of a set), makes `<work>/state` the backend and inits stack `dev` of each project with `env`.
 * @returns each project's CLI, by project name. Fails the test when the install fails.
 */
export async function installSet(o: { tarball: string; out: string; projects: readonly string[]; work: string; env: Record<string, string> }): Promise<Map<string, PulumiCli>> {
  const modules = await sharedInstall(o.tarball, path.join(o.out, o.projects[0]!));
  for (const p of o.projects) symlinkSync(modules, path.join(o.out, p, "node_modules"), "dir");
  mkdirSync(path.join(o.work, "state"));
  const clis = new Map<string, PulumiCli>();
  for (const p of o.projects) {
    const cli = new PulumiCli({ cwd: path.join(o.out, p), backendDir: path.join(o.work, "state"), stack: "dev", env: o.env });
    await cli.initStack();
    clis.set(p, cli);
  }
  return clis;
}

/**
 * `pulumi up --yes` of every stack, tier after tier, and each must succeed updating, deleting and replacing
 * nothing (an exported set adopts). @returns false when an `up` failed (the caller keeps its folder to inspect).
 */
export async function upTiers(tiers: readonly (readonly string[])[], clis: ReadonlyMap<string, PulumiCli>): Promise<boolean> {
  let ok = true;
  for (const tier of tiers) {
    const ups = await Promise.all(tier.map((p) => runEngine(clis.get(p)!, "up", ["--yes"])));
    ups.forEach((up, i) => {
      if (up.code !== 0) ok = false;
      expect(up.code, `${tier[i]}: ${tail(up, 60)}`).toBe(0);
      expect(up.summary, tier[i]).toMatchObject({ update: 0, delete: 0, replace: 0 });
    });
  }
  return ok;
}

/** What {@link seedTeams} made: the built-in roles' uids, a claim maker, the three teams and two subgroups. */
export interface Teams {
  viewer: string;
  editor: string;
  /** A GitHub Actions `claimMatch` for `repo:my-org/<s>` on main. */
  claim: (s: string) => { claimMatch: { issuer: string; subject: string } };
  eng: { uid: string };
  sec: { uid: string };
  ops: { uid: string };
  /** engineering/apps */
  apps: { uid: string };
  /** operations/infra */
  infra: { uid: string };
}

/**
 * The split tests' org to start from, through the API: top-level groups engineering, security and operations
 * (described `<name> team`) under `root`, then engineering/apps and operations/infra.
 */
export async function seedTeams(c: PlatformClient, root: string): Promise<Teams> {
  const roles = new Map((await c.roles.list({ pageSize: 200 }).collect()).map((r) => [r.name, r.uid]));
  const claim = (s: string) => ({ claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:my-org/${s}:ref:refs/heads/main` } });
  const [eng, sec, ops] = await Promise.all(["engineering", "security", "operations"].map((name) => c.groups.create(root, { name, description: `${name} team` })));
  const apps = await c.groups.create(eng!.uid, { name: "apps" });
  const infra = await c.groups.create(ops!.uid, { name: "infra" });
  return { viewer: roles.get("viewer")!, editor: roles.get("editor")!, claim, eng: eng!, sec: sec!, ops: ops!, apps, infra };
}
