import { defineConfig } from "vitest/config";

// Engine tests drive the real Pulumi CLI (tens of seconds per file); everything else is fast.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
