/**
 * google.rpc.Status errors as the Platform API's HTTP gateway returns them.
 *
 * Contract (FACTS.md, "Errors"): the body is `{code, message, details[]}` with typed details
 * (`ErrorInfo`, `BadRequest`, `PreconditionFailure`, `ResourceInfo`); messages read
 * `Invalid argument: <field>: <description>` and `Precondition failed: <description>`; the HTTP status
 * follows the standard gRPC-to-HTTP mapping. One factory per documented error case lives here so every
 * handler reports a case the same way.
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
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
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
    case Code.UNIMPLEMENTED: return 501;
    case Code.UNAVAILABLE: return 503;
    case Code.UNAUTHENTICATED: return 401;
    default: return 500;
  }
}

const TYPE = "type.googleapis.com/google.rpc.";
/** ErrorInfo.domain the emulator reports; the real service uses its own host name here. */
export const ERROR_DOMAIN = "platform.emulator";

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
  ) {
    super(message);
    this.name = "StatusError";
  }

  /** The HTTP status the gateway sends with this error. */
  get httpStatus(): number {
    return httpStatusOf(this.code);
  }

  /** The response body. */
  toBody(): StatusBody {
    return { code: this.code, message: this.message, details: this.details };
  }
}

function errorInfo(reason: string, metadata?: Record<string, string>): Record<string, unknown> {
  return { "@type": `${TYPE}ErrorInfo`, reason, domain: ERROR_DOMAIN, ...(metadata ? { metadata } : {}) };
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
    errorInfo("INVALID_ARGUMENT"),
    { "@type": `${TYPE}BadRequest`, fieldViolations: violations },
  ]);
}

/** NOT_FOUND with a ResourceInfo naming the resource type and uid. */
export function notFound(resourceType: string, uid: string): StatusError {
  return new StatusError(Code.NOT_FOUND, `${resourceType} "${uid}" not found`, [
    errorInfo("NOT_FOUND"),
    { "@type": `${TYPE}ResourceInfo`, resourceType, resourceName: uid, description: "no such resource" },
  ]);
}

/** FAILED_PRECONDITION with one PreconditionFailure violation (e.g. type `RESOURCE_NOT_EMPTY`). */
export function failedPrecondition(type: string, subject: string, description: string): StatusError {
  return new StatusError(Code.FAILED_PRECONDITION, `Precondition failed: ${description}`, [
    errorInfo(type),
    { "@type": `${TYPE}PreconditionFailure`, violations: [{ type, subject, description }] },
  ]);
}

/** UNAUTHENTICATED: missing, malformed, invalid or expired bearer token. */
export function unauthenticated(description: string): StatusError {
  return new StatusError(Code.UNAUTHENTICATED, `Unauthenticated: ${description}`, [errorInfo("UNAUTHENTICATED")]);
}

/** PERMISSION_DENIED: the caller's identity lacks the capability at that group. */
export function permissionDenied(description: string): StatusError {
  return new StatusError(Code.PERMISSION_DENIED, `Permission denied: ${description}`, [errorInfo("PERMISSION_DENIED")]);
}

/** NOT_FOUND for a path no route serves (the gateway answers 404 with code 5). */
export function noRoute(method: string, url: string): StatusError {
  return new StatusError(Code.NOT_FOUND, `Not found: ${method} ${url}`, [errorInfo("NO_ROUTE")]);
}

/** ALREADY_EXISTS: e.g. a second account association for one group. */
export function alreadyExists(resourceType: string, uid: string): StatusError {
  return new StatusError(Code.ALREADY_EXISTS, `${resourceType} "${uid}" already exists`, [
    errorInfo("ALREADY_EXISTS"),
    { "@type": `${TYPE}ResourceInfo`, resourceType, resourceName: uid, description: "already exists" },
  ]);
}

/** UNIMPLEMENTED: a documented method this emulator does not serve (registry and advisory writes). */
export function unimplemented(method: string, path: string): StatusError {
  return new StatusError(Code.UNIMPLEMENTED, `Unimplemented: ${method} ${path} is read-only in this emulator`, [errorInfo("UNIMPLEMENTED")]);
}

/** An error the control surface injects for `code`, shaped like every other error (message form, ErrorInfo). */
export function injectedFault(code: CodeValue): StatusError {
  const prefix = code === Code.INVALID_ARGUMENT ? "Invalid argument: request: " : code === Code.FAILED_PRECONDITION ? "Precondition failed: " : "";
  return new StatusError(code, `${prefix}injected fault (code ${code})`, [errorInfo("INJECTED_FAULT")]);
}
