/**
 * Every command tells why it could not run (docs/cli.md, "Exit codes"), through the built bin against the standalone
 * emulator (another process) and the real Pulumi CLI: the reason on stderr and in the JSON or Markdown it prints,
 * exit code 2, the same for every command. And the report commands' `--timeout`: past it, a clear error and exit 2,
 * against a server (another process) that never answers.
 *
 * Each case runs the bin once, with `--format json`: the other formats are what `reportCouldNotRun`
 * (provider/commands/failure.ts) prints for the error that JSON holds (test/harness/reports.ts), checked to give
 * the bin's own JSON and stderr back.
 *
 * The cases only read: the two stacks (previews, which write nothing, and state exports), the emulator (no case reads
 * its request log) and the proxy that never answers. So they run at once (describe.concurrent; assertions through
 * each test's own `expect`), and a case's independent runs of the bin at once too (Promise.all, at most four), so the
 * deadline cases' waits overlap the rest. Against a server that never answers, a run ends at its deadline, with the
 * same error, however long the machine takes to reach the API.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { UNAUTHENTICATED_HINT, type CouldNotRun } from "../provider/commands/failure";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { FILE_VAR } from "./harness/engine-runs";
import { runBin } from "./harness/bin";
import { startHostileProxy } from "./harness/hostile";
import { couldNotRunForms } from "./harness/reports";
import { startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 240_000;
const drift = path.join(REPO_ROOT, "examples", "drift-detection", "program");
const orgProgram = path.join(REPO_ROOT, "test", "programs", "org");

let emu: StandaloneEmulator;
let backend: string;
let hang: ChildProcess | undefined;
let hangUrl: string;
let goodOrg: string;
let badOrg: string;

/** The environment of a command: the API (default the emulator), its token, the stacks' file backend, the CLI on PATH. */
function envFor(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}`,
    HOME: process.env["HOME"],
    // The counting pulumi wrapper charges this file's engine runs to it (test/harness/engine-runs.ts).
    [FILE_VAR]: process.env[FILE_VAR],
    PLATFORM_API_URL: emu.env.PLATFORM_API_URL,
    PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN,
    PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    NO_COLOR: "1",
    ...extra,
  };
}

const WRONG = { PLATFORM_TOKEN: "plat_wrong_token_0000000000000000" };

beforeAll(async () => {
  emu = await startStandalone();
  const proxy = await startHostileProxy(emu.env.PLATFORM_API_URL, "hang");
  hang = proxy.child;
  hangUrl = proxy.url;
  backend = mkdtempSync(path.join(tmpdir(), "could-not-run-"));
  goodOrg = path.join(backend, "org.yaml");
  badOrg = path.join(backend, "bad.yaml");
  writeFileSync(goodOrg, "groups:\n  - name: payments\n    description: Payments\n");
  writeFileSync(badOrg, "groups:\n  - name: payments\n    description: Payments\n  - name: Bad_Name\n");
  const base = { PLATFORM_API_URL: emu.env.PLATFORM_API_URL, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID };
  const d = new PulumiCli({ cwd: drift, backendDir: backend, stack: "cnr", env: base });
  const o = new PulumiCli({ cwd: orgProgram, backendDir: backend, stack: "cnr-org", env: { ...base, ORG_FILE: goodOrg } });
  // The stacks are made in turn (the backend's first use writes its .pulumi/meta.yaml), then both ups at once: two
  // projects and stacks of their own (each up locks its own stack), groups of different names (apps and data;
  // payments).
  await d.initStack();
  await o.initStack();
  await Promise.all([d.ok(["up", "--yes", "--skip-preview"]), o.ok(["up", "--yes", "--skip-preview"])]);
}, LONG);

afterAll(async () => {
  hang?.kill("SIGTERM");
  await emu?.stop();
  if (backend) rmSync(backend, { recursive: true, force: true });
  rmSync(path.join(drift, "Pulumi.cnr.yaml"), { force: true });
  rmSync(path.join(orgProgram, "Pulumi.cnr-org.yaml"), { force: true });
});

describe.concurrent("gate in a project without @pulumi/policy", () => {
  it("exits 2 and passes the fix on once: npm install --save-dev @pulumi/policy", async ({ expect }) => {
    // The pack's process cannot resolve @pulumi/policy, as in a project that did not install the optional peer
    // dependency (a preloaded module refuses to resolve it, in every Node.js process the preview starts).
    const block = path.join(backend, "no-policy.js");
    writeFileSync(block, `const M = require("module"); const r = M._resolveFilename; M._resolveFilename = function (req, ...rest) { if (req === "@pulumi/policy") { const e = new Error("Cannot find module '@pulumi/policy'"); e.code = "MODULE_NOT_FOUND"; throw e; } return r.call(this, req, ...rest); };\n`);
    const r = await runBin(["gate", "--stack", "cnr", "--cwd", drift, "--format", "json"], envFor({ NODE_OPTIONS: `--require ${block}` }));
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout) as { errors: string[] };
    const hint = "run `npm install --save-dev @pulumi/policy` in the Pulumi project";
    expect(r.stderr.split(hint).length - 1, r.stderr).toBe(1);
    expect(report.errors.join("\n")).toContain(hint);
    // Each reason once.
    expect(new Set(report.errors).size).toBe(report.errors.length);
    console.log(`gate without @pulumi/policy: exit ${r.code}; stderr:\n${r.stderr}`);
  });
});

describe.concurrent("drift with a token the API rejects", () => {
  it("exits 2 and gives the API's status, message and the token hint on stderr and in the table, json and markdown", async ({ expect }) => {
    // One run of the bin (--format json). The table and Markdown are what reportCouldNotRun prints for the error that
    // JSON holds; its stderr and JSON, rendered the same way, are byte for byte the bin's, so the error is the bin's.
    const jsonOut = path.join(backend, "drift-could-not-run.json");
    const r = await runBin(["drift", "--stack", "cnr", "--cwd", drift, "--format", "json", "--json-out", jsonOut], envFor(WRONG));
    expect(r.code, r.stderr).toBe(2);
    const out = JSON.parse(r.stdout) as { stack: string; error: CouldNotRun };
    // --json-out gets the same envelope, with the error, when the command could not run.
    expect(readFileSync(jsonOut, "utf8")).toBe(r.stdout);
    expect(out.stack).toBe("cnr");
    expect(out.error.reasons.join("\n")).toMatch(/\(code 16, HTTP 401\)/);
    expect(out.error.hints).toEqual([UNAUTHENTICATED_HINT]);
    const forms = couldNotRunForms("drift", "cnr", out.error);
    expect(forms.json.stdout).toBe(r.stdout);
    for (const format of ["table", "json", "markdown"] as const) {
      const stderr = forms[format].stderr;
      expect(stderr, format).toBe(r.stderr); // the same on stderr whatever the format
      expect(stderr).toMatch(/platform-pulumi drift: pulumi preview --refresh --stack cnr failed:/);
      expect(stderr).toMatch(/\(code 16, HTTP 401\)/);
      expect(stderr).toContain(UNAUTHENTICATED_HINT);
      expect(stderr).not.toContain(WRONG.PLATFORM_TOKEN);
    }
    expect(r.stdout).not.toContain(WRONG.PLATFORM_TOKEN);
    expect(forms.markdown.stdout).toMatch(/^### platform-pulumi drift on stack `cnr`: could not run/);
    expect(forms.markdown.stdout).toMatch(/code 16, HTTP 401/);
    expect(forms.markdown.stdout).toContain("**What to do**");
    expect(forms.table.stdout).toBe("");
  }, LONG);
});

describe.concurrent("drift with an invalid org file", () => {
  it("exits 2 and gives the file's file:line:col problem on stderr and in the json and markdown", async ({ expect }) => {
    // One run (--format json); the Markdown rendered from its error, as above.
    const r = await runBin(["drift", "--stack", "cnr-org", "--cwd", orgProgram, "--format", "json"], envFor({ ORG_FILE: badOrg }));
    expect(r.code, r.stderr).toBe(2);
    const where = new RegExp(`${badOrg.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:4:\\d+: .*Bad_Name`);
    expect(r.stderr).toMatch(where);
    const out = JSON.parse(r.stdout) as { error: CouldNotRun };
    expect(out.error.reasons.join("\n")).toMatch(where);
    const forms = couldNotRunForms("drift", "cnr-org", out.error);
    expect(forms.json.stdout).toBe(r.stdout);
    expect(forms.markdown.stderr).toBe(r.stderr);
    expect(forms.markdown.stdout.replace(/\\([\\`*_[\]<>|~&:./@])/g, "$1")).toMatch(where);
  }, LONG);
});

