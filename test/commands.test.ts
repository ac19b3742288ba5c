/**
 * The README's commands, run as a user runs them: `npm run emulator -- --port 0` and the main job behind
 * `npm start` (compiled, through the real Pulumi CLI, on the example org).
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

describe("the main job (npm start)", () => {
  it("brings the example org up, shows and converges drift, destroys, and exits 0", async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "scripts", "main-job.js")], {
      cwd: REPO_ROOT,
      env: { ...process.env, PLATFORM_API_URL: "", PLATFORM_TOKEN: "", PLATFORM_ORG_UID: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(code, out.slice(-3000)).toBe(0);
    const headers = out.split("\n").filter((l) => l.startsWith("==> ["));
    expect(headers).toEqual([
      "==> [1/7] pulumi up --yes",
      "==> [2/7] stack outputs",
      expect.stringMatching(/^==> \[3\/7\] out-of-band change: description of group "engineering"/),
      "==> [4/7] pulumi preview --refresh --diff",
      "==> [5/7] pulumi up --refresh --yes",
      "==> [6/7] pulumi destroy --yes",
      "==> [7/7] check through the API that nothing is left under the root group",
    ]);
    expect(out).toMatch(/"groups": 13,?\s/);
    expect(out).toContain("preview plan (engine summary): 1 to update, 23 unchanged, 0 to create, 0 to replace, 0 to delete");
    expect(out).toContain("All 7 steps did what they say");
  }, 600_000);
});

/**
 * docs/testing.md's "Pointing at a real API": `PLATFORM_API_URL=… PLATFORM_TOKEN=… PLATFORM_ORG_UID=… npm start`
 * against an API in another process (the standalone emulator), from a folder laid out as a fresh clone after
 * `npm ci` (package.json, Pulumi.yaml, the org file, the build, node_modules and the CLI marker that
 * ensure-pulumi writes) and no `.pulumi-work/state`. Issue 9: this stopped at once on the missing state folder.
 */
describe("the main job against an external API (npm start with PLATFORM_API_URL)", () => {
  it("creates the state folder on a fresh clone, exits 0, and exits 0 again reusing it", async () => {
    const clone = mkdtempSync(path.join(tmpdir(), "platform-pulumi-clone-"));
    const api = await startStandalone();
    try {
      for (const f of ["package.json", "Pulumi.yaml", "examples/org-setup/org.yaml"]) {
        mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
        copyFileSync(path.join(REPO_ROOT, f), path.join(clone, f));
      }
      // The tour on the example org is the embedded run's (above); here what is under test is the state folder
      // against an API in another process, so both runs declare a one-group org (ORG_FILE): the same seven steps
      // and engine runs, each on 1 resource instead of 23 (docs/testing.md, "The engine-run budget").
      const small = path.join(clone, "small-org.yaml");
      writeFileSync(small, "groups:\n  - name: engineering\n    description: Engineering department\n");
      cpSync(path.join(REPO_ROOT, "dist"), path.join(clone, "dist"), { recursive: true });
      symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(clone, "node_modules"), "dir");
      mkdirSync(path.join(clone, ".pulumi-work"));
      copyFileSync(path.join(REPO_ROOT, ".pulumi-work", "cli-bin"), path.join(clone, ".pulumi-work", "cli-bin"));
      const state = path.join(clone, ".pulumi-work", "state");
      expect(existsSync(state)).toBe(false);

      const run = async () => {
        const child = spawn(process.execPath, [path.join(clone, "dist", "scripts", "main-job.js")], {
          cwd: clone,
          env: { ...process.env, ...api.env, ORG_FILE: small },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d));
        child.stderr.on("data", (d: Buffer) => (out += d));
        const code = await new Promise<number | null>((r) => child.on("close", r));
        return { code, out };
      };
      const first = await run();
      expect(first.code, first.out.slice(-3000)).toBe(0);
      expect(first.out).toContain(`Using the Platform API at ${api.env.PLATFORM_API_URL} (org ${api.env.PLATFORM_ORG_UID}); state in ${state}`);
      expect(first.out).toContain("All 7 steps did what they say");
      expect(existsSync(path.join(state, ".pulumi", "stacks"))).toBe(true);

      const second = await run();
      expect(second.code, second.out.slice(-3000)).toBe(0);
      expect(second.out).toContain("All 7 steps did what they say");
      // The API token never lands in the state folder or the stack settings file.
      const files = readdirSync(clone, { recursive: true, encoding: "utf8" }).filter((f) => f.startsWith(".pulumi-work") || f.startsWith("Pulumi."));
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
