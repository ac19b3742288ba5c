/**
 * What `platform-pulumi/runtime` loads (the package's `exports` map): the provider runtime (`runtime.ts`), from
 * the one file `npm run build` bundles it into (`dist/provider/runtime.bundle.js`, made by
 * `scripts/bundle-runtime.js`), with Node's module compile cache turned on first where Node has it (22.1 and
 * later; a no-op on 20): the dynamic-provider plugin, a new process at every `up`, `refresh` and `destroy`,
 * then reuses V8's compiled code for the bundle from the cache folder (`NODE_COMPILE_CACHE`, else
 * `<os.tmpdir()>/node-compile-cache`; `NODE_DISABLE_COMPILE_CACHE=1` turns it off) instead of compiling it again.
 * The cache is flushed right after the load, as the engine may kill the plugin before Node's own flush at exit.
 * The measured effect of each is in docs/performance.md ("Plugin start").
 *
 * Exports exactly what `runtime.ts` exports (the contract of `engine/shim.ts`: `provider(kind)`, and for
 * older state `configure` and `providers[kind]`).
 */
const cache = require("node:module") as { enableCompileCache?: () => unknown; flushCompileCache?: () => void };
try {
  cache.enableCompileCache?.();
} catch {
  // The cache is an optimisation only: a folder that cannot be written leaves the load as it was.
}
const runtime = require("./runtime.bundle.js") as typeof import("./runtime");
try {
  cache.flushCompileCache?.();
} catch {
  // As above.
}

export = runtime;
