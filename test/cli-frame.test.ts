/**
 * One argument frame for every `platform-pulumi` command (provider/commands/frame.ts), through the built bin: the
 * commands are the ones `platform-pulumi --help` lists (the dispatcher's single list, cli/main.ts), so a new
 * command is covered without a line here. For each: `--help` exits 0, names every option the command takes and
 * gives the exit codes; an unknown flag exits 2 naming it; a failure exits 2. Each command that reads a stack
 * (its usage names `--stack`, but for {@link WRITES_STACK}) takes `PULUMI_STACK`, and `--stack` wins over it.
 * And `unmanaged --json` still works, saying on stderr it is deprecated.
 *
 * The stack commands run the real Pulumi CLI on a file backend that holds no stack, so each fails naming the stack
 * it was asked for: nothing else is needed to see which one it read.
 *
 * Every run is a spawn of the built bin (~0.4 s of Node start each), so the runs a test needs start together,
 * {@link SPAWNS_AT_ONCE} at a time ({@link bin}), and are checked afterwards in a fixed order; a command's `--help`
 * and the command list are run once for the file ({@link helpOf}, {@link commands}); and the options a command's
 * usage names are given to it in one run (each is refused on its own by the strict `parseArgs` of the frame and
 * of the emulator, so the run exits 0 only when every one is accepted), each run alone when that run fails, to
 * name the one refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { FILE_VAR } from "./harness/engine-runs";
import { runBin, type BinResult } from "./harness/bin";
import { slots } from "./harness/limit";

const LONG = 300_000;
/** A Pulumi project folder (any will do: the stacks asked for do not exist). */
const PROJECT = path.join(REPO_ROOT, "examples", "drift-detection", "program");
/** Commands whose `--stack` names a stack they write (config), not one they read: `PULUMI_STACK` is not theirs. */
const WRITES_STACK = new Set(["export"]);
/** The exit-code lines every `--help` ends with (frame.ts `exitCodesUsage`). */
const EXIT_LINES = [/^exit codes \(the same for every platform-pulumi command\):$/m, /^ {2}0 {2}/m, /^ {2}1 {2}/m, /^ {2}2 {2}could not run: bad arguments/m];

let backend: string;
let busy: Server;
let busyPort: number;
const held = new Set<Socket>();

/** A command's environment: the CLI on PATH, an empty file backend, an API nobody answers on; plus `extra`. */
function envFor(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}`,
    HOME: process.env["HOME"],
    // The counting pulumi wrapper charges this file's engine runs to it (test/harness/engine-runs.ts).
    [FILE_VAR]: process.env[FILE_VAR],
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PLATFORM_API_URL: `http://127.0.0.1:${busyPort}`,
    PLATFORM_TOKEN: "plat_test_token_0000000000000000",
    NO_COLOR: "1",
    ...extra,
  };
}

/** How many runs of the bin at once: the machine (2 cores) is shared. */
const SPAWNS_AT_ONCE = 4;
const spawnSlot = slots(SPAWNS_AT_ONCE);
/** `platform-pulumi <args>` ({@link runBin}), once fewer than {@link SPAWNS_AT_ONCE} others are running. */
function bin(args: readonly string[], env: NodeJS.ProcessEnv): Promise<BinResult> {
  return spawnSlot(() => runBin(args, env));
}

let backendRead: Promise<unknown> | undefined;
/**
 * {@link bin} for a run that reaches the Pulumi CLI's file backend: the first such run of the file goes alone (the
 * CLI writes the empty backend's `.pulumi/meta.yaml` then, which runs at once would race to write), the rest after it.
 */
function stackBin(args: readonly string[], env: NodeJS.ProcessEnv): Promise<BinResult> {
  if (backendRead) return backendRead.then(() => bin(args, env));
  const first = bin(args, env);
  backendRead = first.catch(() => undefined);
  return first;
}

const helpRuns = new Map<string, Promise<BinResult>>();
/** `<cmd> --help`, run once for the file: checked by "every command's --help", read by the tests that need the usage. */
function helpOf(cmd: string): Promise<BinResult> {
  if (!helpRuns.has(cmd)) helpRuns.set(cmd, bin([cmd, "--help"], envFor()));
  return helpRuns.get(cmd)!;
}

const flagRuns = new Map<string, Promise<BinResult>>();
/**
 * `<cmd> --stack no-such-stack --cwd <project>` with `PULUMI_STACK=from-env-stack`, run once per command and read by
 * two tests: the flag wins over the environment ("the stack a command reads"), and a stack that does not exist is a
 * failure, exit 2 with the reason ("a failure").
 */
function flagOverEnv(cmd: string): Promise<BinResult> {
  if (!flagRuns.has(cmd)) flagRuns.set(cmd, stackBin([cmd, "--stack", "no-such-stack", "--cwd", PROJECT], envFor({ PULUMI_STACK: "from-env-stack" })));
  return flagRuns.get(cmd)!;
}

