/**
 * `platform-pulumi gate --verify <gate JSON> --stack <name>`: after `pulumi up` in the deploy job, checks that the
 * access the stack now gives is access the review showed (docs/policy.md "After the merge: verify what was
 * applied").
 *
 * The gate's JSON report (`gate --json-out`) records the baseline it judged against (the stack's objects before the
 * change) and the access the change gives. Here the stack's state after the update is read (`pulumi stack
 * export`), its effective access (provider/access/model.ts, escalations included) compared with the baseline's,
 * and every capability an identity gained at a scope that the report does not list as gained (nor as silenced by
 * an exclusion) is reported: a change the program made only outside the preview (`pulumi.runtime.isDryRun()`), or
 * a resource whose effect the preview could not show.
 *
 * Exit codes: 0 when every gain was shown; 1 when one was not; 2 when the report or the state cannot be read.
 */
import { readFileSync } from "node:fs";
import { classTable, diffGrants, reportGrants, textTable, markdown, type ReportChange, type ReportGrant } from "../access/report";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, effectiveAccess } from "../access/model";
import type { StackObject } from "../access/stack";
import type { SilencedFinding } from "../access/exclusions";
import { jsonText } from "../text";
import { loadAccess } from "./access";
import { StackCommandError, type StackRef } from "./stack";
import type { ReportFormat } from "./report";

/** What {@link verifyApplied} found. */
export interface VerifyReport {
  stack: string;
  /** True when every gain since the baseline was shown by the report (exit 0). */
  passed: boolean;
  /** The report verified against (its path). */
  approved: string;
  /** Whether that report had passed the gate. */
  approvedPassed: boolean;
  /** Gains since the baseline that the report did not show. */
  unshown: ReportChange[];
  /** How many gains since the baseline the report did show. */
  shown: number;
}

/** The fields of the gate's JSON report (`GateReport`, ./gate.ts) that `--verify` reads. */
export interface ApprovedReport {
  stack?: string;
  passed?: boolean;
  access?: { changes: ReportChange[] } | null;
  silenced?: SilencedFinding[];
  baseline?: { objects: StackObject[] };
}

const key = (g: Pick<ReportGrant, "identity" | "group" | "capability">) => `${g.identity.path}\u0000${g.group}\u0000${g.capability}`;

/**
 * Reads the gate report `file` and the stack's state, and lists the gains the report did not show.
 * @throws StackCommandError when the file is not a gate report with a baseline (written by this version's
 *   `gate --json-out`), or the state or a role cannot be read.
 */
export async function verifyApplied(ref: StackRef, file: string): Promise<VerifyReport> {
  let approved: ApprovedReport;
  try {
    approved = JSON.parse(readFileSync(file, "utf8")) as ApprovedReport;
  } catch (err) {
    throw new StackCommandError(`--verify ${file}: not a readable JSON file (${(err as Error).message})`);
  }
  const baseline = approved.baseline?.objects;
  if (!Array.isArray(baseline)) throw new StackCommandError(`--verify ${file}: not a gate report with a baseline ("baseline.objects"); write it with \`platform-pulumi gate --json-out <file>\` on the pull request`);
  if (approved.stack !== undefined && approved.stack !== ref.stack) throw new StackCommandError(`--verify ${file}: the report is of stack ${JSON.stringify(approved.stack)}, not ${JSON.stringify(ref.stack)}`);
  const loaded = await loadAccess(ref, true, undefined, baseline as StackObject[]);
  const grantsOf = (objs: readonly StackObject[]) => {
    const so = loaded.orgOf(objs);
    return reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM }));
  };
  const gained = diffGrants(grantsOf(baseline as StackObject[]), grantsOf(loaded.before)).filter((c) => c.change === "gained");
  const shown = new Set((approved.access?.changes ?? []).filter((c) => c.change === "gained").map(key));
  for (const s of (approved.silenced ?? []) as SilencedFinding[]) shown.add(key(s));
  const unshown = gained.filter((g) => !shown.has(key(g)));
  return { stack: ref.stack, passed: unshown.length === 0, approved: file, approvedPassed: approved.passed === true, unshown, shown: gained.length - unshown.length };
}

/** The verification as text: `json` ({@link VerifyReport}), `markdown` or `table`. */
export function formatVerify(r: VerifyReport, format: ReportFormat): string {
  if (format === "json" || format === "sarif") {
    // A class's members once (../access/report.ts `classTable`).
    const { rows, classes } = classTable(r.unshown);
    return `${jsonText({ ...r, unshown: rows, ...(classes.length ? { classes } : {}) })}\n`;
  }
  const verdict = r.passed
    ? `gate --verify: passed (${r.shown} gain(s) since the reviewed baseline, each shown by the review${r.approvedPassed ? "" : "; note: the reviewed report had not passed the gate"})`
    : `gate --verify: FAILED: ${r.unshown.length} capability gain(s) applied that the review did not show (the program declared them outside the preview, or a resource acted where the preview could not see)`;
  if (format === "markdown") return `${r.passed ? "" : `${markdown(r.stack, r.unshown, false, { title: "#### Access applied that the review did not show" }).trimEnd()}\n\n`}**${verdict}**\n`;
  return `${r.passed ? "" : `${textTable(r.unshown, false).trimEnd()}\n\n`}${verdict}\n`;
}
