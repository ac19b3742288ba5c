import { defineConfig } from "vitest/config";

// The consumer tier (npm run test:consumer): the packed package installed into new Pulumi projects on two
// toolchains, one after the other (each step drives npm, tsc or the real Pulumi CLI).
export default defineConfig({
  test: {
    include: ["test/consumer/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
