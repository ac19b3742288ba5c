/**
 * Server text is inert wherever the package prints it (provider/text.ts), end to end: the built bin's commands run
 * as a CI job runs them, against a hostile server in another process (test/fixtures/hostile-proxy.mjs, in front
 * of the standalone emulator, itself another process) whose names, descriptions, a row's JSON key, error messages
 * and token-exchange message carry ESC, CR, LF, U+009B, U+202E and the other bidirectional marks, a forged GitHub
 * Actions workflow command on a line of its own (`\n::error title=x::owned`) and its older form (`##[error]`).
 *
 * Every output is checked the way a GitHub Actions runner reads a log: no line of stdout or stderr starts with
 * `::` (after spaces, which the runner trims), none holds `##[`, and no control (but the line break), C1,
 * separator or bidirectional character reaches either stream.
 *
 * Output paths: `export` (the export's refusal, an API error, the token exchange's error), `unmanaged` (table and
 * `--json`: names, a row the client cannot read quoting the server's JSON key, a uid with U+009B and U+202E
 * refused by the client's uid check, reported as its row and the rest listed, an API error), `drift` (table, `--format json`, `--format markdown`, with
 * `--unmanaged`: drifted values, names, the unreadable row, and a preview that could not run on a rejected token),
 * and `access --current` (table and markdown; and json, table and markdown of a rejected token).
 *
 * `drift` runs the engine (a preview): it runs once per case, with `--format json`, and its table and Markdown are
 * rendered from that JSON by the command's own functions (`formatDrift`; `reportCouldNotRun` through
 * test/harness/reports.ts), the very text the bin prints for that report.
 *
 * The cases only read: the stacks (previews, which write nothing, and state exports), the emulator through the
 * proxies, which keep no state between requests (test/fixtures/hostile-proxy.mjs), and no case reads a request log;
 * each `export` writes a folder of its own. So they run at once (describe.concurrent; assertions through each
 * test's own `expect`), and a case's independent runs of the bin at once too (Promise.all, at most three).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from "vitest";
import type { CouldNotRun } from "../provider/commands/failure";
import { driftExitCode, formatDrift, type DriftReport } from "../provider/commands/drift";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { FILE_VAR } from "./harness/engine-runs";
import { runBin, type BinResult } from "./harness/bin";
import { startHostileProxy } from "./harness/hostile";
import { couldNotRunForms } from "./harness/reports";
import { startStandalone, type StandaloneEmulator } from "./standalone";
import { stackEnv } from "./harness/stack";

const LONG = 240_000;

/** Control characters but the line break, C1, the separators, the bidirectional marks and U+FEFF. */
// eslint-disable-next-line no-control-regex -- finding control characters is the check
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

/**
 * The check that what a command printed is inert in a terminal and in a GitHub Actions log, asserting with `expect`
 * (a test's own: the tests run at once).
 */
function inertWith(expect: ExpectStatic): (r: BinResult, what: string) => void {
  return (r, what) => {
    for (const [stream, text] of [
      ["stdout", r.stdout],
      ["stderr", r.stderr],
    ] as const) {
      expect(text, `${what}: raw control or bidirectional character on ${stream}`).not.toMatch(RAW);
      expect(text, `${what}: ##[ on ${stream}`).not.toContain("##[");
      for (const line of text.split("\n")) expect(line.trimStart().startsWith("::"), `${what}: a workflow command on ${stream}: ${JSON.stringify(line)}`).toBe(false);
    }
  };
}

let emu: StandaloneEmulator;
const proxies: ChildProcess[] = [];
let rows: string;
let uids: string;
let deny: string;
let backend: string;
let cli: PulumiCli;
const cwd = path.join(REPO_ROOT, "examples", "drift-detection", "program");
const orgProgram = path.join(REPO_ROOT, "test", "programs", "org");

/** The environment of a command pointed at `api` (a proxy), with the stack's file backend and the CLI on PATH. */
function envFor(api: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const platform = { PLATFORM_API_URL: api, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID };
  return { ...stackEnv(backend, { HOME: process.env["HOME"], [FILE_VAR]: process.env[FILE_VAR], ...platform }), PULUMI_SKIP_UPDATE_CHECK: "true", NO_COLOR: "1", ...extra };
}

