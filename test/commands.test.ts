/**
 * The README's commands, run as a user runs them: `npm run emulator -- --port 0` and the main job behind
 * `npm start` (compiled, through the real Pulumi CLI, on a fresh clone: the example org on the embedded emulator,
 * then against an external API).
 */
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { PlatformClient } from "../provider/client/client";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { startStandalone } from "./standalone";

describe("npm run emulator -- --port 0 --control", () => {
  it("prints exactly three KEY=value lines, then answers the API with that token, and serves the control surface", async () => {
    // Its own process group: npm does not always pass SIGTERM on to the emulator it started, which then outlived
    // the test run (seen: an orphaned `node dist/emulator/cli.js --port 0 --control` after CI). The group goes whole.
    const child = spawn("npm", ["run", "emulator", "--", "--port", "0", "--control"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
    try {
      let out = "";
      const lines = await new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no three lines within 20s; got ${JSON.stringify(out)}`)), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.split("\n").length > 3) {
            clearTimeout(timer);
            resolve(out.split("\n"));
          }
        });
        child.on("exit", (code) => reject(new Error(`emulator exited ${code}; stdout ${JSON.stringify(out)}`)));
      });
      expect(lines.slice(0, 3).map((l) => l.split("=")[0])).toEqual(["PLATFORM_API_URL", "PLATFORM_TOKEN", "PLATFORM_ORG_UID"]);
      expect(lines[0]).toMatch(/^PLATFORM_API_URL=http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines[2]).toMatch(/^PLATFORM_ORG_UID=[0-9a-f]{40}$/);
      expect(lines[3]).toBe("");
      const env = Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      const client = new PlatformClient({ apiUrl: env["PLATFORM_API_URL"]!, token: env["PLATFORM_TOKEN"]! });
      expect((await client.groups.get(env["PLATFORM_ORG_UID"]!)).uid).toBe(env["PLATFORM_ORG_UID"]);
      await client.close();
      const control = await fetch(`${env["PLATFORM_API_URL"]}/_emulator/control`);
      expect(control.status).toBe(200);
      expect(await control.json()).toMatchObject({ latencyMs: 0, tokenTtlSeconds: 3600 });
    } finally {
      const gone = new Promise((r) => child.once("exit", r));
      process.kill(-child.pid!, "SIGTERM");
      await gone;
      // Nothing of the group is left: signal 0 to the group fails once its last process has exited.
      await expect.poll(() => {
        try {
          process.kill(-child.pid!, 0);
          return "alive";
        } catch {
          return "gone";
        }
      }, { timeout: 5_000 }).toBe("gone");
    }
  });
});

/**
 * The main job behind `npm start` (scripts/main-job.ts), three times in one folder laid out as a fresh clone after
 * `npm ci` (package.json, Pulumi.yaml, the example org file, the build, node_modules and the CLI marker that
 * ensure-pulumi writes), with no `.pulumi-work/state`:
 *
 * 1. as docs/testing.md's "Two commands" runs it (`npm ci && npm start`): no PLATFORM_API_URL, no ORG_FILE, so the
 *    embedded emulator and the example org, the seven steps of "What `npm start` does" with their headers, counts
 *    and preview plan. Its state is a temporary folder: it leaves no `.pulumi-work/state` and no stack settings
 *    file behind, so the folder is still a fresh clone for the next run.
 * 2. as docs/testing.md's "Pointing at a real API" runs it: `PLATFORM_API_URL=… PLATFORM_TOKEN=… PLATFORM_ORG_UID=…
 *    npm start` against an API in another process (the standalone emulator), on a one-group org (ORG_FILE). It must
 *    create `.pulumi-work/state`: the Pulumi file backend refuses a state folder that does not exist, and the job
 *    once stopped at once on a fresh clone for that reason.
 *
 * 3. the same start again, reusing that folder: the stack already in it (`pulumi stack select --create` of an existing
 *    stack, its settings file, a checkpoint left by a destroy) takes the whole tour again and exits 0.
 *
 * Run 1 runs in the clone, not in the repository, so the repository's own Pulumi.org.yaml is neither written nor
 * removed by this test; it runs first because its cleanup removes the project's settings file, which after run 2
 * belongs to the `.pulumi-work/state` stack.
 */
describe("the main job (npm start) on a fresh clone", () => {
  it("tours the example org on the embedded emulator leaving no state folder, then with PLATFORM_API_URL creates .pulumi-work/state and exits 0, and a next start reuses it", async () => {
    const clone = mkdtempSync(path.join(tmpdir(), "platform-pulumi-clone-"));
    const api = await startStandalone();
    try {
      for (const f of ["package.json", "Pulumi.yaml", "examples/org-setup/org.yaml"]) {
        mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
        copyFileSync(path.join(REPO_ROOT, f), path.join(clone, f));
      }
      // The tour on the example org is run 1's; what run 2 adds is the state folder against an API in another
      // process, so it declares a one-group org (ORG_FILE): the same seven steps and engine runs, each on 1
      // resource instead of 23 (docs/testing.md, "The engine-run budget").
      const small = path.join(clone, "small-org.yaml");
      writeFileSync(small, "groups:\n  - name: engineering\n    description: Engineering department\n");
      cpSync(path.join(REPO_ROOT, "dist"), path.join(clone, "dist"), { recursive: true });
      symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(clone, "node_modules"), "dir");
      mkdirSync(path.join(clone, ".pulumi-work"));
      copyFileSync(path.join(REPO_ROOT, ".pulumi-work", "cli-bin"), path.join(clone, ".pulumi-work", "cli-bin"));
      const state = path.join(clone, ".pulumi-work", "state");
      const settings = path.join(clone, "Pulumi.org.yaml");
      expect(existsSync(state)).toBe(false);

      // No ORG_FILE from the caller's environment: run 1 checks the default org file.
      const { ORG_FILE: _callers, ...inherited } = process.env;
      const run = async (env: NodeJS.ProcessEnv) => {
        const child = spawn(process.execPath, [path.join(clone, "dist", "scripts", "main-job.js")], {
          cwd: clone,
          env: { ...inherited, ...env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d));
        child.stderr.on("data", (d: Buffer) => (out += d));
        const code = await new Promise<number | null>((r) => child.on("close", r));
        return { code, out };
      };

      // 1. `npm start`: the embedded emulator, the example org.
      const embedded = await run({ PLATFORM_API_URL: "", PLATFORM_TOKEN: "", PLATFORM_ORG_UID: "" });
      expect(embedded.code, embedded.out.slice(-3000)).toBe(0);
      expect(embedded.out).toContain("Started the embedded emulator at ");
      const headers = embedded.out.split("\n").filter((l) => l.startsWith("==> ["));
      expect(headers).toEqual([
        "==> [1/7] pulumi up --yes",
        "==> [2/7] stack outputs",
        expect.stringMatching(/^==> \[3\/7\] out-of-band change: description of group "engineering"/),
        "==> [4/7] pulumi preview --refresh --diff",
        "==> [5/7] pulumi up --refresh --yes",
        "==> [6/7] pulumi destroy --yes",
        "==> [7/7] check through the API that nothing is left under the root group",
      ]);
      expect(embedded.out).toMatch(/"groups": 13,?\s/);
      expect(embedded.out).toContain("preview plan (engine summary): 1 to update, 23 unchanged, 0 to create, 0 to replace, 0 to delete");
      expect(embedded.out).toContain("All 7 steps did what they say");
      expect(existsSync(state)).toBe(false);
      expect(existsSync(settings)).toBe(false);

      // 2. With PLATFORM_API_URL: creates the state folder.
      const first = await run({ ...api.env, ORG_FILE: small });
      expect(first.code, first.out.slice(-3000)).toBe(0);
      expect(first.out).toContain(`Using the Platform API at ${api.env.PLATFORM_API_URL} (org ${api.env.PLATFORM_ORG_UID}); state in ${state}`);
      expect(first.out).toContain("All 7 steps did what they say");
      const stacks = path.join(state, ".pulumi", "stacks");
      expect(existsSync(stacks)).toBe(true);
      expect(existsSync(settings)).toBe(true);
      const stackFiles = readdirSync(stacks, { recursive: true, encoding: "utf8" }).sort();

      // 3. The next start reuses the folder and its stack: the whole tour again.
      const again = await run({ ...api.env, ORG_FILE: small });
      expect(again.code, again.out.slice(-3000)).toBe(0);
      expect(again.out).toContain(`Using the Platform API at ${api.env.PLATFORM_API_URL} (org ${api.env.PLATFORM_ORG_UID}); state in ${state}`);
      expect(again.out).toContain("All 7 steps did what they say");
      // The same stack, not a second one beside it.
      const stackNames = (files: string[]) => files.filter((f) => f.endsWith(".json")).sort();
      expect(stackNames(readdirSync(stacks, { recursive: true, encoding: "utf8" }))).toEqual(stackNames(stackFiles));

      // The API token never lands in the state folder or the stack settings file. Only those are read: the clone's
      // node_modules links to the repository's, whose own package link leads back to the repository (a cycle).
      const files = [
        ...readdirSync(clone).filter((f) => f.startsWith("Pulumi.")),
        ...readdirSync(path.join(clone, ".pulumi-work"), { recursive: true, encoding: "utf8" }).map((f) => path.join(".pulumi-work", f)),
      ];
      expect(files).toContain("Pulumi.org.yaml");
      for (const f of files) {
        const p = path.join(clone, f);
        if (statSync(p).isFile()) expect(readFileSync(p, "utf8").includes(api.env.PLATFORM_TOKEN), f).toBe(false);
      }
    } finally {
      await api.stop();
      rmSync(clone, { recursive: true, force: true });
    }
  }, 600_000);
});

describe("npx platform-pulumi emulator --log, started in the background and killed as a script does", () => {
  it("keeps stdout to its three lines (the request log goes to stderr), and stops when npm is killed", async () => {
    // Not detached from npm: `kill $!` in a script signals npm alone, which passes it on to neither its shell nor
    // the emulator. The emulator notices that its parent is gone.
    const child = spawn("npx", ["--no-install", "platform-pulumi", "emulator", "--port", "0", "--log"], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d));
    try {
      const lines = await new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no three lines within 20s; stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`)), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.split("\n").length > 3) {
            clearTimeout(timer);
            resolve(out.split("\n"));
          }
        });
      });
      const env = Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      const url = env["PLATFORM_API_URL"]!;
      expect((await fetch(`${url}/iam/v2beta1/groups/${env["PLATFORM_ORG_UID"]}`, { headers: { authorization: `Bearer ${env["PLATFORM_TOKEN"]}` } })).status).toBe(200);
      await expect.poll(() => err, { timeout: 5_000 }).toMatch(/"req(uest)?Id"|"reqId"|"url":"\/iam/);
      expect(out.split("\n").slice(3).join("")).toBe("");

      process.kill(child.pid!, "SIGTERM"); // npm only, as `kill $!` does
      await expect
        .poll(async () => {
          try {
            await fetch(`${url}/iam/v2beta1/groups`, { signal: AbortSignal.timeout(1_000) });
            return "serving";
          } catch {
            return "stopped";
          }
        }, { timeout: 10_000, interval: 250 })
        .toBe("stopped");
      expect(err).toMatch(/exited; stopping/);
    } finally {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
});

describe("the standalone emulator stopped with a request in flight", () => {
  it("says how long its token lives, and exits on SIGTERM without waiting for a request held by --control's latency", async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "emulator", "cli.js"), "--port", "0", "--control"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no three lines within 20s; stderr ${JSON.stringify(err)}`)), 20_000);
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.split("\n").length > 3) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const env = Object.fromEntries(out.split("\n").slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      await expect.poll(() => err).toContain("the token lives 3600 s (--token-ttl)");
      const url = env["PLATFORM_API_URL"]!;
      const set = await fetch(`${url}/_emulator/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ latencyMs: 120_000 }) });
      expect(set.status).toBe(200);
      // A request the latency holds for two minutes: in flight when the signal comes.
      const held = fetch(`${url}/iam/v2beta1/groups/${env["PLATFORM_ORG_UID"]}`, { headers: { authorization: `Bearer ${env["PLATFORM_TOKEN"]}` } }).then(
        (r) => `answered ${r.status}`,
        () => "connection closed",
      );
      await new Promise((r) => setTimeout(r, 300));
      child.kill("SIGTERM");
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running after 15 s"), 15_000))]);
      expect(code).toBe(0);
      expect(await held).toBe("connection closed");
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