let commandList: Promise<string[]> | undefined;
/** The commands `platform-pulumi --help` lists (run once for the file). */
function commands(): Promise<string[]> {
  commandList ??= bin(["--help"], envFor()).then((r) => {
    expect(r.code, r.stderr).toBe(0);
    const list = r.stdout.split("\ncommands:\n")[1]!.split("\n\n")[0]!;
    return [...list.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]!);
  });
  return commandList;
}

/** The flags a usage's option lines name (`  --cwd <dir>  …`, `  -h, --help  …`). */
function flagsOf(help: string): string[] {
  return [...new Set([...help.matchAll(/^ {2,}(?:-h, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!))];
}

/** Whether the command's usage says it reads a stack. */
function readsStack(cmd: string, help: string): boolean {
  return flagsOf(help).includes("--stack") && !WRITES_STACK.has(cmd);
}

/** A run of each command that cannot succeed and is not a usage error, for the commands that read no stack. */
function failingRun(cmd: string): string[] {
  const runs: Record<string, string[]> = {
    // The API (PLATFORM_API_URL) is a port that takes connections and never answers: --timeout ends it.
    export: ["--org", "a".repeat(40), "--out", path.join(backend, "out"), "--timeout", "2s"],
    // A port already taken.
    emulator: ["--port", String(busyPort), "--no-parent-watch"],
  };
  const r = runs[cmd];
  if (!r) throw new Error(`no failing run for "${cmd}": add one to failingRun (or make its usage name --stack, if it reads one)`);
  return r;
}

beforeAll(async () => {
  backend = mkdtempSync(path.join(tmpdir(), "cli-frame-"));
  // Takes connections and never answers; what it holds is dropped at the end.
  busy = createServer((socket) => void held.add(socket));
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  busyPort = (busy.address() as { port: number }).port;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((r) => busy?.close(r));
  if (backend) rmSync(backend, { recursive: true, force: true });
});

describe("every command's --help", () => {
  it("exits 0 with the usage on stdout, names its options (each accepted) and gives the exit codes", async () => {
    const cmds = await commands();
    expect(cmds).toEqual(expect.arrayContaining(["emulator", "recover", "unmanaged", "export", "access", "drift", "gate"]));
    // Every command's runs start at once (bin() bounds them); the checks follow, command by command.
    const runs = await Promise.all(
      cmds.map(async (cmd) => {
        const [long, short] = await Promise.all([helpOf(cmd), bin([cmd, "-h"], envFor())]);
        const help = long.stdout;
        // Each flag it names is one it takes: with a value when its line gives one (`--cwd <dir>`), else alone.
        const takesValue = new Set([...help.matchAll(/^ {2,}(--[a-z][a-z-]*) [^ ]/gm)].map((m) => m[1]!));
        const named = flagsOf(help).filter((f) => f !== "--help");
        const given = named.map((flag) => (takesValue.has(flag) ? `${flag}=x` : flag));
        const all = await bin([cmd, ...given, "--help"], envFor());
        return { cmd, helps: [["--help", long], ["-h", short]] as const, help, named, given, all };
      }),
    );
    for (const { cmd, helps, help, named, given, all } of runs) {
      for (const [h, r] of helps) {
        expect(r.code, `${cmd} ${h}: ${r.stderr}`).toBe(0);
        expect(r.stdout, cmd).toMatch(new RegExp(`^usage: (platform-pulumi|npm run emulator --) ${cmd === "emulator" ? "" : cmd}`));
        for (const line of EXIT_LINES) expect(r.stdout, `${cmd}: ${String(line)}`).toMatch(line);
      }
      // The shared lines (--timeout, -h) start their descriptions in the column of the command's first option.
      const column = (re: RegExp) => re.exec(help)?.[1]?.length;
      const first = column(/^( {2}--[a-z][a-z-]*(?: <[^>]+>)* {2,})\S/m);
      expect(first, cmd).toBeGreaterThan(0);
      expect(column(/^( {2}-h, --help {2,})\S/m), `${cmd}'s -h line:\n${help}`).toBe(first);
      if (cmd !== "emulator") expect(column(/^( {2}--timeout <d> {2,})\S/m), `${cmd}'s --timeout line:\n${help}`).toBe(first);
      const flags = flagsOf(help);
      expect(flags, cmd).toEqual(expect.arrayContaining(["--help", "--timeout"].filter((f) => cmd !== "emulator" || f === "--help")));
      if (readsStack(cmd, help)) {
        expect(flags, cmd).toEqual(expect.arrayContaining(["--stack", "--cwd"]));
        expect(help, `${cmd} names PULUMI_STACK`).toMatch(/--stack <name> +the stack \(required; or PULUMI_STACK\)/);
      }
      // Every flag it names, in one run: strict parsing refuses each unknown flag, a value given to a boolean one
      // and a value missing from a string one, wherever it stands, before it reads --help. When that run fails,
      // each flag alone says which one was refused.
      if (all.code !== 0) {
        const alone = await Promise.all(named.map(async (flag, i) => ({ flag, r: await bin([cmd, given[i]!, "--help"], envFor()) })));
        for (const { flag, r } of alone) expect(r.code, `${cmd} ${flag}: ${r.stderr}`).toBe(0);
      }
      expect(all.code, `${cmd} ${given.join(" ")} --help: ${all.stderr}`).toBe(0);
    }
  }, LONG);
});

describe("an unknown flag", () => {
  it("exits 2 for every command, naming the flag on stderr, with the usage", async () => {
    const cmds = await commands();
    const runs = await Promise.all(cmds.map((cmd) => bin([cmd, "--no-such-flag"], envFor())));
    cmds.forEach((cmd, i) => {
      const r = runs[i]!;
      expect(r.code, cmd).toBe(2);
      expect(r.stderr, cmd).toContain("'--no-such-flag'");
      expect(r.stderr, cmd).toMatch(/\nusage: /);
      expect(r.stdout, cmd).toBe("");
    });
  }, LONG);
});

describe("the stack a command reads", () => {
  it("is PULUMI_STACK when --stack is not given, --stack when both are, and a usage error when neither is", async () => {
    const cmds = await commands();
    const helps = await Promise.all(cmds.map(async (cmd) => (await helpOf(cmd)).stdout));
    const readers = cmds.filter((cmd, i) => readsStack(cmd, helps[i]!));
    // Each reader's three runs, every reader's at once (bin() bounds them); the checks follow, reader by reader.
    const runs = await Promise.all(
      readers.map(async (cmd) => {
        const [fromEnv, both, neither] = await Promise.all([
          stackBin([cmd, "--cwd", PROJECT], envFor({ PULUMI_STACK: "from-env-stack" })),
          flagOverEnv(cmd),
          bin([cmd, "--cwd", PROJECT], envFor()), // a usage error: it never reaches the CLI
        ]);
        return { cmd, fromEnv, both, neither };
      }),
    );
    for (const { cmd, fromEnv, both, neither } of runs) {
      expect(fromEnv.code, `${cmd}: ${fromEnv.stderr}`).toBe(2);
      expect(fromEnv.stderr, cmd).toContain("'from-env-stack'"); // pulumi: no stack named 'from-env-stack' found
      expect(fromEnv.stderr, cmd).not.toMatch(/--stack is required/);

      expect(both.code, `${cmd}: ${both.stderr}`).toBe(2);
      expect(both.stderr, cmd).toContain("'no-such-stack'");
      expect(both.stderr, cmd).not.toContain("from-env-stack");

      expect(neither.code, cmd).toBe(2);
      expect(neither.stderr, cmd).toMatch(/^platform-pulumi [a-z]+: --stack is required \(or set PULUMI_STACK\)\nusage: /);
    }
    expect(readers.length).toBeGreaterThanOrEqual(5); // drift, gate, access, unmanaged, recover
  }, LONG);
});

describe("a failure", () => {
  it("exits 2 for every command, the reason on stderr and no usage (it is not a bad argument)", async () => {
    const cmds = await commands();
    const helps = await Promise.all(cmds.map(async (cmd) => (await helpOf(cmd)).stdout));
    // A command that reads a stack: the run above, whose --stack names a stack that does not exist (PULUMI_STACK,
    // also set there, is not read); `gate` starts a preview to find that out, so it runs once for both tests.
    // (For `gate` this is also the policy-gate workflow's "exits 2 with the reason on stderr when the preview fails
    // otherwise", formerly a run of its own in test/workflows.test.ts.)
    const runs = await Promise.all(cmds.map((cmd, i) => (readsStack(cmd, helps[i]!) ? flagOverEnv(cmd) : bin([cmd, ...failingRun(cmd)], envFor()))));
    cmds.forEach((cmd, i) => {
      const r = runs[i]!;
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(2);
      // The reason: the stack the CLI could not find; the deadline; the port in use. The emulator's in the form of
      // every command's (emulator/cli.ts emulatorErrorText).
      expect(r.stderr, cmd).toMatch(readsStack(cmd, helps[i]!) ? /no stack named 'no-such-stack'/ : cmd === "emulator" ? /^platform-pulumi emulator: .*EADDRINUSE/ : new RegExp(`^platform-pulumi ${cmd}: `));
      expect(r.stderr, cmd).not.toMatch(/^usage: /m);
    });
  }, LONG);
});

describe("unmanaged --json", () => {
  it("still prints JSON, as --format json does, and says on stderr that it is deprecated", async () => {
    const [r, f, clash] = await Promise.all([
      stackBin(["unmanaged", "--stack", "no-such-stack", "--cwd", PROJECT, "--json"], envFor()),
      stackBin(["unmanaged", "--stack", "no-such-stack", "--cwd", PROJECT, "--format", "json"], envFor()),
      bin(["unmanaged", "--stack", "no-such-stack", "--cwd", PROJECT, "--json", "--format", "table"], envFor()), // a usage error: it never reaches the CLI
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^platform-pulumi unmanaged: --json is deprecated; use --format json\n/);
    expect((JSON.parse(r.stdout) as { stack: string; error: { message: string } }).stack).toBe("no-such-stack");
    expect(f.stderr).not.toContain("deprecated");
    expect(JSON.parse(f.stdout)).toEqual(JSON.parse(r.stdout));
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--json and --format "table" disagree');
  }, LONG);
});
