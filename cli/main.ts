#!/usr/bin/env node
/**
 * The package's command, `platform-pulumi <command> [options]` (package.json `bin`), a small dispatcher:
 *
 *     npx platform-pulumi emulator --port 0     # the standalone emulator (same as `npm run emulator -- --port 0`)
 *     npx platform-pulumi --help                # the commands
 *     npx platform-pulumi <command> --help      # a command's options
 *
 * A command is a name, a one-line summary and a `run(args)` that loads its module only when chosen, so `--help`
 * and other commands never load the emulator's server. Commands (see the README): `emulator`, `recover`, `unmanaged`,
 * `export`, `access`, `drift` and `gate`; a later one adds one entry to {@link COMMANDS}.
 *
 * Every command but `emulator` parses its arguments through one frame, provider/commands/frame.ts (`--stack` or
 * `PULUMI_STACK`, `--cwd`, `--format`, `--timeout`, `--help`), whose doc comment has the exit-code table; the
 * emulator keeps its own parser (emulator/cli.ts) and the same codes.
 *
 * Exit codes, the same for every command (README, "Exit codes"): 0 clean or done (and help), 1 found something (drift,
 * violations, unmanaged objects, gains matching `--fail-on`), 2 could not run: an unknown command or bad arguments
 * (the command's own usage is printed to stderr), a failure (the reason on stderr), or past `--timeout`. A command's stdout is its own: the emulator prints exactly its three `KEY=value` lines there.
 */

import { inertLines } from "../provider/text";

/** One subcommand. */
interface Command {
  /** One line for `platform-pulumi --help`. */
  summary: string;
  /** Runs the command with the arguments after its name. */
  run(args: readonly string[]): void;
}

const BIN = "platform-pulumi";

const COMMANDS: Readonly<Record<string, Command>> = {
  emulator: {
    summary: "run the local Platform API emulator; prints PLATFORM_API_URL, PLATFORM_TOKEN, PLATFORM_ORG_UID, then serves",
    run: (args) => {
      // Loading the emulator throws MissingServerDependencyError (emulator/server-deps.ts) when its optional peer
      // dependencies are not installed: print its sentence, which names the npm command, not a stack trace.
      let emulator: typeof import("../emulator/cli");
      try {
        emulator = require("../emulator/cli") as typeof import("../emulator/cli");
      } catch (err) {
        if (!(err instanceof Error && err.name === "MissingServerDependencyError")) throw err;
        process.stderr.write(`${BIN} emulator: ${err.message}\n`);
        process.exitCode = 2; // could not run, as every command's
        return;
      }
      emulator.emulatorMain(args, `${BIN} emulator`);
    },
  },
  recover: {
    summary: "settle the creates an interrupted `pulumi up` left pending: adopt (or --delete) what they made",
    run: (args) => exitWith(load(() => (require("../provider/commands/recover") as typeof import("../provider/commands/recover")).recoverCommand(args))),
  },
  unmanaged: {
    summary: "list objects under a stack's groups that no stack references, with the line that adopts each in the program's language (exit 1 if any)",
    run: (args) => exitWith(load(() => (require("../provider/commands/unmanaged") as typeof import("../provider/commands/unmanaged")).unmanagedCommand(args))),
  },
  export: {
    summary: "write an existing org as a Pulumi program (or org file) whose first `pulumi up` adopts every object and changes nothing",
    run: (args) => exitWith(load(() => (require("../provider/commands/export") as typeof import("../provider/commands/export")).exportCommand(args))),
  },
  access: {
    summary: "who can do what, and where: the effective access (escalations included) a change gains and loses (exit 1 on --fail-on)",
    run: (args) => exitWith(load(() => (require("../provider/commands/access") as typeof import("../provider/commands/access")).accessCommand(args))),
  },
  drift: {
    summary: "what changed outside Pulumi (drifted), apart from what the program would change (pending); exit 1 on drift",
    run: (args) => exitWith(load(() => (require("../provider/commands/drift") as typeof import("../provider/commands/drift")).driftCommand(args))),
  },
  gate: {
    summary: "preview with the shipped policy pack and print every violation; exit 1 on a mandatory one",
    run: (args) => exitWith(load(() => (require("../provider/commands/gate") as typeof import("../provider/commands/gate")).gateCommand(args))),
  },
};

/** A command's run as a promise: what loading its module or starting it throws becomes a rejection. */
function load(start: () => Promise<number>): Promise<number> {
  try {
    return start();
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Ends the process with a command's exit code once it settles and its output is written (its client connections
 * would keep it alive); when the command throws (past its own frame), the reason on stderr and exit code 2 (could
 * not run), for every command: 1 means "found something".
 */
function exitWith(code: Promise<number>): void {
  // Exit only once what the command wrote is out: a large report piped to another process was seen cut short.
  const exit = (c: number) => process.stdout.write("", () => process.stderr.write("", () => process.exit(c)));
  code.then(
    (c) => exit(c),
    (err: unknown) => {
      // Inert (provider/text.ts): a message may quote the server; no line of it may be a control sequence or a workflow command.
      process.stderr.write(`${BIN}: ${inertLines(err instanceof Error ? err.message : String(err))}\n`);
      exit(2);
    },
  );
}

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [`usage: ${BIN} <command> [options]`, "", "commands:", ...lines, "", `Run \`${BIN} <command> --help\` for a command's options.`].join("\n");
}

function main(argv: readonly string[]): void {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    // `help <command>` is the command's own --help.
    if (name === "help" && rest[0] !== undefined && rest[0] in COMMANDS) return COMMANDS[rest[0]]!.run(["--help"]);
    (name === undefined ? process.stderr : process.stdout).write(`${usage()}\n`);
    if (name === undefined) process.exitCode = 2;
    return;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${BIN}: unknown command "${name}"\n${usage()}\n`);
    process.exitCode = 2;
    return;
  }
  command.run(rest);
}

main(process.argv.slice(2));
