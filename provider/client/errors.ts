/**
 * Errors the API client throws. An {@link ApiError} carries the parsed google.rpc.Status (code, message, typed
 * details), the HTTP status, the request id and the request's method and path; {@link ApiError.from} picks the
 * subclass from the body's `code`, never from the HTTP status (contract: "A client decides by the body's `code`
 * and detail types, not by the HTTP status"). A failure to reach the server at all is a
 * {@link ConnectionError} with the underlying `cause`.
 *
 * No error ever carries a credential: messages are built from the method, the path (without query) and the
 * server's own message, and {@link redact} scrubs every credential this process holds, by exact value and in
 * the forms a server might echo it (cut short, upper-cased, spaced out, base64, hex), and anything token-shaped.
 *
 * Everything the package throws on purpose extends {@link PlatformError}, so
 * `catch (e) { if (e instanceof PlatformError) … }` tells this package's failures from others.
 */
import { inertLines, printable } from "../text";
import { markReported } from "./reported";
import { derivedWindows, registeredSecrets } from "./secrets";

/**
 * The root of every error this package throws on purpose: API errors ({@link ApiError} and its subclasses),
 * {@link ConnectionError}, {@link ResponseShapeError}, and the settings, credential, token-exchange and lookup
 * errors. Its message never contains a credential.
 */
export class PlatformError extends Error {
  /** @param message what failed, naming the field or request and its value. @param options `cause`, the underlying error. */
  constructor(message: string, options?: { cause?: unknown }) {
    // Every line inert (provider/text.ts): the subclasses quote server text one line each (`printable`); this
    // keeps any that slipped through from starting a log line that is a control sequence or a workflow command.
    super(inertLines(message), options);
    this.name = new.target.name;
    markReported(this);
  }
}


/** google.rpc.Code values the client distinguishes. */
export const RpcCode = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** One google.rpc.BadRequest field violation. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** One google.rpc.PreconditionFailure violation. */
export interface PreconditionViolation {
  type: string;
  subject?: string;
  description: string;
}

/** A google.rpc.Status as parsed from an error body; unknown detail types are kept as they came. */
export interface RpcStatus {
  code: number;
  message: string;
  details: Array<Record<string, unknown>>;
}

/** Where an error happened: `GET /iam/v2beta1/groups/<uid>` (never the query string, never headers). */
export interface RequestInfo {
  method: string;
  path: string;
}

/**
 * `text` with every control character (line breaks, escape sequences, C1 controls, the line and paragraph
 * separators, bidirectional controls) written as `\uXXXX`, and no workflow command possible: the server's
 * message in an error's message can then neither start a new log line nor drive a terminal. The one function
 * for text bound for a terminal or a log, {@link printable} (provider/text.ts), under the name this module had.
 */
export const controlsEscaped = printable;

const TOKENISH = /\b(eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|Bearer\s+\S+)/g;

/**
 * Replaces with `[REDACTED]`: every credential this process holds, by exact value wherever it appears (the
 * configured API token, each exchanged token, the OIDC token; see `secrets.ts`), then text recognisably derived
 * from one (for a token of 16 or more letters and digits, any piece of 60% of them, at most 19, case and separators
 * ignored, or of its base64 or hex encoding; see `secrets.ts`), then bearer tokens and JWT-shaped strings. Returns a new string; `text` itself is a primitive and never changed.
 * @example redact(`token ${configuredToken} is not valid`) // "token [REDACTED] is not valid"
 */
export function redact(text: string): string {
  let out = text;
  for (const secret of registeredSecrets()) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  return redactDerived(out).replace(TOKENISH, "[REDACTED]");
}

/**
 * Replaces each stretch of `text` whose letters and digits, lower-cased, contain a run of a registered
 * credential's derived forms (`secrets.ts`: cut short, upper-cased, spaced out, base64, hex) with `[REDACTED]`.
 * The stretch runs from the first to the last character of the runs found, separators between them included.
 */
