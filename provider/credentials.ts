/**
 * Where the Platform API token comes from.
 *
 * In order of precedence:
 *
 * 1. an explicit API token (`platform:token` / `PLATFORM_TOKEN`): used as it is, never refreshed;
 * 2. workload identity: the uid of an identity to assume (`platform:identity` / `PLATFORM_IDENTITY`) and an
 *    OIDC token, given literally (`PLATFORM_IDENTITY_TOKEN`) or as a file (`PLATFORM_IDENTITY_TOKEN_FILE`, re-read
 *    at every refresh because projected tokens rotate). The OIDC token is exchanged at
 *    `GET {authUrl}/sts/exchange?aud=<API URL>&identity=<uid>` (`Authorization: Bearer <OIDC token>`) for an
 *    API token, which is cached and refreshed before it expires. `authUrl` is `platform:authUrl` /
 *    `PLATFORM_AUTH_URL`, by default the API URL.
 *
 * No message, error or {@link TokenSource.describe} output ever contains the API token or the OIDC token;
 * anything the server sends back goes through {@link redact} first.
 *
 * @example
 * ```ts
 * const source = tokenSource({
 *   apiUrl: "https://console-api.example.dev",
 *   identity: process.env.PLATFORM_IDENTITY,
 *   identityTokenFile: process.env.PLATFORM_IDENTITY_TOKEN_FILE,
 * });
 * const client = new PlatformClient({ apiUrl, token: () => source.getToken() });
 * ```
 */
import { readFile } from "node:fs/promises";
import { decodeJwt } from "jose";
import type { Dispatcher } from "undici";
import { deadline, parseBody, readBody, request } from "./client/http";
import { ApiError, ConnectionError, DeadlineExceededError, PlatformError, ResponseTooDeepError, ResponseTooLargeError, redact, type RequestInfo } from "./client/errors";
import { registerSecret } from "./client/secrets";
import { printable } from "./text";
import { retrying } from "./client/retry";
import { RawToken, Status } from "./client/schemas";

/**
 * Inputs of {@link tokenSource}: one explicit token, or an identity plus an OIDC token (literal or file).
 * Empty strings count as unset. Durations are in seconds, clocks in milliseconds since the epoch.
 */
export interface CredentialSettings {
  /** API base URL (`platform:apiUrl` / `PLATFORM_API_URL`), e.g. `https://console-api.example.dev`; the exchange's `aud`. A trailing slash is dropped. */
  apiUrl: string;
  /** Base URL of the token exchange (`platform:authUrl` / `PLATFORM_AUTH_URL`); default `apiUrl`. A trailing slash is dropped. */
  authUrl?: string;
  /** Explicit API token (`platform:token` / `PLATFORM_TOKEN`): used as-is, never refreshed; wins over workload identity. */
  token?: string;
  /** Uid of the identity to assume through the token exchange (`platform:identity` / `PLATFORM_IDENTITY`). */
  identity?: string;
  /** OIDC token to exchange, literally (`PLATFORM_IDENTITY_TOKEN`); wins over `identityTokenFile` when both are set. */
  identityToken?: string;
  /** Path of a file holding the OIDC token (`PLATFORM_IDENTITY_TOKEN_FILE`); read again at every refresh, surrounding whitespace ignored. */
  identityTokenFile?: string;
  /**
   * Refresh this many seconds before the API token expires; default 300. When the token's whole lifetime is
   * shorter than twice this, it is refreshed at half its lifetime instead.
   */
  refreshBeforeSeconds?: number;
  /** undici dispatcher for the exchange request; default undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** Clock in milliseconds since the epoch (for tests); default `Date.now`. */
  now?: () => number;
}

/**
 * A credential setting is missing, incomplete or malformed. The message names the stack config key and the
 * environment variable to set; it never contains a token.
 */
export class CredentialError extends PlatformError {
  override readonly name = "CredentialError";
}

/**
 * The token exchange failed. The message says where (identity, exchange URL), the HTTP status, the
 * google.rpc code (name and number) and the server's message, redacted; never the OIDC or API token.
 */
export class TokenExchangeError extends PlatformError {
  override readonly name = "TokenExchangeError";
  /** HTTP status of the last response, or undefined when the server could not be reached or the OIDC token could not be read. */
  readonly httpStatus: number | undefined;
  /** google.rpc code from the error body (e.g. 7 PERMISSION_DENIED), or undefined when there was none. */
  readonly code: number | undefined;

