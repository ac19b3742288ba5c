/**
 * The entry of the native provider plugin (`plugin/pulumi-resource-platform` runs it): starts the engine watch
 * (`engineWatch.ts`: the plugin ends when the engine that started it does), serves the `ResourceProvider` service
 * (`server.ts`) and prints its port on stdout, as Pulumi's plugin protocol asks. Argument: the engine's address.
 */
import { startEngineWatch } from "../engineWatch";
import { packageFiles, serveNativeProvider } from "./server";

startEngineWatch({ ...(process.argv[2] ? { engineAddress: process.argv[2] } : {}) });
const { version, schema } = packageFiles();
serveNativeProvider(version, schema).then(
  ({ port }) => process.stdout.write(`${port}\n`),
  (err: unknown) => {
    process.stderr.write(`pulumi-resource-platform: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
