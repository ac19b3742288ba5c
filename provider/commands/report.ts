/**
 * What the report commands (`drift`, `gate`, `access`, `unmanaged`) share besides the argument frame every command
 * uses (./frame.ts: `--stack`/`PULUMI_STACK`, `--cwd`, `--format`, `--timeout`, `--help` and the exit codes): the
 * output options `--json-out <file>` and `--max-chars <n>` ({@link OUTPUT_OPTIONS}, parsed here only:
 * {@link outputArgs}), a Markdown table and one kept within `--max-chars` ({@link BoundedMarkdown}), and the review
 * options of `gate` and `access`.
 */
import { parseSeverities, type Severity } from "../access/severity";
import { mdCode, mdText } from "../text";
import type { FrameOptions } from "./frame";
import type { ReportFormat } from "./format";

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

/**
 * The output options of every report command (`drift`, `gate`, `access`, `unmanaged`), as {@link ReportOptions}:
 * `--json-out <file>` writes the envelope `--format json` prints (the report, or `{ "stack", "error" }` when the
 * command could not run: ./frame.ts writes that one), `--max-chars <n>` bounds the Markdown.
 */
export const OUTPUT_OPTIONS = { "json-out": { type: "string" }, "max-chars": { type: "string" } } as const;

/** The default `--max-chars`: the Markdown budget in characters (a GitHub comment holds 65,536). */
export const DEFAULT_MAX_CHARS = 60_000;

/**
 * The usage lines of {@link OUTPUT_OPTIONS}, worded once for every report command (its `aligned` usage puts the
 * descriptions in the command's column, ./frame.ts). `gate` and `access` spell the same two lines in their usage;
 * test/report-frame.unit.test.ts holds the four `--help`s to one wording.
 */
export const OUTPUT_USAGE = `  --json-out <file>       also write the full JSON report to <file> (a CI artifact)
  --max-chars <n>         the most characters of Markdown (default ${DEFAULT_MAX_CHARS}; a GitHub comment holds 65536)`;

/** The parsed {@link OUTPUT_OPTIONS}: each absent when not given. */
export interface OutputArgs {
  /** `--max-chars`: a whole number of at least 1000. */
  maxChars?: number | undefined;
  /** `--json-out`: the file the JSON report is also written to. */
  jsonFile?: string | undefined;
}

/**
 * Parses `--max-chars <n>` (a whole number ≥ 1000) and `--json-out <file>` (a path, not empty): the one parser of
 * both, for every report command.
 * @throws Error naming the flag, its value and what is allowed.
 */
export function outputArgs(values: Record<string, string | boolean | string[] | undefined>): OutputArgs {
  const out: OutputArgs = {};
  const mc = values["max-chars"];
  if (typeof mc === "string") {
    out.maxChars = Number(mc);
    if (mc.trim() === "" || !Number.isInteger(out.maxChars) || out.maxChars < 1000) throw new Error(`--max-chars: "${mc}" is not a whole number of at least 1000`);
  }
  const jo = values["json-out"];
  if (typeof jo === "string") {
    if (jo === "") throw new Error(`--json-out: "" is not a file name`);
    out.jsonFile = jo;
  }
  return out;
}

/** How each `--format` value is described in a usage, in {@link FORMATS}' order. */
const FORMAT_WORDS: Record<ReportFormat, string> = {
  table: "table (default)",
  json: "json (one object; shape in the README)",
  markdown: "markdown (for a PR or a CI summary)",
  sarif: "sarif (SARIF 2.1.0, for GitHub code scanning)",
};

/**
 * The `--format <f>` usage line of a report command that prints `formats` (the default first): one wording for
 * `drift`, `gate`, `access` and `unmanaged` (`gate` and `access` spell it out in their usage;
 * test/report-frame.unit.test.ts holds the four `--help`s to it).
 */