beforeAll(async () => {
  emu = await startStandalone();
  const started = await Promise.all((["rows", "uid", "deny"] as const).map((mode) => startHostileProxy(emu.env.PLATFORM_API_URL, mode)));
  proxies.push(...started.map((p) => p.child));
  [rows, uids, deny] = started.map((p) => p.url) as [string, string, string];
  backend = mkdtempSync(path.join(tmpdir(), "inert-"));
  cli = new PulumiCli({ cwd, backendDir: backend, stack: "inert", env: { PLATFORM_API_URL: emu.env.PLATFORM_API_URL, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID } });
  // A stack with identities, a custom role and bindings, for `access --current`.
  const org = new PulumiCli({ cwd: orgProgram, backendDir: backend, stack: "inert-org", env: { PLATFORM_API_URL: emu.env.PLATFORM_API_URL, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID, ORG_FILE: path.join(orgProgram, "org.yaml") } });
  // The stacks are made in turn (the backend's first use writes its .pulumi/meta.yaml), then both ups at once: two
  // projects and stacks of their own (each up locks its own stack), top groups of different names (apps and data;
  // engineering and security).
  await cli.initStack();
  await org.initStack();
  await Promise.all([
    (async () => {
      await cli.ok(["up", "--yes", "--skip-preview"]);
      // An object made outside the stack under one of its groups: `unmanaged` lists it, and reads its account association.
      const apps = ((await cli.outputs()) as Record<string, string>)["appsUid"]!;
      const made = await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/groups/${apps}`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "handmade", description: "made by hand" }),
      });
      expect(made.status).toBe(200);
    })(),
    org.ok(["up", "--yes", "--skip-preview"]),
  ]);
}, LONG);

afterAll(async () => {
  for (const p of proxies) p.kill("SIGTERM");
  await emu?.stop();
  if (backend) rmSync(backend, { recursive: true, force: true });
  rmSync(path.join(cwd, "Pulumi.inert.yaml"), { force: true });
  rmSync(path.join(orgProgram, "Pulumi.inert-org.yaml"), { force: true });
});

const stackArgs = ["--stack", "inert", "--cwd", cwd];

describe.concurrent("every output path of the bin is inert against a hostile server", () => {
  it("unmanaged: names, a row with a hostile JSON key (reported, the rest listed), table and --json", async ({ expect }) => {
    const expectInert = inertWith(expect);
    // Both runs at once; checked in the same order.
    const runs = await Promise.all([false, true].map(async (json) => ({ json, r: await runBin(["unmanaged", ...stackArgs, ...(json ? ["--json"] : [])], envFor(rows)) })));
    for (const { json, r } of runs) {
      expectInert(r, `unmanaged${json ? " --json" : ""}`);
      expect(r.code, r.stderr).toBe(1);
      if (json) {
        const listed = JSON.parse(r.stdout) as { unmanaged: Array<{ kind: string; uid: string; problem?: string }>; unreadable: Array<{ kind: string; uid: string | null; problem: string }> };
        expect(listed.unmanaged.filter((o) => o.problem !== undefined)).toEqual([]);
        const bad = listed.unreadable;
        expect(bad.length).toBeGreaterThan(0);
        expect(new Set(bad.map((o) => o.kind))).toEqual(new Set(["Identity"]));
        // The server's JSON key, quoted by the client's shape check, escaped.
        expect(bad[0]!.problem).toContain("claimMatch.claims.evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
      } else expect(r.stdout).toMatch(/[1-9]\d* row\(s\) the server sent that could not be read/); // the proxy spoils one row per identities List
    }
  }, LONG);

  it("unmanaged: a group uid with U+009B and U+202E, refused by the client's uid check: that row reported with it escaped, the rest listed, exit 1", async ({ expect }) => {
    const expectInert = inertWith(expect);
    const [r, j] = await Promise.all([runBin(["unmanaged", ...stackArgs], envFor(uids)), runBin(["unmanaged", ...stackArgs, "--format", "json"], envFor(uids))]);
    expectInert(r, "unmanaged (uid check)");
    expectInert(j, "unmanaged --format json (uid check)");
    expect(r.code, r.stderr).toBe(1);
    expect(j.code, j.stderr).toBe(1);
    expect(r.stdout).toMatch(/[1-9]\d* row\(s\) the server sent that could not be read/);
    expect(r.stdout).toMatch(/\\u009b\\u202e" is not a valid uid/);
    const listed = JSON.parse(j.stdout) as { unreadable: Array<{ kind: string; uid: string | null; problem: string }> };
    // The hand-made group under the stack's group: its uid spoiled by the proxy, reported as a row that could not be read.
    const spoiled = listed.unreadable.filter((o) => o.uid !== null && o.uid.endsWith("\u009b\u202e"));
    expect(spoiled.map((o) => o.kind)).toContain("Group");
    for (const o of spoiled) expect(o.problem).toMatch(/\\u009b\\u202e" is not a valid uid/);
    // The rest are listed: the identities List's spoiled row (another problem) is reported beside them.
    expect(listed.unreadable.some((o) => o.kind === "Identity" && !o.problem.includes("is not a valid uid"))).toBe(true);
  }, LONG);

  it("drift --unmanaged: table, json and markdown", async ({ expect }) => {
    const expectInert = inertWith(expect);
    // One run of the bin (--format json): its report, rendered in every format by formatDrift (what the bin prints).
    const r = await runBin(["drift", ...stackArgs, "--unmanaged", "--format", "json"], envFor(rows));
    expectInert(r, "drift --format json");
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as DriftReport;
    expect(JSON.stringify(report.drifted)).toContain("::error title=x::owned"); // the value itself, escaped only in print
    // The description's lone surrogate (the proxy's) reached the engine as U+FFFD: the refresh did not fail on it.
    expect(JSON.stringify(report.drifted)).toContain("legacy\ufffd");
    expect(formatDrift(report, "json", true)).toBe(r.stdout); // the report read back is the one the bin printed
    expect(driftExitCode(report)).toBe(r.code);
    for (const format of ["table", "markdown"] as const) expectInert({ ...r, stdout: formatDrift(report, format, true) }, `drift --format ${format}`);
  }, LONG);

  it("drift, unmanaged and export on a server that rejects the token: the message escaped, exit 2", async ({ expect }) => {
    const expectInert = inertWith(expect);
    // drift: one run (--format json); the table and Markdown are what reportCouldNotRun prints for its error.
    // The three commands at once.
    const [r, u, e] = await Promise.all([
      runBin(["drift", ...stackArgs, "--format", "json"], envFor(deny)),
      runBin(["unmanaged", ...stackArgs, "--json"], envFor(deny)),
      runBin(["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "x")], envFor(deny)),
    ]);
    expectInert(r, "drift --format json (rejected)");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("token rejected: evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
    const forms = couldNotRunForms("drift", "inert", (JSON.parse(r.stdout) as { error: CouldNotRun }).error);
    expect(forms.json).toEqual({ stdout: r.stdout, stderr: r.stderr }); // the error read back is the bin's
    for (const format of ["table", "markdown"] as const) expectInert({ ...r, ...forms[format] }, `drift --format ${format} (rejected)`);
    expectInert(u, "unmanaged (rejected)");
    expect(u.code, u.stderr).toBe(2);
    expectInert(e, "export (rejected)");
    expect(e.code, e.stderr).toBe(2);
    expect(e.stderr).toContain("token rejected: evil\\u001b[2J");
  }, LONG);

  it("export: the refusal of hostile names, and the token exchange's message", async ({ expect }) => {
    const expectInert = inertWith(expect);
    const [r, x] = await Promise.all([
      runBin(["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "y")], envFor(rows)),
      runBin(
        ["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "z")],
        envFor(deny, { PLATFORM_TOKEN: "", PLATFORM_IDENTITY: `${emu.env.PLATFORM_ORG_UID}/0123456789abcdef`, PLATFORM_IDENTITY_TOKEN: "oidc_opaque_token_value_1" }),
      ),
    ]);
    expectInert(r, "export (hostile names)");
    expect(r.code, r.stderr).toBe(2);
    expectInert(x, "export (token exchange)");
    expect(x.code, x.stderr).toBe(2);
    expect(x.stderr).toContain("exchange refused: evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
  }, LONG);

  it("access --current on a stack with identities, a custom role and bindings: table and markdown, and every format on a server that rejects the token", async ({ expect }) => {
    const expectInert = inertWith(expect);
    // Three at a time: each server's three formats at once; checked in the same order.
    const runs: Array<{ api: string; format: string; r: BinResult }> = [];
    for (const api of [rows, deny]) {
      runs.push(...(await Promise.all((["table", "json", "markdown"] as const).map(async (format) => ({ api, format, r: await runBin(["access", "--stack", "inert-org", "--cwd", orgProgram, "--current", "--format", format], envFor(api, { ORG_FILE: path.join(orgProgram, "org.yaml") })) })))));
    }
    for (const { api, format, r } of runs) {
      expectInert(r, `access --current --format ${format}${api === deny ? " (rejected)" : ""}`);
      if (api === deny) expect(r.code, r.stderr).toBe(2);
    }
  }, LONG);
});