  constructor(message: string, opts: { httpStatus?: number; code?: number; cause?: unknown } = {}) {
    super(redact(message), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.httpStatus = opts.httpStatus;
    this.code = opts.code;
  }
}

/** Supplies API tokens; pass `() => source.getToken()` as the client's `token`. */
export interface TokenSource {
  /**
   * Resolves to a bearer token for the API, exchanging or refreshing it first when needed.
   * @throws TokenExchangeError when a needed exchange fails and no unexpired token is cached.
   */
  getToken(): Promise<string>;
  /** Where tokens come from, for logs and errors, e.g. `workload identity <uid> via <authUrl>` or `static token`; never a token. */
  describe(): string;
}

const DEFAULT_REFRESH_BEFORE_SECONDS = 300;
/** Lifetime assumed when neither the token's `exp` nor the response's `expiry` says (55 minutes). */
const DEFAULT_LIFETIME_MS = 55 * 60_000;
const EXCHANGE_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 2_000;
const EXCHANGE_TIMEOUT_MS = 30_000;
/** Total deadline of one exchange request, in milliseconds (the idle timeout above resets at every chunk). */
const EXCHANGE_DEADLINE_MS = 60_000;
/** Most bytes of an exchange response read (a token response is a few KiB). */
const EXCHANGE_MAX_BYTES = 1024 * 1024;

const HOW_TO_SET =
  "set the secret stack config `platform:token` or the PLATFORM_TOKEN environment variable, or use workload identity: " +
  "set `platform:identity` or PLATFORM_IDENTITY to the identity uid and put an OIDC token in PLATFORM_IDENTITY_TOKEN " +
  "or in a file named by PLATFORM_IDENTITY_TOKEN_FILE";

const RPC_CODE_NAMES: Record<number, string> = {
  0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
  7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE",
  12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
};

function given(v: string | undefined): v is string {
  return v !== undefined && v !== "";
}

/** `url` without user info, query or trailing slash, for messages; a redacted placeholder when it does not parse. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`.replace(/\/+$/, "");
  } catch {
    return "(not a URL)";
  }
}

function checkUrl(url: string, key: string, env: string): string {
  if (!/^https?:\/\/[^/\s]+/.test(url) || safeUrl(url) === "(not a URL)") {
    throw new CredentialError(`${key} / ${env} must be an http(s) URL such as https://console-api.example.dev`);
  }
  return url.replace(/\/+$/, "");
}

/**
 * Chooses the token source for `s`: a static source for an explicit `token`, otherwise a workload-identity
 * source that exchanges the OIDC token (`identityToken`, else the contents of `identityTokenFile`) for an API
 * token on demand. Nothing is requested or read until the first {@link TokenSource.getToken}.
 * @throws CredentialError when there is neither a token nor an identity with an OIDC token (the message names
 *   `platform:token` / PLATFORM_TOKEN, `platform:identity` / PLATFORM_IDENTITY, PLATFORM_IDENTITY_TOKEN and
 *   PLATFORM_IDENTITY_TOKEN_FILE), when `apiUrl` or `authUrl` is not an http(s) URL, or when
 *   `refreshBeforeSeconds` is negative or not finite.
 */
export function tokenSource(s: CredentialSettings): TokenSource {
  if (given(s.token)) return new StaticTokenSource(s.token);
  const hasOidc = given(s.identityToken) || given(s.identityTokenFile);
  if (!given(s.identity) && !hasOidc) throw new CredentialError(`no Platform API credentials: ${HOW_TO_SET}`);
  if (!given(s.identity)) {
    throw new CredentialError(
      `an OIDC token is configured (PLATFORM_IDENTITY_TOKEN or PLATFORM_IDENTITY_TOKEN_FILE) but no identity to assume: set \`platform:identity\` or PLATFORM_IDENTITY to the identity uid (or set the secret stack config \`platform:token\` / PLATFORM_TOKEN instead)`,
    );
  }
  if (!hasOidc) {
    throw new CredentialError(
      `workload identity ${s.identity} (platform:identity / PLATFORM_IDENTITY) has no OIDC token to exchange: set PLATFORM_IDENTITY_TOKEN or PLATFORM_IDENTITY_TOKEN_FILE (or set \`platform:token\` / PLATFORM_TOKEN instead)`,
    );
  }
  const apiUrl = checkUrl(s.apiUrl, "platform:apiUrl", "PLATFORM_API_URL");
  const authUrl = given(s.authUrl) ? checkUrl(s.authUrl, "platform:authUrl", "PLATFORM_AUTH_URL") : apiUrl;
  const refreshBeforeSeconds = s.refreshBeforeSeconds ?? DEFAULT_REFRESH_BEFORE_SECONDS;
  if (!Number.isFinite(refreshBeforeSeconds) || refreshBeforeSeconds < 0) {
    throw new CredentialError(`refreshBeforeSeconds must be a number of seconds >= 0, got ${String(refreshBeforeSeconds)}`);
  }
  const oidc: OidcSource = given(s.identityToken)
    ? { kind: "literal", token: s.identityToken }
    : { kind: "file", path: s.identityTokenFile as string };
  return new WorkloadIdentitySource({
    apiUrl,
    authUrl,
    identity: s.identity,
    oidc,
    refreshBeforeMs: refreshBeforeSeconds * 1000,
    dispatcher: s.dispatcher,
    now: s.now ?? Date.now,
  });
}

/** An explicit token: returned as it is, never refreshed, never requested. */
class StaticTokenSource implements TokenSource {
  constructor(private readonly token: string) {
    registerSecret(token);
  }
  getToken(): Promise<string> {
    return Promise.resolve(this.token);
  }
  describe(): string {
    return "static token";
  }
}

type OidcSource = { kind: "literal"; token: string } | { kind: "file"; path: string };

interface Cached {
  token: string;
  /** Local clock (ms) from which a refresh is due. */
  refreshAt: number;
  /** Local clock (ms) at which the token expires. */
  expiresAt: number;
}

interface WorkloadOptions {
  apiUrl: string;
  authUrl: string;
  identity: string;
  oidc: OidcSource;
  refreshBeforeMs: number;
  dispatcher: Dispatcher | undefined;
  now: () => number;
}

/** A failed exchange attempt and whether another attempt may succeed. */
class AttemptError extends Error {
  constructor(
    readonly error: TokenExchangeError,
    readonly retryable: boolean,
  ) {
    super(error.message);
  }
}

/** Workload identity: exchanges the OIDC token for an API token, caches it and refreshes it before expiry. */
class WorkloadIdentitySource implements TokenSource {
  private cached: Cached | undefined;
  private inflight: Promise<string> | undefined;
  private readonly where: string;

