/**
 * The commands on a team's state backend: an S3-compatible bucket (moto's server, from PyPI) and a PostgreSQL
 * database (Debian's packages), both installed by `scripts/ensure-backends` and started and stopped here, each on a
 * free loopback port. On each: `drift` (an out-of-band edit and a hand-made group), `gate` (pass, then a configured
 * mandatory violation), `unmanaged`, and an `up` killed with SIGKILL mid-way, whose lock another command then
 * meets (the message a user sees), released with `pulumi cancel`, settled with `recover --yes`, and converged by
 * `up` with no duplicate. A backend that cannot be installed here is skipped with the reason ensure-backends gives.
 * The two backends share nothing but the two project folders (a backend, an emulator and stacks named after the
 * backend each) and run at once; on one backend the two tests run one after the other (one emulator: the killed
 * `up`'s latency and group count, and `unmanaged`'s list, would see the other test's requests and groups).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { startPostgres, startS3, waitFor, type Backend } from "./harness/backends";

const LONG = 300_000;
const DRIFT_PROGRAM = path.join(REPO_ROOT, "examples", "drift-detection", "program");
const ORG_PROGRAM = path.join(REPO_ROOT, "test", "programs", "org");

/** What `scripts/ensure-backends` printed: `MOTO_SERVER`, `PG_BIN`, or a `SKIP_*` reason. */
let installed: Record<string, string> = {};

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

