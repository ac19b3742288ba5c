/**
 * The dynamic-provider plugin's own entry (`plugin/pulumi-resource-pulumi-nodejs` runs it): starts the engine watch
 * (`engineWatch.ts`) first, then runs @pulumi/pulumi's dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`,
 * the project's copy, found from the plugin's working folder, the project's) in this same process.
 *
 * The CLI's bundled `pulumi-resource-pulumi-nodejs` runs that plugin directly, and nothing of this package runs in
 * it until its first resource call (`check`, `read`, …) loads the runtime (`runtime.ts`), which starts the watch
 * then: an `up` killed between the plugin's start and that call left the plugin running. A project that declares
 * this entry (README "No process outlives its `pulumi`": `plugins.providers` in Pulumi.yaml) has the watch from the
 * process's start, and, as the engine may die before the watch sees it, the watch also probes the engine's
 * address (the plugin's first argument).
 */
import * as path from "node:path";
import { startEngineWatch } from "./engineWatch";

startEngineWatch({ ...(process.argv[2] ? { engineAddress: process.argv[2] } : {}) });
const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [process.cwd(), path.join(__dirname, "..", "..")] });
// The plugin reads its arguments (`<engine address>`) from `process.argv.slice(2)`, as when node runs it directly.
require(entry);
