/**
 * One report frame for `drift`, `gate`, `access` and `unmanaged`, through the built bin (`dist/cli/main.js`) against
 * the standalone emulator in another process: `unmanaged --format json` is one object, the same object in the
 * `--json-out` file, and `{ "stack", "error" }` in both when it cannot run; `unmanaged --format markdown
 * --max-chars` leaves the rows past the budget out, counted in a closing line naming the `--json-out` file; `drift`
 * takes `--max-chars` and writes the failure's envelope to `--json-out`; the emulator's errors read as every
 * command's. The in-process checks (the four `--help`s, the Markdown budget) are test/report-frame.unit.test.ts.
 *
 * No engine run: the stack's state is imported (`pulumi stack import`), never updated; `drift` is run only where
 * it stops before its preview (a stack that does not exist, a bad argument).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PulumiCli } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { stackEnv } from "./harness/stack";
import { apiCall, startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 180_000;
/** How many groups are made by hand under the stack's group: more rows than 1,500 characters of Markdown hold. */
const STRAYS = 24;

let emu: StandaloneEmulator;
let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;
let team: string;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  emu = await startStandalone();
  dir = mkdtempSync(path.join(tmpdir(), "report-frame-"));
  project = path.join(dir, "project");
  mkdirSync(path.join(dir, "backend"));
  mkdirSync(project);
  writeFileSync(path.join(project, "Pulumi.yaml"), "name: report-frame\nruntime: nodejs\n");
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
  const cli = new PulumiCli({ cwd: project, backendDir: path.join(dir, "backend"), stack: "s", env: { ...emu.env } });
  await cli.ok(["stack", "init", "s", "--no-select"]);
  // The stack holds one group (its state imported); under it, groups made outside Pulumi: objects no stack manages.
  const g = await apiCall(emu, "POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, { name: "team", description: "d" });
  team = g.uid!;
  for (let i = 0; i < STRAYS; i++) await apiCall(emu, "POST", `/iam/v2beta1/groups/${team}`, { name: `stray-${String(i).padStart(2, "0")}`, description: "made by hand" });
  const state = JSON.parse((await cli.ok(["stack", "export"])).stdout) as { deployment: Record<string, unknown> };
  const urn = (t: string, n: string) => `urn:pulumi:s::report-frame::${t}::${n}`;
  state.deployment["resources"] = [
    { urn: urn("pulumi:pulumi:Stack", "report-frame-s"), custom: false, type: "pulumi:pulumi:Stack" },
    { urn: urn("pulumi:providers:platform", "default"), custom: true, id: "00000000-0000-0000-0000-000000000000", type: "pulumi:providers:platform", inputs: {}, outputs: {} },
    {
      urn: urn("platform:iam:Group", "team"),
      custom: true,
      id: team,
      type: "platform:iam:Group",
      inputs: { parentUid: emu.env.PLATFORM_ORG_UID, name: "team" },
      outputs: { uid: team, parentUid: emu.env.PLATFORM_ORG_UID, name: "team", description: "d" },
      provider: `${urn("pulumi:providers:platform", "default")}::00000000-0000-0000-0000-000000000000`,
    },
  ];
  const file = path.join(dir, "state.json");
  writeFileSync(file, JSON.stringify(state));
  await cli.ok(["stack", "import", "--file", file]);
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  busyPort = (busy.address() as { port: number }).port;
}, LONG);

