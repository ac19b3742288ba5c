/**
 * Creates that never duplicate, never take over another writer's object, and deletes that wait for children.
 *
 * The API has no idempotency key and names need not be unique (seed §2), so after a create whose outcome is
 * unknown (the connection broke, a transient code such as INTERNAL or UNAVAILABLE came back, a 5xx came without
 * a Status body, or a 2xx body could not be read) an object "like ours" under the parent may be ours, or another
 * writer's made in the same instant (two stacks creating same-named groups under one root took over
 * each other's objects). So a create must *prove* an object is its own before adopting it:
 *
 * - **Named kinds with a description** (groups, identities, roles, identity providers, account associations):
 *   the POST carries the declared description plus an ownership marker, `[pulumi-create:<createToken>]`, where
 *   `createToken` is 16 random hex characters that `check` put in the resource's inputs (so the engine also
 *   records it in the pending create operation of an interrupted update, where `platform-pulumi recover` reads
 *   it). Once the uid is known, one PATCH (`updateMask=description`) restores the declared description. After an
 *   ambiguous failure only a same-named child carrying this marker is adopted; no other writer can have made it.
 *   Cost: one PATCH per create (measured by `npm run bench`, see README "Performance").
 * - **Role bindings and group invites** have no free-text field: a candidate must match every field of the
 *   request and have been created inside the attempt's own time window, turned into server time with the clock
 *   offset from the server's `Date` header ({@link SERVER_WINDOW_SLACK_MS} of slack). A role binding in that
 *   window is adopted when it is the only one; a lost group invite is deleted and sent again (its code was only
 *   in the lost response). Two candidates are refused, naming them.
 *
 * **Identical siblings.** A program may declare several objects that no field tells apart (five invites of one
 * group, role, email and flag; five bindings of one identity and role at one group). Their lost copies all match
 * each other's recovery, so creates with the same {@link SafeCreate.key} (kind, parent and every field the
 * recovery matches) run their attempts one at a time in this process: the POST and, when its outcome is unknown,
 * the recovery that settles it, before the next sibling's POST. Every object a create of this process returned or
 * adopted is claimed in the provider context's ledger ({@link CreateLedger}) and never a candidate of another
 * recovery, so a recovery's candidates are its own attempt's copy, or another writer's. Other processes (another stack's `pulumi up`) are not serialized:
 * there the rules above hold as they are (README "Creates under faults").
 *
 * In every case, with no candidate nothing was created and the POST is sent again (up to the retry policy's
 * attempts); with PERMISSION_DENIED or NOT_FOUND on a parent this process created less than
 * {@link CONSISTENCY_WINDOW_MS} ago, the request was rejected while the service caught up and is sent again until
 * the window ends; any other error is final and nothing was created.
 *
 * Errors name the POST first: when the lookup after an ambiguous failure fails too, the POST's own
 * error is thrown, its message extended with what the lookup saw, so a create that cannot reach the API reads
 * `POST /iam/v2beta1/groups/<parent>: could not reach the Platform API: …`, never the lookup's GET.
 *
 * **Delete of a group.** FAILED_PRECONDITION `RESOURCE_NOT_EMPTY` is retried with jittered backoff until the
 * resource's delete timeout (its `customTimeouts.delete`, default {@link DEFAULT_DELETE_TIMEOUT_SECONDS}), so a
 * destroy succeeds when the engine deletes children in parallel (e.g. when a program wires them by plain
 * strings). When it gives up, the error lists the children left, by kind and uid.
 */
import { programLanguage, propertyLine, type ProgramLanguage } from "../programLanguage";
import { randomBytes } from "node:crypto";
import { ApiError, ConnectionError, FailedPreconditionError, ResponseShapeError, RpcCode } from "../client/errors";
import type { Collection, PlatformClient, Transport } from "../client/client";
import { RETRYABLE_CODES, backoffMs, retrying, type RetryDecision, type RetryPolicy } from "../client/retry";
import { logInfo } from "./common";
import type { GroupChildren, ObjectRow } from "./rows";

