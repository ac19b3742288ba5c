/**
 * Every numbered rule and table row of the API description (the seed, "Platform API v2 (beta)", §1–§9), in the
 * project's own words: an id, a one-line summary and, for a rule the emulator and provider client cannot honour
 * or that states no behaviour, the reason it has no test.
 *
 * Traceability: a test whose name is `<id>: <behaviour>` covers that rule (`test/conformance/seed.unit.test.ts` holds
 * them). The summary reporter (`test/summary-reporter.ts`) prints `seed coverage: N/M rules covered; uncovered:
 * …` from the tests that passed, and counts a rule with neither a passing test nor a reason as a failure.
 *
 * The list itself is data, `seed-rules.yaml` beside this file, project-owned on purpose: it must not be read from
 * outside the repository at test time.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { z } from "zod";

/** One rule or table row of the seed. */
export interface SeedRule {
  /** Its place, e.g. `§4 rule 4` or `§2 Group verified`; a covering test's name starts with `<id>:`. */
  id: string;
  /** What the rule says, in one line. */
  summary: string;
  /** Why no test covers it (e.g. "gRPC: out of scope"); absent when a test must cover it. */
  reason?: string | undefined;
}

/** The seed's rules and table rows, in document order (`seed-rules.yaml`, checked against {@link SeedRule}'s shape). */
export const SEED_RULES: readonly SeedRule[] = z
  .array(z.object({ id: z.string().min(1), summary: z.string().min(1), reason: z.string().min(1).optional() }).strict())
  .parse(parse(readFileSync(path.join(__dirname, "seed-rules.yaml"), "utf8")));

/** Whether a test named `name` claims rule `id`: the name is `<id>: …`. */
export function namesRule(name: string, id: string): boolean {
  return name.startsWith(`${id}:`);
}

/**
 * Seed coverage from the names of the tests that passed.
 * @returns covered ids, uncovered rules that have a reason, and uncovered rules without one (a failure).
 */
export function seedCoverage(passedNames: readonly string[], rules: readonly SeedRule[] = SEED_RULES): { covered: SeedRule[]; excused: SeedRule[]; missing: SeedRule[] } {
  const claims = passedNames.filter((n) => n.startsWith("§"));
  const covered: SeedRule[] = [];
  const excused: SeedRule[] = [];
  const missing: SeedRule[] = [];
  for (const r of rules) {
    if (claims.some((n) => namesRule(n, r.id))) covered.push(r);
    else if (r.reason) excused.push(r);
    else missing.push(r);
  }
  return { covered, excused, missing };
}

/**
 * The one-line figure the reporter prints: `seed coverage: N/M rules covered; uncovered: <id> (<reason>), …`.
 * @param allNames every test that ran, to tell a rule whose test failed from one with no test at all.
 */
export function coverageLine(passedNames: readonly string[], rules: readonly SeedRule[] = SEED_RULES, allNames: readonly string[] = passedNames): string {
  const { covered, excused, missing } = seedCoverage(passedNames, rules);
  const why = (r: SeedRule) => (allNames.some((n) => namesRule(n, r.id)) ? "its test did not pass" : "NO TEST AND NO REASON");
  const uncovered = [...missing.map((r) => `${r.id} (${why(r)})`), ...excused.map((r) => `${r.id} (${r.reason})`)];
  return `seed coverage: ${covered.length}/${rules.length} rules covered${uncovered.length ? `; uncovered: ${uncovered.join(", ")}` : ""}`;
}
