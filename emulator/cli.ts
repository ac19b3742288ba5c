/**
 * Standalone emulator: `npm run emulator -- --port <p>` (`--port 0` picks a free port).
 *
 * Prints exactly three lines to stdout, in a form a shell can `eval` or a CI job can append to its env file,
 * then serves until killed:
 *
 *     PLATFORM_API_URL=http://127.0.0.1:<port>
 *     PLATFORM_TOKEN=<token>
 *     PLATFORM_ORG_UID=<root uid>
 */
import { parseArgs } from "node:util";
import { startEmulator } from "./index";

const USAGE = "usage: npm run emulator -- [--port <0-65535>] [--host <address>] [--token-ttl <seconds>] [--log]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      "token-ttl": { type: "string" },
      log: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0-65535, got "${values.port}"`);
  const ttl = values["token-ttl"] === undefined ? undefined : Number(values["token-ttl"]);
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0)) throw new Error(`--token-ttl must be a positive integer of seconds`);

  const emu = await startEmulator({ port, host: values.host, logRequests: values.log, ...(ttl ? { tokenTtlSeconds: ttl } : {}) });
  process.stdout.write(`PLATFORM_API_URL=${emu.url}\nPLATFORM_TOKEN=${emu.token}\nPLATFORM_ORG_UID=${emu.orgUid}\n`);
  const stop = () => void emu.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`emulator: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(2);
});
