/**
 * Provider settings: where the API is and how to authenticate.
 *
 * Each setting is read from stack config first, then from the environment:
 *
 * | setting           | stack config                 | environment                    | default      |
 * |-------------------|------------------------------|--------------------------------|--------------|
 * | apiUrl            | `platform:apiUrl`            | `PLATFORM_API_URL`             | (required)   |
 * | token             | `platform:token` (secret)    | `PLATFORM_TOKEN`               | see below    |
 * | identity          | `platform:identity`          | `PLATFORM_IDENTITY`            | none         |
 * | identity token    | —                            | `PLATFORM_IDENTITY_TOKEN`      | none         |
 * | identity token file | —                          | `PLATFORM_IDENTITY_TOKEN_FILE` | none         |
 * | authUrl           | `platform:authUrl`           | `PLATFORM_AUTH_URL`            | the apiUrl   |
 * | orgUid            | `platform:orgUid`            | `PLATFORM_ORG_UID`             | none         |
 * | apiVersion        | `platform:apiVersion`        | `PLATFORM_API_VERSION`         | `v2beta1`    |
 * | retry attempts    | `platform:retryMaxAttempts`  | `PLATFORM_RETRY_MAX_ATTEMPTS`  | 5            |
 * | retry base delay  | `platform:retryBaseDelayMs`  | `PLATFORM_RETRY_BASE_DELAY_MS` | 250          |
 * | retry max delay   | `platform:retryMaxDelayMs`   | `PLATFORM_RETRY_MAX_DELAY_MS`  | 8000         |
 * | read-ahead        | `platform:readAhead`         | `PLATFORM_READ_AHEAD`          | `true`       |
 * | request deadline  | `platform:requestDeadlineMs` | `PLATFORM_REQUEST_DEADLINE_MS` | 120000       |
 * | response size cap | `platform:maxResponseBytes`  | `PLATFORM_MAX_RESPONSE_BYTES`  | 33554432     |
 * | pages per listing | `platform:maxPages`          | `PLATFORM_MAX_PAGES`           | 10000        |
 * | List bytes held   | `platform:maxWalkBytes`      | `PLATFORM_MAX_WALK_BYTES`      | 268435456    |
 *
 * Credentials, in order: an API token (`platform:token`, then `PLATFORM_TOKEN`); otherwise workload identity:
 * the identity uid plus an OIDC token (literal, or a file re-read at every refresh because projected tokens
 * rotate), exchanged at `{authUrl}/sts/exchange` (see `credentials.ts`).
 *
 * Credentials are read where they are used (the provider process, or the program for lookups) and never
 * stored in a resource's inputs, outputs or serialized provider, so they never reach Pulumi state.
 */
import { closest, distance } from "fastest-levenshtein";
import { PlatformError } from "./client/errors";
import type { RetryPolicy } from "./client/retry";

/** Resolved settings. */
export interface Settings {
  /** Base URL of the API, without a trailing slash. */
  apiUrl: string;
  /** API bearer token, when one is configured. Never log or persist it. */
  token: string | undefined;
  /** Identity uid to assume by token exchange (when no token is configured). */
  identity: string | undefined;
  /** OIDC token to exchange (literal). Never log or persist it. */
  identityToken: string | undefined;
  /** File holding the OIDC token to exchange, re-read at every refresh. */
  identityTokenFile: string | undefined;
  /** Base URL of the token exchange; default: `apiUrl`. */
  authUrl: string;
  /** The org's root group uid, if configured. */
  orgUid: string | undefined;
  /** Version path segment, `v2beta1` (default) or `v2`. */
  apiVersion: string;
  /** Retry settings that differ from the defaults. */
  retry: Partial<RetryPolicy>;
  /**
   * Whether refresh reads may be answered from rows listed ahead of them (`engine/readBatch.ts`); default true.
   * With false, every read is a GET or a List by `uidp.ids` of reads in flight together.
   */
  readAhead: boolean;
  /** Total deadline of one request, in milliseconds, when set (the client's default otherwise, 120000). */
  requestDeadlineMs: number | undefined;
  /** Most bytes of a response body read, when set (the client's default otherwise, 32 MiB). */
  maxResponseBytes: number | undefined;
  /** Most pages one walk of a List reads, when set (the client's default otherwise, 10000). */
  maxPages: number | undefined;
  /**
   * Most bytes of List page bodies the client's walks hold (in a report command, all of its Lists together),
   * when set (the client's default otherwise, 268435456: 256 MiB).
   */
  maxWalkBytes: number | undefined;
}

