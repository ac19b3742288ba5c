/**
 * `platform-pulumi recover` beside a live `pulumi up` of the same stack, on the file backend, PostgreSQL and an S3
 * bucket (moto's server; both started here on loopback ports, `test/harness/backends.ts`): the plan and `--yes`, run through the built bin
 * while the update holds the stack's lock (creates slowed by the emulator's latency, one at a time), are refused
 * with a message naming the update (its pid, still running), print no plan and change nothing; the `up` then ends
 * with exit 0 and its state holds exactly the objects the API holds, none of them twice. The three backends are
 * independent (a backend, an emulator and a stack each) and run at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { ensureBackends, startPostgres, startS3, waitFor, type Backend } from "./harness/backends";

const LONG = 300_000;
const MANY = path.join(REPO_ROOT, "test", "programs", "many");
const COUNT = 24;

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

let installed: Record<string, string> = {};
beforeAll(() => {
  installed = ensureBackends();
}, 900_000);

const BACKENDS = [
  {
    name: "file",
    skip: () => undefined,
    start: async (): Promise<Backend> => {
      const dir = mkdtempSync(path.join(tmpdir(), "recover-lock-"));
      return { url: `file://${dir}`, env: {}, stop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  { name: "postgres", skip: () => installed["SKIP_PG"], start: () => startPostgres(installed["PG_BIN"]!) },
  { name: "s3", skip: () => installed["SKIP_S3"], start: () => startS3(installed["MOTO_SERVER"]!) },
] as const;

for (const b of BACKENDS) {
  describe.concurrent(`recover beside a live up, on a ${b.name} backend`, () => {
    let backend: Backend | undefined;
    let skip: string | undefined;
    let emu: Emulator;
    let client: PlatformClient;
    let up: ChildProcess | undefined;
    const stack = `lock-${b.name}`;

    beforeAll(async () => {
      skip = b.skip();
      if (skip === undefined) backend = await b.start();
      emu = await startEmulator();
      client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    }, LONG);
    afterAll(async () => {
      up?.kill("SIGKILL");
      await client?.close();
      await emu?.close();
      await backend?.stop();
      rmSync(path.join(MANY, `Pulumi.${stack}.yaml`), { force: true });
    }, LONG);

    it("is refused while the update runs, writes nothing, and the up's state ends equal to the API", async (ctx) => {
      const { expect } = ctx;
      if (skip !== undefined) ctx.skip(skip);
      const cli = new PulumiCli({
        cwd: MANY,
        stack,
        env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid, PULUMI_BACKEND_URL: backend!.url, ...backend!.env },
      });
      await cli.initStack();
      await cli.ok(["config", "set", "count", String(COUNT)]);
      emu.control.set({ latencyMs: 400 });
      const posts = () => emu.requests.filter((r) => r.method === "POST").length;
      const child = spawn(path.join(cli.bin, "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "1", "--stack", stack], { cwd: MANY, env: cli.env(), stdio: ["ignore", "pipe", "pipe"] });
      up = child;
      let upOutput = "";
      child.stdout!.on("data", (d: Buffer) => (upOutput += d));
      child.stderr!.on("data", (d: Buffer) => (upOutput += d));
      const ended = new Promise<number>((resolve) => child.once("close", (code) => resolve(code ?? -1)));
      await waitFor("two creates", async () => posts() >= 2, 120_000);

      for (const args of [["recover", "--stack", stack], ["recover", "--stack", stack, "--yes"]]) {
        const r = await run(args, cli.env(), MANY);
        expect(r.code, `${args.join(" ")}: ${r.out}${r.err}`).toBe(2);
        expect(r.err).toContain(`stack ${stack} is locked by an update (${b.name} backend); recover reads and writes nothing while an update holds the stack`);
        expect(r.err).toMatch(new RegExp(`\\.pulumi/locks/organization/many/${stack}/[0-9a-f-]+\\.json: update by \\S+@\\S+ \\(pid ${child.pid}, still running\\) since \\S+`));
        expect(r.err).toContain("Wait for that update to end, then run this command again.");
        expect(r.out).toBe(""); // no plan: nothing called "created during the interrupted update"
      }
      // The recovers ran beside the update, not after it.
      expect(child.exitCode, upOutput).toBeNull();
      expect(posts()).toBeLessThan(COUNT);

      const code = await ended;
      emu.control.set({ latencyMs: 0 });
      expect(code, upOutput).toBe(0);
      const state = JSON.parse((await cli.ok(["stack", "export"])).stdout) as { deployment: { resources?: Array<{ type: string; id?: string }>; pending_operations?: unknown[] } };
      expect(state.deployment.pending_operations ?? []).toEqual([]);
      const inState = (state.deployment.resources ?? []).filter((r) => r.type.endsWith(":Group")).map((r) => r.id).sort();
      const inApi = (await client.groups.list({ descendantsOf: emu.orgUid }).collect()).filter((g) => g.name.startsWith("many-")).map((g) => g.uid).sort();
      expect(inState).toHaveLength(COUNT);
      expect(inState).toEqual(inApi);
      // Nothing left for recover once the update has ended.
      const after = await run(["recover", "--stack", stack], cli.env(), MANY);
      expect(after.code, after.out + after.err).toBe(0);
      expect(after.out).toContain("no pending operations, nothing to recover");
      // No destroy: nothing is asserted of one, and the emulator and the backend go in afterAll.
    }, LONG);
  });
}
