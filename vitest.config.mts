import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { unitTierError } from "./test/harness/unit-tier";

// One config, three projects (docs/testing.md, "Tiers"), run in this order by `npm test`:
//   unit     *.unit.test.ts: neither the Pulumi CLI nor the build (dist/); `npm run test:fast` runs it alone.
//   engine   every other test/*.test.ts: the real Pulumi CLI and the built bin; each engine run is counted against
//            test/engine-budget.json (test/harness/engine-runs.ts).
//   consumer test/consumer/: the packed package installed into new Pulumi projects on two toolchains.
// The root globalSetup installs the counting CLI for the whole run; the engine and consumer projects' globalSetup
// refuses a build older than its sources (vitest runs it only when that project has files in the run).
const ROOT = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(ROOT, "dist") + path.sep;

export default defineConfig({
  test: {
    globalSetup: ["./test/harness/global-setup.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      {
        plugins: [
          {
            // A unit file must not need the build: an ES import of dist/ fails here, saying so (the setup file
            // test/harness/unit-guard.ts stops require() of dist/ and starting the CLI).
            name: "unit-tier-guard",
            enforce: "pre",
            load(id: string) {
              if (path.resolve(id.split("?")[0]).startsWith(DIST)) {
                throw unitTierError(`${id} (a module of the build)`);
              }
              return null;
            },
          },
        ],
        test: {
          name: "unit",
          include: ["test/**/*.unit.test.ts"],
          setupFiles: ["./test/harness/unit-guard.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
          // Measured on this 2-core machine (docs/testing.md, "Pool settings"), the unit project alone, at load 4–9
          // from other work: isolated, 1 worker, 221 s (69 s of it importing the provider and emulator again for
          // each file); one shared module graph (isolate: false), 1 worker, 50 s; the same with 2 workers, 54 s.
          isolate: false,
          maxWorkers: 1,
        },
      },
      {
        test: {
          name: "engine",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.unit.test.ts", "test/consumer/**"],
          globalSetup: ["./test/harness/build-setup.ts"],
          setupFiles: ["./test/harness/engine-file.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
      {
        test: {
          name: "consumer",
          include: ["test/consumer/**/*.test.ts"],
          globalSetup: ["./test/harness/consumer-setup.ts"],
          setupFiles: ["./test/harness/engine-file.ts"],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 2 },
          // Two files (the TypeScript projects; the native programs) on 2 workers: measured in docs/testing.md,
          // "Pool settings". Their shared fixtures (node binaries, tarball) are made once before by the globalSetup.
          maxWorkers: 2,
        },
      },
    ],
  },
});
