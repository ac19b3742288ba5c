/**
 * What every command does when it could not run (README, "Exit codes"): the reason on stderr and, in `json` and
 * `markdown`, in what it prints on stdout too (a pull-request comment or a CI artifact made from stdout then
 * explains itself); exit code 2. And the deadline every report command takes, `--timeout <duration>`.
 *
 * The reason is the error's first line, then what is known of why: the preview's own error lines (the engine's
 * diagnostics, ./events.ts), the org file's `file:line:col` problems, the API's status and message; and a hint
 * when the cause is known (a token the API refused, a capability it lacks). All of it is inert text
 * (provider/text.ts): it quotes the server and the user's program.
 *
 * Exit codes, the same for every command: {@link EXIT}.
 */
import ms from "ms";
import { inertLines, jsonText, mdCode, mdText } from "../text";
import type { ReportFormat } from "./format";
import { couldNotRunSarif } from "./sarifLog";

/** The exit codes every command uses: 0 clean (or done), 1 found something (drift, violations, unmanaged objects, gains matching `--fail-on`), 2 could not run. */
export const EXIT = { clean: 0, found: 1, couldNotRun: 2 } as const;

/** The `--timeout` of the report commands when none is given. */
export const DEFAULT_TIMEOUT = "30m";

/** The `--timeout` option, in `node:util` `parseArgs` form, for a command that parses its own arguments. */
export const TIMEOUT_OPTION = { timeout: { type: "string" } } as const;

/** One line for a command's usage text. */
export const TIMEOUT_USAGE = `  --timeout <d>     stop and exit 2 when the command has not finished after this long: a number with a unit
                    (ms, s, m, h), such as 90s, 10m or 1h (default ${DEFAULT_TIMEOUT})`;

/** A bad `--timeout` value (a usage error: exit 2 with the usage). */
export class TimeoutOptionError extends Error {
  constructor(value: string) {
    super(`--timeout ${JSON.stringify(value)} is not allowed: a duration with a unit (ms, s, m or h), such as 90s, 10m or 1h, at least 1s (default ${DEFAULT_TIMEOUT})`);
    this.name = "TimeoutOptionError";
  }
}

/** A command's deadline: its length in milliseconds and how the user wrote it (for messages). */
export interface Timeout {
  ms: number;
  text: string;
}

/**
 * The deadline `--timeout <value>` asks for ({@link DEFAULT_TIMEOUT} when absent). A value is a number with a
 * unit as the `ms` library reads it (`90s`, `10m`, `1.5h`, `500ms`); a bare number is refused (seconds or
 * milliseconds would be a guess), as is anything under a second or not finite.
 * @throws TimeoutOptionError naming the value and what is allowed.
 */
export function parseTimeout(value: string | undefined): Timeout {
  const text = value ?? DEFAULT_TIMEOUT;
  const t = text.trim();
  let n: number | undefined;
  try {
    n = /^\d+(\.\d+)?$/.test(t) ? undefined : (ms(t as ms.StringValue) as number | undefined);
  } catch {
    n = undefined;
  }
  if (n === undefined || !Number.isFinite(n) || n < 1000 || n > 2 ** 31 - 1) throw new TimeoutOptionError(text);
  return { ms: n, text: t };
}

/** A command that did not finish within its `--timeout`. */
export class CommandTimeoutError extends Error {
  constructor(
    name: string,
    readonly timeout: Timeout,
  ) {
    super(`${name} did not finish within --timeout ${timeout.text}; stopped it (and the pulumi commands it ran). Raise --timeout, or find what it waited for: the API at PLATFORM_API_URL, or the stack's backend`);
    this.name = "CommandTimeoutError";
  }
}

/** What is stopped when a command's deadline passes: the processes it started (./stack.ts registers each). */
const onTimeout = new Set<() => void>();

/**
 * Registers `stop` to run when a command's deadline passes (a child process's kill); returns the function that
 * unregisters it (call it when the work ended).
 */
export function stopOnTimeout(stop: () => void): () => void {
  onTimeout.add(stop);
  return () => onTimeout.delete(stop);
}

/** Set by {@link holdDeadline}: the running command's deadline no longer stops it. */
let held = false;

/**
 * From now on the running command's `--timeout` no longer stops it: for a command that has started writing
 * (`recover --yes` between its first API write and `pulumi stack import`), where stopping halfway would leave the
 * API and the state apart. The deadline covers everything before.
 */
export function holdDeadline(): void {
  held = true;
}

/**
 * `run()`, or a {@link CommandTimeoutError} once `timeout` passed first (unless {@link holdDeadline} was called);
 * then every process the command started and has not seen end is stopped (SIGINT, as Ctrl-C: `pulumi` cancels;
 * SIGKILL 5 s later if still there).
 * @throws what `run` throws, or CommandTimeoutError.
 */
