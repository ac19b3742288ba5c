/**
 * `recover` finds the stack's update lock the way the Pulumi CLI finds the project and backend
 * (provider/commands/project.ts, lock.ts), engine-free: each case makes the lock object on a file backend exactly as
 * the CLI writes it (`.pulumi/locks/organization/<project>/<stack>/<uuid>.json`, `{"pid", "username",
 * "hostname", "timestamp"}`) and runs `recover` (the plan and `--yes`), which must refuse before it runs `pulumi`
 * at all (this tier stops any start of the CLI). The cases: a subfolder of the project, a `Pulumi.json` project,
 * the stack named fully from a folder that is not the project, and the backend from `PULUMI_BACKEND_URL`, the
 * project's `backend.url` and the stored login. Then what recover says when reading the state fails while an update
 * may be writing it (no advice to restore the checkpoint from its `.bak` copy), and `--yes` on a backend whose lock
 * is not read (refused without `--assume-unlocked`). A stand-in CLI (a shell script, `ref.pulumi`) answers the
 * `pulumi` calls of the cases that get that far. The same lookups against PostgreSQL, and a live `up` raced from a
 * subfolder and by full name: test/recover-lock.test.ts.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import * as path from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configuredBackend, findProject, stackOf } from "../provider/commands/project";
import { recover } from "../provider/commands/recover";

const VARS = ["PULUMI_BACKEND_URL", "PULUMI_CREDENTIALS_PATH", "PULUMI_HOME"] as const;
let saved: Record<string, string | undefined> = {};
let work: string;

beforeEach(() => {
  saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
  for (const v of VARS) delete process.env[v];
  // No stored login unless a case writes one: the credentials folder is the test's own, empty.
  work = realpathSync(mkdtempSync(path.join(tmpdir(), "recover-lookup-")));
  mkdirSync(path.join(work, "home"));
  process.env["PULUMI_CREDENTIALS_PATH"] = path.join(work, "home");
});
afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  rmSync(work, { recursive: true, force: true });
});

/** A project folder `<work>/<dir>` with a project file of that kind, and a subfolder two levels below it. */
function project(dir: string, file: "Pulumi.yaml" | "Pulumi.yml" | "Pulumi.json", name: string, backendUrl?: string): { root: string; sub: string } {
  const root = path.join(work, dir);
  const sub = path.join(root, "src", "deep");
  mkdirSync(sub, { recursive: true });
  const text =
    file === "Pulumi.json"
      ? JSON.stringify({ name, runtime: "nodejs", ...(backendUrl ? { backend: { url: backendUrl } } : {}) })
      : `name: ${name}\nruntime: nodejs\n${backendUrl ? `backend:\n  url: ${backendUrl}\n` : ""}`;
  writeFileSync(path.join(root, file), text);
  return { root, sub };
}

/** Writes the stack's lock object in the file backend `state` exactly as the CLI does; returns its key. */
function lockAsTheCli(state: string, project: string, stack: string, pid = process.pid): string {
  const key = `.pulumi/locks/organization/${project}/${stack}/${randomUUID()}.json`;
  mkdirSync(path.dirname(path.join(state, key)), { recursive: true });
  writeFileSync(path.join(state, key), JSON.stringify({ pid, username: userInfo().username, hostname: hostname(), timestamp: new Date().toISOString() }));
  return key;
}

/** recover's plan and --yes from `cwd` for `stack`: both must refuse, naming the lock, before running `pulumi`. */
async function expectRefused(stack: string, cwd: string, key: string): Promise<void> {
  for (const yes of [false, true]) {
    let printed = "";
    const err = await recover({ stack, cwd, yes, out: (s) => void (printed += s) }).then(
      (code) => new Error(`recover${yes ? " --yes" : ""} returned ${code} instead of refusing`),
      (e: unknown) => e as Error,
    );
    expect(err.message).toContain(`stack ${stack} is locked by an update (file backend); recover reads and writes nothing while an update holds the stack`);
    expect(err.message).toContain(`${key}: update by ${userInfo().username}@${hostname()} (pid ${process.pid}, still running)`);
    expect(err.message).toContain("Wait for that update to end, then run this command again.");
    expect(printed).toBe("");
  }
}

