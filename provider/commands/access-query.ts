/**
 * The query forms of `platform-pulumi access` (README "Access review"): `--who-can <glob> --at <group>` and
 * `--can <identity> <capability> --at <group>`, on the plan (after the change) or, with `--current`, on the state.
 * The arguments and the run; the logic is provider/access/query.ts, the loading `loadAccess` (./access.ts).
 *
 * Exit codes: `--who-can` 0 when it ran (even when nobody holds it); `--can` 0 yes, 1 no; both 2 when they could
 * not run (bad arguments, an unknown group, identity or capability: the reason on stderr).
 */
import { QueryError, accessQuery, canDo, resolveGroup, formatCan, formatWhoCan, whoCan, type QueryFormat } from "../access/query";
import { CLASS_ROWS_FROM, ESCALATION_KINDS } from "../access/model";
import type { StackOrg } from "../access/stack";
import type { ReportFormat } from "./report";

/** The options of the queries, in `node:util` `parseArgs` form (./report.ts `ReportOptions`). */
export const QUERY_OPTIONS = { "who-can": { type: "string" }, can: { type: "string" }, at: { type: "string" } } as const;

/** A parsed query. */
export type AccessQueryArgs = { kind: "who-can"; glob: string; at: string; format: QueryFormat } | { kind: "can"; identity: string; capability: string; at: string; format: QueryFormat };

/** Options of the review that a query does not take. */
const REVIEW_ONLY = ["fail-on", "fail-severity", "json-out", "max-chars"] as const;

/**
 * The query the arguments ask for: undefined when neither `--who-can` nor `--can` is given (the review runs), else
 * the query, or a usage error naming the flag, its value and what is allowed. `--can` takes its capability as the
 * one argument that is not an option (`--can <identity> <capability>`).
 */
export function queryArgs(values: Record<string, unknown>, positionals: readonly string[], format: ReportFormat): AccessQueryArgs | string | undefined {
  const who = values["who-can"];
  const can = values["can"];
  const at = values["at"];
  if (who === undefined && can === undefined) {
    if (positionals.length) return `unexpected argument "${positionals[0]}": only --can takes a second value (--can <identity> <capability> --at <group>)`;
    if (at !== undefined) return `--at "${String(at)}" needs --who-can <glob> or --can <identity> <capability>`;
    return undefined;
  }
  if (who !== undefined && can !== undefined) return "--who-can and --can: give one of them";
  const flag = who !== undefined ? "--who-can" : "--can";
  const extra = REVIEW_ONLY.find((o) => values[o] !== undefined);
  if (extra) return `--${extra} judges the review; ${flag} answers a question (exit codes: --who-can 0, --can 0 yes or 1 no)`;
  if (format === "sarif") return `--format: "sarif" is for the review; ${flag} prints table, json or markdown`;
  if (typeof at !== "string" || at.trim() === "") return `${flag} needs --at <group>: the group path (/, /engineering/platform) or uid to ask about`;
  if (who !== undefined) {
    if (positionals.length) return `unexpected argument "${positionals[0]}": --who-can takes one glob (groups.*,*.delete), --at the group`;
    return { kind: "who-can", glob: String(who), at, format };
  }
  if (positionals.length !== 1) {
    return positionals.length === 0
      ? `--can "${String(can)}" needs a capability after the identity: --can <identity> <capability> --at <group> (a dotted name such as groups.create)`
      : `--can takes an identity and one capability; got ${positionals.length} capabilities: ${positionals.join(" ")}`;
  }
  return { kind: "can", identity: String(can), capability: positionals[0]!, at, format };
}

/**
 * Runs `query` on the org `so` (the stack now with `current`, else after the change): the exit code and what to
 * print (stdout for 0 and 1, stderr for 2, a {@link QueryError}'s message).
 */
export function runAccessQuery(query: AccessQueryArgs, stack: string, current: boolean, so: StackOrg): { code: number; output: string } {
  try {
    const q = accessQuery(so, ESCALATION_KINDS, CLASS_ROWS_FROM);
    if (query.kind === "who-can") {
      const hits = whoCan(q, query.glob, query.at);
      return { code: 0, output: formatWhoCan(stack, current, query.glob, q.ix.groupPath(resolveGroup(q, query.at)), hits, query.format) };
    }
    const a = canDo(q, query.identity, query.capability, query.at);
    return { code: a.yes ? 0 : 1, output: formatCan(stack, current, a, query.format) };
  } catch (err) {
    if (err instanceof QueryError) return { code: 2, output: `${err.message}\n` };
    throw err;
  }
}
