/**
 * What the report commands (`drift`, `gate`) share: their arguments (`--stack`, `--cwd`, `--format
 * table|json|markdown|sarif` and each command's own), a Markdown table, and the exit-code contract of the README's
 * "Command-line jobs": 0 clean, 1 found something, 2 could not run (the reason on stderr).
 */
import { parseArgs } from "node:util";
import { parseSeverities, type Severity } from "../access/severity";
import type { StackRef } from "./stack";
import { mdText } from "../text";
import { TIMEOUT_OPTION, parseTimeout, reportCouldNotRun, withTimeout, type Timeout } from "./failure";

import { FORMATS, type ReportFormat } from "./format";

export { EXIT, TIMEOUT_USAGE, reportCouldNotRun } from "./failure";

export { FORMATS, type ReportFormat } from "./format";

/** A command's own options besides `--stack`, `--cwd`, `--format`, `--timeout` and `--help`, in `node:util` `parseArgs` form. */
export type ReportOptions = Record<string, { type: "string"; multiple?: boolean } | { type: "boolean"; default?: boolean }>;

/** The parsed arguments of a report command. */
export interface ReportArgs {
  ref: StackRef;
  format: ReportFormat;
  /** The command's own options, as given (an option not given is absent unless it has a default; a `multiple` string option is an array). */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Arguments that are not options, in order; always empty unless the command allows them. */
  positionals: string[];
}

/**
 * Runs a report command: parses `--stack <name>` (required, or `PULUMI_STACK`), `--cwd <dir>` (default the current
 * folder), `--format table|json|markdown|sarif` (default `table`), `--help`,
 * `--timeout <duration>` (./failure.ts: default 30m; past it the command stops, its `pulumi` runs too) and the
 * command's `options`, then `run`.
 * A usage error prints the reason and `usage` to stderr and returns 2; `--help` prints `usage` and returns 0; when
 * `run` throws or the deadline passes, {@link reportCouldNotRun} tells why (stderr, and the JSON or Markdown on
 * stdout) and the exit code is 2 (the check could not run).
 * @param allowPositionals whether arguments that are not options are passed to `run` (`access --can <identity>
 *   <capability>`); default false: one is a usage error.
 * @returns the exit code.
 */
export async function runReportCommand(name: string, argv: readonly string[], usage: string, options: ReportOptions, run: (args: ReportArgs) => Promise<number>, allowPositionals = false): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  let timeout: Timeout;
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { stack: { type: "string" }, cwd: { type: "string" }, format: { type: "string" }, help: { type: "boolean", short: "h" }, ...TIMEOUT_OPTION, ...options },
      strict: true,
      allowPositionals,
    }));
    timeout = parseTimeout(values["timeout"] as string | undefined);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  if (values["help"]) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const stack = typeof values["stack"] === "string" && values["stack"] !== "" ? values["stack"] : process.env["PULUMI_STACK"];
  if (!stack) {
    process.stderr.write(`--stack is required (or PULUMI_STACK)\n${usage}\n`);
    return 2;
  }
  const format = (values["format"] ?? "table") as string;
  if (!(FORMATS as readonly string[]).includes(format)) {
    process.stderr.write(`--format: "${format}" is not one of ${FORMATS.join(", ")}\n${usage}\n`);
    return 2;
  }
  try {
    return await withTimeout(name, timeout, () => run({ ref: { stack, cwd: typeof values["cwd"] === "string" ? values["cwd"] : process.cwd() }, format: format as ReportFormat, values, positionals }));
  } catch (err) {
    return reportCouldNotRun(name, format as ReportFormat, stack, err);
  }
}

/** A cell of a Markdown table: the text as text, one line, no markup ({@link mdText}: `|` and links escaped). */
export function mdCell(s: string): string {
  return mdText(s);
}

/** A Markdown table: header row, the `---` rule, then the rows (each cell through {@link mdCell}). */
export function mdTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.map(mdCell).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

/** A value for a table cell: JSON, `(none)` for undefined. */
export function shown(v: unknown): string {
  return v === undefined ? "(none)" : JSON.stringify(v);
}

/** The options `gate` and `access` share for judging and printing a review, as {@link ReportOptions}. */
export const REVIEW_OPTIONS = { "fail-severity": { type: "string" }, "json-out": { type: "string" }, "max-chars": { type: "string" } } as const;

/** The parsed {@link REVIEW_OPTIONS}: each absent when not given. */
export interface ReviewArgs {
  failSeverities?: Severity[] | undefined;
  maxChars?: number | undefined;
  jsonFile?: string | undefined;
}

/**
 * Parses `--fail-severity <list|none>`, `--max-chars <n>` (a whole number ≥ 1000) and `--json-out <file>`.
 * @throws Error naming the flag, its value and what is allowed.
 */
export function reviewArgs(values: Record<string, string | boolean | string[] | undefined>): ReviewArgs {
  const out: ReviewArgs = {};
  const fs = values["fail-severity"];
  if (typeof fs === "string") out.failSeverities = fs.trim().toLowerCase() === "none" ? [] : parseSeverities(fs);
  const mc = values["max-chars"];
  if (typeof mc === "string") {
    out.maxChars = Number(mc);
    if (!Number.isInteger(out.maxChars) || out.maxChars < 1000) throw new Error(`--max-chars: "${mc}" is not a whole number of at least 1000`);
  }
  if (typeof values["json-out"] === "string") out.jsonFile = values["json-out"];
  return out;
}
