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
 *
 * Credentials, in order: an API token (`platform:token`, then `PLATFORM_TOKEN`); otherwise workload identity:
 * the identity uid plus an OIDC token (literal, or a file re-read at every refresh because projected tokens
 * rotate), exchanged at `{authUrl}/sts/exchange` (see `credentials.ts`).
 *
 * Credentials are read where they are used (the provider process, or the program for lookups) and never
 * stored in a resource's inputs, outputs or serialized provider, so they never reach Pulumi state.
 */
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
   * Whether refresh reads may be answered from rows listed ahead of them (`resources/readBatch.ts`); default true.
   * With false, every read is a GET or a List by `uidp.ids` of reads in flight together.
   */
  readAhead: boolean;
  /** Total deadline of one request, in milliseconds, when set (the client's default otherwise, 120000). */
  requestDeadlineMs: number | undefined;
  /** Most bytes of a response body read, when set (the client's default otherwise, 32 MiB). */
  maxResponseBytes: number | undefined;
  /** Most pages one walk of a List reads, when set (the client's default otherwise, 10000). */
  maxPages: number | undefined;
}

/** Reads a fully qualified config key such as `platform:apiUrl`; returns undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** Config namespace of this package's settings. */
export const CONFIG_NAMESPACE = "platform";

/** Raised when a required setting is missing or malformed; the message names the config key and env var. */
export class SettingsError extends PlatformError {
  override readonly name = "SettingsError";
}

function pick(lookup: ConfigLookup, env: NodeJS.ProcessEnv, key: string, envName: string): string | undefined {
  const v = lookup(`${CONFIG_NAMESPACE}:${key}`) ?? env[envName];
  return v === undefined || v === "" ? undefined : v;
}

/**
 * Resolves the settings from stack config (via `lookup`) and the environment.
 * @throws SettingsError when apiUrl or token is missing, apiUrl is not http(s), apiVersion is not `v<N>…`, a retry
 *   setting is not an integer in range, readAhead is not `true` or `false`, or requestDeadlineMs,
 *   maxResponseBytes or maxPages is not a positive integer.
 */
export function resolveSettings(lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env): Settings {
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
  if (!url.test(apiUrl)) throw new SettingsError(`platform:apiUrl must be an http(s) URL such as https://api.example.dev, got "${apiUrl}"`);
  const authUrl = (pick(lookup, env, "authUrl", "PLATFORM_AUTH_URL") ?? apiUrl).replace(/\/+$/, "");
  if (!url.test(authUrl)) throw new SettingsError(`platform:authUrl must be an http(s) URL, got "${authUrl}"`);
  if (!token && !(identity && (identityToken || identityTokenFile))) {
    throw new SettingsError(
      "no Platform API credentials: set the secret stack config `platform:token` (or PLATFORM_TOKEN), or workload identity: " +
        "`platform:identity` (or PLATFORM_IDENTITY) with PLATFORM_IDENTITY_TOKEN or PLATFORM_IDENTITY_TOKEN_FILE",
    );
  }
  if (!/^v\d+[a-z0-9]*$/.test(apiVersion)) {
    throw new SettingsError(`platform:apiVersion must look like v2beta1 or v2, got "${apiVersion}"`);
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
    if (!Number.isInteger(n) || n < min) throw new SettingsError(`platform:${key} must be an integer >= ${min}, got "${raw}"`);
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
  };
}
