/**
 * The one argument frame of every `platform-pulumi` command but `emulator` (cli/main.ts dispatches; the emulator
 * keeps its own parser for its stdout contract, emulator/cli.ts, and the same exit codes). A command gives a
 * {@link CommandFrame}: its usage text, its own options, and which of the shared ones it takes; the frame parses
 * with `node:util` `parseArgs` (strict), and every command then reads the same way:
 *
 * - `--stack <name>`: for a command that reads a stack (`stack: "read"`), required, or `PULUMI_STACK` when the flag
 *   is not given; the flag wins over the variable. `--cwd <dir>`: the Pulumi project's folder (default the current one).
 * - `--format <f>`: for a command that prints a report (`formats`), one of its formats (`table`, `json`, `markdown`,
 *   and `sarif` for drift, gate and access), the first the default. `export --format ts|yaml` is that command's
 *   own option (the language it writes), not this one.
 * - `--timeout <duration>` (./failure.ts; default 30m), `-h`/`--help`: the usage and the exit codes on stdout, exit 0.
 * - `--json-out <file>` and `--max-chars <n>`, for the report commands (`drift`, `gate`, `access`, `unmanaged`):
 *   declared and parsed by ./report.ts (`OUTPUT_OPTIONS`, `outputArgs`); the file gets what `--format json`
 *   prints, the report or, when the command could not run, the frame's `{ "stack", "error" }`.
 * - A deprecated flag (`unmanaged --json`) still works for a release: it stands for its replacement
 *   (`--format json`) and says so on stderr.
 *
 * Exit codes, the same for every command ({@link EXIT}; each command's usage ends with them, saying what its 1 means):
 *
 * | code | means |
 * |---|---|
 * | 0 | clean or done (and `--help`) |
 * | 1 | found something: drift, a violation, unmanaged objects, a gain matching `--fail-on`, a pending operation `recover` cannot settle |
 * | 2 | could not run: bad arguments (the reason, then the usage, on stderr), a failure (the reason on stderr, and in the `json`, `markdown` or `sarif` output; ./failure.ts), or past `--timeout` |
 *
 * Why a module of its own rather than report.ts: `recover` and `unmanaged` (which had their own frame in stack.ts,
 * without `PULUMI_STACK` or `--format`) and `export` (its own `parseArgs`) use it as well as the report commands, and
 * report.ts keeps what only reports share (Markdown tables, the review options).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { EXIT, TIMEOUT_OPTION, TIMEOUT_USAGE, parseTimeout, reportCouldNotRun, withTimeout, type Timeout } from "./failure";
import type { ReportFormat } from "./format";
import type { StackRef } from "./stack";

/** A command's own options besides the frame's, in `node:util` `parseArgs` form. */
export type FrameOptions = Record<string, { type: "string"; multiple?: boolean } | { type: "boolean"; default?: boolean }>;

/** A flag kept for a release after its replacement came: it stands for `instead` and prints a warning on stderr. */
export interface DeprecatedFlag {
  /** What it stands for, as arguments (`["--format", "json"]`). */
  instead: readonly string[];
}

/** What a command tells the frame about itself. */
export interface CommandFrame {
  /** The command's name (`drift`), as in `platform-pulumi <name>`. */
  name: string;
  /**
   * The command's usage: its synopsis line, what it does and one line per option it takes, the frame's included
   * (each `--flag` named; the frame refuses to print a usage that leaves one of the command's options out). The
   * frame adds the exit codes ({@link exitCodesUsage}).
   */
  usage: string;
  /** What exit code 1 means for this command; absent when the command never exits 1 (`export`). */
  found?: string;
  /** The command's own options. */
  options?: FrameOptions;
  /** `"read"`: the command reads a stack: `--stack <name>` (or `PULUMI_STACK`) is required, `--cwd <dir>` taken. */
  stack?: "read";
  /** The `--format` values the command prints, the default first; absent: the frame takes no `--format`. */
  formats?: readonly ReportFormat[];
  /** Arguments that are not options are passed to `run` (`access --can <identity> <capability>`); default false. */
  allowPositionals?: boolean;
  /** Deprecated flags by name (without `--`), each boolean. */
  deprecated?: Record<string, DeprecatedFlag>;
  /**
   * Checks the parsed own options before anything runs; what it throws is a usage error (exit 2, the reason and
   * the usage on stderr).
   */
  check?: (values: FrameValues) => void;
}

