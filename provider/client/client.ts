/**
 * A typed client for the Platform API v2 on undici.
 *
 * - Paths are `/<api>/<version>/<collection>[/<uid>]`; a uid goes into the path with its slashes as they are
 *   (contract: the server route is `{uid=**}`; never percent-encode).
 * - List parameters are sent in one form, the seed's snake_case.
 * - Errors are typed from the body's google.rpc.Status `code` ({@link ApiError.from}); connection failures
 *   are {@link ConnectionError}; bodies that do not match the schema are {@link ResponseShapeError}.
 * - Responses are parsed with zod, tolerant of unknown fields.
 *
 * @example
 * ```ts
 * const client = new PlatformClient({ apiUrl: "http://127.0.0.1:8080", token: process.env.PLATFORM_TOKEN! });
 * const team = await client.groups.create(orgUid, { name: "platform", description: "Platform team" });
 * for await (const g of client.groups.list({ childrenOf: orgUid })) console.log(g.uid, g.name);
 * ```
 */
import type { Dispatcher } from "undici";
import { Agent, deadline, parseBody, readBody, request } from "./http";
import { ApiError, ConnectionError, DeadlineExceededError, ResponseShapeError, ResponseTooLargeError, RpcCode, type RequestInfo } from "./errors";
import { registerSecret } from "./secrets";
import { printable } from "../text";
import { DEFAULT_RETRY, RETRYABLE_METHODS, backoffMs, isTransient, parseRetryAfter, retrying, type RetryPolicy } from "./retry";
import { DEFAULT_MAX_PAGES, DEFAULT_MAX_WALK_BYTES, Paginator, type ListParams, type OnPageBytes, type Page, type WalkLedger } from "./pagination";

/** Default total deadline of one request, in milliseconds (2 minutes). */
export const DEFAULT_DEADLINE_MS = 120_000;
/** Default cap on a response body, in bytes (32 MiB: a full List page of 200 rows is well under 1 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
import * as S from "./schemas";
import type * as Api from "./types";
import type { Parser } from "./types";

/** Options for {@link PlatformClient}. */
/** A count of writes that the transports sharing it keep (see {@link Transport.writeEpoch}). */
export interface WriteCounter {
  /** Goes up by one when a write starts and again when it ends. */
  value: number;
}

/**
 * The write counter of transports given none: one per process, so that a write through any client of the process
 * moves every client's epoch (`platform-pulumi recover` writes through its own client and reads through the
 * provider's). A transport given its own counter sees only the writes of the transports sharing it.
 */
export const PROCESS_WRITES: WriteCounter = { value: 0 };

export interface ClientOptions {
  /** Base URL of the API, e.g. `https://console-api.example.dev` or `http://127.0.0.1:8080`. */
  apiUrl: string;
  /** The write counter this client's transport keeps (see {@link Transport.writeEpoch}); default {@link PROCESS_WRITES}. */
  writeCounter?: WriteCounter;
  /** Bearer token, or a function returning one (called before every request; cache inside it). */
  token: string | (() => string | Promise<string>);
  /** Version path segment; `v2beta1` (default) or `v2` for the GA paths. */
  apiVersion?: string;
  /**
   * Idle timeout, in milliseconds: the most time waiting for the headers, or between two chunks of the body;
   * default 30000. A body dripped faster than this never trips it: {@link deadlineMs} bounds the whole request.
   */
  timeoutMs?: number;
  /**
   * Total deadline of one request (attempt), in milliseconds, from sending to the last byte of the body;
   * default {@link DEFAULT_DEADLINE_MS}. Past it the request is aborted with a DeadlineExceededError.
   */
  deadlineMs?: number;
  /**
   * Most bytes of a response body the client reads; default {@link DEFAULT_MAX_RESPONSE_BYTES}. A larger body
   * (announced by `content-length` or counted as it arrives) is not read further: ResponseTooLargeError.
   */
  maxResponseBytes?: number;
  /** Most pages one walk of a List reads; default {@link DEFAULT_MAX_PAGES} (see `pagination.ts`). */
  maxPages?: number;
  /**
   * Most bytes of List page bodies the client's walks in progress hold together; default
   * {@link DEFAULT_MAX_WALK_BYTES} (256 MiB). Past it a walk stops with a ListingTooLargeError before parsing
   * the page over it. With {@link walkBytesPerCommand}, the bytes of walks that ended count too.
   */
  maxWalkBytes?: number;
  /**
   * Count every List page this client reads against {@link maxWalkBytes} until it is closed, not only the
   * walks in progress: for a command that keeps every row it listed (the export, `unmanaged`); default false.
   */
  walkBytesPerCommand?: boolean;
  /** undici dispatcher to use; default a keep-alive Agent owned by this client. */
  dispatcher?: Dispatcher;
  /** User-Agent header; default `platform-pulumi`. */
  userAgent?: string;
  /** Retry policy for GET, PATCH and DELETE; unset fields keep {@link DEFAULT_RETRY}'s values. */
  retry?: Partial<RetryPolicy>;
  /** Called before each retry (for logs and progress); never receives a credential. */
  onRetry?: (info: RetryInfo) => void;
}

