/**
 * What `platform-pulumi access` adds to the review for unused access and exclusions (README "Access review"):
 * `--unused [--days <n>]` (../access/unused.ts) and `--config <file>`, the policy pack config whose exclusions
 * (../access/exclusions.ts) silence findings: `no-new-access`'s on the gained (with `--current`: held) rows,
 * `unused-access`'s on `--unused`.
 */
import type { PlatformClient } from "../client/client";
import { applyExclusions, expiredLines, loadPackConfig, silencedLines, type Exclusion, type ExcludablePolicy, type SilencedFinding } from "../access/exclusions";
import type { ReportChange, ReportGrant } from "../access/report";
import { DEFAULT_UNUSED_DAYS, findUnused, formatUnused, parseDays, readActivity, uidsToRead } from "../access/unused";
import { StackCommandError } from "./stack";

/** The options these features add, in `node:util` `parseArgs` form. */
export const ACCESS_EXTRA_OPTIONS = { unused: { type: "boolean" }, days: { type: "string" }, config: { type: "string" } } as const;

/** Their lines of the usage. */
export const ACCESS_EXTRA_USAGE = `  --unused                identities holding high or critical access not seen (no token exchanged) within
                          --days, or never since their creation; lastSeenTime read from the API (exit 1: some)
  --days <n>              the window of --unused, in days (default: unused-access's days in --config, else 90)
  --config <file>         a policy pack config (JSON): exclusions of no-new-access silence gained (held) rows,
                          those of unused-access silence --unused findings, until they expire`;

/** The parsed options: `unused` only with `--unused`; `exclusions` empty without `--config`. */
export interface AccessExtras {
  unused?: { days: number } | undefined;
  exclusions: Record<ExcludablePolicy, Exclusion[]>;
  /** Whether `--config` was given (the JSON then always has `silenced`). */
  configured: boolean;
}

/**
 * Parses `--unused`, `--days` and `--config`.
 * @throws Error naming the flag (or the exclusion's field), its value and what is allowed.
 */
export function accessExtras(values: Record<string, string | boolean | string[] | undefined>): AccessExtras {
  const file = values["config"];
  const config = typeof file === "string" ? loadPackConfig(file) : undefined;
  if (values["days"] !== undefined && values["unused"] !== true) throw new Error(`--days: "${String(values["days"])}" is the window of --unused; give --unused too`);
  let unused: AccessExtras["unused"];
  if (values["unused"] === true) {
    const days = values["days"] !== undefined ? parseDays(values["days"], "--days") : config?.unusedDays !== undefined ? parseDays(config.unusedDays, `--config ${String(file)}: unused-access.days`) : DEFAULT_UNUSED_DAYS;
    unused = { days };
  }
  return { unused, exclusions: config?.exclusions ?? { "no-new-access": [], "unused-access": [] }, configured: config !== undefined };
}

/**
 * Applies `no-new-access`'s exclusions to the review's rows: lost rows are never silenced (they are not findings).
 * @returns the rows left, the silenced findings (undefined without `--config`), and the lines to print (silenced,
 *   expired exclusions).
 */
export function silenceRows(rows: Array<ReportGrant | ReportChange>, extras: AccessExtras | undefined): { rows: Array<ReportGrant | ReportChange>; silenced: SilencedFinding[] | undefined; notes: string } {
  if (!extras?.configured) return { rows, silenced: undefined, notes: "" };
  const findings = rows.filter((r) => !("change" in r) || r.change === "gained");
  const v = applyExclusions("no-new-access", findings, extras.exclusions["no-new-access"]);
  const gone = new Set<ReportGrant | ReportChange>(findings.filter((f) => !v.kept.includes(f)));
  const lines = [...expiredLines(v.expired), ...(v.silenced.length ? ["silenced by exclusions:", ...silencedLines(v.silenced).map((l) => `  ${l}`)] : [])];
  return { rows: rows.filter((r) => !gone.has(r)), silenced: v.silenced, notes: lines.length ? `\n${lines.join("\n")}\n` : "" };
}

/**
 * `--unused`: reads each identity holding high or critical grants (`grants`, effective access now) from the API
 * and reports those not seen within the window.
 * @returns exit 1 when one is reported; 2 when none is but some could not be read (not judged); else 0.
 * @throws StackCommandError when there are no API settings (lastSeenTime is read from the API only).
 */
export async function unusedReview(stack: string, grants: readonly ReportGrant[], api: PlatformClient | undefined, extras: AccessExtras, format: "table" | "json" | "markdown"): Promise<{ code: number; output: string }> {
  if (!api) {
    throw new StackCommandError(
      "--unused reads each identity's lastSeenTime from the API, and no API settings were found",
      "Set the stack's platform:apiUrl/platform:token config or PLATFORM_API_URL/PLATFORM_TOKEN, as for the provider.",
    );
  }
  const activity = await readActivity(uidsToRead(grants), (uid) => api.identities.get(uid) as Promise<{ lastSeenTime?: string; createTime?: string }>);
  const r = findUnused(stack, grants, activity, { days: extras.unused!.days, exclusions: extras.exclusions["unused-access"] });
  return { code: r.unused.length ? 1 : r.unreadable.length ? 2 : 0, output: formatUnused(r, format) };
}