/** The parsed options, as given (a `multiple` string option is an array; absent when not given and no default). */
export type FrameValues = Record<string, string | boolean | string[] | undefined>;

/** What `run` gets. */
export interface FrameArgs {
  /** The stack and folder, for a command with `stack: "read"`; else undefined. */
  ref: StackRef | undefined;
  /** The `--format` asked for, or the first of `formats`; `table` for a command without `formats`. */
  format: ReportFormat;
  /** Every option, the frame's included. */
  values: FrameValues;
  /** Arguments that are not options, in order (empty unless `allowPositionals`). */
  positionals: string[];
}

/**
 * The exit-code lines every command's `--help` ends with; `found` says what 1 means for the command (a line
 * break in it starts a continuation line, indented under the first); `jsonOut`: the command takes `--json-out`,
 * whose file holds the reason too when it could not run.
 */
export function exitCodesUsage(found?: string, jsonOut = false): string {
  return [
    "exit codes (the same for every platform-pulumi command):",
    "  0  clean or done",
    `  1  ${found === undefined ? "(not used by this command)" : `found something: ${found.replace(/\n/g, "\n     ")}`}`,
    "  2  could not run: bad arguments (the reason, then this usage, on stderr), a failure (the reason on stderr,",
    `     and in json/markdown/sarif output${jsonOut ? " and the --json-out file" : ""}), or past --timeout`,
  ].join("\n");
}

/** Whether the command takes `--json-out` (./report.ts `OUTPUT_OPTIONS`): its usage's exit codes say the file holds the reason. */
function takesJsonOut(frame: CommandFrame): boolean {
  return Object.hasOwn(frame.options ?? {}, "json-out");
}

/** The frame's own options, in `parseArgs` form, for a command. */
function frameOptions(frame: CommandFrame): FrameOptions {
  return {
    ...(frame.stack === "read" ? { stack: { type: "string" }, cwd: { type: "string" } } : {}),
    ...(frame.formats ? { format: { type: "string" } } : {}),
    help: { type: "boolean" },
    ...TIMEOUT_OPTION,
    ...Object.fromEntries(Object.keys(frame.deprecated ?? {}).map((k) => [k, { type: "boolean" } as const])),
    ...frame.options,
  };
}

/**
 * The command's `--help` text: its usage, then {@link exitCodesUsage}.
 * @throws Error naming each option the command takes that its usage does not mention (a bug of the command: its
 *   `--help` must name every option).
 */
export function helpText(frame: CommandFrame): string {
  const missing = Object.keys(frameOptions(frame)).filter((o) => o !== "help" && !Object.hasOwn(frame.deprecated ?? {}, o) && !new RegExp(`--${o}(?![a-z-])`).test(frame.usage));
  if (missing.length) throw new Error(`${frame.name}'s usage does not name its option(s) ${missing.map((o) => `--${o}`).join(", ")}`);
  return `${aligned(`${frame.usage}\n  -h, --help        print this usage on stdout and exit 0`)}\n${exitCodesUsage(frame.found, takesJsonOut(frame))}`;
}

/**
 * `usage` with every option's description (and its continuation lines) starting in one column, the one its first
 * option line uses: the shared lines (`--timeout`, `-h, --help`) are written once for every command, whose own
 * option names differ in width.
 */
function aligned(usage: string): string {
  const option = /^( {2}-\S.*?) {2,}(\S.*)$/;
  const lines = usage.split("\n");
  const first = lines.map((l) => option.exec(l)).find((m) => m !== null);
  if (!first) return usage;
  const col = first[0].length - first[2]!.length;
  let inOption = false;
  return lines
    .map((l) => {
      const m = option.exec(l);
      if (m && m[1]!.length + 2 <= col) {
        inOption = true;
        return m[1]!.padEnd(col) + m[2];
      }
      // A continuation: the line after an option's, indented past the option names.
      if (inOption && /^ {8,}\S/.test(l)) return " ".repeat(col) + l.trimStart();
      inOption = false;
      return l;
    })
    .join("\n");
}

