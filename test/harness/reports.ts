/**
 * What the report-command tests share to run each scenario once and check every format of it (docs/testing.md,
 * "The engine-run budget"): an engine run is 2–7 s, and a report's table, JSON, Markdown and SARIF are pure
 * functions of the report the command computed. So a test runs the built bin once per scenario, reads the report
 * it wrote (`--json-out`, or `--format json`), and renders the other formats with the command's own exported
 * formatter; the bin's whole path (bin → pulumi → report → print) is still run once per command.
 *
 * - {@link once}: a scenario's run, shared by the tests that read it (the first to ask runs it).
 * - {@link couldNotRunForms}: the forms `reportCouldNotRun` (provider/commands/failure.ts) prints for the `error` a
 *   command wrote in its JSON, rebuilt as the error it came from; its `stderr` must equal what the bin wrote on
 *   stderr, which proves the rebuilt error is the one the bin had (the test checks it).
 */
import { reportCouldNotRun, type CouldNotRun } from "../../provider/commands/failure";
import type { ReportFormat } from "../../provider/commands/format";

/** `run`, run the first time the returned function is called; every call resolves with that one run's result. */
export function once<T>(run: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= run());
}

/** What `reportCouldNotRun` writes for one format: stdout and stderr. */
export interface CouldNotRunForm {
  stdout: string;
  stderr: string;
}

/**
 * The forms command `name` prints on stack `stack` when it could not run, rendered by `reportCouldNotRun` from
 * `error`, the `error` object of the command's `--format json` output (its message, reasons and hints): the error
 * is rebuilt as a message and its reasons (the hints follow from them), as `couldNotRunOf` reads an error.
 */
export function couldNotRunForms(name: string, stack: string | undefined, error: CouldNotRun): Record<ReportFormat, CouldNotRunForm> {
  const render = (format: ReportFormat): CouldNotRunForm => {
    let stdout = "";
    let stderr = "";
    reportCouldNotRun(name, format, stack, Object.assign(new Error(error.message), { reasons: error.reasons }), { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
    return { stdout, stderr };
  };
  return { table: render("table"), json: render("json"), markdown: render("markdown"), sarif: render("sarif") };
}