describe("the project, found as the CLI finds it", () => {
  it("is the nearest folder upward with Pulumi.json, Pulumi.yaml or Pulumi.yml, json first", () => {
    const { root, sub } = project("p", "Pulumi.yaml", "outer");
    expect(findProject(sub)).toEqual({ file: path.join(root, "Pulumi.yaml"), dir: root, name: "outer", runtime: "nodejs" });
    const inner = path.join(root, "src");
    writeFileSync(path.join(inner, "Pulumi.yml"), "name: inner\n");
    expect(findProject(sub)?.name).toBe("inner");
    writeFileSync(path.join(inner, "Pulumi.json"), JSON.stringify({ name: "json-wins" }));
    expect(findProject(sub)?.file).toBe(path.join(inner, "Pulumi.json"));
    expect(findProject(sub)?.name).toBe("json-wins");
    expect(findProject(path.join(work, "home"))).toBeUndefined();
  });

  it("names the stack's project: from a full name, else from the project found", () => {
    const { sub } = project("p", "Pulumi.json", "from-json");
    expect(stackOf("dev", sub)).toEqual({ project: "from-json", stack: "dev" });
    expect(stackOf("organization/dev", sub)).toEqual({ project: "from-json", stack: "dev" });
    expect(stackOf("organization/named/dev", sub)).toEqual({ project: "named", stack: "dev" });
    expect(stackOf("dev", path.join(work, "home"))).toEqual({ stack: "dev" });
  });

  it("takes the backend from PULUMI_BACKEND_URL, else the project's backend.url, else the stored login", () => {
    const { sub } = project("p", "Pulumi.yaml", "p", "file:///from/project");
    writeFileSync(path.join(work, "home", "credentials.json"), JSON.stringify({ current: "file:///from/login", accessTokens: {} }));
    expect(configuredBackend(sub, { ...process.env, PULUMI_BACKEND_URL: "file:///from/env" })).toEqual({ url: "file:///from/env", source: "PULUMI_BACKEND_URL" });
    expect(configuredBackend(sub)).toEqual({ url: "file:///from/project", source: "project" });
    expect(configuredBackend(path.join(work, "home"))).toEqual({ url: "file:///from/login", source: "login" });
    expect(configuredBackend(path.join(work, "home"), { PULUMI_CREDENTIALS_PATH: path.join(work, "nowhere") })).toBeUndefined();
  });
});

describe("recover beside a killed update's lock", () => {
  it("that also left the attributes file empty: says so first, then to release the lock (pulumi cancel cannot load the stack before)", async () => {
    const state = path.join(work, "state-killed");
    const { root } = project("killed", "Pulumi.yaml", "killed");
    process.env["PULUMI_BACKEND_URL"] = `file://${state}`;
    // A pid no process has (the kernel's pid_max is at most 2^22).
    lockAsTheCli(state, "killed", "dev", 4_194_305);
    const attrs = path.join(state, ".pulumi", "stacks", "killed", "dev.json.attrs");
    mkdirSync(path.dirname(attrs), { recursive: true });
    writeFileSync(attrs, "");
    const err = (await recover({ stack: "dev", cwd: root, yes: true, out: () => undefined }).then(
      () => new Error("recover went on"),
      (e: unknown) => e as Error,
    )) as Error;
    expect(err.message).toContain("no longer running");
    expect(err.message).toContain(`the file backend's attributes file ${attrs} is empty`);
    expect(err.message).toContain(`Remove it (\`rm ${attrs}\`), release the lock with \`pulumi cancel --stack dev --yes\``);
  });
});

describe("recover finds the lock of a live update", () => {
  it("from a subfolder of the project (Pulumi.yaml), the backend from PULUMI_BACKEND_URL", async () => {
    const state = path.join(work, "state");
    const { sub } = project("p", "Pulumi.yaml", "many");
    process.env["PULUMI_BACKEND_URL"] = `file://${state}`;
    await expectRefused("dev", sub, lockAsTheCli(state, "many", "dev"));
  });

  it("in a project whose file is Pulumi.json, from the project and from a subfolder", async () => {
    const state = path.join(work, "state");
    const { root, sub } = project("p", "Pulumi.json", "json-proj");
    process.env["PULUMI_BACKEND_URL"] = `file://${state}`;
    const key = lockAsTheCli(state, "json-proj", "dev");
    await expectRefused("dev", root, key);
    await expectRefused("dev", sub, key);
  });

  it("for a stack named fully (organization/<project>/<stack>) from a folder that is not the project", async () => {
    const state = path.join(work, "state");
    project("p", "Pulumi.yaml", "many");
    const elsewhere = project("other", "Pulumi.yaml", "another-project").sub;
    process.env["PULUMI_BACKEND_URL"] = `file://${state}`;
    const key = lockAsTheCli(state, "many", "dev");
    await expectRefused("organization/many/dev", path.join(work, "home"), key);
    await expectRefused("organization/many/dev", elsewhere, key);
  });

  it("with the backend from the project's backend.url, from a subfolder (no PULUMI_BACKEND_URL)", async () => {
    const state = path.join(work, "state");
    const { sub } = project("p", "Pulumi.json", "many", `file://${state}`);
    await expectRefused("dev", sub, lockAsTheCli(state, "many", "dev"));
  });

  it("with the backend from the stored login, for a full name from elsewhere (no variable, no project)", async () => {
    const state = path.join(work, "state");
    writeFileSync(path.join(work, "home", "credentials.json"), JSON.stringify({ current: `file://${state}`, accessTokens: { [`file://${state}`]: "" } }));
    await expectRefused("organization/many/dev", path.join(work, "home"), lockAsTheCli(state, "many", "dev"));
  });
});