beforeAll(async () => {
  const r = await run("bash", [path.join(REPO_ROOT, "scripts", "ensure-backends")], process.env);
  installed = Object.fromEntries(
    r.out
      .split("\n")
      .map((l) => /^([A-Z_0-9]+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}, 900_000);

const BACKENDS = [
  { name: "s3", skipKey: "SKIP_S3", start: () => startS3(installed["MOTO_SERVER"]!) },
  { name: "postgres", skipKey: "SKIP_PG", start: () => startPostgres(installed["PG_BIN"]!) },
] as const;

/**
 * The stack a project folder has selected is kept per folder (Pulumi's workspace file under ~/.pulumi/workspaces),
 * one file the two backends' `stack select --create` in the same folder both read and write: one select at a time
 * in this file. (Every other command here names its stack with `--stack`, so neither selection decides which stack
 * it reads.)
 */
let selecting: Promise<unknown> = Promise.resolve();
function selectOneAtATime(cli: PulumiCli): Promise<void> {
  const done = selecting.then(() => cli.initStack());
  selecting = done.catch(() => undefined);
  return done;
}

for (const b of BACKENDS) {
  // describe.concurrent: this backend's block runs beside the other's; it.sequential: its own two tests in turn.
  describe.concurrent(`on a ${b.name} backend`, () => {
    let backend: Backend | undefined;
    let skip: string | undefined;
    let emu: Emulator;
    let client: PlatformClient;
    let apiEnv: Record<string, string>;
    const stackFiles: string[] = [];

    beforeAll(async () => {
      skip = installed[b.skipKey];
      if (skip === undefined) backend = await b.start();
      emu = await startEmulator();
      client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
      apiEnv = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
    }, LONG);
    afterAll(async () => {
      await client?.close();
      await emu?.close();
      await backend?.stop();
      for (const f of stackFiles) rmSync(f, { force: true });
    }, LONG);

    const stackIn = async (cwd: string, stack: string, extra: Record<string, string> = {}) => {
      const cli = new PulumiCli({ cwd, stack, env: { ...apiEnv, ...backend!.env, PULUMI_BACKEND_URL: backend!.url, ...extra } });
      await selectOneAtATime(cli);
      stackFiles.push(path.join(cwd, `Pulumi.${stack}.yaml`));
      return cli;
    };
    const bin = (cli: PulumiCli, args: string[]) => run(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), ...args], cli.env(), cli.opts.cwd);

    it.sequential("drift, gate and unmanaged read and report the stack as on a file backend", async (ctx) => {
      const { expect } = ctx;
      if (skip !== undefined) ctx.skip(skip);
      const cli = await stackIn(DRIFT_PROGRAM, `${b.name}-drift`);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const apps = String((await cli.outputs())["appsUid"]);
      await client.groups.patch(apps, { description: "edited on a team backend" }, ["description"]);
      const handmade = await client.groups.create(apps, { name: "handmade", description: "by hand" });
      const state = (await cli.ok(["stack", "export"])).stdout;

      const drift = await bin(cli, ["drift", "--stack", cli.opts.stack, "--unmanaged", "--format", "json"]);
      expect(drift.code, drift.out + drift.err).toBe(1);
      const report = JSON.parse(drift.out) as { drifted: Array<{ name: string; change: string; fields: unknown[] }>; pending: Array<{ name: string; op: string }>; unmanaged: Array<{ uid: string }> };
      expect(report.drifted.map((d) => ({ name: d.name, change: d.change, fields: d.fields }))).toEqual([
        { name: "apps", change: "changed", fields: [{ path: "description", state: "Application teams", live: "edited on a team backend" }] },
      ]);
      expect(report.pending.map((p) => `${p.op} ${p.name}`)).toEqual(["update apps"]);
      expect(report.unmanaged.map((u) => u.uid)).toEqual([handmade.uid]);
      expect((await cli.ok(["stack", "export"])).stdout).toBe(state);

      const unmanaged = await bin(cli, ["unmanaged", "--stack", cli.opts.stack]);
      expect(unmanaged.code, unmanaged.out + unmanaged.err).toBe(1);
      expect(unmanaged.out).toContain(`adoptUid: "${handmade.uid}"`);

      // One gate run reads the stack from this backend; its verdicts on a clean config are the file backend's tests'.
      const gitlabOnly = path.join(mkdtempSync(path.join(tmpdir(), "gate-config-")), "config.json");
      writeFileSync(gitlabOnly, JSON.stringify({ "allowed-issuers": { issuers: ["https://gitlab.com"] } }));
      const strict = await bin(cli, ["gate", "--stack", cli.opts.stack, "--config", gitlabOnly, "--all"]); // the finding is already present: --all judges the whole stack
      expect(strict.code, strict.out + strict.err).toBe(1);
      expect(strict.out).toMatch(/high\s+mandatory\s+allowed-issuers\s+Identity::deployer/);
      // Converging and destroying are the engine's own work on any backend (drift's exit 0 after converging is
      // test/workflows.test.ts's); the stack goes with the backend in afterAll.
    }, LONG);

    it.sequential("a killed up: the lock's message, pulumi cancel, recover --yes, then up with no duplicate", async (ctx) => {
      const { expect } = ctx;
      if (skip !== undefined) ctx.skip(skip);
      const cli = await stackIn(ORG_PROGRAM, `${b.name}-kill`, { ORG_FILE: path.join(ORG_PROGRAM, "org.yaml") });
      const before = (await client.groups.list({ descendantsOf: emu.orgUid }).collect()).length;
      emu.control.set({ latencyMs: 150 });
      const posts = () => emu.requests.filter((r) => r.method === "POST").length;
      const start = posts();
      const child = spawn(path.join(cliBinDir(), "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", cli.opts.stack], { cwd: ORG_PROGRAM, env: cli.env(), stdio: "ignore" });
      const closed = new Promise((r) => child.once("close", r));
      await waitFor("four creates", async () => posts() - start >= 4, 120_000);
      child.kill("SIGKILL");
      await closed;
      emu.control.set({ latencyMs: 0 });
      await new Promise((r) => setTimeout(r, 1000)); // the server completes what was in flight

      // The killed update still holds the stack's lock: the commands that write say so, and how to release it.
      const locked = await bin(cli, ["recover", "--stack", cli.opts.stack, "--yes"]);
      expect(locked.code).toBe(2);
      expect(locked.err).toMatch(new RegExp(`stack ${cli.opts.stack} is locked by an update \\(${b.name} backend\\); recover reads and writes nothing while an update holds the stack:\\n  (\\S+/)?\\.pulumi/locks/organization/org-component/${cli.opts.stack}/\\S+\\.json: update by \\S+@\\S+ \\(pid \\d+, no longer running\\) since `));
      expect(locked.err).toContain(`Release it with \`pulumi cancel --stack ${cli.opts.stack} --yes\``);
      // A preview takes no lock: drift still reads the last checkpoint (the interrupted creates show as pending).
      const lockedDrift = await bin(cli, ["drift", "--stack", cli.opts.stack, "--format", "json"]);
      expect(lockedDrift.code, lockedDrift.err).toBe(0);
      expect((JSON.parse(lockedDrift.out) as { pending: unknown[] }).pending.length).toBeGreaterThan(0);

      // `pulumi up` itself refuses, naming the lock's owner.
      const blocked = await cli.run(["up", "--yes", "--skip-preview"]);
      expect(blocked.code).not.toBe(0);
      expect(`${blocked.stdout}${blocked.stderr}`).toMatch(/the stack is currently locked by 1 lock\(s\)\. Either wait for the other process\(es\) to end or delete the lock file with `pulumi cancel`\.\s+\S+: created by \S+@\S+ \(pid \d+\) at /);

      // With --stack, as the message above says: the folder's selected stack may be the other backend's by now.
      await cli.ok(["cancel", "--stack", cli.opts.stack, "--yes"]);
      const recovered = await bin(cli, ["recover", "--stack", cli.opts.stack, "--yes"]);
      expect(recovered.code, recovered.out + recovered.err).toBe(0);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const unmanaged = await bin(cli, ["unmanaged", "--stack", cli.opts.stack]);
      expect(unmanaged.code, unmanaged.out + unmanaged.err).toBe(0);
      const groups = await client.groups.list({ descendantsOf: emu.orgUid }).collect();
      expect(groups.length - before).toBe(5);
    }, LONG);
  });
}