/** What {@link ClientOptions.onRetry} is told before a retry. */
export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Wait before the next attempt, in milliseconds. */
  delayMs: number;
  /** Why the attempt failed (redacted). */
  reason: string;
}

type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

interface RequestOptions {
  query?: Record<string, string | number | readonly string[] | undefined>;
  body?: unknown;
  /** Told the size of a 2xx body before it is parsed; may throw to refuse it (a List walk's byte budget). */
  onBody?: OnPageBytes | undefined;
}

const UID_SAFE = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * Checks that `uid` can go into a path unencoded: no `.` or `..` segment (URL normalisation would make the path
 * address the parent, or the collection: `groups/<org>/.` is `groups/<org>/`), no query or fragment characters.
 */
function pathUid(uid: string, what: string): string {
  if (!UID_SAFE.test(uid) || uid.split("/").some((seg) => seg === "." || seg === "..")) {
    throw new TypeError(`${what} ${printable(JSON.stringify(uid))} is not a valid uid (segments of letters, digits, ".", "_" or "-" joined by "/", none of them "." or "..")`);
  }
  return uid;
}

/** Maps an HTTP status to a google.rpc.Code when a response carries no Status body (gateway mapping, reversed). */
function codeFromHttp(status: number): number {
  switch (status) {
    case 400: return RpcCode.INVALID_ARGUMENT;
    case 401: return RpcCode.UNAUTHENTICATED;
    case 403: return RpcCode.PERMISSION_DENIED;
    case 404: return RpcCode.NOT_FOUND;
    case 409: return RpcCode.ABORTED;
    case 429: return RpcCode.RESOURCE_EXHAUSTED;
    case 502:
    case 503:
    case 504: return RpcCode.UNAVAILABLE;
    default: return RpcCode.UNKNOWN;
  }
}

/** The low-level transport: one request, typed result or typed error. */
export class Transport {
  readonly apiUrl: string;
  /** The write counter this transport keeps (see {@link Transport.writeEpoch}). */
  private readonly writes: WriteCounter;
  readonly apiVersion: string;
  private readonly token: () => string | Promise<string>;
  private readonly staticToken: string | undefined;
  private readonly baseHeaders: Record<string, string>;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly deadlineMs: number;
  private readonly maxResponseBytes: number;
  /** Most pages one walk of a List reads. */
  readonly maxPages: number;
  /** Most bytes of List page bodies the walks counted in {@link walkLedger} hold. */
  readonly maxWalkBytes: number;
  /** Page bytes held by this transport's walks (see `pagination.ts`, WalkLedger). */
  readonly walkLedger: WalkLedger;
  private readonly userAgent: string;
  /** The retry policy in force. */
  readonly retry: RetryPolicy;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  /** The newest response's `Date` header and this machine's clock when it arrived (for {@link serverClockOffsetMs}). */
  private lastDate: { header: string; localMs: number } | undefined;