/**
 * A stand-in for the `pulumi` CLI (a shell script; `ref.pulumi`): `config` prints API settings, `stack export`
 * runs `onExport` (shell) and fails as the CLI does on a checkpoint it read half-written.
 */
function standInCli(onExport = ""): string {
  const file = path.join(work, "stand-in-cli");
  const config = JSON.stringify({ "platform:apiUrl": { value: "http://127.0.0.1:9" }, "platform:token": { value: "t" } });
  writeFileSync(
    file,
    `#!/bin/sh
case "$1 $2" in
  "config --json") echo '${config}' ;;
  "stack export") ${onExport || ":"}; echo "error: failed to load checkpoint: EOF" >&2; exit 255 ;;
  *) echo "stand-in CLI: unexpected $*" >&2; exit 3 ;;
esac
`,
  );
  chmodSync(file, 0o755);
  return file;
}

describe("what recover says when the state cannot be read while an update may be writing it", () => {
  it("names the update that took the lock meanwhile, and advises no restore from the .bak copy", async () => {
    const state = path.join(work, "state");
    const { sub } = project("p", "Pulumi.yaml", "many");
    process.env["PULUMI_BACKEND_URL"] = `file://${state}`;
    // The update starts after recover's first look at the lock: its lock object appears as the export fails.
    const lockDir = path.join(state, ".pulumi", "locks", "organization", "many", "dev");
    const body = JSON.stringify({ pid: process.pid, username: "ci", hostname: hostname(), timestamp: "2026-11-29T08:00:00Z" });
    const pulumi = standInCli(`mkdir -p '${lockDir}' && echo '${body}' > '${lockDir}/${randomUUID()}.json'`);
    const err = (await recover({ stack: "dev", cwd: sub, pulumi, out: () => undefined }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("stack dev is locked by an update (file backend); recover reads and writes nothing while an update holds the stack");
    expect(err.message).toContain("Wait for that update to end, then run this command again.");
    expect(err.message).not.toContain(".bak");
    expect(err.message).not.toMatch(/restore it/);
  });

  it("on a backend whose lock is not read: says an update may be writing, and restore nothing", async () => {
    process.env["PULUMI_BACKEND_URL"] = "gs://team-state";
    const { sub } = project("p", "Pulumi.yaml", "many");
    const err = (await recover({ stack: "dev", cwd: sub, pulumi: standInCli(), out: () => undefined }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("pulumi stack export --stack dev failed: error: failed to load checkpoint: EOF");
    expect(err.message).toContain("The stack's lock was not read (this command does not read the lock of a gs backend), so an update of stack dev may be writing it now: restore nothing.");
    expect(err.message).toContain("pulumi cancel --stack dev --yes");
    expect(err.message).not.toContain(".bak");
  });
});

describe("recover --yes on a backend whose lock it does not read", () => {
  it("is refused without --assume-unlocked, before running pulumi, saying what to do", async () => {
    process.env["PULUMI_BACKEND_URL"] = "gs://team-state";
    const { sub } = project("p", "Pulumi.yaml", "many");
    let printed = "";
    const err = (await recover({ stack: "dev", cwd: sub, yes: true, out: (s) => void (printed += s) }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("recover --yes did not run: the stack's lock was not read (this command does not read the lock of a gs backend), so recover cannot tell whether an update of stack dev is running");
    expect(err.message).toContain("run again with --yes --assume-unlocked");
    expect(printed).toBe("");
  });

  it("goes on with --assume-unlocked (to the state read, here failing as the stand-in CLI does)", async () => {
    process.env["PULUMI_BACKEND_URL"] = "gs://team-state";
    const { sub } = project("p", "Pulumi.yaml", "many");
    const err = (await recover({ stack: "dev", cwd: sub, yes: true, assumeUnlocked: true, pulumi: standInCli(), out: () => undefined }).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("pulumi stack export --stack dev failed");
    expect(err.message).not.toContain("did not run");
  });
});
