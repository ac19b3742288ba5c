#!/usr/bin/env node
// Bundles, with esbuild, each into one file; `npm run build` runs it after tsc (which type-checks the same sources
// and emits the declarations):
//
// - the provider runtime (provider/runtime.ts and everything it imports) into dist/provider/runtime.bundle.js. The
//   dynamic-provider plugin loads the runtime once per process through each resource's one-line `__provider`
//   (provider/engine/shim.ts, via dist/provider/runtimeEntry.js); one file instead of about 150 modules (ours,
//   undici's, zod's) is less resolving, reading and compiling at every plugin start.
// - the package's main entry (provider/index.ts, what `require("platform-pulumi")` gives a program) into
//   dist/provider/index.bundle.js, the package's `main`: every `pulumi preview` and `up` runs the program, which
//   loads it first (about 240 modules with yaml's, jose's and every zod locale). Without the compile cache: turning
//   it on is process-wide, and a user's program process is not ours to change.
//
// Measured in docs/performance.md ("Plugin start", "Program start"), as is each choice below (both bundles):
//
// - from the TypeScript sources (ES modules), so esbuild drops what the runtime never uses of zod's ES build;
// - zod's locale table (`zod/v4/locales/index`) is replaced by its English entry alone: zod's classic API
//   re-exports every locale as `z.locales`, which nothing here uses (English, the default, comes from
//   `locales/en.js` directly, so messages are the same), and the table was a third of the bundle;
// - `@pulumi/pulumi` stays outside (the plugin has it loaded already; one copy per process), and so do modules the
//   runtime requires only on a rare path: undici's index (a fallback when undici's own files move,
//   provider/client/http.ts) and re2js (patterns, provider/validation.ts).
/* global require, __dirname, process, module */
"use strict";
const path = require("node:path");
const esbuild = require("esbuild");

const root = path.join(__dirname, "..");

/** Marks exactly these bare specifiers external (esbuild's `external` would also take their subpaths). */
const exactExternal = (names) => ({
  name: "exact-external",
  setup(build) {
    const filter = new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, external: true }));
  },
});

/** zod's locale table with English only (see above; scripts/zod-english-only.js, shared with the plugin archive's build). */
const { englishOnly } = require("./zod-english-only");

/** The runtime build's options (exported, with the zod plugin, for test/runtime-bundle.test.ts). */
const options = {
  entryPoints: [path.join(root, "provider", "runtime.ts")],
  outfile: path.join(root, "dist", "provider", "runtime.bundle.js"),
  tsconfig: path.join(root, "tsconfig.json"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["@pulumi/pulumi", "@pulumi/pulumi/*"],
  plugins: [exactExternal(["undici", "re2js"]), englishOnly],
  sourcemap: true,
  sourcesContent: false,
  legalComments: "eof",
  logLevel: "warning",
};

/** The main entry's build: the same options, another entry and file. */
const mainOptions = {
  ...options,
  entryPoints: [path.join(root, "provider", "index.ts")],
  outfile: path.join(root, "dist", "provider", "index.bundle.js"),
};

module.exports = { options, mainOptions, englishOnly };

// With the plugin archive (scripts/pack-plugin.js), built at the same time.
if (require.main === module) Promise.all([esbuild.build(options), esbuild.build(mainOptions), require("./pack-plugin").packPlugin()]).catch(() => process.exit(1));
