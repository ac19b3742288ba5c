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
 * refused by the client's uid check, an API error), `drift` (table, `--format json`, `--format markdown`, with
 * `--unmanaged`: drifted values, names, the unreadable row, and a preview that could not run on a rejected token),
 * and `access --current` (table and markdown; and json, table and markdown of a rejected token).
 *
 * `drift` runs the engine (a preview): it runs once per case, with `--format json`, and its table and Markdown are
 * rendered from that JSON by the command's own functions (`formatDrift`; `reportCouldNotRun` through
 * test/harness/reports.ts), the very text the bin prints for that report.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** Asserts that what a command printed is inert in a terminal and in a GitHub Actions log. */
function expectInert(r: BinResult, what: string): void {
  for (const [stream, text] of [
    ["stdout", r.stdout],
    ["stderr", r.stderr],
  ] as const) {
    expect(text, `${what}: raw control or bidirectional character on ${stream}`).not.toMatch(RAW);
    expect(text, `${what}: ##[ on ${stream}`).not.toContain("##[");
    for (const line of text.split("\n")) expect(line.trimStart().startsWith("::"), `${what}: a workflow command on ${stream}: ${JSON.stringify(line)}`).toBe(false);
  }
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
  for (const mode of ["rows", "uid", "deny"] as const) {
    const p = await startHostileProxy(emu.env.PLATFORM_API_URL, mode);
    proxies.push(p.child);
    if (mode === "rows") rows = p.url;
    else if (mode === "uid") uids = p.url;
    else deny = p.url;
  }
  backend = mkdtempSync(path.join(tmpdir(), "inert-"));
  cli = new PulumiCli({ cwd, backendDir: backend, stack: "inert", env: { PLATFORM_API_URL: emu.env.PLATFORM_API_URL, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID } });
  await cli.initStack();
  await cli.ok(["up", "--yes", "--skip-preview"]);
  // An object made outside the stack under one of its groups: `unmanaged` lists it, and reads its account association.
  const apps = ((await cli.outputs()) as Record<string, string>)["appsUid"]!;
  const made = await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/groups/${apps}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "handmade", description: "made by hand" }),
  });
  expect(made.status).toBe(200);
  // A stack with identities, a custom role and bindings, for `access --current`.
  const org = new PulumiCli({ cwd: orgProgram, backendDir: backend, stack: "inert-org", env: { PLATFORM_API_URL: emu.env.PLATFORM_API_URL, PLATFORM_TOKEN: emu.env.PLATFORM_TOKEN, PLATFORM_ORG_UID: emu.env.PLATFORM_ORG_UID, ORG_FILE: path.join(orgProgram, "org.yaml") } });
  await org.initStack();
  await org.ok(["up", "--yes", "--skip-preview"]);
}, LONG);

afterAll(async () => {
  for (const p of proxies) p.kill("SIGTERM");
  await emu?.stop();
  if (backend) rmSync(backend, { recursive: true, force: true });
  rmSync(path.join(cwd, "Pulumi.inert.yaml"), { force: true });
  rmSync(path.join(orgProgram, "Pulumi.inert-org.yaml"), { force: true });
});

const stackArgs = ["--stack", "inert", "--cwd", cwd];