  constructor(private readonly o: WorkloadOptions) {
    this.where = `identity ${o.identity} at ${safeUrl(o.authUrl)}/sts/exchange`;
  }

  describe(): string {
    const from = this.o.oidc.kind === "file" ? `OIDC token from file ${this.o.oidc.path}` : "OIDC token given literally";
    return `workload identity ${this.o.identity} via ${safeUrl(this.o.authUrl)} (${from})`;
  }

  async getToken(): Promise<string> {
    const c = this.cached;
    if (c && this.o.now() < c.refreshAt) return c.token;
    // One exchange at a time: every caller that finds a refresh due shares the same promise.
    this.inflight ??= this.refresh().finally(() => {
      this.inflight = undefined;
    });
    try {
      return await this.inflight;
    } catch (err) {
      const still = this.cached;
      if (still && this.o.now() < still.expiresAt) return still.token;
      throw err;
    }
  }

  private async refresh(): Promise<string> {
    const oidcToken = await this.readOidcToken();
    registerSecret(oidcToken);
    const sentAt = this.o.now();
    const raw = await withRetry(() => this.exchangeOnce(oidcToken));
    registerSecret(raw.token);
    registerSecret(raw.refreshToken);
    registerSecret((raw as { refresh_token?: string })["refresh_token"]); // the spec's RawToken spelling
    this.cached = this.schedule(raw, sentAt);
    return raw.token;
  }

  /** The OIDC token: the literal one, or the file's current contents. */
  private async readOidcToken(): Promise<string> {
    if (this.o.oidc.kind === "literal") return this.o.oidc.token;
    const path = this.o.oidc.path;
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new TokenExchangeError(
        `token exchange for ${this.where}: cannot read the OIDC token file ${path} (PLATFORM_IDENTITY_TOKEN_FILE)${typeof code === "string" ? `: ${code}` : ""}`,
        { cause: err },
      );
    }
    const token = text.trim();
    if (token === "") throw new TokenExchangeError(`token exchange for ${this.where}: the OIDC token file ${path} (PLATFORM_IDENTITY_TOKEN_FILE) is empty`);
    return token;
  }

  /**
   * When to refresh and when the token expires, on the local clock. The token's `exp` is the expiry; when the
   * token also has `iat`, its lifetime `exp - iat` is counted from `sentAt` (when the request left), so a
   * server clock that differs from ours does not make tokens look fresh or stale. Fallbacks: the response's
   * `expiry`, then 55 minutes.
   */
  private schedule(raw: { token: string; expiry?: string | undefined }, sentAt: number): Cached {
    let expiresAt: number | undefined;
    try {
      const { exp, iat } = decodeJwt(raw.token);
      if (typeof exp === "number" && Number.isFinite(exp)) {
        expiresAt = typeof iat === "number" && Number.isFinite(iat) && iat <= exp ? sentAt + (exp - iat) * 1000 : exp * 1000;
      }
    } catch {
      // not a JWT: fall back to the response's expiry
    }
    if (expiresAt === undefined && raw.expiry !== undefined) {
      const t = Date.parse(raw.expiry);
      if (Number.isFinite(t)) expiresAt = t;
    }
    expiresAt ??= sentAt + DEFAULT_LIFETIME_MS;
    const lifetime = expiresAt - sentAt;
    const refreshAt = lifetime < 2 * this.o.refreshBeforeMs ? sentAt + lifetime / 2 : expiresAt - this.o.refreshBeforeMs;
    return { token: raw.token, refreshAt, expiresAt };
  }

