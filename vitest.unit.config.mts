import { configDefaults, defineConfig } from "vitest/config";

// The edit loop (npm run test:unit): every test that needs neither the Pulumi CLI nor a build in dist/. `npm test`
// still runs everything. A test file that starts the CLI (PulumiCli, runEngine, ensure-pulumi) or runs compiled
// JavaScript from dist/ belongs in the list below.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      "test/consumer/**",
      "test/engine*.test.ts",
      "test/commands.test.ts",
      "test/consumer-types.test.ts",
      "test/docs-cli.test.ts",
      "test/ensure-pulumi.test.ts",
      "test/export.test.ts",
      "test/export-split.test.ts",
      "test/export-split-yaml.test.ts",
      "test/processes.test.ts",
      "test/workflows.test.ts",
      "test/soak.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
