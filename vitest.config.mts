import { configDefaults, defineConfig } from "vitest/config";

// Engine tests drive the real Pulumi CLI (tens of seconds per file); everything else is fast.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The consumer tier has its own config and script (npm run test:consumer; .ci/run runs both).
    exclude: [...configDefaults.exclude, "test/consumer/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