/**
 * Runs a command through the frame: parses `argv` (the arguments after the command's name) as the module comment
 * says, then `run`.
 * - `--help`/`-h`: {@link helpText} on stdout; returns 0.
 * - A usage error (an unknown option, named by `parseArgs`; a missing `--stack`; a `--format` not in `formats`; a
 *   bad `--timeout`; what `check` throws): `platform-pulumi <name>: <reason>` and the usage on stderr; returns 2.
 * - A deprecated flag: `--<flag> is deprecated; use <instead>` on stderr, then as its replacement (a replacement
 *   that disagrees with the flags given is a usage error).
 * - When `run` throws a {@link UsageError}: as a usage error above.
 * - When `run` throws otherwise or the deadline passes: {@link reportCouldNotRun} (stderr, and the json, markdown or sarif
 *   on stdout); returns 2.
 * @returns the exit code: `run`'s, or 0 or 2 as above.
 */
export async function runCommand(frame: CommandFrame, argv: readonly string[], run: (args: FrameArgs) => Promise<number>): Promise<number> {
  const usageError = (message: string): number => {
    process.stderr.write(`platform-pulumi ${frame.name}: ${message}\n${aligned(frame.usage)}\n${exitCodesUsage(frame.found, takesJsonOut(frame))}\n`);
    return EXIT.couldNotRun;
  };
  let values: FrameValues;
  let positionals: string[];
  let timeout: Timeout;
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { ...frameOptions(frame), help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: frame.allowPositionals ?? false,
    }));
    if (values["help"]) {
      process.stdout.write(`${helpText(frame)}\n`);
      return EXIT.clean;
    }
    timeout = parseTimeout(values["timeout"] as string | undefined);
    for (const [flag, d] of Object.entries(frame.deprecated ?? {})) {
      if (values[flag] !== true) continue;
      process.stderr.write(`platform-pulumi ${frame.name}: --${flag} is deprecated; use ${d.instead.join(" ")}\n`);
      const [opt, value] = d.instead;
      const key = opt!.replace(/^--/, "");
      if (values[key] !== undefined && values[key] !== (value ?? true)) throw new Error(`--${flag} and --${key} ${JSON.stringify(values[key])} disagree: give one`);
      values[key] = value ?? true;
    }
    frame.check?.(values);
  } catch (err) {
    return usageError((err as Error).message);
  }
  let ref: StackRef | undefined;
  if (frame.stack === "read") {
    const flag = values["stack"];
    const stack = typeof flag === "string" && flag !== "" ? flag : process.env["PULUMI_STACK"];
    if (!stack) return usageError("--stack is required (or set PULUMI_STACK)");
    ref = { stack, cwd: typeof values["cwd"] === "string" ? values["cwd"] : process.cwd() };
  }
  // A command without `formats` may have a `--format` of its own (export's ts|yaml): not the frame's.
  const format = frame.formats ? ((values["format"] ?? frame.formats[0]) as string) : "table";
  if (frame.formats && !(frame.formats as readonly string[]).includes(format)) return usageError(`--format: "${format}" is not one of ${frame.formats.join(", ")}`);
  try {
    return await withTimeout(frame.name, timeout, () => run({ ref, format: format as ReportFormat, values, positionals }));
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message);
    // `--json-out` (drift, gate, access, unmanaged: ./report.ts OUTPUT_OPTIONS) gets the envelope `--format json`
    // prints, with the error, on failure too.
    const jsonOut = values["json-out"];
    if (typeof jsonOut === "string") {
      try {
        reportCouldNotRun(frame.name, "json", ref?.stack, err, { stdout: (t) => writeFileSync(jsonOut, t), stderr: () => undefined });
      } catch {
        // the file cannot be written: stderr below still says why the command could not run
      }
    }
    return reportCouldNotRun(frame.name, format as ReportFormat, ref?.stack, err);
  }
}

/**
 * Runs a command that reads a stack: {@link runCommand} with `stack: "read"`, `run` given the stack's
 * {@link StackRef} (from `--stack`, else `PULUMI_STACK`, and `--cwd`).
 * @returns the exit code, as {@link runCommand}.
 */
export function runStackFrame(frame: Omit<CommandFrame, "stack">, argv: readonly string[], run: (args: FrameArgs & { ref: StackRef }) => Promise<number>): Promise<number> {
  return runCommand({ ...frame, stack: "read" }, argv, (args) => run(args as FrameArgs & { ref: StackRef }));
}

/** A bad argument found while running (a value only the command can judge): exit 2 with the reason and the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export { TIMEOUT_USAGE };