/** How long after this process created a group its children's PERMISSION_DENIED / NOT_FOUND are retried. */
export const CONSISTENCY_WINDOW_MS = 30_000;
/**
 * Slack around a create attempt's window when matching server `createTime`s: the `Date` header's one-second
 * resolution, plus request time on the wire.
 */
export const SERVER_WINDOW_SLACK_MS = 1_500;
/** Tolerance used instead of a measured offset when no response has carried a `Date` header yet. */
export const CLOCK_SKEW_MS = 120_000;
/** Default delete timeout of a group, in seconds (5 minutes). */
export const DEFAULT_DELETE_TIMEOUT_SECONDS = 300;

/**
 * What the creates of one provider context remember between calls (`docs/architecture.md`, "The provider
 * context"): the consistency windows of the groups they made, the objects they returned or adopted, and the turns
 * of identical creates. One per context (`ProviderContext.creates`); the plugin process has one context, so one
 * ledger per engine operation. Nothing here is shared between two ledgers.
 */
export class CreateLedger {
  /** Per group uid this context created, when (epoch ms): its consistency window. */
  private readonly recentlyCreated = new Map<string, number>();
  /** uids this context's creates returned or adopted: one entry per object created, for the context's life. */
  private readonly claimed = new Set<string>();
  /** Per key, the promise the next taker waits for (the last holder's or waiter's release); removed when none is left. */
  private readonly queues = new Map<string, Promise<void>>();

  /** Records that a create of this context just made `uid` (a group), opening its consistency window. */
  noteCreated(uid: string, now = Date.now()): void {
    this.recentlyCreated.set(uid, now);
    if (this.recentlyCreated.size > 10_000) {
      for (const [k, t] of this.recentlyCreated) if (now - t > CONSISTENCY_WINDOW_MS) this.recentlyCreated.delete(k);
    }
  }

  /** Whether `parentUid` was created by this context less than {@link CONSISTENCY_WINDOW_MS} before `now` (epoch ms). */
  inWindow(parentUid: string, now = Date.now()): boolean {
    const t = this.recentlyCreated.get(parentUid);
    return t !== undefined && now - t < CONSISTENCY_WINDOW_MS;
  }

  /**
   * Records that a create of this context returned or adopted `uid`: from now on no recovery through this ledger
   * counts it as a lost copy ({@link candidatesInWindow}, {@link recoverInWindow}).
   */
  claim(uid: string): void {
    this.claimed.add(uid);
  }

  /** Whether a create of this context returned or adopted `uid` (see {@link CreateLedger.claim}). */
  isClaimed(uid: string): boolean {
    return this.claimed.has(uid);
  }

  /**
   * Waits until no other holder of `key` in this context is ahead (first come, first served), and takes it.
   * @returns the release function; calling it again does nothing.
   */
  async acquire(key: string): Promise<() => void> {
    const ahead = this.queues.get(key) ?? Promise.resolve();
    let free!: () => void;
    const mine = new Promise<void>((resolve) => (free = resolve));
    const tail = ahead.then(() => mine);
    this.queues.set(key, tail);
    await ahead;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      free();
      if (this.queues.get(key) === tail) this.queues.delete(key);
    };
  }

  /** How many keys have holders or waiters (0 when no serialized create is under way). */
  keysHeld(): number {
    return this.queues.size;
  }
}

/** What a window-based recovery reads: the server's clock offset (the transport) and this context's claims. */
export interface RecoveryScope {
  /** The client's transport, for the server's clock offset. */
  transport: Pick<Transport, "serverClockOffsetMs">;
  /** The context's ledger: objects it claimed are never candidates. */
  creates: Pick<CreateLedger, "isClaimed">;
}

/** A fresh create token: 16 random lowercase hex characters (64 bits). `check` stores one per resource. */
export function newCreateToken(): string {
  return randomBytes(8).toString("hex");
}

/** Shape of a create token. */
export const CREATE_TOKEN = /^[0-9a-f]{16}$/;

/**
 * The create token of checked inputs (`createToken`, put there by the runtime's `check`), or a fresh one when the
 * inputs carry none (a provider method called directly, e.g. in unit tests).
 */
