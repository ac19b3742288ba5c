/**
 * google.rpc.Status errors as the Platform API's HTTP gateway returns them.
 *
 * Contract (seed §7 "Errors"): the body is `{code, message, details[]}` with typed details (`ErrorInfo`,
 * `BadRequest`, `PreconditionFailure`; NOT_FOUND adds a `ResourceInfo`); messages read
 * `Invalid argument: <field>: <description>` and `Precondition failed: <description>`. Every error carries an
 * `ErrorInfo` whose `reason` is the name of its code (seed §7 "Known cases": validation → `INVALID_ARGUMENT`,
 * a non-empty group → `FAILED_PRECONDITION`, the specific cause going in the typed detail) and whose `domain` is
 * the IAM service domain, `iam.<service_domain>` (seed §7 "Detail types"). The HTTP status follows the standard
 * gRPC-to-HTTP mapping. One factory per documented error case lives here so every handler reports a case the
 * same way.
 */

/** gRPC status codes used by the API (google.rpc.Code). */
export const Code = {
  OK: 0,
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
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** A google.rpc.Code value. */
export type CodeValue = (typeof Code)[keyof typeof Code];

/** The standard gRPC-to-HTTP mapping the vendor's gateway applies (grpc-gateway `HTTPStatusFromCode`). */
export function httpStatusOf(code: number): number {
  switch (code) {
    case Code.OK: return 200;
    case Code.CANCELLED: return 499;
    case Code.INVALID_ARGUMENT: return 400;
    case Code.DEADLINE_EXCEEDED: return 504;
    case Code.NOT_FOUND: return 404;
    case Code.ALREADY_EXISTS: return 409;
    case Code.PERMISSION_DENIED: return 403;
    case Code.RESOURCE_EXHAUSTED: return 429;
    case Code.FAILED_PRECONDITION: return 400;
    case Code.ABORTED: return 409;
    case Code.OUT_OF_RANGE: return 400;
    case Code.UNIMPLEMENTED: return 501;
    case Code.UNAVAILABLE: return 503;
    case Code.UNAUTHENTICATED: return 401;
    default: return 500;
  }
}

const TYPE = "type.googleapis.com/google.rpc.";

/**
 * The service domain an emulator reports by default; ErrorInfo.domain is `iam.` + this (seed §7 "Detail types":
 * "the IAM service domain, shape `iam.<service_domain>`"). Set another with `EmulatorOptions.serviceDomain`.
 */
export const DEFAULT_SERVICE_DOMAIN = "platform.local";

/** ErrorInfo.domain for a service domain: `iam.<serviceDomain>` (seed §7). */
export function errorDomain(serviceDomain: string = DEFAULT_SERVICE_DOMAIN): string {
  return `iam.${serviceDomain}`;
}

/** The name of a google.rpc.Code value (`INVALID_ARGUMENT` for 3), or `UNKNOWN` for a number outside the enum. */
export function codeName(code: number): string {
  for (const [name, value] of Object.entries(Code)) if (value === code) return name;
  return "UNKNOWN";
}

/** One entry of a google.rpc.BadRequest: the request field and what is wrong with it. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** The JSON body of an error response (google.rpc.Status). */
export interface StatusBody {
  code: number;
  message: string;
  details: Array<Record<string, unknown>>;
}

/** An error a handler throws; the server turns it into a Status body and the mapped HTTP status. */
export class StatusError extends Error {
  /** @param code google.rpc.Code; @param details typed google.rpc detail messages, each with `@type`. */
  constructor(
    readonly code: CodeValue,
    message: string,
    readonly details: Array<Record<string, unknown>> = [],
    /** The HTTP status when it is not the standard mapping of `code` (e.g. 405 for a method not routed). */
    readonly httpOverride?: number,
  ) {
    super(message);
    this.name = "StatusError";
  }

  /** The HTTP status the gateway sends with this error: `httpOverride`, else the standard mapping of `code`. */
  get httpStatus(): number {
    return this.httpOverride ?? httpStatusOf(this.code);
  }

  /**
   * The response body. Every body carries exactly one ErrorInfo: the factories' own (its `domain` set to
   * `domain`), or one added here with the code's name as reason (seed §7).
   * @param domain ErrorInfo.domain; default `iam.platform.local` ({@link errorDomain}).
   */
  toBody(domain: string = errorDomain()): StatusBody {
    const details = this.details.map((d) => (d["@type"] === `${TYPE}ErrorInfo` ? { ...d, domain } : d));
    if (!details.some((d) => d["@type"] === `${TYPE}ErrorInfo`)) details.unshift(errorInfo(this.code, undefined, domain));
    return { code: this.code, message: this.message, details };
  }
}

/** An ErrorInfo whose reason is the name of `code` (seed §7 "Known cases"); `domain` is filled in by toBody. */
function errorInfo(code: CodeValue, metadata?: Record<string, string>, domain: string = errorDomain()): Record<string, unknown> {
  return { "@type": `${TYPE}ErrorInfo`, reason: codeName(code), domain, ...(metadata ? { metadata } : {}) };
}

/**
 * INVALID_ARGUMENT with every failing field in one BadRequest.
 * Message: `Invalid argument: <field>: <description>` for the first violation, the count of the others after it.
 */
export function invalidArgument(violations: FieldViolation[]): StatusError {
  const [first, ...rest] = violations;
  const head = first ? `${first.field}: ${first.description}` : "request is invalid";
  const more = rest.length > 0 ? ` (and ${rest.length} more: ${rest.map((v) => v.field).join(", ")})` : "";
  return new StatusError(Code.INVALID_ARGUMENT, `Invalid argument: ${head}${more}`, [
    errorInfo(Code.INVALID_ARGUMENT),
    { "@type": `${TYPE}BadRequest`, fieldViolations: violations },
  ]);
}

/** NOT_FOUND with a ResourceInfo naming the resource type and uid. */
export function notFound(resourceType: string, uid: string): StatusError {
  return new StatusError(Code.NOT_FOUND, `${resourceType} "${uid}" not found`, [
    errorInfo(Code.NOT_FOUND),
    { "@type": `${TYPE}ResourceInfo`, resourceType, resourceName: uid, description: "no such resource" },
  ]);
}

/**
 * FAILED_PRECONDITION with one PreconditionFailure violation. Seed §7 "Known cases": a non-empty group is code 9,
 * ErrorInfo reason `FAILED_PRECONDITION`, violation type `RESOURCE_NOT_EMPTY`; the other types this emulator
 * uses (`ROOT_GROUP`, `RESOURCE_IN_USE`, `IMMUTABLE`) follow the same shape.
 */
export function failedPrecondition(type: string, subject: string, description: string): StatusError {
  return new StatusError(Code.FAILED_PRECONDITION, `Precondition failed: ${description}`, [
    errorInfo(Code.FAILED_PRECONDITION),
    { "@type": `${TYPE}PreconditionFailure`, violations: [{ type, subject, description }] },
  ]);
}

/** UNAUTHENTICATED: missing, malformed, invalid or expired bearer token. */
export function unauthenticated(description: string): StatusError {
  return new StatusError(Code.UNAUTHENTICATED, `Unauthenticated: ${description}`, [errorInfo(Code.UNAUTHENTICATED)]);
}

/** PERMISSION_DENIED: the caller's identity lacks the capability at that group. */
export function permissionDenied(description: string): StatusError {
  return new StatusError(Code.PERMISSION_DENIED, `Permission denied: ${description}`, [errorInfo(Code.PERMISSION_DENIED)]);
}

/** NOT_FOUND for a path no route serves (the gateway answers 404 with code 5); ErrorInfo metadata `route: none`. */
export function noRoute(method: string, url: string): StatusError {
  return new StatusError(Code.NOT_FOUND, `Not found: ${method} ${url}`, [errorInfo(Code.NOT_FOUND, { route: "none" })]);
}

/** ALREADY_EXISTS: e.g. a second account association for one group. */
export function alreadyExists(resourceType: string, uid: string): StatusError {
  return new StatusError(Code.ALREADY_EXISTS, `${resourceType} "${uid}" already exists`, [
    errorInfo(Code.ALREADY_EXISTS),
    { "@type": `${TYPE}ResourceInfo`, resourceType, resourceName: uid, description: "already exists" },
  ]);
}

/**
 * UNIMPLEMENTED with HTTP 405: a method the emulator does not route on an existing collection path (registry and
 * advisory writes, PATCH of group invites, v1 writes). This is how the vendor's HTTP gateway (grpc-gateway's
 * routing error handler) answers a path that exists with another method: code 12 in the body, HTTP 405 Method
 * Not Allowed, never a 5xx.
 */
export function unimplemented(method: string, path: string, why = "is read-only in this emulator"): StatusError {
  return new StatusError(Code.UNIMPLEMENTED, `Unimplemented: ${method} ${path} ${why}`, [errorInfo(Code.UNIMPLEMENTED)], 405);
}

/**
 * An error the control surface injects for `code`, shaped like every other error (message form, ErrorInfo with
 * the code's name as reason); ErrorInfo metadata `injected: "true"` tells it apart.
 */
export function injectedFault(code: CodeValue): StatusError {
  const prefix = code === Code.INVALID_ARGUMENT ? "Invalid argument: request: " : code === Code.FAILED_PRECONDITION ? "Precondition failed: " : "";
  return new StatusError(code, `${prefix}injected fault (code ${code})`, [errorInfo(code, { injected: "true" })]);
}
