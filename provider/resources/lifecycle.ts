/**
 * Creates that never duplicate or orphan, and deletes that wait for children.
 *
 * **Create.** A POST is never retried blindly. When it fails:
 * - with PERMISSION_DENIED or NOT_FOUND on a parent this process created less than
 *   {@link CONSISTENCY_WINDOW_MS} ago, the request was rejected (nothing was created) while the service caught
 *   up: it is sent again with backoff until the window ends;
 * - ambiguously (the connection broke, a transient code such as INTERNAL or UNAVAILABLE came back, a 5xx came
 *   without a Status body, or a 2xx body could not be read), the object may exist: objects of that kind under the parent that match the request and were
 *   created since the attempt began (less {@link CLOCK_SKEW_MS}) are looked up. One match is adopted as the
 *   result; several fail with their uids listed; none means nothing was created, and the POST is sent again
 *   (up to the retry policy's attempts);
 * - otherwise the error is final and nothing was created.
 *
 * Errors name the POST first (issue 9): when the lookup after an ambiguous failure fails too, the POST's own
 * error is thrown, its message extended with what the lookup saw, so a create that cannot reach the API reads
 * `POST /iam/v2beta1/groups/<parent>: could not reach the Platform API: …`, never the lookup's GET.
 *
 * **Delete of a group.** FAILED_PRECONDITION `RESOURCE_NOT_EMPTY` is retried with jittered backoff until the
 * resource's delete timeout (its `customTimeouts.delete`, default {@link DEFAULT_DELETE_TIMEOUT_SECONDS}), so a
 * destroy succeeds when the engine deletes children in parallel (e.g. when a program wires them by plain
 * strings). When it gives up, the error lists the children left, by kind and uid.
 */
import { ApiError, ConnectionError, FailedPreconditionError, ResponseShapeError, RpcCode } from "../client/errors";
import type { Collection, PlatformClient } from "../client/client";
import { RETRYABLE_CODES, backoffMs, sleep, type RetryPolicy } from "../client/retry";

/** How long after this process created a group its children's PERMISSION_DENIED / NOT_FOUND are retried. */
export const CONSISTENCY_WINDOW_MS = 30_000;
/** Tolerance between this machine's clock and the server's when matching `createTime`. */
export const CLOCK_SKEW_MS = 120_000;
/** Default delete timeout of a group, in seconds (5 minutes). */
export const DEFAULT_DELETE_TIMEOUT_SECONDS = 300;

const recentlyCreated = new Map<string, number>();

/** Records that this process just created `uid` (a group), opening its consistency window. */
export function noteCreated(uid: string, now = Date.now()): void {
  recentlyCreated.set(uid, now);
  if (recentlyCreated.size > 10_000) {
    for (const [k, t] of recentlyCreated) if (now - t > CONSISTENCY_WINDOW_MS) recentlyCreated.delete(k);
  }
}

function inWindow(parentUid: string, now: number): boolean {
  const t = recentlyCreated.get(parentUid);
  return t !== undefined && now - t < CONSISTENCY_WINDOW_MS;
}

/**
 * Whether a failed create may nevertheless have created the object: the connection broke, the body could not be
 * read, the server answered a transient code (INTERNAL, UNKNOWN, UNAVAILABLE, DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED: it may have failed after committing), or a 5xx came without a Status body.
 */
export function isAmbiguous(err: unknown): boolean {
  if (err instanceof ConnectionError || err instanceof ResponseShapeError) return true;
  if (!(err instanceof ApiError)) return false;
  if (RETRYABLE_CODES.has(err.code)) return true;
  return !err.hasStatusBody && err.httpStatus >= 500;
}

/** What {@link createSafely} needs. */
export interface SafeCreate<T extends { uid: string; createTime?: string | undefined }> {
  /** For messages, e.g. `group "platform"`. */
  what: string;
  /** The parent the object is created under. */
  parentUid: string;
  /** Sends the POST, once. */
  post(): Promise<T>;
  /** Objects under the parent that match the request (same name, or same identity and role, …). */
  candidates(): Promise<T[]>;
  /** Retry policy (attempts, backoff). */
  policy: RetryPolicy;
  /** Progress messages (retries, adoption); default: none. */
  log?: (message: string) => void;
}

/**
 * Creates an object without ever leaving a duplicate or an orphan (see the module comment).
 * @throws the POST's own error when it is definite; an Error listing the uids when an ambiguous failure left
 *   several candidates; the last error when the attempts run out.
 */
export async function createSafely<T extends { uid: string; createTime?: string | undefined }>(c: SafeCreate<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      return await c.post();
    } catch (err) {
      const now = Date.now();
      const consistency = err instanceof ApiError && (err.code === RpcCode.PERMISSION_DENIED || err.code === RpcCode.NOT_FOUND) && inWindow(c.parentUid, now);
      if (consistency) {
        const wait = backoffMs(c.policy, Math.min(attempt, 4));
        c.log?.(`${c.what}: parent ${c.parentUid} is new and not yet visible (${(err as ApiError).code}); retrying in ${wait} ms`);
        await sleep(wait); // the window, not the attempt count, bounds these retries
        continue;
      }
      if (!isAmbiguous(err)) throw err;
      const since = started - CLOCK_SKEW_MS;
      let candidates: T[];
      try {
        candidates = await c.candidates();
      } catch (lookupErr) {
        // Whether the POST created anything is unknown: stop, reporting the POST and then what the lookup saw.
        throw withRecoveryNote(err as Error, c.what, lookupErr);
      }
      const found = candidates.filter((x) => !x.createTime || Date.parse(x.createTime) >= since);
      if (found.length === 1) {
        c.log?.(`${c.what}: the create failed ambiguously (${(err as Error).message}); adopted ${found[0]!.uid}, created by that attempt`);
        return found[0]!;
      }
      if (found.length > 1) {
        throw new Error(
          `${c.what}: the create failed ambiguously (${(err as Error).message}) and ${found.length} matching objects created since the attempt exist under ${c.parentUid}: ${found.map((x) => x.uid).join(", ")}; adopt one with adoptUid and delete the others`,
          { cause: err },
        );
      }
      if (attempt + 1 >= c.policy.maxAttempts) throw err;
      const wait = backoffMs(c.policy, attempt);
      c.log?.(`${c.what}: the create failed ambiguously (${(err as Error).message}) and created nothing; sending it again in ${wait} ms`);
      await sleep(wait);
    }
  }
}