describe.concurrent("unmanaged with a token the API rejects", () => {
  it("exits 2 (could not run, not 1 'found') with the API's status and the token hint, also in --json", async ({ expect }) => {
    const [r, j] = await Promise.all([
      runBin(["unmanaged", "--stack", "cnr", "--cwd", drift], envFor(WRONG)),
      runBin(["unmanaged", "--stack", "cnr", "--cwd", drift, "--format", "json"], envFor(WRONG)),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/platform-pulumi unmanaged: .*\(code 16, HTTP 401\)/);
    expect(r.stderr).toContain(UNAUTHENTICATED_HINT);
    expect(j.code, j.stderr).toBe(2);
    expect((JSON.parse(j.stdout) as { error: { message: string } }).error.message).toMatch(/\(code 16, HTTP 401\)/);
  }, LONG);
});

describe.concurrent("unmanaged on a stack it can read (the one argument frame, provider/commands/frame.ts)", () => {
  it("--json still prints the JSON --format json prints, with a deprecation warning; PULUMI_STACK names the stack; --format markdown", async ({ expect }) => {
    const [formatJson, json, fromEnv, md] = await Promise.all([
      runBin(["unmanaged", "--stack", "cnr", "--cwd", drift, "--format", "json"], envFor()),
      runBin(["unmanaged", "--stack", "cnr", "--cwd", drift, "--json"], envFor()),
      runBin(["unmanaged", "--cwd", drift, "--format", "json"], envFor({ PULUMI_STACK: "cnr" })),
      runBin(["unmanaged", "--cwd", drift, "--format", "markdown"], envFor({ PULUMI_STACK: "cnr" })),
    ]);
    expect([0, 1], formatJson.stderr).toContain(formatJson.code);
    expect(formatJson.stderr).toBe("");
    // One object (UnmanagedReport, provider/commands/unmanaged.ts), as on failure: `{ stack, unmanaged, unreadable }`.
    const rows = JSON.parse(formatJson.stdout) as { stack: string; unmanaged: unknown[]; unreadable: unknown[] };
    expect(Object.keys(rows)).toEqual(["stack", "unmanaged", "unreadable"]);
    expect(rows.stack).toBe("cnr");
    expect(json.code, json.stderr).toBe(formatJson.code);
    expect(json.stderr).toBe("platform-pulumi unmanaged: --json is deprecated; use --format json\n");
    expect(JSON.parse(json.stdout)).toEqual(rows);
    expect(fromEnv.code, fromEnv.stderr).toBe(formatJson.code);
    expect(JSON.parse(fromEnv.stdout)).toEqual(rows);
    expect(md.code, md.stderr).toBe(formatJson.code);
    expect(md.stdout).toMatch(/^### platform-pulumi unmanaged on stack `cnr`\n/);
  }, LONG);
});

describe.concurrent("--timeout", () => {
  it("unmanaged and drift against a server that never answers stop at the deadline with a clear error and exit 2", async ({ expect }) => {
    // Both deadlines run at once.
    const [u, d] = await Promise.all([
      runBin(["unmanaged", "--stack", "cnr", "--cwd", drift, "--timeout", "3s"], envFor({ PLATFORM_API_URL: hangUrl })),
      runBin(["drift", "--stack", "cnr", "--cwd", drift, "--timeout", "5s", "--format", "json"], envFor({ PLATFORM_API_URL: hangUrl })),
    ]);
    expect(u.code, u.stderr).toBe(2);
    expect(u.stderr).toMatch(/platform-pulumi unmanaged: unmanaged did not finish within --timeout 3s; stopped it/);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toMatch(/drift did not finish within --timeout 5s/);
    expect((JSON.parse(d.stdout) as { error: { message: string } }).error.message).toMatch(/--timeout 5s/);
  }, LONG);

  it("a bad value names the option, the value and what is allowed; every report command takes it", async ({ expect }) => {
    const stackArgs = ["--stack", "cnr", "--cwd", drift];
    const args: Record<string, string[]> = { drift: stackArgs, unmanaged: stackArgs, recover: stackArgs, export: ["--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "o")] };
    // The four commands at once, each one's two runs in turn; checked in the same order.
    const runs = await Promise.all(Object.entries(args).map(async ([cmd, given]) => ({ cmd, r: await runBin([cmd, ...given, "--timeout", "10"], envFor()), help: await runBin([cmd, "--help"], envFor()) })));
    for (const { cmd, r, help } of runs) {
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('--timeout "10" is not allowed: a duration with a unit (ms, s, m or h), such as 90s, 10m or 1h');
      expect(help.stdout, cmd).toMatch(/--timeout <d>.*\n.*default 30m/);
    }
  }, LONG);
});
