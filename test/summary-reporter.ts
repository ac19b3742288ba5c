/**
 * A vitest reporter that ends the run with one plain line, `N passed, N failed` (`, N skipped` when any), which
 * CI reads to know how many tests ran. The default reporter still prints everything else.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      // A file that failed to load (or whose hooks failed) counts as a failure even with no test results.
      if (mod.state() === "failed" && [...mod.children.allTests()].every((t) => t.result().state !== "failed")) failed += 1;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  }
}