/**
 * Every environment variable {@link resolveSettings} reads. A value made from these and a stable config lookup
 * decides the settings, so a caller may keep resolved settings while this key is unchanged
 * ({@link settingsEnvKey}; the provider context does, as every `read` needs them).
 */
export const SETTINGS_ENV: readonly string[] = [
  "PLATFORM_API_URL",
  "PLATFORM_TOKEN",
  "PLATFORM_IDENTITY",
  "PLATFORM_IDENTITY_TOKEN",
  "PLATFORM_IDENTITY_TOKEN_FILE",
  "PLATFORM_API_VERSION",
  "PLATFORM_AUTH_URL",
  "PLATFORM_RETRY_MAX_ATTEMPTS",
  "PLATFORM_RETRY_BASE_DELAY_MS",
  "PLATFORM_RETRY_MAX_DELAY_MS",
  "PLATFORM_READ_AHEAD",
  "PLATFORM_ORG_UID",
  "PLATFORM_REQUEST_DEADLINE_MS",
  "PLATFORM_MAX_RESPONSE_BYTES",
  "PLATFORM_MAX_PAGES",
  "PLATFORM_MAX_WALK_BYTES",
];

/** The values of {@link SETTINGS_ENV} in `env` as one string (unset and empty alike): equal keys, equal settings. */
export function settingsEnvKey(env: NodeJS.ProcessEnv = process.env): string {
  let key = "";
  for (const name of SETTINGS_ENV) key += `${env[name] ?? ""}\0`;
  return key;
}

/** Reads a fully qualified config key such as `platform:apiUrl`; returns undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** Config namespace of this package's settings. */
export const CONFIG_NAMESPACE = "platform";

/** Raised when a required setting is missing or malformed; the message names the config key and env var. */
export class SettingsError extends PlatformError {
  override readonly name = "SettingsError";
}

/**
 * Every stack config key of this package, without the `platform:` namespace, with its type, environment variable
 * and description: the settings table above, in its order. {@link resolveSettings} reads exactly these (a test
 * holds the two together), {@link unknownConfigKeys} judges the keys a stack sets against them, and the package
 * schema's `config` and provider inputs are generated from it (`provider/schema/`).
 */
export const CONFIG_VARIABLES = {
  apiUrl: { type: "string", env: "PLATFORM_API_URL", description: "Base URL of the Platform API (http or https), e.g. `https://console-api.enforce.dev`. Required." },
  token: { type: "string", env: "PLATFORM_TOKEN", secret: true, description: "API token (a bearer token). Set it as a secret: `pulumi config set --secret platform:token …`. Without it, workload identity (`identity`) is used." },
  identity: { type: "string", env: "PLATFORM_IDENTITY", description: "uid of an identity to assume with workload identity: an OIDC token (`PLATFORM_IDENTITY_TOKEN` or `PLATFORM_IDENTITY_TOKEN_FILE`) is exchanged at `authUrl` for an API token." },
  authUrl: { type: "string", env: "PLATFORM_AUTH_URL", description: "Base URL of the token exchange (seed §5); default the `apiUrl`." },
  orgUid: { type: "string", env: "PLATFORM_ORG_UID", description: "uid of the organization's root group, for programs and commands that need it; default none." },
  apiVersion: { type: "string", env: "PLATFORM_API_VERSION", description: "The API version segment in paths, `v<N>…`; default `v2beta1`." },
  retryMaxAttempts: { type: "integer", env: "PLATFORM_RETRY_MAX_ATTEMPTS", description: "Attempts per request when a failure is retryable; default 5." },
  retryBaseDelayMs: { type: "integer", env: "PLATFORM_RETRY_BASE_DELAY_MS", description: "Base retry delay in milliseconds; default 250." },
  retryMaxDelayMs: { type: "integer", env: "PLATFORM_RETRY_MAX_DELAY_MS", description: "Longest retry delay in milliseconds; default 8000." },
  readAhead: { type: "boolean", env: "PLATFORM_READ_AHEAD", description: "Whether refresh reads may be answered from rows listed ahead of them; with `false` every read is a GET or a List by `uidp.ids` of reads in flight together. Default `true`." },
  requestDeadlineMs: { type: "integer", env: "PLATFORM_REQUEST_DEADLINE_MS", description: "Deadline of one request, in milliseconds; default 120000." },
  maxResponseBytes: { type: "integer", env: "PLATFORM_MAX_RESPONSE_BYTES", description: "Largest response body accepted, in bytes; default 33554432." },
  maxPages: { type: "integer", env: "PLATFORM_MAX_PAGES", description: "Most pages one listing walks; default 10000." },
  maxWalkBytes: { type: "integer", env: "PLATFORM_MAX_WALK_BYTES", description: "Most List bytes held by one listing walk, in bytes; default 268435456." },
} as const satisfies Record<string, { type: "string" | "integer" | "boolean"; env: string; secret?: boolean; description: string }>;

