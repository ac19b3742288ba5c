/**
 * `platform-pulumi recover` beside a live `pulumi up` of the same stack, on the file backend, PostgreSQL and an S3
 * bucket (moto's server; both started here on loopback ports, `test/harness/backends.ts`): the plan and `--yes`, run
 * through the built bin while the update holds the stack's lock (creates slowed by the emulator's latency, one at a
 * time), from a subfolder of the project (no `--cwd`: the project is found upward, as the CLI finds it) and with the
 * stack named fully (`organization/many/<stack>`) from a folder that is not the project, are refused with a message
 * naming the update (its pid, still running), print no plan and change nothing; the `up` then ends with exit 0 and
 * its state holds exactly the objects the API holds, none of them twice. One `up` per backend.
 *
 * Then, without an engine run, the lookups the CLI does (provider/commands/project.ts) against each backend: a stack
 * of a `Pulumi.json` project whose `backend.url` names the backend (made with `pulumi stack select --create`, so the
 * CLI itself reads that project and backend), its lock object written exactly as the CLI writes it (lock.ts: a file,
 * a row of the CLI's table, an object in the bucket); the plan and `--yes` from a subfolder and from the project
 * with no `PULUMI_BACKEND_URL`, by full name from elsewhere with the variable, and by full name from elsewhere with
 * the backend from the stored login (`credentials.json`) are each refused, naming that lock. The three backends are
 * independent (a backend, an emulator and stacks each) and run at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { ensureBackends, startPostgres, startS3, waitFor, type Backend } from "./harness/backends";

const LONG = 300_000;
const MANY = path.join(REPO_ROOT, "test", "programs", "many");
const COUNT = 24;

/** The lock object's content, as the CLI writes it (lock.ts): held by this (running) process. */
function lockBody(): string {
  return JSON.stringify({ pid: process.pid, username: userInfo().username, hostname: hostname(), timestamp: new Date().toISOString() });
}

/** Writes `.pulumi/locks/<key>` in the backend as the CLI does (lock.ts says where each backend keeps it). */
async function writeLock(kind: string, backend: Backend, key: string): Promise<void> {
  if (kind === "file") {
    const file = path.join(new URL(backend.url).pathname, key);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, lockBody());
  } else if (kind === "postgres") {
    // The CLI's table (made by its `stack select --create` above), its keys under the URL's path (the database).
    const pg = await import("pg");
    const u = new URL(backend.url);
    const client = new pg.Client({ connectionString: backend.url });
    await client.connect();
    try {
      const type = await client.query<{ data_type: string }>("SELECT data_type FROM information_schema.columns WHERE table_name = 'pulumi_state' AND column_name = 'data'");
      const bytes = Buffer.from(lockBody());
      const data = type.rows[0]?.data_type === "bytea" ? bytes : JSON.stringify({ data: bytes.toString("base64") });
      await client.query("INSERT INTO pulumi_state (key, data) VALUES ($1, $2)", [`${u.pathname.replace(/^\/+/, "")}/${key}`, data]);
    } finally {
      await client.end();
    }
  } else {
    const u = new URL(backend.url);
    const put = await fetch(`${u.searchParams.get("endpoint")}/${u.hostname}/${key}`, { method: "PUT", body: lockBody() });
    if (!put.ok) throw new Error(`writing the lock object failed: HTTP ${put.status}`);
  }
}

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
    // A subfolder of the project (two levels below Pulumi.yaml), and folders that are no project at all.
    const sub = path.join(mkdtempSync(path.join(MANY, `.recover-lock-${b.name}-`)), "src");
    mkdirSync(sub);
    const elsewhere = realpathSync(mkdtempSync(path.join(tmpdir(), `recover-elsewhere-${b.name}-`)));

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
      rmSync(path.dirname(sub), { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
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

      const full = `organization/many/${stack}`;
      const runs: Array<[string[], string, string]> = [
        [["recover", "--stack", stack], sub, stack],
        [["recover", "--stack", stack, "--yes"], sub, stack],
        [["recover", "--stack", full, "--yes"], elsewhere, full],
      ];
      for (const [args, cwd, named] of runs) {
        const r = await run(args, cli.env(), cwd);
        expect(r.code, `${args.join(" ")} in ${cwd}: ${r.out}${r.err}`).toBe(2);
        expect(r.err).toContain(`stack ${named} is locked by an update (${b.name} backend); recover reads and writes nothing while an update holds the stack`);
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
      const after = await run(["recover", "--stack", stack], cli.env(), sub);
      expect(after.code, after.out + after.err).toBe(0);
      expect(after.out).toContain("no pending operations, nothing to recover");
      // No destroy: nothing is asserted of one, and the emulator and the backend go in afterAll.
    }, LONG);

    it("finds a lock written as the CLI writes it: Pulumi.json, a subfolder, the backend from the project or the login, a full name", async (ctx) => {
      const { expect } = ctx;
      if (skip !== undefined) ctx.skip(skip);
      const project = "lookup-json";
      const lstack = `lookup-${b.name}`;
      const root = realpathSync(mkdtempSync(path.join(tmpdir(), `recover-lookup-${b.name}-`)));
      const below = path.join(root, "src", "deep");
      const login = path.join(root, "login");
      mkdirSync(below, { recursive: true });
      mkdirSync(login);
      writeFileSync(path.join(root, "Pulumi.json"), JSON.stringify({ name: project, runtime: "nodejs", backend: { url: backend!.url } }));
      writeFileSync(path.join(login, "credentials.json"), JSON.stringify({ current: backend!.url, accessTokens: { [backend!.url]: "" } }));
      try {
        // No PULUMI_BACKEND_URL: the CLI takes the backend from Pulumi.json's backend.url, as recover must.
        const env: NodeJS.ProcessEnv = { ...process.env, ...backend!.env, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PULUMI_SKIP_UPDATE_CHECK: "true" };
        delete env["PULUMI_BACKEND_URL"];
        const cli = new PulumiCli({ cwd: root, stack: lstack, env: { ...env, PULUMI_BACKEND_URL: "" } });
        await cli.initStack();
        const key = `.pulumi/locks/organization/${project}/${lstack}/${randomUUID()}.json`;
        await writeLock(b.name, backend!, key);
        const full = `organization/${project}/${lstack}`;
        const cases: Array<[string, string[], string, NodeJS.ProcessEnv]> = [
          ["plan from a subfolder, backend from Pulumi.json", ["recover", "--stack", lstack], below, env],
          ["--yes from the Pulumi.json project", ["recover", "--stack", lstack, "--yes"], root, env],
          ["--yes by full name from elsewhere, PULUMI_BACKEND_URL", ["recover", "--stack", full, "--yes"], elsewhere, { ...env, PULUMI_BACKEND_URL: backend!.url }],
          ["plan by full name from elsewhere, backend from the stored login", ["recover", "--stack", full], elsewhere, { ...env, PULUMI_CREDENTIALS_PATH: login }],
        ];
        for (const [what, args, cwd, runEnv] of cases) {
          const r = await run(args, { ...runEnv, PATH: cli.env()["PATH"] }, cwd);
          const named = args[2]!;
          expect(r.code, `${what}: ${r.out}${r.err}`).toBe(2);
          expect(r.err, what).toContain(`stack ${named} is locked by an update (${b.name} backend); recover reads and writes nothing while an update holds the stack`);
          expect(r.err, what).toContain(`${key}: update by ${userInfo().username}@${hostname()} (pid ${process.pid}, still running)`);
          expect(r.out, what).toBe("");
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }, LONG);
  });
}
