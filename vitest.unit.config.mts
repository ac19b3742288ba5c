import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The edit loop (npm run test:unit): the files named *.unit.test.ts, which need neither the Pulumi CLI nor a
// build in dist/ (docs/testing.md, "Tiers"). `npm test` still runs everything. The guard (test/harness/unit-guard.ts
// and the plugin below) makes a unit test that loads dist/ or starts the CLI fail, saying so, even when both exist.
const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), "dist") + path.sep;

export default defineConfig({
  plugins: [
    {
      name: "unit-tier-guard",
      enforce: "pre",
      load(id: string) {
        if (path.resolve(id.split("?")[0]).startsWith(DIST)) {
          throw new Error(
            `unit tier: this test reached ${id} (a module of the build), which needs the build (dist/) or the Pulumi CLI; ` +
              `a *.unit.test.ts file must need neither: name it *.test.ts (run by npm test) or stop using it (docs/testing.md, "Tiers")`,
          );
        }
        return null;
      },
    },
  ],
  test: {
    include: ["test/**/*.unit.test.ts"],
    setupFiles: ["./test/harness/unit-guard.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