function redactDerived(text: string): string {
  const windows = derivedWindows();
  if (windows.size === 0) return text;
  const norm: string[] = [];
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!.toLowerCase();
    if (/[a-z0-9]/.test(c)) {
      norm.push(c);
      at.push(i);
    }
  }
  const flat = norm.join("");
  const covered = new Uint8Array(flat.length);
  let any = false;
  for (const [k, set] of windows) {
    for (let j = 0; j + k <= flat.length; j++) {
      if (set.has(flat.slice(j, j + k))) {
        covered.fill(1, j, j + k);
        any = true;
      }
    }
  }
  if (!any) return text;
  let out = "";
  let from = 0;
  for (let j = 0; j < flat.length; j++) {
    if (!covered[j]) continue;
    let end = j;
    while (end + 1 < flat.length && covered[end + 1]) end++;
    // Out to the ends of the token-like word around the match: the rest of a cut token or of an encoding.
    let start = at[j]!;
    while (start > from && TOKEN_CHAR.test(text[start - 1]!)) start--;
    let stop = at[end]! + 1;
    while (stop < text.length && TOKEN_CHAR.test(text[stop]!)) stop++;
    out += `${text.slice(from, start)}[REDACTED]`;
    from = stop;
    while (end + 1 < flat.length && at[end + 1]! < stop) end++;
    j = end;
  }
  return out + text.slice(from);
}

/** Characters of tokens and their encodings (base64, base64url, hex), for {@link redactDerived}'s widening. */
const TOKEN_CHAR = /[A-Za-z0-9+/=_~.-]/;

/** A copy of a JSON value with every string in it passed through {@link redact}; the caller's value is not changed. */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  }
  return value;
}

/** Any error returned by the Platform API as a google.rpc.Status. Message, status message and details are redacted. */
export class ApiError extends PlatformError {
  /** google.rpc.Code from the body. */
  readonly code: number;
  /** HTTP status of the response (informational; decisions use `code`). */
  readonly httpStatus: number;
  /** The parsed Status, details included. */
  readonly status: RpcStatus;
  /** The server's request id (`x-request-id`), when it sent one. */
  readonly requestId: string | undefined;
  /** Method and path of the failed request. */
  readonly request: RequestInfo;
  /** The server's Retry-After, in milliseconds, when it sent one. */
  retryAfterMs: number | undefined;
  /** Whether the body was a google.rpc.Status (false: the code was inferred from the HTTP status). */
  hasStatusBody = true;

  constructor(status: RpcStatus, httpStatus: number, request: RequestInfo, requestId?: string) {
    super(printable(redact(`${request.method} ${request.path}: ${status.message} (code ${status.code}, HTTP ${httpStatus})`)));
    this.code = status.code;
    this.httpStatus = httpStatus;
    this.status = { ...status, message: redact(status.message), details: redactDeep(status.details) };
    this.requestId = requestId;
    this.request = request;
  }

  /** The BadRequest field violations, if any. */
  get fieldViolations(): FieldViolation[] {
    return this.detailsOf("google.rpc.BadRequest").flatMap((d) => (d["fieldViolations"] as FieldViolation[] | undefined) ?? []);
  }

  /** The PreconditionFailure violations, if any. */
  get preconditionViolations(): PreconditionViolation[] {
    return this.detailsOf("google.rpc.PreconditionFailure").flatMap((d) => (d["violations"] as PreconditionViolation[] | undefined) ?? []);
  }

  /** The ErrorInfo reason, if any. */
  get reason(): string | undefined {
    return this.detailsOf("google.rpc.ErrorInfo")[0]?.["reason"] as string | undefined;
  }

  /** Details whose `@type` ends with `typeName` (e.g. `google.rpc.BadRequest`). */
  detailsOf(typeName: string): Array<Record<string, unknown>> {
    return this.status.details.filter((d) => typeof d["@type"] === "string" && (d["@type"] as string).endsWith(`/${typeName}`));
  }

  /**
   * Builds the subclass that matches `status.code`.
   * @param status the parsed body; @param httpStatus the response status; @param request method and path.
   */
  static from(status: RpcStatus, httpStatus: number, request: RequestInfo, requestId?: string): ApiError {
    const Cls = SUBCLASSES[status.code] ?? ApiError;
    return new Cls(status, httpStatus, request, requestId);
  }
}

