/**
 * What the report commands (`drift`, `gate`, `access`) share besides the argument frame every command uses
 * (./frame.ts: `--stack`/`PULUMI_STACK`, `--cwd`, `--format`, `--timeout`, `--help` and the exit codes): a Markdown
 * table, and the review options of `gate` and `access`.
 */
import { parseSeverities, type Severity } from "../access/severity";
import { mdText } from "../text";
import type { FrameOptions } from "./frame";

export { EXIT, TIMEOUT_USAGE, reportCouldNotRun } from "./failure";

export { FORMATS, type ReportFormat } from "./format";

/** A command's own options besides the frame's, in `node:util` `parseArgs` form (./frame.ts). */
export type ReportOptions = FrameOptions;

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
