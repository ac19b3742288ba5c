/**
 * Standalone emulator: `npm run emulator -- --port <p>` (`--port 0` picks a free port), also the `emulator`
 * subcommand of the package's bin (`npx platform-pulumi emulator --port 0`, see `cli/main.ts`).
 *
 * Prints exactly three lines to stdout, in a form a shell can `source` or a CI job can append to its env file,
 * then serves until killed:
 *
 *     PLATFORM_API_URL=http://127.0.0.1:<port>
 *     PLATFORM_TOKEN=<token>
 *     PLATFORM_ORG_UID=<root uid>
 *
 * Anything else (seeding summaries, errors) goes to stderr.
 */
// First: a clear error naming the npm command when the server's optional peer dependencies are missing.
import "./server-deps";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { JSONWebKeySet } from "jose";
import { DEFAULT_CONTROL } from "./control";
import { startEmulator, type SeedData } from "./index";
import { DEFAULT_SEED, readSeedFile } from "./seed";

/** The options text; `invocation` is how the user started it (`npm run emulator --`, `platform-pulumi emulator`). */
export const usage = (invocation = "npm run emulator --"): string => `usage: ${invocation} [options]
  --port <0-65535>          API port (default 0: a free one)
  --host <address>          address to bind (default 127.0.0.1); an address that is not loopback is refused
                            unless --allow-unauthenticated-remote is given: POST /oidc/token (and --control's
                            /_emulator/) answer anyone, without authentication
  --allow-unauthenticated-remote   bind a non-loopback --host anyway
  --auth-port <0-65535>     serve /sts/exchange and the test OIDC issuer on their own port
  --token-ttl <seconds>     lifetime of minted API tokens (default 3600)
  --control                 serve the test control surface under /_emulator/
  --seed <file>             seed data, JSON or YAML: { groups, repos, tagsPerRepo, advisories }
  --seed-groups <n>         add n groups under the root
  --seed-repos <n>          add n repos under the root
  --seed-tags <n>           tags per seeded repo
  --seed-advisories <n>     add n advisories
  --trust-jwks <issuer>=<file>   trust another OIDC issuer's JWKS (repeatable)
  --service-domain <domain> errors name ErrorInfo.domain iam.<domain> (default platform.local)
  --log                     log every request to stderr (never to stdout)
  --no-parent-watch         keep serving after the process that started it exits (default: exit with it,
                            so \`npx platform-pulumi emulator … & kill $!\` stops the emulator too)
  -h, --help                print this usage on stdout and exit 0
exit codes (the same for every platform-pulumi command):
  0  stopped (SIGINT, SIGTERM, or the process that started it exited), or --help
  1  (not used by this command)
  2  could not run: bad arguments (the reason, then this usage, on stderr), or the server could not start
     (a port in use, a missing optional dependency: the reason on stderr)`;

/** How long a stop waits for requests in flight before the process exits anyway, ms. */
export const STOP_GRACE_MS = 250;

function int(name: string, raw: string | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new EmulatorUsageError(`--${name} must be an integer ${min}-${max}, got "${raw}"`);
  return n;
}

/**
 * Runs the standalone emulator with command-line arguments `args` until SIGINT or SIGTERM. `--help` prints the
 * options and exit codes to stdout, as every command's `--help` does (nothing is served then, so the three-line
 * stdout contract is not in play), and returns. Errors in the arguments reject with an {@link EmulatorUsageError}
 * (or `parseArgs`'s own error), a failed start with the server's error ({@link emulatorMain} prints them).
 */