  constructor(opts: ClientOptions) {
    if (!/^https?:\/\/[^/]+/.test(opts.apiUrl)) {
      throw new TypeError(`apiUrl must be an http(s) URL like https://api.example.dev, got "${opts.apiUrl}"`);
    }
    this.apiUrl = opts.apiUrl.replace(/\/+$/, "");
    this.apiVersion = opts.apiVersion ?? "v2beta1";
    this.writes = opts.writeCounter ?? PROCESS_WRITES;
    const token = opts.token;
    this.token = typeof token === "function" ? token : () => token;
    this.staticToken = typeof token === "string" ? token : undefined;
    registerSecret(this.staticToken);
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 16 });
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
    this.maxWalkBytes = opts.maxWalkBytes ?? DEFAULT_MAX_WALK_BYTES;
    this.walkLedger = { held: 0, keep: opts.walkBytesPerCommand ?? false };
    this.userAgent = opts.userAgent ?? "platform-pulumi";
    this.baseHeaders = { accept: "application/json", "user-agent": this.userAgent };
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.onRetry = opts.onRetry;
  }

  /** `/<api>/<version>/<collection>` */
  base(api: string, collection: string): string {
    return `/${api}/${this.apiVersion}/${collection}`;
  }

  /**
   * Sends a request and parses the response with `schema`, retrying GET, PATCH and DELETE on transient failures
   * under the retry policy (`retry.ts`). POST is sent once.
   * @throws ApiError (subclass by Status code) on a non-2xx response; ConnectionError when the server cannot be
   *   reached (DeadlineExceededError past the request's deadline); ResponseShapeError when a 2xx body does not
   *   match `schema` (ResponseTooLargeError when a body is over the size cap). After the last attempt, the last
   *   error.
   */
  async send<T>(method: HttpMethod, path: string, schema: Parser<T>, opts: RequestOptions = {}): Promise<T> {
    const retryable = RETRYABLE_METHODS.has(method);
    return retrying({
      attempt: () => this.sendOnce(method, path, schema, opts),
      next: (err, attempt) => {
        if (!retryable || attempt + 1 >= this.retry.maxAttempts || !isTransient(err)) return undefined;
        const delayMs = backoffMs(this.retry, attempt, err instanceof ApiError ? err.retryAfterMs : undefined);
        this.onRetry?.({ method, path, attempt: attempt + 1, delayMs, reason: (err as Error).message });
        return delayMs;
      },
    });
  }

  /** Sends one request, once. Same errors as {@link send}. */
  async sendOnce<T>(method: HttpMethod, path: string, schema: Parser<T>, opts: RequestOptions = {}): Promise<T> {
    if (method === "GET") return this.exchange(method, path, schema, opts);
    this.writes.value++;
    try {
      return await this.exchange(method, path, schema, opts);
    } finally {
      this.writes.value++;
    }
  }

  /**
   * The transport's write counter ({@link ClientOptions.writeCounter}): it goes up by one when a request other
   * than GET starts and again when that request ends (answered, failed or unreachable), through any transport
   * sharing the counter. Two equal readings mean no write started or ended in between. Read-ahead rows
   * (`engine/readBatch.ts`) are used only while it has not moved since their List was sent, so a read never
   * returns data older than a write counted by it.
   */
  writeEpoch(): number {
    return this.writes.value;
  }

  private async exchange<T>(method: HttpMethod, path: string, schema: Parser<T>, opts: RequestOptions): Promise<T> {
    const info: RequestInfo = { method, path };
    let qs = "";
    if (opts.query) {
      const search = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.query)) {
        if (v === undefined) continue;
        if (Array.isArray(v)) for (const x of v) search.append(k, x);
        else search.append(k, String(v));
      }
      qs = search.toString();
    }
    // A static token needs no await: one microtask less on every request.
    let token = this.staticToken;
    if (token === undefined) {
      token = await this.token();
      registerSecret(token); // so an error that echoes it is scrubbed (a no-op once known)
    }
    const headers: Record<string, string> = { ...this.baseHeaders, authorization: `Bearer ${token}` };
    if (opts.body !== undefined) headers["content-type"] = "application/json";

    let res: Dispatcher.ResponseData;
    let text: string;
    // undici's idle timers (headersTimeout, bodyTimeout) reset at every chunk; the signal bounds the whole request.
    const limit = deadline(this.deadlineMs);
    const read = { bytes: 0 };
    try {
      res = await request(`${this.apiUrl}${path}${qs ? `?${qs}` : ""}`, {
        method,
        headers,
        body: opts.body === undefined ? null : JSON.stringify(opts.body),
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: limit.signal,
      });
      text = await readBody(res, info, this.maxResponseBytes, read);
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw err;
      if (limit.signal.aborted) throw new DeadlineExceededError(info, this.deadlineMs, read.bytes, err);
      throw new ConnectionError(info, err);
    } finally {
      limit.clear();
    }
    const date = res.headers["date"];
    if (typeof date === "string") this.lastDate = { header: date, localMs: Date.now() };
    const requestId = [res.headers["x-request-id"]].flat()[0];
    if (opts.onBody && res.statusCode >= 200 && res.statusCode <= 299) opts.onBody(read.bytes);
    const json = parseBody(text, info, res.statusCode, {});
    if (res.statusCode < 200 || res.statusCode > 299) {
      const status = S.Status.safeParse(json);
      const body = status.success
        ? status.data
        : { code: codeFromHttp(res.statusCode), message: `HTTP ${res.statusCode} without a google.rpc.Status body`, details: [] };
      const err = ApiError.from(body, res.statusCode, info, requestId);
      err.retryAfterMs = parseRetryAfter(res.headers["retry-after"]);
      err.hasStatusBody = status.success;
      throw err;
    }
    if (json === undefined) throw new ResponseShapeError(info, res.statusCode, "body is not JSON");
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ResponseShapeError(info, res.statusCode, parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
    }
    return parsed.data;
  }

  /**
   * The server's clock minus this machine's, in milliseconds, from the newest response's `Date` header (RFC 9110:
   * whole seconds, so the value is exact to about ±1000 ms), or undefined before any response carried one.
   * Create recovery uses it to turn its local time window into the server's `createTime` range.
   */
  serverClockOffsetMs(): number | undefined {
    if (!this.lastDate) return undefined;
    const server = Date.parse(this.lastDate.header);
    // The header truncates to the second: the server's time was in [server, server + 1000).
    return Number.isNaN(server) ? undefined : server + 500 - this.lastDate.localMs;
  }

  /**
   * Closes the keep-alive connections if this transport created them. Idempotent: a dispatcher already closed or
   * destroyed (undici rejects a second close with `ClientDestroyedError`) is left as it is.
   */
  async close(): Promise<void> {
    if (!this.ownsDispatcher) return;
    const d = this.dispatcher as { closed?: boolean; destroyed?: boolean };
    if (d.closed === true || d.destroyed === true) return;
    await this.dispatcher.close();
  }
}

