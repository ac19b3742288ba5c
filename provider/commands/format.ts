/** The output formats of the report commands (`drift`, `gate`, `access`; README "Command-line jobs"). */

/**
 * How a report command prints: `table` for a terminal, `json` (one object, shape in the README), `markdown` for a
 * pull request or a CI step summary, `sarif` (a SARIF 2.1.0 log for code scanning, ./sarif.ts).
 */
export type ReportFormat = "table" | "json" | "markdown" | "sarif";

/** The formats {@link ReportFormat} allows, in the order the usage lists them. */
export const FORMATS: readonly ReportFormat[] = ["table", "json", "markdown", "sarif"];