export async function runEmulator(args: readonly string[], invocation?: string): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      "allow-unauthenticated-remote": { type: "boolean", default: false },
      "auth-port": { type: "string" },
      "token-ttl": { type: "string" },
      control: { type: "boolean", default: false },
      seed: { type: "string" },
      "seed-groups": { type: "string" },
      "seed-repos": { type: "string" },
      "seed-tags": { type: "string" },
      "seed-advisories": { type: "string" },
      "trust-jwks": { type: "string", multiple: true },
      "service-domain": { type: "string" },
      log: { type: "boolean", default: false },
      "no-parent-watch": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage(invocation)}\n`);
    return;
  }
  const port = int("port", values.port, 0, 65535)!;
  const authPort = int("auth-port", values["auth-port"], 0, 65535);
  const ttl = int("token-ttl", values["token-ttl"], 1);
  const counted: SeedData = {
    ...(values["seed-groups"] !== undefined ? { groups: int("seed-groups", values["seed-groups"]) } : {}),
    ...(values["seed-repos"] !== undefined ? { repos: int("seed-repos", values["seed-repos"]) } : {}),
    ...(values["seed-tags"] !== undefined ? { tagsPerRepo: int("seed-tags", values["seed-tags"]) } : {}),
    ...(values["seed-advisories"] !== undefined ? { advisories: int("seed-advisories", values["seed-advisories"]) } : {}),
  };
  let seeded: SeedData;
  try {
    seeded = values.seed ? readSeedFile(values.seed) : DEFAULT_SEED;
  } catch (err) {
    throw new EmulatorUsageError(`--seed: ${(err as Error).message}`);
  }
  const seed: SeedData = { ...seeded, ...counted };
  const trustedIssuers: Record<string, JSONWebKeySet> = {};
  for (const spec of values["trust-jwks"] ?? []) {
    const at = spec.lastIndexOf("=");
    if (at <= 0) throw new EmulatorUsageError(`--trust-jwks takes <issuer>=<jwks file>, got "${spec}"`);
    try {
      trustedIssuers[spec.slice(0, at)] = JSON.parse(readFileSync(spec.slice(at + 1), "utf8")) as JSONWebKeySet;
    } catch (err) {
      throw new EmulatorUsageError(`--trust-jwks ${spec}: ${(err as Error).message}`);
    }
  }

  const started = Date.now();
  const emu = await startEmulator({
    port,
    host: values.host,
    allowUnauthenticatedRemote: values["allow-unauthenticated-remote"],
    seed,
    control: values.control,
    trustedIssuers,
    logRequests: values.log,
    ...(authPort !== undefined ? { authPort } : {}),
    ...(values["service-domain"] !== undefined ? { serviceDomain: values["service-domain"] } : {}),
    ...(ttl !== undefined ? { tokenTtlSeconds: ttl } : {}),
  });
  process.stdout.write(`PLATFORM_API_URL=${emu.url}\nPLATFORM_TOKEN=${emu.token}\nPLATFORM_ORG_UID=${emu.orgUid}\n`);
  const counts = Object.entries(emu.dump()).map(([k, rows]) => `${k} ${rows.length}`).join(", ");
  process.stderr.write(
    `emulator: ready in ${Date.now() - started} ms (${counts}); auth at ${emu.authUrl}${values.control ? "; control at /_emulator/" : ""}; ` +
      `the token lives ${ttl ?? DEFAULT_CONTROL.tokenTtlSeconds} s (--token-ttl); restart it for a new one\n`,
  );
  // Stop at once: closing waits for requests in flight (one delayed by --control's latency, say), so exit after
  // STOP_GRACE_MS whether or not they have ended; their clients see the connection close, as with a killed server.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    void emu.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  if (!values["no-parent-watch"]) watchParent(stop);
}

/**
 * Calls `onGone` once when this process's parent exits. `npx platform-pulumi emulator` runs this process under
 * `npm exec` and a shell; a signal to npm (`kill $!` in a script) reaches neither, and the emulator used to be
 * re-parented and serve on. Polls `process.ppid` every `intervalMs` (default 500) with an unref'd timer: it changes
 * only when the parent is gone. Returns a function that stops the watch.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.stderr.write(`emulator: the process that started it (pid ${parent}) exited; stopping\n`);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** How the emulator's errors name it, as every command's (provider/commands/frame.ts): `platform-pulumi emulator: <reason>`. */
export const ERROR_PREFIX = "platform-pulumi emulator";

/** A bad argument (an unknown flag, a value out of range, a seed or JWKS file that cannot be read): the usage follows the reason. */
export class EmulatorUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmulatorUsageError";
  }
}

/**
 * A line of an error as text: control characters and the marks that reorder text (bidi overrides, isolates) written
 * `\\uXXXX`, a leading `::` (a GitHub Actions workflow command) `\\u003a:`; the provider's `printable`
 * (provider/text.ts) does the same, the emulator shares no code with the provider.
 */
function inert(line: string): string {
  return line.replace(/[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/^(\s*):/, "$1\\u003a");
}

/** The hint for a failure whose cause is known: a port in use. */
function hintFor(err: unknown): string | undefined {
  const e = err as { code?: unknown; port?: unknown };
  if (e?.code === "EADDRINUSE") return `another process listens on ${typeof e.port === "number" ? `port ${e.port}` : "that port"}: stop it, or give another --port (or --auth-port); 0 picks a free one`;
  return undefined;
}

/**
 * What the emulator prints on stderr when it cannot run, in the form of every command's (provider/commands/failure.ts
 * `reportCouldNotRun`): `platform-pulumi emulator: <first line of the error>`, then its further lines and the hint
 * for a known cause, each indented by two spaces; for a bad argument ({@link EmulatorUsageError}, or `parseArgs`'s
 * `ERR_PARSE_ARGS_*`), then the usage. Every line inert ({@link inert}: the message may quote a file).
 */
export function emulatorErrorText(err: unknown, invocation?: string): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text
    .split(/\r?\n/)
    .map(inert)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const hint = hintFor(err);
  const more = [...lines.slice(1), ...(hint !== undefined ? [hint] : [])].map((l) => `  ${l}\n`).join("");
  const usageError = err instanceof EmulatorUsageError || /^ERR_PARSE_ARGS_/.test(String((err as { code?: unknown })?.code ?? ""));
  return `${ERROR_PREFIX}: ${lines[0] ?? "failed"}\n${more}${usageError ? `${usage(invocation)}\n` : ""}`;
}

/**
 * Runs {@link runEmulator}; when it cannot run, {@link emulatorErrorText} on stderr (the usage only for a bad
 * argument) and exit code 2, as every command.
 */
export function emulatorMain(args: readonly string[], invocation?: string): void {
  runEmulator(args, invocation).catch((err: unknown) => {
    process.stderr.write(emulatorErrorText(err, invocation));
    process.exit(2);
  });
}

if (require.main === module) emulatorMain(process.argv.slice(2));