/** Accepts any JSON value (the first step of a two-step page fetch; validation follows). */
const ANY_JSON: Parser<unknown> = { safeParse: (value) => ({ success: true, data: value }) };

/** List parameters as the API names them (snake_case on the wire), with the page token of the page wanted. */
export function listQuery(p: ListParams, pageToken: string | undefined): Record<string, string | number | readonly string[] | undefined> {
  return {
    page_size: p.pageSize,
    page_token: pageToken,
    order_by: p.orderBy,
    skip: p.skip,
    name: p.name,
    "uidp.descendants_of": p.descendantsOf,
    "uidp.children_of": p.childrenOf,
    "uidp.ancestors_of": p.ancestorsOf,
    "uidp.in_root": p.inRoot,
    "uidp.ids": p.ids,
  };
}

/** List parameters of `/registry/<v>/tags`: the common ones plus the tag List's own filter. */
export interface TagListParams extends ListParams {
  /** Only tags pointing at this digest, e.g. `sha256:…` (sent as `digest`). */
  digest?: string;
}

/** List parameters of `/vulnerabilities/<v>/advisories`: the common ones plus the advisory List's own filters. */
export interface AdvisoryListParams extends ListParams {
  /** Only these advisory ids (sent as repeated `advisory_ids`). */
  advisoryIds?: readonly string[];
  /** Only advisories about these artifacts (sent as repeated `artifact_names`). */
  artifactNames?: readonly string[];
}

/** List parameters of `/registry/<v>/overlayBindings`: the common ones plus the binding List's own filter. */
export interface OverlayBindingListParams extends ListParams {
  /** Only bindings of this overlay, by uid (sent as `overlay`). */
  overlay?: string;
}

/** The query a collection's own List filters add, by wire name (undefined values are not sent). */
export type ExtraQuery<P> = (params: P) => Record<string, string | readonly string[] | undefined>;

/**
 * One row of {@link ReadableCollection.listRows}: the object (`value`), or, for a row that does not have the
 * object's shape, what is wrong with it (`problem`, naming the fields; server text, print it inert) and its uid
 * when the row has a string one.
 */
