/**
 * Helpers every collection shares: the request context, field picking, updateMask handling, the name rule and
 * small validators. Each cites the contract line it implements.
 */
import type { FastifyRequest } from "fastify";
import type { Access } from "../access";
import type { Control } from "../control";
import { invalidArgument, notFound, type FieldViolation } from "../errors";
import type { Store } from "../store";
import { patternError } from "../patterns";
import { isUidp } from "../uidp";

/** What every handler needs. */
export interface HandlerContext {
  store: Store;
  access: Access;
  control: Control;
  /** The org's root group uid. */
  orgUid: string;
  /** Current time on the emulator's clock (real time plus the control's clock offset). */
  now(): Date;
  /** Version segments served, e.g. `["v2beta1", "v2"]` (the GA paths have unchanged shapes). */
  versions: readonly string[];
  /** Records a request answered by resetting its connection (status 0 in the request log). */
  onHijack?: (method: string, url: string) => void;
}

/** The caller's identity uid, set by the auth hook on every API request. */
export function callerOf(req: FastifyRequest): string {
  return (req as FastifyRequest & { identityUid?: string }).identityUid ?? "";
}

/** RFC 3339 with milliseconds and `Z`, as the API writes timestamps. */
export function timestamp(d: Date): string {
  return d.toISOString();
}

/** Name rule (seed regex; the OpenAPI adds 3–63 characters). */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
export const NAME_MIN = 3;
export const NAME_MAX = 63;

/** Appends violations for `name` (required, regex, 3–63 characters). */
export function checkName(name: unknown, violations: FieldViolation[], field = "name"): void {
  if (name === undefined || name === null || name === "") {
    violations.push({ field, description: "is required" });
  } else if (typeof name !== "string") {
    violations.push({ field, description: `must be a string, got ${typeof name}` });
  } else {
    if (!NAME_PATTERN.test(name)) violations.push({ field, description: `"${name}" must match ${NAME_PATTERN.source}` });
    if (name.length < NAME_MIN || name.length > NAME_MAX) {
      violations.push({ field, description: `must be ${NAME_MIN}–${NAME_MAX} characters, got ${name.length}` });
    }
  }
}

/** Appends a violation when `value` is present and not a string. */
export function checkOptionalString(field: string, value: unknown, violations: FieldViolation[]): void {
  if (value !== undefined && typeof value !== "string") violations.push({ field, description: `must be a string, got ${typeof value}` });
}

/** Appends a violation when `value` is present and not a JSON object. */
export function checkOptionalObject(field: string, value: unknown, violations: FieldViolation[]): value is Record<string, unknown> | undefined {
  if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
    violations.push({ field, description: "must be an object" });
    return false;
  }
  return true;
}

/** Appends violations for keys of `obj` outside `allowed` (nested unknown fields are rejected too). */
export function checkKnownKeys(prefix: string, obj: Record<string, unknown> | undefined, allowed: readonly string[], violations: FieldViolation[]): void {
  for (const k of Object.keys(obj ?? {})) {
    if (!allowed.includes(k)) violations.push({ field: `${prefix}.${k}`, description: `unknown field; allowed: ${allowed.join(", ")}` });
  }
}

/**
 * Appends a violation when `value` is present and not a pattern the real service accepts: a string in RE2
 * syntax (Go's regexp: no backreferences, no lookaround).
 */
export function checkPattern(field: string, value: unknown, violations: FieldViolation[]): void {
  if (value === undefined) return;
  if (typeof value !== "string") {
    violations.push({ field, description: "must be a string" });
    return;
  }
  const error = patternError(value);
  if (error !== undefined) violations.push({ field, description: `is not a valid RE2 regular expression: ${error}` });
}

/**
 * The request's body, which must be JSON when there is one (seed §4: "Request bodies are JSON with
 * `Content-Type: application/json`"); the form encoding the token exchange also takes is refused here.
 * @throws StatusError INVALID_ARGUMENT naming `body` for another content type.
 */
export function jsonBody(req: FastifyRequest): unknown {
  if (req.body === undefined) return undefined;
  const type = String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw invalidArgument([{ field: "body", description: `must be JSON (Content-Type: application/json), got "${type}"` }]);
  return req.body;
}

/**
 * Reads a JSON request body and keeps the writable fields.
 * Read-only fields are ignored (contract: "read-only fields in a request are ignored"); any other field adds a
 * violation naming it to `violations`, unless `ignoreUnknown` (role bindings: "other fields ignored"), so the
 * caller reports unknown and invalid fields together in one BadRequest.
 * @throws StatusError INVALID_ARGUMENT when the body is not a JSON object.
 */