/**
 * `postErr` with its message extended by the failed recovery lookup; the POST's own error (class, request,
 * cause) is kept so callers can still tell a connection failure from an API error.
 */
function withRecoveryNote(postErr: Error, what: string, lookupErr: unknown): Error {
  const first = postErr.message;
  const saw = lookupErr instanceof Error ? lookupErr.message : String(lookupErr);
  postErr.message =
    `${postErr.message}; creating ${what}: whether that request created it is unknown, because looking for it afterwards failed too ` +
    `(${saw}); before running again, look under the parent for one made by it and take it over with adoptUid`;
  // The stack's first line is the message as it was when the error was made: keep the two in step.
  if (postErr.stack?.startsWith(`${postErr.name}: ${first}`)) postErr.stack = `${postErr.name}: ${postErr.message}${postErr.stack.slice(postErr.name.length + 2 + first.length)}`;
  return postErr;
}

/**
 * {@link createSafely} for an object with a name under a parent (groups, identities, roles, identity providers):
 * the candidates after an ambiguous failure are the parent's children with that exact name.
 * @param kind for messages, e.g. `group`.
 */
export function createNamedSafely<T extends { uid: string; createTime?: string | undefined }>(
  collection: Collection<T, object>,
  kind: string,
  parentUid: string,
  name: string,
  body: object,
  log?: (message: string) => void,
): Promise<T> {
  return createSafely({
    what: `${kind} "${name}"`,
    parentUid,
    policy: collection.retryPolicy,
    ...(log ? { log } : {}),
    post: () => collection.create(parentUid, body),
    candidates: () => collection.list({ childrenOf: parentUid, name, pageSize: 200 }).collect(),
  });
}

/** Parses a Pulumi custom timeout (`"5m"`, `"30s"`, `"1h30m"`, `"90"` seconds) to seconds, or undefined. */
export function parseTimeout(v: unknown): number | undefined {
  if (typeof v === "number" && v > 0) return v;
  if (typeof v !== "string" || v.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(h|m|s|ms)/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(v)) !== null) {
    total += Number(m[1]) * ({ h: 3600, m: 60, s: 1, ms: 0.001 } as const)[m[2] as "h" | "m" | "s" | "ms"];
    consumed += m[0].length;
  }
  return consumed === v.replace(/\s/g, "").length && total > 0 ? total : undefined;
}

/** The children still under a group, by kind, e.g. `groups: <uid>, <uid>; identities: <uid>`. */
export async function describeChildren(client: PlatformClient, groupUid: string): Promise<string> {
  const kinds = [
    ["groups", client.groups],
    ["identities", client.identities],
    ["roleBindings", client.roleBindings],
    ["identityProviders", client.identityProviders],
    ["groupInvites", client.groupInvites],
    ["repos", client.repos],
  ] as const;
  const parts: string[] = [];
  for (const [kind, coll] of kinds) {
    try {
      const rows = await coll.list({ childrenOf: groupUid, pageSize: 200 }).collect(50);
      if (rows.length > 0) parts.push(`${kind}: ${rows.map((r) => r.uid).join(", ")}`);
    } catch {
      // A kind the caller may not list is left out of the description.
    }
  }
  return parts.length > 0 ? parts.join("; ") : "(none visible to this identity)";
}

/**
 * Deletes a group, waiting out RESOURCE_NOT_EMPTY until `timeoutSeconds` have passed. NOT_FOUND is success.
 * @throws FailedPreconditionError, extended with the children left by kind and uid, when the timeout passes;
 *   any other error at once.
 */
export async function deleteGroupPatiently(client: PlatformClient, uid: string, timeoutSeconds: number, policy: RetryPolicy, log?: (m: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (let attempt = 0; ; attempt++) {
    try {
      await client.groups.delete(uid);
      return;
    } catch (err) {
      if (err instanceof ApiError && err.code === RpcCode.NOT_FOUND) return;
      const notEmpty = err instanceof FailedPreconditionError && (err.reason === "RESOURCE_NOT_EMPTY" || err.preconditionViolations.some((v) => v.type === "RESOURCE_NOT_EMPTY"));
      if (!notEmpty) throw err;
      const wait = Math.max(100, backoffMs({ ...policy, maxDelayMs: Math.max(policy.maxDelayMs, 5000) }, Math.min(attempt, 6)));
      if (Date.now() + wait > deadline) {
        const left = await describeChildren(client, uid);
        throw new Error(`group ${uid} could not be deleted within ${timeoutSeconds}s because it is not empty; children left: ${left}`, { cause: err });
      }
      log?.(`group ${uid} is not empty yet (${err.message}); retrying delete in ${wait} ms`);
      await sleep(wait);
    }
  }
}