export type ListedRow<T> = { value: T; problem?: undefined; uid?: undefined } | { value?: undefined; problem: string; uid?: string };

/**
 * List and get on one collection of objects of type `T` (e.g. {@link Api.ApiGroup}); `P` is the collection's
 * List parameters (the common {@link ListParams} plus its own filters, e.g. {@link TagListParams}).
 */
export class ReadableCollection<T, P extends ListParams = ListParams> {
  protected readonly path: string;
  private readonly envelope: Parser<Page<T>>;

  /**
   * @param transport the client's transport. @param api `iam`, `registry` or `vulnerabilities`.
   * @param collection the path segment, e.g. `groups`. @param schema parses (and checks) one object.
   * @param plural the envelope's item key; default `collection`.
   * @param extraQuery the query of the collection's own filters; default none.
   */
  constructor(
    protected readonly transport: Transport,
    api: string,
    collection: string,
    protected readonly schema: Parser<T>,
    private readonly plural: string = collection,
    private readonly extraQuery?: ExtraQuery<P>,
  ) {
    this.path = transport.base(api, collection);
    this.envelope = S.listEnvelope(plural, schema);
  }

  /**
   * Lists matching objects, walking pages lazily as the iteration proceeds; the walk is bounded (PaginationError
   * when the server's pages do not end, see `pagination.ts`).
   * @example for await (const g of client.groups.list({ childrenOf: orgUid, orderBy: "name" })) ...
   */
  list(params: P = {} as P): Paginator<T> {
    const extra = this.extraQuery?.(params) ?? {};
    const query = (token: string | undefined, onBody: OnPageBytes | undefined) => ({ query: { ...listQuery(params, token), ...extra }, onBody });
    return new Paginator(
      (token, onBytes) => this.transport.send("GET", this.path, this.envelope, query(token, onBytes)),
      params,
      {
        raw: (token, onBytes) => this.transport.send("GET", this.path, ANY_JSON, query(token, onBytes)),
        validate: (raw) => {
          const r = this.envelope.safeParse(raw);
          if (!r.success) throw new ResponseShapeError({ method: "GET", path: this.path }, 200, r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
          return r.data;
        },
      },
      { request: { method: "GET", path: this.path }, maxPages: this.transport.maxPages, maxBytes: this.transport.maxWalkBytes, ledger: this.transport.walkLedger },
    );
  }

  /**
   * Lists matching objects like {@link list}, but checks each row on its own: a row that fails the object's
   * schema is a {@link ListedRow} with `problem` (its uid when it has a string one) instead of failing its whole
   * page, so a report can name it and list the rest (`platform-pulumi unmanaged`). The envelope itself is still
   * checked (a page that is not one fails the walk), as are the walk's bounds.
   */
  listRows(params: P = {} as P): Paginator<ListedRow<T>> {
    const extra = this.extraQuery?.(params) ?? {};
    const query = (token: string | undefined) => ({ query: { ...listQuery(params, token), ...extra } });
    const schema = this.schema;
    const row: Parser<ListedRow<T>> = {
      safeParse(value) {
        const r = schema.safeParse(value);
        if (r.success) return { success: true, data: { value: r.data } };
        const uid = (value as { uid?: unknown } | null)?.uid;
        const problem = r.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ");
        return { success: true, data: { problem, ...(typeof uid === "string" ? { uid } : {}) } };
      },
    };
    const envelope = S.listEnvelope(this.plural, row);
    return new Paginator(
      async (token) => {
        const raw = await this.transport.send("GET", this.path, ANY_JSON, query(token));
        const r = envelope.safeParse(raw);
        if (!r.success) throw new ResponseShapeError({ method: "GET", path: this.path }, 200, r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
        return r.data;
      },
      params,
      undefined,
      { request: { method: "GET", path: this.path }, maxPages: this.transport.maxPages },
    );
  }

  /** The retry policy this collection's requests follow. */
  get retryPolicy(): RetryPolicy {
    return this.transport.retry;
  }

  /** Its transport's write counter ({@link Transport.writeEpoch}). */
  writeEpoch(): number {
    return this.transport.writeEpoch();
  }

  /** Gets one object. @throws NotFoundError when there is none with that uid. */
  get(uid: string): Promise<T> {
    return this.transport.send("GET", `${this.path}/${pathUid(uid, "uid")}`, this.schema);
  }
}

/**
 * List, get, create under a parent and delete on one collection the API has no PATCH for (tags, overlays, overlay
 * bindings, subscriptions, group invites: a change replaces the object); `Create` is the create body, `P` its List
 * parameters, as for {@link ReadableCollection}.
 */
export class CreatableCollection<T, Create extends object, P extends ListParams = ListParams> extends ReadableCollection<T, P> {
  /**
   * Creates an object under `parentUid` (`POST /<collection>/<parentUid>`); the body holds only resource fields.
   * @throws InvalidArgumentError naming each bad field; NotFoundError when the parent does not exist.
   */
  create(parentUid: string, body: Create): Promise<T> {
    return this.transport.send("POST", `${this.path}/${pathUid(parentUid, "parentUid")}`, this.schema, { body });
  }

  /** Deletes one object. @throws NotFoundError when already gone; FailedPreconditionError when not empty. */
  async delete(uid: string): Promise<void> {
    await this.transport.send("DELETE", `${this.path}/${pathUid(uid, "uid")}`, S.Empty);
  }
}

/**
 * List, get, create under a parent, PATCH and delete on one collection; `Create` is the create body, `Patch` the
 * PATCH body (default any part of the create body), `P` its List parameters, as for {@link ReadableCollection}.
 */
export class Collection<T, Create extends object, Patch extends object = Partial<Create>, P extends ListParams = ListParams> extends CreatableCollection<T, Create, P> {
  /**
   * Updates the fields in `updateMask` (camelCase paths; `*` for all); without a mask the server changes the
   * fields present in `body`.
   * @throws InvalidArgumentError for bad values or unknown mask paths; NotFoundError when gone.
   */
  patch(uid: string, body: Patch, updateMask?: readonly string[]): Promise<T> {
    return this.transport.send("PATCH", `${this.path}/${pathUid(uid, "uid")}`, this.schema, {
      body,
      query: { updateMask: updateMask?.join(",") },
    });
  }
}

/** Writable fields of a group. */
export interface GroupFields {
  name: string;
  description?: string;
}

/** Writable fields of an identity (one relationship). */
export interface IdentityFields {
  name: string;
  description?: string;
  claimMatch?: Api.ClaimMatch;
}

/** Writable fields of a role binding. */
export interface RoleBindingFields {
  identityUid: string;
  roleUid: string;
}

/** Writable fields of a custom role (capabilities in wire form, `CAP_…`). */
export interface RoleFields {
  name: string;
  description?: string;
  capabilities: string[];
}

/** Writable fields of an identity provider: OIDC settings with the write-only client secret inside. */
export interface IdentityProviderFields {
  name: string;
  description?: string;
  oidc: Api.ApiOidc & { clientSecret?: string };
  defaultRole?: string;
}

/** Writable fields of an account association (at least one provider's settings). */
export interface AccountAssociationFields {
  name?: string;
  description?: string;
  amazon?: Record<string, unknown>;
  google?: Record<string, unknown>;
  azure?: Record<string, unknown>;
  github?: Record<string, unknown>;
  chainguard?: Record<string, unknown>;
}

/** The create body of a group invite (create only: the API has no PATCH for invites). */
export interface GroupInviteFields {
  roleUid: string;
  /** Duration such as `"259200s"`. */
  ttl: string;
  email?: string;
  singleUse?: boolean;
}

/** Writable fields of a repo (OpenAPI `Repo`; the sync settings under their JSON name `sync_config`). */
export interface RepoFields {
  name: string;
  description?: string;
  aliases?: string[];
  activeTags?: string[];
  bundles?: string[];
  catalogTier?: string;
  customOverlay?: Api.ApiCustomOverlay;
  sync_config?: { source: string; amazon?: string; google?: string; azure?: string };
}

/** Writable fields of a tag (create only: the API has no PATCH for tags). */
export interface TagFields {
  name: string;
  digest: string;
  bundles?: string[];
  deprecated?: boolean;
}

/** Writable fields of an overlay (create only): a name and a packages-only config. */
export interface OverlayFields {
  name: string;
  config: { contents: { packages: string[] } };
}

/** The create body of an overlay binding: the overlay by uid or name, and the exact tags. */
export interface OverlayBindingFields {
  overlay: string;
  tags: string[];
}

/** `/registry/<v>/repos`, with the `readme` sub-resource of each repo. */
export class RepoCollection extends Collection<Api.ApiRepo, RepoFields> {
  /**
   * Reads a repo's README (`GET /repos/{uid}/readme`); `content` is `""` when it has none.
   * @throws NotFoundError when the repo does not exist.
   */
  getReadme(uid: string): Promise<Api.ApiRepoReadme> {
    return this.transport.send("GET", `${this.path}/${pathUid(uid, "uid")}/readme`, S.RepoReadme);
  }

  /**
   * Sets a repo's README (`PATCH /repos/{uid}/readme?updateMask=content`); `""` removes it.
   * @throws InvalidArgumentError when the repo syncs from another (its README is the source's); NotFoundError.
   */
  patchReadme(uid: string, content: string): Promise<Api.ApiRepoReadme> {
    return this.transport.send("PATCH", `${this.path}/${pathUid(uid, "uid")}/readme`, S.RepoReadme, { body: { content }, query: { updateMask: "content" } });
  }
}

/**
 * A collection described by data rather than by a property of {@link PlatformClient}: what a kind declared with
 * `wire:` (`engine/declare.ts`) gives {@link PlatformClient.collection}. The client layer knows no kind by name;
 * the description says where the collection lives and how to parse one object.
 */
export interface CollectionDescription<T> {
  /** The API path segment: `iam`, `registry`, `events` or `vulnerabilities` (seed §2). */
  readonly api: string;
  /** The collection's path segment, e.g. `groups` (`/<api>/<version>/<collection>`). */
  readonly collection: string;
  /** Parses (and checks) one object of the collection; loose, so unknown fields pass (contract, "Responses"). */
  readonly schema: Parser<T>;
  /** The API has PATCH for the collection: a {@link Collection}; default false, a {@link CreatableCollection}. */
  readonly patch?: boolean | undefined;
  /** The List envelope's item key; default {@link collection}. */
  readonly listKey?: string | undefined;
}

/** The Platform API v2 client: one property per hand-written collection, and {@link collection} for the rest. */
export class PlatformClient {
  /** The transport, for requests this class has no method for. */
  readonly transport: Transport;
  /** `/iam/<v>/groups` */
  readonly groups: Collection<Api.ApiGroup, GroupFields>;
  /** `/iam/<v>/identities` */
  readonly identities: Collection<Api.ApiIdentity, IdentityFields>;
  /** `/iam/<v>/roles` (built-ins read-only; custom roles under a group) */
  readonly roles: Collection<Api.ApiRole, RoleFields>;
  /** `/iam/<v>/roleBindings` */
  readonly roleBindings: Collection<Api.ApiRoleBinding, RoleBindingFields>;
  /** `/iam/<v>/identityProviders` */
  readonly identityProviders: Collection<Api.ApiIdentityProvider, IdentityProviderFields>;
  /** `/iam/<v>/accountAssociations` (the uid is the group's) */
  readonly accountAssociations: Collection<Api.ApiAccountAssociation, AccountAssociationFields>;
  /** `/iam/<v>/groupInvites` (create, get, list, delete) */
  readonly groupInvites: CreatableCollection<Api.ApiGroupInvite, GroupInviteFields>;
  /** `/registry/<v>/repos` (create, get, list, PATCH, delete; the README through `getReadme` / `patchReadme`) */
  readonly repos: RepoCollection;
  /**
   * `/registry/<v>/tags` (create under a repo, get, list, delete; the API has no PATCH, so neither has this
   * collection); lists also filter by `digest`.
   */
  readonly tags: CreatableCollection<Api.ApiTag, TagFields, TagListParams>;
  /** `/registry/<v>/overlays` (create under a group, get, list, delete; no PATCH; beta versions only) */
  readonly overlays: CreatableCollection<Api.ApiOverlay, OverlayFields>;
  /**
   * `/registry/<v>/overlayBindings` (create under a repo, get, list, delete; no PATCH; beta versions only); lists
   * also filter by `overlay`.
   */
  readonly overlayBindings: CreatableCollection<Api.ApiOverlayBinding, OverlayBindingFields, OverlayBindingListParams>;
  /** `/vulnerabilities/<v>/advisories` (read-only); lists also filter by advisory ids and artifact names. */
  readonly advisories: ReadableCollection<Api.ApiAdvisory, AdvisoryListParams>;

  constructor(opts: ClientOptions) {
    const t = (this.transport = new Transport(opts));
    this.groups = new Collection(t, "iam", "groups", S.Group);
    this.identities = new Collection(t, "iam", "identities", S.Identity);
    this.roles = new Collection(t, "iam", "roles", S.Role);
    this.roleBindings = new Collection(t, "iam", "roleBindings", S.RoleBinding);
    this.identityProviders = new Collection(t, "iam", "identityProviders", S.IdentityProvider);
    this.accountAssociations = new Collection(t, "iam", "accountAssociations", S.AccountAssociation);
    this.groupInvites = new CreatableCollection(t, "iam", "groupInvites", S.GroupInvite);
    this.repos = new RepoCollection(t, "registry", "repos", S.Repo);
    this.tags = new CreatableCollection(t, "registry", "tags", S.Tag, "tags", (p: TagListParams) => ({ digest: p.digest }));
    this.overlays = new CreatableCollection(t, "registry", "overlays", S.Overlay);
    this.overlayBindings = new CreatableCollection(t, "registry", "overlayBindings", S.OverlayBinding, "overlayBindings", (p: OverlayBindingListParams) => ({ overlay: p.overlay }));
    this.advisories = new ReadableCollection(t, "vulnerabilities", "advisories", S.Advisory, "advisories", (p: AdvisoryListParams) => ({
      advisory_ids: p.advisoryIds,
      artifact_names: p.artifactNames,
    }));
  }

  private legacySubscriptions: CreatableCollection<Api.LegacySubscriptionRow, { sink: string }> | undefined;

  /**
   * `/events/<v>/subscriptions` (create under a group, get, list, delete; no PATCH), parsed as before the kind's
   * wire schema came from its declaration (`sink` defaults to `""`).
   * @deprecated Kept for one release: use the `getSubscriptions` / `getSubscription` lookups, or
   *   {@link collection} with a schema (`docs/architecture.md`, "Add a kind").
   */
  get subscriptions(): CreatableCollection<Api.LegacySubscriptionRow, { sink: string }> {
    return (this.legacySubscriptions ??= new CreatableCollection(this.transport, "events", "subscriptions", S.LegacySubscription));
  }

  /** The collections {@link collection} made, by `<api>/<collection>`, each with the description it was made from. */
  private readonly described = new Map<string, { desc: CollectionDescription<unknown>; coll: CreatableCollection<unknown, object> }>();

  /**
   * The collection `desc` describes, on this client's transport (its pagination bounds, retry policy, errors and
   * secret scrubbing are those of every collection): a {@link Collection} when `desc.patch`, else a
   * {@link CreatableCollection}. One instance per `<api>/<collection>` for the client's life.
   * @throws Error when the collection was already made from another description (another schema, `patch` or
   *   `listKey`): two declarations of one collection disagree.
   * @example client.collection({ api: "events", collection: "<collection>", schema: wireSchema }).list({ childrenOf: groupUid })
   */
  collection<T>(desc: CollectionDescription<T> & { readonly patch: true }): Collection<T, object>;
  collection<T>(desc: CollectionDescription<T>): CreatableCollection<T, object> | Collection<T, object>;
  collection<T>(desc: CollectionDescription<T>): CreatableCollection<T, object> | Collection<T, object> {
    const key = `${desc.api}/${desc.collection}`;
    const known = this.described.get(key);
    if (known) {
      const d = known.desc;
      if (d.schema !== desc.schema || (d.patch ?? false) !== (desc.patch ?? false) || (d.listKey ?? d.collection) !== (desc.listKey ?? desc.collection)) {
        throw new Error(`collection ${key}: described twice, differently (another schema, patch or listKey)`);
      }
      return known.coll as CreatableCollection<T, object>;
    }
    const C = desc.patch ? Collection : CreatableCollection;
    const coll = new C<T, object>(this.transport, desc.api, desc.collection, desc.schema, desc.listKey ?? desc.collection);
    this.described.set(key, { desc: desc as CollectionDescription<unknown>, coll: coll as CreatableCollection<unknown, object> });
    return coll;
  }

  /** Closes idle keep-alive connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