  /** One exchange request. @throws AttemptError saying whether a retry may help. */
  private async exchangeOnce(oidcToken: string): Promise<{ token: string; expiry?: string | undefined; refreshToken?: string | undefined }> {
    const info: RequestInfo = { method: "GET", path: "/sts/exchange" };
    const qs = new URLSearchParams({ aud: this.o.apiUrl, identity: this.o.identity });
    let res: Dispatcher.ResponseData;
    let text: string;
    const limit = deadline(EXCHANGE_DEADLINE_MS);
    const read = { bytes: 0 };
    try {
      res = await request(`${this.o.authUrl}/sts/exchange?${qs}`, {
        method: "GET",
        headers: { authorization: `Bearer ${oidcToken}`, accept: "application/json", "user-agent": "platform-pulumi" },
        headersTimeout: EXCHANGE_TIMEOUT_MS,
        bodyTimeout: EXCHANGE_TIMEOUT_MS,
        signal: limit.signal,
        ...(this.o.dispatcher ? { dispatcher: this.o.dispatcher } : {}),
      });
      text = await readBody(res, info, EXCHANGE_MAX_BYTES, read);
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where} failed: ${err.message}`, { cause: err }), false);
      const conn = limit.signal.aborted ? new DeadlineExceededError(info, EXCHANGE_DEADLINE_MS, read.bytes, err) : new ConnectionError(info, err);
      throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where} failed: ${conn.message}`, { cause: conn }), true);
    } finally {
      limit.clear();
    }
    let json: unknown;
    try {
      json = parseBody(text, info, res.statusCode, undefined);
    } catch (err) {
      if (err instanceof ResponseTooDeepError) throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where} failed: ${err.message}`, { cause: err }), false);
      throw err;
    }
    const http = res.statusCode;
    if (http < 200 || http > 299) {
      const retryable = http >= 500 || http === 429;
      const st = Status.safeParse(json);
      if (!st.success) {
        throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where} failed: HTTP ${http} without a google.rpc.Status body`, { httpStatus: http }), retryable);
      }
      const { code, message } = st.data;
      const api = ApiError.from({ ...st.data, message: redact(message) }, http, info);
      const name = RPC_CODE_NAMES[code] ?? "code";
      throw new AttemptError(
        new TokenExchangeError(`token exchange for ${this.where} failed: HTTP ${http}, ${name} (code ${code}): ${printable(redact(message))}${hint(code)}`, {
          httpStatus: http,
          code,
          cause: api,
        }),
        retryable,
      );
    }
    const parsed = RawToken.safeParse(json);
    if (!parsed.success) {
      const why = json === undefined ? "body is not JSON" : parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where}: unexpected response (HTTP ${http}): ${printable(redact(why))}`, { httpStatus: http }), false);
    }
    if (parsed.data.token === "") {
      throw new AttemptError(new TokenExchangeError(`token exchange for ${this.where}: unexpected response (HTTP ${http}): token is empty`, { httpStatus: http }), false);
    }
    return parsed.data;
  }
}

/** What to check for a failure code, appended to the message. */
function hint(code: number): string {
  switch (code) {
    case 7:
      return " (check that platform:identity / PLATFORM_IDENTITY names an identity whose claimMatch accepts this OIDC token's issuer, subject and audience)";
    case 16:
      return " (check the OIDC token in PLATFORM_IDENTITY_TOKEN / PLATFORM_IDENTITY_TOKEN_FILE: it must be a current token from a trusted issuer)";
    default:
      return "";
  }
}

/**
 * Runs `attempt` up to {@link EXCHANGE_ATTEMPTS} times while it fails with a retryable {@link AttemptError},
 * sleeping a random 0..min(2 s, 200 ms * 2^n) between attempts (exponential backoff, full jitter).
 * @throws TokenExchangeError of the last attempt.
 */
async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  return retrying({
    attempt,
    next: (err, n) => {
      if (!(err instanceof AttemptError)) return undefined;
      if (!err.retryable || n + 1 >= EXCHANGE_ATTEMPTS) {
        if (n > 0 && err.retryable) {
          throw new TokenExchangeError(`${err.error.message} (after ${n + 1} attempts)`, {
            ...(err.error.httpStatus !== undefined ? { httpStatus: err.error.httpStatus } : {}),
            ...(err.error.code !== undefined ? { code: err.error.code } : {}),
            cause: err.error.cause,
          });
        }
        throw err.error;
      }
      return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** n);
    },
  });
}