/** code 3: the request is malformed; see {@link ApiError.fieldViolations}. */
export class InvalidArgumentError extends ApiError {}
/** code 5: the resource does not exist. */
export class NotFoundError extends ApiError {}
/** code 6: the resource already exists. */
export class AlreadyExistsError extends ApiError {}
/** code 7: the caller's identity lacks the capability. */
export class PermissionDeniedError extends ApiError {}
/** code 8: rate limited or quota exhausted. */
export class ResourceExhaustedError extends ApiError {}
/** code 9: the system is not in the state the operation needs (e.g. `RESOURCE_NOT_EMPTY`). */
export class FailedPreconditionError extends ApiError {}
/** code 13 or 2: the server failed. */
export class InternalError extends ApiError {}
/** code 14: the service is unavailable; retry later. */
export class UnavailableError extends ApiError {}
/** code 16: the token is missing, invalid or expired. */
export class UnauthenticatedError extends ApiError {}

const SUBCLASSES: Record<number, typeof ApiError> = {
  [RpcCode.INVALID_ARGUMENT]: InvalidArgumentError,
  [RpcCode.NOT_FOUND]: NotFoundError,
  [RpcCode.ALREADY_EXISTS]: AlreadyExistsError,
  [RpcCode.PERMISSION_DENIED]: PermissionDeniedError,
  [RpcCode.RESOURCE_EXHAUSTED]: ResourceExhaustedError,
  [RpcCode.FAILED_PRECONDITION]: FailedPreconditionError,
  [RpcCode.UNKNOWN]: InternalError,
  [RpcCode.INTERNAL]: InternalError,
  [RpcCode.UNAVAILABLE]: UnavailableError,
  [RpcCode.UNAUTHENTICATED]: UnauthenticatedError,
};

/** The server could not be reached, or the connection broke before a response arrived. */
export class ConnectionError extends PlatformError {
  /** Method and path of the failed request. */
  readonly request: RequestInfo;
  constructor(request: RequestInfo, cause: unknown) {
    const why = cause instanceof Error ? `${cause.message}${codeOf(cause)}` : String(cause);
    super(printable(redact(`${request.method} ${request.path}: could not reach the Platform API: ${why}`)), { cause });
    this.request = request;
  }
}

/** The server answered with something that is not the documented shape (not JSON, or failing the schema). */
export class ResponseShapeError extends PlatformError {
  /** Method and path of the request. */
  readonly request: RequestInfo;
  /** HTTP status of the response. */
  readonly httpStatus: number;
  constructor(request: RequestInfo, httpStatus: number, problem: string) {
    super(printable(redact(`${request.method} ${request.path}: unexpected response (HTTP ${httpStatus}): ${problem}`)));
    this.request = request;
    this.httpStatus = httpStatus;
  }
}

/**
 * A request did not finish within its total deadline (client option `deadlineMs`, setting
 * `platform:requestDeadlineMs`): the server was too slow to answer, or dripped its body. Unlike the idle
 * timeout, the deadline counts from the request's start however steadily bytes arrive. A {@link ConnectionError},
 * so GET, PATCH and DELETE are retried under the retry policy like any other failed connection.
 */
export class DeadlineExceededError extends ConnectionError {
  /** The deadline, in milliseconds. */
  readonly deadlineMs: number;
  /** Bytes of the response body read before the deadline. */
  readonly bytesRead: number;
  constructor(request: RequestInfo, deadlineMs: number, bytesRead: number, cause: unknown) {
    super(request, new Error(`no complete response within the request deadline of ${deadlineMs} ms (${bytesRead} bytes of the body read); setting platform:requestDeadlineMs`, { cause }));
    this.deadlineMs = deadlineMs;
    this.bytesRead = bytesRead;
  }
}

/**
 * A response body was larger than the client reads (client option `maxResponseBytes`, setting
 * `platform:maxResponseBytes`); the client stopped reading at the cap and closed the connection. Never retried.
 */
export class ResponseTooLargeError extends ResponseShapeError {
  /** The cap, in bytes. */
  readonly maxBytes: number;
  /** Bytes read (or announced by `content-length`) when the client stopped. */
  readonly bytesRead: number;
  constructor(request: RequestInfo, httpStatus: number, maxBytes: number, bytesRead: number, announced: boolean) {
    super(request, httpStatus, `the body is larger than the ${maxBytes} bytes the client reads (${announced ? `content-length ${bytesRead}` : `stopped after ${bytesRead} bytes`}); setting platform:maxResponseBytes`);
    this.maxBytes = maxBytes;
    this.bytesRead = bytesRead;
  }
}

