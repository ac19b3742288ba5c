// An esbuild plugin for the package's bundles (scripts/bundle-runtime.js, scripts/pack-plugin.js): zod's locale
// table (`zod/v4/locales/index`) replaced by its English entry alone. zod's classic API re-exports every locale as
// `z.locales`, which nothing here uses (English, the default, comes from `locales/en.js` directly, so messages are
// the same), and the table was a third of the runtime bundle (docs/performance.md "Plugin start").
/* global require, module */
"use strict";
const path = require("node:path");

/** zod's locale table with English only. */
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[/\\]zod[/\\]v4[/\\]locales[/\\]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: path.dirname(args.path),
    }));
  },
};

module.exports = { englishOnly };