afterAll(async () => {
  await new Promise((r) => busy?.close(r));
  await emu?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const stackArgs = () => ["--stack", "s", "--cwd", project];

describe("unmanaged's report", () => {
  it("--format json is one object { stack, unmanaged, unreadable }, and --json-out writes the same", async () => {
    const out = path.join(dir, "unmanaged.json");
    const r = await runBin(["unmanaged", ...stackArgs(), "--format", "json", "--json-out", out], env);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { stack: string; unmanaged: Array<{ kind: string; uid: string; name: string; parentUid: string; parentPath: string; adopt: string }>; unreadable: unknown[] };
    expect(Object.keys(report)).toEqual(["stack", "unmanaged", "unreadable"]);
    expect(report.stack).toBe("s");
    expect(report.unreadable).toEqual([]);
    expect(report.unmanaged).toHaveLength(STRAYS);
    expect(report.unmanaged.map((o) => o.name).sort()).toEqual(Array.from({ length: STRAYS }, (_, i) => `stray-${String(i).padStart(2, "0")}`));
    for (const o of report.unmanaged) expect(o).toEqual({ kind: "Group", uid: expect.stringMatching(new RegExp(`^${team}/`)), name: o.name, parentUid: team, parentPath: "team", adopt: `adoptUid: "${o.uid}"` });
    expect(readFileSync(out, "utf8")).toBe(r.stdout);
  }, LONG);

  it("--format markdown --max-chars: the rows past the budget counted in a closing line naming the --json-out file", async () => {
    const out = path.join(dir, "unmanaged-md.json");
    const r = await runBin(["unmanaged", ...stackArgs(), "--format", "markdown", "--max-chars", "1500", "--json-out", out], env);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.length).toBeLessThanOrEqual(1500);
    const shown = r.stdout.split("\n").filter((l) => l.startsWith("| Group |")).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(STRAYS);
    expect(r.stdout.trimEnd().split("\n").pop()).toBe(`*${STRAYS - shown} more row(s) not shown to keep this comment within 1500 characters; the full report is in \`${out}\`.*`);
    expect((JSON.parse(readFileSync(out, "utf8")) as { unmanaged: unknown[] }).unmanaged).toHaveLength(STRAYS);
  }, LONG);

  it("when it cannot run: { stack, error } on stdout and in the --json-out file, exit 2", async () => {
    const out = path.join(dir, "unmanaged-failed.json");
    const r = await runBin(["unmanaged", "--stack", "no-such-stack", "--cwd", project, "--format", "json", "--json-out", out], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^platform-pulumi unmanaged: .*no-such-stack/);
    const failed = JSON.parse(r.stdout) as { stack: string; error: { message: string } };
    expect(failed.stack).toBe("no-such-stack");
    expect(failed.error.message).toMatch(/no-such-stack/);
    expect(readFileSync(out, "utf8")).toBe(r.stdout);
  }, LONG);
});

describe("drift's --max-chars and --json-out", () => {
  it("refuses a --max-chars under 1000 in the report commands' words; writes the failure's envelope to --json-out", async () => {
    const out = path.join(dir, "drift-failed.json");
    const [bad, failed] = await Promise.all([
      runBin(["drift", ...stackArgs(), "--format", "markdown", "--max-chars", "10"], env),
      runBin(["drift", "--stack", "no-such-stack", "--cwd", project, "--format", "markdown", "--max-chars", "2000", "--json-out", out], env),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^platform-pulumi drift: --max-chars: "10" is not a whole number of at least 1000\nusage: platform-pulumi drift /);
    expect(failed.code, failed.stderr).toBe(2);
    expect(failed.stdout).toMatch(/^### platform-pulumi drift on stack `no-such-stack`: could not run/);
    const envelope = JSON.parse(readFileSync(out, "utf8")) as { stack: string; error: { message: string } };
    expect(envelope.stack).toBe("no-such-stack");
    expect(envelope.error.message).toMatch(/no-such-stack/);
  }, LONG);
});

describe("the emulator's errors", () => {
  it("read as every command's: platform-pulumi emulator: <reason>, the hint indented, exit 2; the usage only for a bad argument", async () => {
    const [inUse, badPort] = await Promise.all([runBin(["emulator", "--port", String(busyPort), "--no-parent-watch"], env), runBin(["emulator", "--port", "x"], env)]);
    expect(inUse.code).toBe(2);
    expect(inUse.stdout).toBe("");
    expect(inUse.stderr).toBe(`platform-pulumi emulator: listen EADDRINUSE: address already in use 127.0.0.1:${busyPort}\n  another process listens on port ${busyPort}: stop it, or give another --port (or --auth-port); 0 picks a free one\n`);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/^platform-pulumi emulator: --port must be an integer 0-65535, got "x"\nusage: platform-pulumi emulator \[options\]\n/);
  }, LONG);
});
