/**
 * A vitest reporter that ends the run with one plain line, `N passed, N failed` (`, N skipped` when any), which
 * CI reads to know how many tests ran. The default reporter still prints everything else.
 *
 * When the seed traceability suite (`test/conformance/seed.unit.test.ts`) ran, the line before it is the seed coverage
 * figure, `seed coverage: N/M rules covered; uncovered: <id> (<reason>), …`, computed from the names of the
 * tests that passed (a test named `<id>: …` covers rule `<id>` of `test/conformance/seed-rules.ts`). A rule with
 * no test at all and no reason counts as one failure (and fails the run), so nobody forgets one; a rule whose
 * test failed shows as uncovered and its test is already counted.
 *
 * When any test file of the run started the Pulumi engine, the lines before it are the engine-run budget
 * (test/harness/engine-runs.ts): `engine runs: N (budget B)`, the ten files with the most runs, and one line per
 * file over its budget in test/engine-budget.json (or the total over its own), each of which counts as one failure.
 */
import * as path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { coverageLine, namesRule, seedCoverage } from "./conformance/seed-rules";
import { judgeEngineRuns, readBudget, readEngineRuns } from "./harness/engine-runs";

/** Prints the seed coverage line (when the seed suite ran) and then `N passed, N failed` as the run's last line. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const passedNames: string[] = [];
    const allNames: string[] = [];
    let seedSuiteRan = false;
    for (const mod of testModules) {
      if (/[\\/]conformance[\\/]seed\.unit\.test\.ts$/.test(mod.moduleId)) seedSuiteRan = true;
      // A file that failed to load (or whose hooks failed) counts as a failure even with no test results.
      if (mod.state() === "failed" && [...mod.children.allTests()].every((t) => t.result().state !== "failed")) failed += 1;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        allNames.push(test.name);
        if (state === "passed") {
          passed += 1;
          passedNames.push(test.name);
        } else if (state === "failed") failed += 1;
        else skipped += 1;
      }
    }
    failed += unhandledErrors.length;
    let coverage = "";
    if (seedSuiteRan) {
      coverage = `\n${coverageLine(passedNames, undefined, allNames)}`;
      // A rule whose test failed is already counted; one with no test at all and no reason is a failure of its own.
      const untested = seedCoverage(passedNames).missing.filter((r) => !allNames.some((name) => namesRule(name, r.id)));
      failed += untested.length;
      if (untested.length > 0) process.exitCode = 1;
    }
    let engine = "";
    const runs = readEngineRuns();
    if (runs.size > 0) {
      const ran = testModules.map((m) => path.relative(REPO_ROOT, m.moduleId));
      const verdict = judgeEngineRuns(runs, readBudget(), ran);
      engine = `\n${verdict.lines.join("\n")}`;
      failed += verdict.over.length;
      if (verdict.over.length > 0) process.exitCode = 1;
    }
    process.stdout.write(`${coverage}${engine}\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  }
}