/** Every `platform:*` stack config key this package reads ({@link CONFIG_VARIABLES}' keys). */
export const CONFIG_KEYS = Object.keys(CONFIG_VARIABLES) as ReadonlyArray<keyof typeof CONFIG_VARIABLES>;

/** A `platform:*` stack config key this package does not read, and the known key nearest to it. */
export interface UnknownConfigKey {
  /** The key as set, e.g. `platform:apiurl`. */
  key: string;
  /** The nearest known key, e.g. `platform:apiUrl`, when one is within a few edits (case ignored); else undefined. */
  suggestion: string | undefined;
}

/**
 * The `platform:*` keys among `keys` (fully qualified stack config keys, e.g. from `pulumi.runtime.allConfig()`)
 * that this package does not read, each with the nearest known key: the one with the smallest edit distance,
 * case ignored (Levenshtein, from `fastest-levenshtein`), offered when that distance is at most a third of the
 * key's length (at least 2). Keys of other namespaces are ignored.
 * @example unknownConfigKeys(["platform:apiurl", "aws:region"]) // [{ key: "platform:apiurl", suggestion: "platform:apiUrl" }]
 */
export function unknownConfigKeys(keys: Iterable<string>): UnknownConfigKey[] {
  const known = new Map(CONFIG_KEYS.map((k) => [k.toLowerCase(), k]));
  const out: UnknownConfigKey[] = [];
  for (const full of keys) {
    if (!full.startsWith(`${CONFIG_NAMESPACE}:`)) continue;
    const key = full.slice(CONFIG_NAMESPACE.length + 1);
    if ((CONFIG_KEYS as readonly string[]).includes(key)) continue;
    const lower = key.toLowerCase();
    const near = closest(lower, [...known.keys()]);
    const ok = distance(lower, near) <= Math.max(2, Math.floor(key.length / 3));
    out.push({ key: full, suggestion: ok ? `${CONFIG_NAMESPACE}:${known.get(near)!}` : undefined });
  }
  return out;
}

/** One line per unknown key, e.g. ``unknown stack config key `platform:apiurl`: did you mean `platform:apiUrl`?``. */
export function describeUnknownConfigKey(u: UnknownConfigKey): string {
  const known = CONFIG_KEYS.map((k) => `${CONFIG_NAMESPACE}:${k}`).join(", ");
  return u.suggestion
    ? `unknown stack config key \`${u.key}\` is ignored: did you mean \`${u.suggestion}\`?`
    : `unknown stack config key \`${u.key}\` is ignored; this package reads ${known}`;
}

function pick(lookup: ConfigLookup, env: NodeJS.ProcessEnv, key: string, envName: string): string | undefined {
  const v = lookup(`${CONFIG_NAMESPACE}:${key}`) ?? env[envName];
  return v === undefined || v === "" ? undefined : v;
}

/**
 * Resolves the settings from stack config (via `lookup`) and the environment.
 * @param configKeys the stack's fully qualified config keys, when known (e.g. `Object.keys(pulumi.runtime.allConfig())`):
 *   a SettingsError then also names each misspelled `platform:*` key and the key it is near (see {@link unknownConfigKeys}).
 * @throws SettingsError when apiUrl or token is missing, apiUrl is not http(s), apiVersion is not `v<N>…`, a retry
 *   setting is not an integer in range, readAhead is not `true` or `false`, or requestDeadlineMs,
 *   maxResponseBytes, maxPages or maxWalkBytes is not a positive integer.
 */