export function formatUsage(formats: readonly ReportFormat[]): string {
  const words = formats.map((f) => FORMAT_WORDS[f]);
  const last = words.pop()!;
  const text = `${words.join(", ")} or ${last}`;
  // Two lines when it is long: the break before the last format, as gate's and access's usage have it.
  return text.length > 95 ? `  --format <f>            ${words.join(", ")}\n                          or ${last}` : `  --format <f>            ${text}`;
}

/** The options `gate` and `access` share for judging and printing a review: `--fail-severity` and {@link OUTPUT_OPTIONS}. */
export const REVIEW_OPTIONS = { "fail-severity": { type: "string" }, ...OUTPUT_OPTIONS } as const;

/** The parsed {@link REVIEW_OPTIONS}: each absent when not given. */
export interface ReviewArgs extends OutputArgs {
  failSeverities?: Severity[] | undefined;
}

/**
 * Parses `--fail-severity <list|none>` and the output options ({@link outputArgs}).
 * @throws Error naming the flag, its value and what is allowed.
 */
export function reviewArgs(values: Record<string, string | boolean | string[] | undefined>): ReviewArgs {
  const out: ReviewArgs = outputArgs(values);
  const fs = values["fail-severity"];
  if (typeof fs === "string") out.failSeverities = fs.trim().toLowerCase() === "none" ? [] : parseSeverities(fs);
  return out;
}

/**
 * A Markdown report kept within a budget of characters (`--max-chars`): text (headings, sentences) is always
 * written; table rows are written while they fit, and every row past the budget, in this table and the ones
 * after it, is left out and counted in the closing line {@link BoundedMarkdown.text} adds, which names the full
 * JSON report. Room for that line is kept, so the whole stays within the budget whenever its text does.
 * @example
 * const md = new BoundedMarkdown(maxChars);
 * md.lines("### Drift", "");
 * md.table(["type", "name"], rows);
 * return md.text(jsonFile);
 */
export class BoundedMarkdown {
  private readonly out: string[] = [];
  private size = 0;
  private omitted = 0;

  /** @param budget the most characters (default {@link DEFAULT_MAX_CHARS}). */
  constructor(readonly budget: number = DEFAULT_MAX_CHARS) {}

  /** Room kept for the closing line. */
  private static readonly RESERVE = 400;

  /** Adds lines of text as they are (the caller made them inert). */
  lines(...lines: string[]): void {
    for (const l of lines) {
      this.out.push(l);
      this.size += l.length + 1;
    }
  }

  /**
   * Adds a table ({@link mdTable}'s form) with the rows that fit, then a blank line; `none` (then a blank line)
   * when `rows` is empty; when rows were left out, a line saying how many of the table's (no table when none fit).
   */
  table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, none = "None."): void {
    if (rows.length === 0) return this.lines(none, "");
    const [head, rule] = mdTable(header, []).split("\n") as [string, string];
    const body: string[] = [];
    let size = this.size + head.length + rule.length + 2;
    for (const r of rows) {
      const line = mdTable(header, [r]).split("\n")[2]!;
      // Once one row is left out, so is every row after it: what is shown is a prefix of each table.
      if (this.omitted > 0 || size + line.length + 1 + BoundedMarkdown.RESERVE > this.budget) this.omitted++;
      else {
        body.push(line);
        size += line.length + 1;
      }
    }
    if (body.length) this.lines(head, rule, ...body, "");
    if (body.length < rows.length) this.lines(`*${rows.length - body.length} of ${rows.length} row(s) not shown.*`, "");
  }

  /** The rows left out so far. */
  get left(): number {
    return this.omitted;
  }

  /**
   * The Markdown, ending in a newline; when rows were left out, a closing line counting them and naming the full
   * report: `jsonFile` (the `--json-out` file) when given, else the JSON output.
   */
  text(jsonFile?: string): string {
    const out = [...this.out];
    if (this.omitted > 0) out.push(`*${this.omitted} more row(s) not shown to keep this comment within ${this.budget} characters; the full report is ${jsonFile ? `in ${mdCode(jsonFile)}` : "in the JSON output (`--format json`, or `--json-out <file>`)"}.*`, "");
    return `${out.join("\n").replace(/\n+$/, "")}\n`;
  }
}
