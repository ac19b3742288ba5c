/**
 * The client's one retry policy.
 *
 * - **What**: GET, PATCH and DELETE (idempotent here: a PATCH carries the full values of its mask). POST is never
 *   retried by this layer; creates have their own ambiguity handling (`resources/create.ts`).
 * - **When**: google.rpc codes UNAVAILABLE (14), RESOURCE_EXHAUSTED (8), DEADLINE_EXCEEDED (4), INTERNAL (13) and
 *   UNKNOWN (2); HTTP 429, 502, 503 and 504 without a Status body (mapped to those codes); and connection
 *   failures (resets, refused, timeouts).
 * - **How long**: exponential backoff with full jitter: attempt n waits a uniform random time in
 *   [0, min(maxDelayMs, baseDelayMs · 2^n)]; a `Retry-After` header replaces that wait, capped at
 *   `retryAfterCapMs`. At most `maxAttempts` attempts in all.
 *
 * Defaults are stated on {@link RetryPolicy}; stack config `platform:retryMaxAttempts`,
 * `platform:retryBaseDelayMs`, `platform:retryMaxDelayMs` (or `PLATFORM_RETRY_*`) change them.
 *
 * Every retry loop in the package runs on {@link retrying}: the transport (this policy), the token exchange
 * (`credentials.ts`), create recovery and the patient group delete (`engine/lifecycle.ts`). Each says in its
 * `next` which failures are worth another attempt and how long to wait.
 */
import { ApiError, ConnectionError, RpcCode } from "./errors";

/** Retry settings. */
export interface RetryPolicy {
  /** Attempts in all, the first included. @default 5 */
  maxAttempts: number;
  /** Backoff base in milliseconds. @default 250 */
  baseDelayMs: number;
  /** Backoff cap in milliseconds. @default 8000 */
  maxDelayMs: number;
  /** Cap on a server's Retry-After, in milliseconds. @default 30000 */
  retryAfterCapMs: number;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8000, retryAfterCapMs: 30_000 };

/** google.rpc codes that are worth retrying for an idempotent request. */
export const RETRYABLE_CODES: ReadonlySet<number> = new Set([
  RpcCode.UNAVAILABLE,
  RpcCode.RESOURCE_EXHAUSTED,
  RpcCode.DEADLINE_EXCEEDED,
  RpcCode.INTERNAL,
  RpcCode.UNKNOWN,
]);

/** Methods this layer retries. */
export const RETRYABLE_METHODS: ReadonlySet<string> = new Set(["GET", "PATCH", "DELETE"]);

/** Whether `err` is a transient failure (retryable code, or the connection failed). */
export function isTransient(err: unknown): boolean {
  if (err instanceof ConnectionError) return true;
  return err instanceof ApiError && RETRYABLE_CODES.has(err.code);
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 0): full jitter, or the server's Retry-After.
 * @param random a uniform draw in [0, 1); default Math.random.
 */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, policy.retryAfterCapMs);
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt));
}

/** Parses a Retry-After header (delay-seconds or an HTTP date) to milliseconds from `now`, or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What a retry loop's `next` decides after a failed attempt: wait this many milliseconds and try again; stop and
 * throw the attempt's error (`undefined`); or finish with a result after all (`{ result }`, e.g. a create whose
 * lost answer was recovered). To fail with another error, `next` throws it.
 */
export type RetryDecision<T> = number | undefined | { result: T };

/** One retry loop: the attempt, and the decision after each failure. */
export interface RetryLoop<T> {
  /** Runs attempt `n` (from 0). */
  attempt(n: number): Promise<T>;
  /** Decides what follows the failure `err` of attempt `n` (see {@link RetryDecision}); may be async. */
  next(err: unknown, n: number): RetryDecision<T> | Promise<RetryDecision<T>>;
}

/**
 * Runs `loop.attempt` until it succeeds or `loop.next` stops it.
 * @returns the first successful attempt's result, or the `{ result }` a `next` gave.
 * @throws the failing attempt's error when `next` returns undefined; whatever `next` throws.
 * @example
 * ```ts
 * await retrying({ attempt: () => get(uid), next: (err, n) => (isTransient(err) && n < 4 ? backoffMs(policy, n) : undefined) });
 * ```
 */
export async function retrying<T>(loop: RetryLoop<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await loop.attempt(n);
    } catch (err) {
      const decision = await loop.next(err, n);
      if (decision === undefined) throw err;
      if (typeof decision === "object") return decision.result;
      await sleep(decision);
    }
  }
}