export function createTokenOf(inputs: object): string {
  const t = (inputs as { createToken?: unknown }).createToken;
  return typeof t === "string" && CREATE_TOKEN.test(t) ? t : newCreateToken();
}

const MARKER = /\s?\[pulumi-create:([0-9a-f]{16})\]$/;

/** The description a marked create sends: the declared one plus ` [pulumi-create:<token>]`. */
export function markDescription(description: string, token: string): string {
  return `${description}${description ? " " : ""}[pulumi-create:${token}]`;
}

/** The create token in a description's ownership marker, or undefined when it carries none. */
export function markerToken(description: string | undefined): string | undefined {
  return description === undefined ? undefined : MARKER.exec(description)?.[1];
}

/** A description without its ownership marker (unchanged when it carries none). */
export function stripMarker(description: string): string {
  return description.replace(MARKER, "");
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

/**
 * The range of server `createTime`s (epoch ms) an attempt that ran from `startedMs` to `endedMs` on this machine
 * could have produced: shifted by the server's clock offset, widened by {@link SERVER_WINDOW_SLACK_MS} (or by
 * {@link CLOCK_SKEW_MS} when no offset is known).
 */
export function serverWindow(transport: Pick<Transport, "serverClockOffsetMs">, startedMs: number, endedMs: number): { from: number; to: number } {
  const offset = transport.serverClockOffsetMs();
  const slack = offset === undefined ? CLOCK_SKEW_MS : SERVER_WINDOW_SLACK_MS;
  return { from: startedMs + (offset ?? 0) - slack, to: endedMs + (offset ?? 0) + slack };
}

/** Whether an RFC 3339 `createTime` lies inside a {@link serverWindow}; a missing or unreadable one does not. */
export function createdWithin(createTime: string | undefined, w: { from: number; to: number }): boolean {
  const t = createTime === undefined ? Number.NaN : Date.parse(createTime);
  return !Number.isNaN(t) && t >= w.from && t <= w.to;
}

/** What the outcome of one ambiguous attempt is, as a recovery strategy decides it. */
export type Recovery<T> = { adopt: T } | { retry: true };

/** What {@link createSafely} needs. */
export interface SafeCreate<T extends { uid: string }> {
  /** For messages, e.g. `group "platform"`. */
  what: string;
  /** The parent the object is created under. */
  parentUid: string;
  /** Sends the POST, once. */
  post(): Promise<T>;
  /**
   * Settles an ambiguous failure of the attempt that ran from `startedMs` to `endedMs` (this machine's clock):
   * adopt an object proven to be this attempt's, or report that nothing was created (after cleaning up what can
   * be proven to be a lost copy). Throws when it cannot tell, naming the candidates.
   */
  recover(startedMs: number, endedMs: number, err: unknown): Promise<Recovery<T>>;
  /**
   * Creates of this process with the same key run their attempts one at a time (POST, then the recovery of an
   * unknown outcome, before the next sibling's POST). Give it when the recovery cannot tell this create's object
   * from an identical sibling's: the kind, the parent and every field the recovery matches, e.g.
   * `GroupInvite <parent> <role> <email> <singleUse>`. Default: attempts are not serialized.
   */
  key?: string;
  /** Retry policy (attempts, backoff). */
  policy: RetryPolicy;
  /** Progress messages (retries, adoption); default: none. */
  log?: (message: string) => void;
  /** The provider context's ledger (`ProviderContext.creates`): windows, claims and turns of this context's creates. */
  creates: CreateLedger;
}

/**
 * Creates an object without ever leaving a duplicate or an orphan, and without adopting another writer's object
 * (see the module comment).
 * @throws the POST's own error when it is definite; the recovery's error when it cannot tell which object is
 *   this create's; the last error when the attempts run out.
 */
export async function createSafely<T extends { uid: string }>(c: SafeCreate<T>): Promise<T> {
  let started = 0;
  let release: (() => void) | undefined;
  const unlock = () => {
    release?.();
    release = undefined;
  };
  return retrying<T>({
    attempt: async () => {
      if (c.key !== undefined) release = await c.creates.acquire(c.key);
      started = Date.now();
      const made = await c.post();
      c.creates.claim(made.uid);
      unlock();
      return made;
    },
    next: async (err, attempt) => {
      try {
        return await settle(c, err, attempt, started);
      } finally {
        unlock(); // after the recovery, before any wait: a sibling's attempt runs while this one backs off
      }
    },
  });
}

/** What follows a failed attempt of {@link createSafely} (see the module comment). */
async function settle<T extends { uid: string }>(c: SafeCreate<T>, err: unknown, attempt: number, started: number): Promise<RetryDecision<T>> {
  const now = Date.now();
  const consistency = err instanceof ApiError && (err.code === RpcCode.PERMISSION_DENIED || err.code === RpcCode.NOT_FOUND) && c.creates.inWindow(c.parentUid, now);
  if (consistency) {
    const wait = backoffMs(c.policy, Math.min(attempt, 4));
    c.log?.(`${c.what}: parent ${c.parentUid} is new and not yet visible (${(err as ApiError).code}); retrying in ${wait} ms`);
    return wait; // the window, not the attempt count, bounds these retries
  }
  if (!isAmbiguous(err)) return undefined;
  let outcome: Recovery<T>;
  try {
    outcome = await c.recover(started, now, err);
  } catch (recoveryErr) {
    // A lookup that failed too: whether the POST created anything is unknown. Report the POST first, then what
    // the lookup saw. A refusal naming candidates is thrown as it is.
    if (recoveryErr instanceof ApiError || recoveryErr instanceof ConnectionError || recoveryErr instanceof ResponseShapeError) {
      throw withRecoveryNote(err as Error, c.what, recoveryErr);
    }
    throw recoveryErr;
  }
  if ("adopt" in outcome) {
    c.creates.claim(outcome.adopt.uid);
    c.log?.(`${c.what}: the create failed ambiguously (${(err as Error).message}); ${outcome.adopt.uid} is this create's object, adopted`);
    return { result: outcome.adopt };
  }
  if (attempt + 1 >= c.policy.maxAttempts) return undefined;
  const wait = backoffMs(c.policy, attempt);
  c.log?.(`${c.what}: the create failed ambiguously (${(err as Error).message}) and created nothing; sending it again in ${wait} ms`);
  return wait;
}

/** The candidates' uids for a refusal message, e.g. `a/b (created 2026-…), a/c (created …)`. */
function listed(rows: ReadonlyArray<{ uid: string; createTime?: string | undefined }>): string {
  return rows.map((r) => `${r.uid}${r.createTime ? ` (created ${r.createTime})` : ""}`).join(", ");
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
 * {@link createSafely} for a named object with a description under a parent (groups, identities, roles,
 * identity providers): the POST carries the ownership marker of `createToken`, a PATCH then restores the declared
 * description, and after an ambiguous failure only a same-named child carrying the marker is adopted. Copies of
 * this create made by attempts whose answers were lost carry the same marker: all but one are deleted.
 * @param kind for messages, e.g. `group`.
 * @param body the create body; its `description` is replaced by the marked one on the wire.
 * @param creates the provider context's ledger ({@link SafeCreate.creates}).
 * @returns the object with the declared description (or, when the restoring PATCH kept failing, with the marked
 *   one: the next `pulumi up` then PATCHes it, and the object is never orphaned).
 */
export async function createNamedSafely<T extends { uid: string; description?: string | undefined; createTime?: string | undefined }>(
  collection: Collection<T, object>,
  kind: string,
  parentUid: string,
  name: string,
  body: { description?: string | undefined; [field: string]: unknown },
  createToken: string,
  creates: CreateLedger,
  log?: (message: string) => void,
): Promise<T> {
  const declared = body.description ?? "";
  const what = `${kind} "${name}"`;
  const created = await createSafely<T>({
    what,
    parentUid,
    creates,
    policy: collection.retryPolicy,
    ...(log ? { log } : {}),
    post: () => collection.create(parentUid, { ...body, description: markDescription(declared, createToken) }),
    recover: async () => {
      const siblings = await collection.list({ childrenOf: parentUid, name, pageSize: 200 }).collect();
      const mine = siblings.filter((x) => markerToken(x.description) === createToken);
      if (mine.length === 0) return { retry: true };
      for (const extra of mine.slice(1)) {
        log?.(`${what}: ${extra.uid} is a second copy made by an attempt whose answer was lost (same create token); deleting it`);
        await collection.delete(extra.uid);
      }
      return { adopt: mine[0]! };
    },
  });
  return restoreDescription(collection, what, created, declared, log);
}

/**
 * PATCHes a freshly created object's description back from its marked form to `declared` (`updateMask=description`).
 * A PATCH that keeps failing is logged, and the marked object returned as it is (never thrown: the object exists
 * and must reach the state).
 */
export async function restoreDescription<T extends { uid: string; description?: string | undefined }>(
  collection: Collection<T, object>,
  what: string,
  created: T,
  declared: string,
  log?: (message: string) => void,
): Promise<T> {
  if (created.description === declared) return created;
  try {
    return await collection.patch(created.uid, { description: declared }, ["description"]);
  } catch (err) {
    log?.(`${what}: created as ${created.uid}, but restoring its description failed (${(err as Error).message}); the next \`pulumi up\` sets it`);
    return created;
  }
}

/**
 * The recovery of a kind with no free-text field (role bindings, group invites): the candidates that match every
 * field of the request and were created inside the attempt's server-time window, less those a create of this
 * context returned or adopted (`scope.creates`, {@link CreateLedger.isClaimed}).
 */
export async function candidatesInWindow<T extends { uid: string; createTime?: string | undefined }>(
  scope: RecoveryScope,
  startedMs: number,
  endedMs: number,
  all: () => Promise<T[]>,
): Promise<T[]> {
  const rows = await all(); // first, so the offset comes from this very response when none was known
  const w = serverWindow(scope.transport, startedMs, endedMs);
  return rows.filter((x) => !scope.creates.isClaimed(x.uid) && createdWithin(x.createTime, w));
}

/**
 * Settles an ambiguous role-binding-style create: one candidate in the window is adopted, none means nothing was
 * created, several are refused with their uids.
 * @throws Error naming the candidates and how to settle them (`adoptUid`, or delete the extra).
 */
export function adoptOnlyCandidate<T extends { uid: string; createTime?: string | undefined }>(what: string, parentUid: string, found: T[], err: unknown): Recovery<T> {
  if (found.length === 0) return { retry: true };
  if (found.length === 1) return { adopt: found[0]! };
  throw new Error(
    `${what}: the create failed ambiguously (${(err as Error).message}) and ${found.length} matching objects were created under ${parentUid} during the attempt: ${listed(found)}. ` +
      "Another writer may have made one of them, so none was adopted: declare the one to keep with adoptUid and delete the others, then run `pulumi up` again",
    { cause: err },
  );
}

/**
 * The recovery of a kind with no free-text field whose server may not date its objects (tags carry only an
 * `updateTime`; the OpenAPI lists no times for overlays, overlay bindings or subscriptions, which the emulator
 * adds): `matching` are the objects that match every field of the request. One dated inside the attempt's
 * server-time window is adopted; none at all means nothing was created; several in the window, or any match the
 * server does not date (so the window cannot clear it), are refused, naming them.
 * @param time the server time that dates an object's creation (`createTime`, or a tag's `updateTime`).
 * @throws Error naming the candidates and how to settle them.
 */
export async function recoverInWindow<T extends { uid: string }>(
  what: string,
  parentUid: string,
  scope: RecoveryScope,
  startedMs: number,
  endedMs: number,
  err: unknown,
  matching: () => Promise<T[]>,
  time: (x: T) => string | undefined = (x) => (x as { createTime?: string | undefined }).createTime,
): Promise<Recovery<T>> {
  const rows = (await matching()).filter((x) => !scope.creates.isClaimed(x.uid)); // first, so the offset comes from this very response when none was known
  const undated = rows.filter((x) => !time(x));
  if (undated.length > 0) {
    throw new Error(
      `${what}: the create failed ambiguously (${(err as Error).message}) and ${rows.length} matching object(s) exist under ${parentUid} (${rows.map((x) => x.uid).join(", ")}); ` +
        "the API does not say when they were made, so whether one is this create's cannot be proven and none was adopted: declare the one to keep with adoptUid (or delete the one this create made), then run `pulumi up` again",
      { cause: err },
    );
  }
  const w = serverWindow(scope.transport, startedMs, endedMs);
  return adoptOnlyCandidate(what, parentUid, rows.filter((x) => createdWithin(time(x), w)) as Array<T & { createTime?: string | undefined }>, err);
}

/** What {@link createProvedInWindow} needs besides the context: a {@link SafeCreate} whose recovery is {@link recoverInWindow}. */
export interface WindowCreate<T extends { uid: string }> extends Omit<SafeCreate<T>, "recover" | "policy" | "creates" | "log"> {
  /** The parent's objects that match every field of the request (see {@link recoverInWindow}). */
  matching: () => Promise<T[]>;
  /** The server time that dates an object's creation; default its `createTime` (see {@link recoverInWindow}). */
  time?: (x: T) => string | undefined;
}

/**
 * {@link createSafely} in the provider context `ctx` (its ledger, its client's retry policy, progress to the
 * engine's log) and, after an ambiguous failure, {@link recoverInWindow} over `c.matching`: the create of a kind
 * that proves its object by the server-time window.
 * @throws as {@link createSafely} and {@link recoverInWindow} do.
 */
export function createProvedInWindow<T extends { uid: string }>(
  ctx: { creates: CreateLedger; client(): { transport: Pick<Transport, "retry" | "serverClockOffsetMs"> } },
  c: WindowCreate<T>,
): Promise<T> {
  const { matching, time, ...rest } = c;
  const transport = ctx.client().transport;
  const scope = { transport, creates: ctx.creates };
  return createSafely({
    ...rest,
    creates: ctx.creates,
    policy: transport.retry,
    log: logInfo,
    recover: (started, ended, err) => recoverInWindow(c.what, c.parentUid, scope, started, ended, err, matching, time),
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

/** One object still under a group whose delete it blocks. */
export type BlockingChild = ObjectRow;

/**
 * The objects directly under a group that keep it from being deleted, by kind (`children.blocking`: the
 * registry's `blocksGroupDelete` kinds), at most 50 of each. A kind this identity may not list is left out.
 */
export async function listChildren(client: PlatformClient, groupUid: string, children: GroupChildren): Promise<BlockingChild[]> {
  const out: BlockingChild[] = [];
  for (const [, list] of children.blocking) {
    try {
      out.push(...(await list(client, { childrenOf: groupUid, pageSize: 200 }, 50)));
    } catch {
      // A kind the caller may not list is left out of the description.
    }
  }
  return out;
}

/**
 * A group's path from the root by names, e.g. `/engineering/platform` (the root itself is `/`), from one List of
 * its ancestors; the uid when that List fails.
 */
export async function groupPath(client: PlatformClient, groupUid: string): Promise<string> {
  try {
    const byUid = new Map((await client.groups.list({ ancestorsOf: groupUid, pageSize: 200 }).collect()).map((g) => [g.uid, g.name]));
    byUid.set(groupUid, (await client.groups.get(groupUid)).name);
    const segments = groupUid.split("/");
    // The root group's own name is not part of a path: `/` is the root.
    const names = segments.slice(1).map((_, i) => byUid.get(segments.slice(0, i + 2).join("/")) ?? segments[i + 1]!);
    return `/${names.join("/")}`;
  } catch {
    return groupUid;
  }
}

/**
 * The children still under a group, one per line with kind, name, path and uid, e.g.
 * `Group "legacy" (/team/legacy, uid <uid>)`; `(none visible to this identity)` when there are none.
 * @param kinds the kinds a group holds (the registry's `groupChildren()`).
 */
export async function describeChildren(client: PlatformClient, groupUid: string, kinds: GroupChildren): Promise<string> {
  const children = await listChildren(client, groupUid, kinds);
  if (children.length === 0) return "(none visible to this identity)";
  const path = await groupPath(client, groupUid);
  const under = path === "/" ? "" : path;
  return children.map((c) => `${c.kind} ${JSON.stringify(c.name)} (${kinds.containers.has(c.kind) ? `${under}/${c.name}` : `in ${path}`}, uid ${c.uid})`).join("; ");
}

/**
 * What to do about children that block a group's delete, with the adopt hint spelled for `lang` (default: the
 * language of the project in this process's folder, where the engine starts the provider).
 */
export function howToSettle(lang: ProgramLanguage = programLanguage()): string {
  return (
    `Declare each in the program to manage it (\`${propertyLine(lang, "adoptUid", "<uid>")}\` adopts the existing object, and \`pulumi destroy\` then deletes it with the group), ` +
    "or delete it outside Pulumi; then run `pulumi destroy` again. `platform-pulumi unmanaged --stack <stack>` lists every object no stack manages, with the line that adopts it"
  );
}

/** How long the children blocking a group's delete may stay exactly the same before the delete gives up (ms). */
export const DEFAULT_STALL_MS = 30_000;

/**
 * Deletes a group, waiting out RESOURCE_NOT_EMPTY while its children are being deleted (by this destroy, in
 * parallel, or by anyone else). NOT_FOUND is success. It gives up early when the children left have not changed
 * for `stallMs` (default {@link DEFAULT_STALL_MS}): nothing is removing them, so waiting longer only delays the
 * error. It logs one line when it starts waiting and one whenever the children change, not one per retry.
 * @param timeoutSeconds the longest wait in all (the group's `customTimeouts.delete`).
 * @param kinds the kinds a group holds (the registry's `groupChildren()`, through the provider context).
 * @throws Error naming each child left by kind, name, path and uid, and how to adopt or delete it, when the
 *   timeout passes or the children stall; any other error at once.
 */
export async function deleteGroupPatiently(
  client: PlatformClient,
  uid: string,
  timeoutSeconds: number,
  policy: RetryPolicy,
  kinds: GroupChildren,
  log?: (m: string) => void,
  stallMs = DEFAULT_STALL_MS,
): Promise<void> {
  const started = Date.now();
  const deadline = started + timeoutSeconds * 1000;
  let seen: string | undefined; // the children's uids at the last look
  let changedAt = started;
  const giveUp = async (why: string, err: unknown): Promise<never> => {
    const [left, path] = await Promise.all([describeChildren(client, uid, kinds), groupPath(client, uid)]);
    throw new Error(`group ${path} (uid ${uid}) could not be deleted ${why} because it is not empty; children left: ${left}. ${howToSettle()}`, { cause: err });
  };
  await retrying<void>({
    attempt: async () => {
      try {
        await client.groups.delete(uid);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === RpcCode.NOT_FOUND)) throw err;
      }
    },
    next: async (err, attempt) => {
      const notEmpty = err instanceof FailedPreconditionError && (err.reason === "RESOURCE_NOT_EMPTY" || err.preconditionViolations.some((v) => v.type === "RESOURCE_NOT_EMPTY"));
      if (!notEmpty) return undefined;
      const wait = Math.max(100, backoffMs({ ...policy, maxDelayMs: Math.max(policy.maxDelayMs, 5000) }, Math.min(attempt, 6)));
      if (Date.now() + wait > deadline) return giveUp(`within ${timeoutSeconds}s`, err);
      const now = (await listChildren(client, uid, kinds)).map((c) => c.uid).sort().join(",");
      if (now !== seen) {
        if (seen === undefined) log?.(`group ${uid} is not empty yet; waiting while its children are deleted (at most ${timeoutSeconds}s)`);
        else log?.(`group ${uid}: children left changed; still waiting`);
        seen = now;
        changedAt = Date.now();
      } else if (Date.now() - changedAt >= stallMs) {
        return giveUp(`after its children stayed the same for ${Math.round((Date.now() - changedAt) / 1000)}s`, err);
      }
      return wait;
    },
  });
}