/**
 * A response body nested arrays and objects deeper than the client parses ({@link MAX_RESPONSE_DEPTH}): no API
 * answer nests beyond a handful of levels, and deeper JSON would only drive recursive code (validation, cloning,
 * Pulumi's serialization) to the end of the stack. Refused before it is parsed, for any HTTP status; never
 * retried.
 */
export class ResponseTooDeepError extends ResponseShapeError {
  /** The most levels the client parses. */
  readonly maxDepth: number;
  constructor(request: RequestInfo, httpStatus: number, maxDepth: number) {
    super(request, httpStatus, `the JSON body nests arrays and objects deeper than the ${maxDepth} levels the client parses (no API answer nests that deep)`);
    this.maxDepth = maxDepth;
  }
}

/** The deepest nesting of arrays and objects a response body may have ({@link ResponseTooDeepError}). */
export const MAX_RESPONSE_DEPTH = 64;

/**
 * A List's pages did not end within the walk's bounds (`pagination.ts`): the server kept sending a next page
 * token after the most pages one walk reads, after more rows than its own `totalCount`, after several empty pages
 * in a row, or sent a token it had sent before. The rows read so far are dropped: a listing is whole or an error.
 */
export class PaginationError extends PlatformError {
  /** Method and path of the List (which collection). */
  readonly request: RequestInfo;
  /** Pages read before the walk stopped. */
  readonly pagesRead: number;
  /** Rows read before the walk stopped. */
  readonly itemsRead: number;
  constructor(request: RequestInfo, pagesRead: number, itemsRead: number, why: string) {
    super(printable(redact(`${request.method} ${request.path}: the listing's pages do not end: ${why}; stopped after ${pagesRead} pages and ${itemsRead} rows`)));
    this.request = request;
    this.pagesRead = pagesRead;
    this.itemsRead = itemsRead;
  }
}

/**
 * A List walk read more bytes of page bodies than the client holds (client option `maxWalkBytes`, setting
 * `platform:maxWalkBytes`): a server can send valid pages, each under the response cap, with fresh page tokens
 * and no `totalCount`, until memory runs out. The walk stops before parsing the page over the budget; the rows
 * read are dropped, as for a {@link PaginationError}.
 */
export class ListingTooLargeError extends PlatformError {
  /** Method and path of the List (which collection). */
  readonly request: RequestInfo;
  /** Pages read, the one over the budget included (read, not parsed). */
  readonly pagesRead: number;
  /** Rows of the pages parsed before the walk stopped. */
  readonly itemsRead: number;
  /** Bytes of page bodies this walk read. */
  readonly bytesRead: number;
  /** The budget, in bytes. */
  readonly maxBytes: number;
  /** @param shared how the walks sharing the budget add up, e.g. `, 300000000 bytes with the other Lists of this command`, or "". */
  constructor(request: RequestInfo, pagesRead: number, itemsRead: number, bytesRead: number, maxBytes: number, shared: string) {
    super(
      redact(
        `${request.method} ${request.path}: the listing is larger than the client holds: ${pagesRead} pages of ${bytesRead} bytes${shared}, over the ${maxBytes} bytes of setting platform:maxWalkBytes (PLATFORM_MAX_WALK_BYTES); stopped after ${pagesRead} pages and ${itemsRead} rows`,
      ),
    );
    this.request = request;
    this.pagesRead = pagesRead;
    this.itemsRead = itemsRead;
    this.bytesRead = bytesRead;
    this.maxBytes = maxBytes;
  }
}

function codeOf(err: Error): string {
  const code = (err as { code?: unknown }).code ?? ((err as { cause?: { code?: unknown } }).cause?.code);
  return typeof code === "string" ? ` (${code})` : "";
}

/** Whether `err` is a NOT_FOUND from the API. */
export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof ApiError && err.code === RpcCode.NOT_FOUND;
}