export function resolveSettings(lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env, configKeys?: Iterable<string>): Settings {
  try {
    return resolve(lookup, env);
  } catch (err) {
    // A missing or bad setting next to a misspelled key is almost always that key: say so in the same message.
    const near = configKeys === undefined ? [] : unknownConfigKeys(configKeys).filter((u) => u.suggestion !== undefined);
    if (err instanceof SettingsError && near.length > 0) {
      throw new SettingsError(`${err.message} (${near.map(describeUnknownConfigKey).join("; ")})`);
    }
    throw err;
  }
}

function resolve(lookup: ConfigLookup, env: NodeJS.ProcessEnv): Settings {
  const apiUrl = pick(lookup, env, "apiUrl", "PLATFORM_API_URL");
  const token = pick(lookup, env, "token", "PLATFORM_TOKEN");
  const identity = pick(lookup, env, "identity", "PLATFORM_IDENTITY");
  const identityToken = env["PLATFORM_IDENTITY_TOKEN"] || undefined;
  const identityTokenFile = env["PLATFORM_IDENTITY_TOKEN_FILE"] || undefined;
  const apiVersion = pick(lookup, env, "apiVersion", "PLATFORM_API_VERSION") ?? "v2beta1";
  if (!apiUrl) {
    throw new SettingsError("the Platform API URL is not set: set stack config `platform:apiUrl` or the PLATFORM_API_URL environment variable");
  }
  const url = /^https?:\/\/[^/\s]+/;
  if (!url.test(apiUrl)) throw new SettingsError(`platform:apiUrl (PLATFORM_API_URL) must be an http(s) URL such as https://api.example.dev, got "${apiUrl}"`);
  const authUrl = (pick(lookup, env, "authUrl", "PLATFORM_AUTH_URL") ?? apiUrl).replace(/\/+$/, "");
  if (!url.test(authUrl)) throw new SettingsError(`platform:authUrl (PLATFORM_AUTH_URL) must be an http(s) URL, got "${authUrl}"`);
  if (!token && !(identity && (identityToken || identityTokenFile))) {
    throw new SettingsError(
      "no Platform API credentials: set the secret stack config `platform:token` (or PLATFORM_TOKEN), or workload identity: " +
        "`platform:identity` (or PLATFORM_IDENTITY) with PLATFORM_IDENTITY_TOKEN or PLATFORM_IDENTITY_TOKEN_FILE",
    );
  }
  if (!/^v\d+[a-z0-9]*$/.test(apiVersion)) {
    throw new SettingsError(`platform:apiVersion (PLATFORM_API_VERSION) must look like v2beta1 or v2, got "${apiVersion}"`);
  }
  const retry: Partial<RetryPolicy> = {};
  for (const [key, envName, field, min] of [
    ["retryMaxAttempts", "PLATFORM_RETRY_MAX_ATTEMPTS", "maxAttempts", 1],
    ["retryBaseDelayMs", "PLATFORM_RETRY_BASE_DELAY_MS", "baseDelayMs", 0],
    ["retryMaxDelayMs", "PLATFORM_RETRY_MAX_DELAY_MS", "maxDelayMs", 0],
  ] as const) {
    const raw = pick(lookup, env, key, envName);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new SettingsError(`platform:${key} (${envName}) must be an integer >= ${min}, got "${raw}"`);
    retry[field] = n;
  }
  const readAheadRaw = pick(lookup, env, "readAhead", "PLATFORM_READ_AHEAD");
  if (readAheadRaw !== undefined && readAheadRaw !== "true" && readAheadRaw !== "false") {
    throw new SettingsError(`platform:readAhead (PLATFORM_READ_AHEAD) must be true or false, got "${readAheadRaw}"`);
  }
  const bound = (key: string, envName: string): number | undefined => {
    const raw = pick(lookup, env, key, envName);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 1) throw new SettingsError(`platform:${key} (${envName}) must be a positive integer, got "${raw}"`);
    return n;
  };
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    token,
    identity,
    identityToken,
    identityTokenFile,
    authUrl,
    orgUid: pick(lookup, env, "orgUid", "PLATFORM_ORG_UID"),
    apiVersion,
    retry,
    readAhead: readAheadRaw !== "false",
    requestDeadlineMs: bound("requestDeadlineMs", "PLATFORM_REQUEST_DEADLINE_MS"),
    maxResponseBytes: bound("maxResponseBytes", "PLATFORM_MAX_RESPONSE_BYTES"),
    maxPages: bound("maxPages", "PLATFORM_MAX_PAGES"),
    maxWalkBytes: bound("maxWalkBytes", "PLATFORM_MAX_WALK_BYTES"),
  };
}