export function pickBody(
  body: unknown,
  writable: readonly string[],
  readOnly: readonly string[],
  violations: FieldViolation[] | "ignoreUnknown",
): Record<string, unknown> {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw invalidArgument([{ field: "body", description: "must be a JSON object" }]);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (writable.includes(k)) out[k] = v;
    else if (!readOnly.includes(k) && violations !== "ignoreUnknown") {
      violations.push({ field: k, description: `unknown field; writable fields are ${writable.join(", ")}` });
    }
  }
  return out;
}

/**
 * The field paths a PATCH changes (contract: "PATCH: query updateMask=<comma-separated camelCase field
 * paths>; `*` means every field. Without a mask, the fields present in the body change."). Paths are
 * top-level fields or `field.sub` into an object field; snake_case paths are accepted too.
 * @throws StatusError INVALID_ARGUMENT naming each unknown mask path.
 */
export function maskPaths(rawMask: string | undefined, body: Record<string, unknown>, writable: readonly string[]): string[] {
  if (rawMask === undefined) return Object.keys(body);
  const paths = rawMask
    .split(",")
    .map((p) => p.trim().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()))
    .filter((p) => p !== "");
  if (paths.includes("*")) return [...writable];
  // A path names a field in its camelCase form; a field whose JSON name is snake_case (a repo's `sync_config`)
  // is found by that camelCase form too, and the path is returned in the field's own spelling.
  const byCamel = new Map(writable.map((w) => [toCamel(w), w]));
  const resolved = paths.map((p) => {
    const [head = "", ...rest] = p.split(".");
    const field = byCamel.get(head);
    return field === undefined ? undefined : [field, ...rest].join(".");
  });
  const bad = paths.filter((_p, i) => resolved[i] === undefined);
  if (bad.length > 0) {
    throw invalidArgument(bad.map((p) => ({ field: "update_mask", description: `unknown field path "${p}"; allowed: ${writable.join(", ")}, *` })));
  }
  return resolved as string[];
}

/** The lowerCamelCase form of a snake_case name (`sync_config` → `syncConfig`); camelCase names are unchanged. */
export function toCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Applies the masked paths of `body` onto a copy of `current`; a path absent from the body clears it. */
export function applyMask<T extends Record<string, unknown>>(current: T, body: Record<string, unknown>, paths: readonly string[]): T {
  const next: Record<string, unknown> = structuredClone(current);
  for (const path of paths) {
    const [head, ...rest] = path.split(".") as [string, ...string[]];
    if (rest.length === 0) {
      if (body[head] === undefined) delete next[head];
      else next[head] = structuredClone(body[head]);
      continue;
    }
    const src = body[head];
    const dst = (typeof next[head] === "object" && next[head] !== null && !Array.isArray(next[head]) ? next[head] : {}) as Record<string, unknown>;
    const leaf = rest.join(".");
    // Own properties only: a mask path such as `amazon.constructor` must not reach Object.prototype.
    const value = typeof src === "object" && src !== null && Object.hasOwn(src, leaf) ? (src as Record<string, unknown>)[leaf] : undefined;
    if (value === undefined) delete dst[leaf];
    else Object.defineProperty(dst, leaf, { value: structuredClone(value), enumerable: true, writable: true, configurable: true });
    next[head] = dst;
  }
  return next as T;
}

/** Reads `updateMask` (or `update_mask`) from the query; a repeated parameter's values are joined with `,`. */
export function updateMaskOf(req: FastifyRequest): string | undefined {
  const q = req.query as Record<string, string | string[] | undefined>;
  const raw = q["updateMask"] ?? q["update_mask"];
  return Array.isArray(raw) ? raw.join(",") : raw;
}

/** The `{uid=**}` tail of a wildcard route, validated as a UIDP. @throws StatusError INVALID_ARGUMENT. */
export function uidParam(req: FastifyRequest, field = "uid"): string {
  return checkUid((req.params as Record<string, string>)["*"] ?? "", field);
}

/** `uid` when it is a UIDP. @throws StatusError INVALID_ARGUMENT naming `field`. */
export function checkUid(uid: string, field = "uid"): string {
  if (!isUidp(uid)) {
    throw invalidArgument([{ field, description: `"${uid}" is not a UIDP (40 hex chars, then "/" + 16 hex chars per level)` }]);
  }
  return uid;
}

/** The row, or NOT_FOUND with ResourceInfo. */
export function mustGet<T>(row: T | undefined, resourceType: string, uid: string): T {
  if (row === undefined) throw notFound(resourceType, uid);
  return row;
}

/** Whether two JSON values are equal (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

/** Parses a protobuf Duration in JSON form (`"3600s"`, `"1.5s"`) to seconds, or undefined when malformed. */
export function parseDuration(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const m = /^(\d+)(\.\d{1,9})?s$/.exec(v);
  return m ? Number(m[1]) + Number(m[2] ?? 0) : undefined;
}