describe("every output path of the bin is inert against a hostile server", () => {
  it("unmanaged: names, a row with a hostile JSON key (reported, the rest listed), table and --json", async () => {
    for (const json of [false, true]) {
      const r = await runBin(["unmanaged", ...stackArgs, ...(json ? ["--json"] : [])], envFor(rows));
      expectInert(r, `unmanaged${json ? " --json" : ""}`);
      expect(r.code, r.stderr).toBe(1);
      if (json) {
        const listed = JSON.parse(r.stdout) as Array<{ kind: string; uid: string; problem?: string }>;
        const bad = listed.filter((o) => o.problem !== undefined);
        expect(bad.length).toBeGreaterThan(0);
        expect(new Set(bad.map((o) => o.kind))).toEqual(new Set(["Identity"]));
        // The server's JSON key, quoted by the client's shape check, escaped.
        expect(bad[0]!.problem).toContain("claimMatch.claims.evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
      } else expect(r.stdout).toMatch(/[1-9]\d* row\(s\) the server sent that could not be read/); // the proxy spoils one row per identities List
    }
  }, LONG);

  it("unmanaged: a group uid with U+009B and U+202E, refused by the client's uid check, exits 2 with it escaped", async () => {
    const r = await runBin(["unmanaged", ...stackArgs], envFor(uids));
    expectInert(r, "unmanaged (uid check)");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/\\u009b\\u202e" is not a valid uid/);
  }, LONG);

  it("drift --unmanaged: table, json and markdown", async () => {
    // One run of the bin (--format json): its report, rendered in every format by formatDrift (what the bin prints).
    const r = await runBin(["drift", ...stackArgs, "--unmanaged", "--format", "json"], envFor(rows));
    expectInert(r, "drift --format json");
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as DriftReport;
    expect(JSON.stringify(report.drifted)).toContain("::error title=x::owned"); // the value itself, escaped only in print
    expect(formatDrift(report, "json", true)).toBe(r.stdout); // the report read back is the one the bin printed
    expect(driftExitCode(report)).toBe(r.code);
    for (const format of ["table", "markdown"] as const) expectInert({ ...r, stdout: formatDrift(report, format, true) }, `drift --format ${format}`);
  }, LONG);

  it("drift, unmanaged and export on a server that rejects the token: the message escaped, exit 2", async () => {
    // drift: one run (--format json); the table and Markdown are what reportCouldNotRun prints for its error.
    const r = await runBin(["drift", ...stackArgs, "--format", "json"], envFor(deny));
    expectInert(r, "drift --format json (rejected)");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("token rejected: evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
    const forms = couldNotRunForms("drift", "inert", (JSON.parse(r.stdout) as { error: CouldNotRun }).error);
    expect(forms.json).toEqual({ stdout: r.stdout, stderr: r.stderr }); // the error read back is the bin's
    for (const format of ["table", "markdown"] as const) expectInert({ ...r, ...forms[format] }, `drift --format ${format} (rejected)`);
    const u = await runBin(["unmanaged", ...stackArgs, "--json"], envFor(deny));
    expectInert(u, "unmanaged (rejected)");
    expect(u.code, u.stderr).toBe(2);
    const e = await runBin(["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "x")], envFor(deny));
    expectInert(e, "export (rejected)");
    expect(e.code, e.stderr).toBe(2);
    expect(e.stderr).toContain("token rejected: evil\\u001b[2J");
  }, LONG);

  it("export: the refusal of hostile names, and the token exchange's message", async () => {
    const r = await runBin(["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "y")], envFor(rows));
    expectInert(r, "export (hostile names)");
    expect(r.code, r.stderr).toBe(2);
    const x = await runBin(
      ["export", "--org", emu.env.PLATFORM_ORG_UID, "--out", path.join(backend, "z")],
      envFor(deny, { PLATFORM_TOKEN: "", PLATFORM_IDENTITY: `${emu.env.PLATFORM_ORG_UID}/0123456789abcdef`, PLATFORM_IDENTITY_TOKEN: "oidc_opaque_token_value_1" }),
    );
    expectInert(x, "export (token exchange)");
    expect(x.code, x.stderr).toBe(2);
    expect(x.stderr).toContain("exchange refused: evil\\u001b[2J\\u000d\\u000a::error title=x::owned\\u000a\\u009b31m\\u202edcba");
  }, LONG);

  it("access --current on a stack with identities, a custom role and bindings: table and markdown, and every format on a server that rejects the token", async () => {
    for (const [api, format] of [[rows, "table"], [rows, "json"], [rows, "markdown"], [deny, "table"], [deny, "json"], [deny, "markdown"]] as const) {
      const r = await runBin(["access", "--stack", "inert-org", "--cwd", orgProgram, "--current", "--format", format], envFor(api, { ORG_FILE: path.join(orgProgram, "org.yaml") }));
      expectInert(r, `access --current --format ${format}${api === deny ? " (rejected)" : ""}`);
      if (api === deny) expect(r.code, r.stderr).toBe(2);
    }
  }, LONG);
});