export async function withTimeout<T>(name: string, timeout: Timeout, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  held = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      if (held) return;
      for (const stop of [...onTimeout]) stop();
      reject(new CommandTimeoutError(name, timeout));
    }, timeout.ms);
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why a command could not run, as every format shows it. */
export interface CouldNotRun {
  /** The error, one line. */
  message: string;
  /** What is known of why: the preview's error lines, the org file's `file:line:col` problems, further lines of the error. */
  reasons: string[];
  /** What to do, when the cause is known (a token the API refused, a capability it lacks). */
  hints: string[];
}

/** The credentials hint, for an API answer of code 16 (UNAUTHENTICATED). */
export const UNAUTHENTICATED_HINT =
  "The Platform API did not accept the credentials (code 16, UNAUTHENTICATED): the token in the stack's platform:token or PLATFORM_TOKEN is wrong, expired or revoked; " +
  "with workload identity, check the OIDC token in PLATFORM_IDENTITY_TOKEN / PLATFORM_IDENTITY_TOKEN_FILE: it must be a current token from a trusted issuer.";

/** The hint for an API answer of code 7 (PERMISSION_DENIED). */
export const PERMISSION_DENIED_HINT =
  "The credentials are valid but lack a capability the command needs (code 7, PERMISSION_DENIED): the message above names the request; bind the token's identity a role that holds it, or use another token.";

/**
 * The hints for what `text` (an error's lines) says: an API answer of code 16 or 7, as the API client words it
 * (`(code 16, HTTP 401)`). The token exchange's errors carry their own hint (credentials.ts) and get none here.
 */
export function hintsFor(text: string): string[] {
  const out: string[] = [];
  if (/\(code 16, HTTP \d+\)/.test(text)) out.push(UNAUTHENTICATED_HINT);
  if (/\(code 7, HTTP \d+\)/.test(text)) out.push(PERMISSION_DENIED_HINT);
  return out;
}

/**
 * The reason `err` gives, inert: its first line as the message; as reasons, its further lines (an OrgFileError's
 * `file:line:col` problems, a lock's holders, a hint), then its own `reasons` (a StackCommandError's preview
 * errors), blank lines left out; the hints {@link hintsFor} finds in all of it.
 */
export function couldNotRunOf(err: unknown): CouldNotRun {
  const text = err instanceof Error ? err.message : String(err);
  const lines = inertLines(text)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const own = (err as { reasons?: unknown }).reasons;
  // The message's further lines (a lock's holders, a hint) and then the error's own reasons (a preview's errors).
  const ownLines = Array.isArray(own) ? own.flatMap((r) => inertLines(String(r)).split("\n")).map((l) => l.trimEnd()).filter((l) => l.trim() !== "") : [];
  const reasons = [...lines.slice(1), ...ownLines];
  const message = lines[0] ?? "failed";
  return { message, reasons, hints: hintsFor([text, ...reasons].join("\n")).filter((h) => !text.includes(h)) };
}

/** Where {@link reportCouldNotRun} writes; default the process's stdout and stderr. */
export interface Streams {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const processStreams: Streams = { stdout: (s) => void process.stdout.write(s), stderr: (s) => void process.stderr.write(s) };

/**
 * Tells why command `name` could not run, and returns 2, its exit code. Always on stderr:
 * `platform-pulumi <name>: <message>`, then each reason and hint indented by two spaces. On stdout, for `json`,
 * one object `{ "stack", "error": { "message", "reasons", "hints" } }` (the report's place taken by `error`);
 * for `markdown`, a heading saying the command could not run, the message, the reasons as a list and the hints;
 * nothing for `table`. Every piece is inert (provider/text.ts).
 * @example `return reportCouldNotRun("gate", format, ref.stack, err);` in a catch of a report command
 */
export function reportCouldNotRun(name: string, format: ReportFormat, stack: string | undefined, err: unknown, io: Streams = processStreams): 2 {
  const why = couldNotRunOf(err);
  io.stderr(`platform-pulumi ${name}: ${why.message}\n${[...why.reasons, ...why.hints].map((l) => `  ${l.trimStart()}\n`).join("")}`);
  if (format === "json") io.stdout(`${jsonText({ ...(stack !== undefined ? { stack } : {}), error: why })}\n`);
  if (format === "markdown") {
    const parts = [`### platform-pulumi ${name}${stack !== undefined ? ` on stack ${mdCode(stack)}` : ""}: could not run`, "", mdText(why.message), ""];
    if (why.reasons.length) parts.push(...why.reasons.map((r) => `- ${mdText(r.trim())}`), "");
    if (why.hints.length) parts.push(...why.hints.map((h) => `**What to do**: ${mdText(h)}`), "");
    parts.push("Exit code 2: the check could not run, so this is no verdict on the change.", "");
    io.stdout(parts.join("\n"));
  }
  if (format === "sarif") io.stdout(`${jsonText(couldNotRunSarif(name, stack, [why.message, ...why.reasons.map((r) => r.trim()), ...why.hints]))}\n`);
  return EXIT.couldNotRun;
}
