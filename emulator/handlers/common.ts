/**
 * Helpers every collection handler shares: the request context, field picking, updateMask handling and the
 * name rule. Each helper cites the contract line it implements.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidArgument, notFound, type FieldViolation } from "../errors";
import type { Row, Store, Table } from "../store";
import { isUidp } from "../uidp";

/** What every handler needs: the store, the clock, and the API version segments served. */
export interface HandlerContext {
  store: Store;
  /** Current time; injectable so tests can move the clock. */
  now(): Date;
  /** Version segments served, e.g. `["v2beta1", "v2"]` (the GA paths have unchanged shapes). */
  versions: readonly string[];
}

/** A collection handler registers its routes on the app. */
export type Handler = (app: FastifyInstance, ctx: HandlerContext) => void;

/** RFC 3339 with milliseconds and `Z`, as the API writes timestamps. */
export function timestamp(d: Date): string {
  return d.toISOString();
}

/** Name rule (seed regex; the OpenAPI adds 3–63 characters for groups and identities). */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
export const NAME_MIN = 3;
export const NAME_MAX = 63;

/** Appends violations for `name` (required, regex, 3–63 characters). */
export function checkName(name: unknown, violations: FieldViolation[]): void {
  if (name === undefined || name === null || name === "") {
    violations.push({ field: "name", description: "is required" });
  } else if (typeof name !== "string") {
    violations.push({ field: "name", description: `must be a string, got ${typeof name}` });
  } else {
    if (!NAME_PATTERN.test(name)) {
      violations.push({ field: "name", description: `"${name}" must match ${NAME_PATTERN.source}` });
    }
    if (name.length < NAME_MIN || name.length > NAME_MAX) {
      violations.push({ field: "name", description: `must be ${NAME_MIN}–${NAME_MAX} characters, got ${name.length}` });
    }
  }
}

/** Appends a violation when `value` is present and not a string. */
export function checkOptionalString(field: string, value: unknown, violations: FieldViolation[]): void {
  if (value !== undefined && typeof value !== "string") {
    violations.push({ field, description: `must be a string, got ${typeof value}` });
  }
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
  if (typeof body !== "object" || Array.isArray(body)) {
    throw invalidArgument([{ field: "body", description: "must be a JSON object" }]);
  }
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
 * paths>; `*` means every field. Without a mask, the fields present in the body change.").
 * Paths are top-level fields or `field.sub` into an object field.
 * @throws StatusError INVALID_ARGUMENT naming each unknown mask path.
 */
export function maskPaths(
  rawMask: string | undefined,
  body: Record<string, unknown>,
  writable: readonly string[],
): string[] {
  if (rawMask === undefined) return Object.keys(body);
  const paths = rawMask.split(",").map((p) => p.trim()).filter((p) => p !== "");
  if (paths.includes("*")) return [...writable];
  const bad = paths.filter((p) => !writable.includes(p.split(".")[0] ?? ""));
  if (bad.length > 0) {
    throw invalidArgument(
      bad.map((p) => ({ field: "update_mask", description: `unknown field path "${p}"; allowed: ${writable.join(", ")}, *` })),
    );
  }
  return paths;
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
    const src = body[head] as Record<string, unknown> | undefined;
    const dst = (typeof next[head] === "object" && next[head] !== null ? next[head] : {}) as Record<string, unknown>;
    const leaf = rest.join(".");
    if (src?.[leaf] === undefined) delete dst[leaf];
    else dst[leaf] = structuredClone(src[leaf]);
    next[head] = dst;
  }
  return next as T;
}

/** Reads `updateMask` (or `update_mask`) from the query. */
export function updateMaskOf(req: FastifyRequest): string | undefined {
  const q = req.query as Record<string, string | undefined>;
  return q["updateMask"] ?? q["update_mask"];
}

/** The `{uid=**}` tail of a wildcard route, validated as a UIDP. @throws StatusError INVALID_ARGUMENT. */
export function uidParam(req: FastifyRequest, field = "uid"): string {
  const uid = (req.params as Record<string, string>)["*"] ?? "";
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

/** The route prefixes of a collection for every served version, e.g. `/iam/v2beta1/groups`. */
export function prefixes(ctx: HandlerContext, api: string, collection: string): string[] {
  return ctx.versions.map((v) => `/${api}/${v}/${collection}`);
}

/**
 * The PATCH every mutable collection does: pick the body's writable fields, apply the updateMask (or the fields
 * present), validate the result, and store it with a new updateTime only if something changed (contract: a
 * no-op PATCH leaves updateTime alone; createTime never changes).
 * @param validate throws INVALID_ARGUMENT with the violations it finds plus those passed in (unknown fields).
 * @throws StatusError NOT_FOUND, INVALID_ARGUMENT.
 */
export function patchRow<T extends Row & { updateTime: string; description: string }>(
  ctx: HandlerContext,
  table: Table<T>,
  req: FastifyRequest,
  resourceType: string,
  writable: readonly string[],
  readOnly: readonly string[],
  validate: (row: Record<string, unknown>, violations: FieldViolation[]) => void,
): T {
  const uid = uidParam(req);
  const current = mustGet(table.get(uid), resourceType, uid);
  const unknown: FieldViolation[] = [];
  const body = pickBody(req.body, writable, readOnly, unknown);
  const next = applyMask(current, body, maskPaths(updateMaskOf(req), body, writable));
  next.description ??= "";
  validate(next, unknown);
  if (jsonEqual(next, current)) return current;
  next.updateTime = timestamp(ctx.now());
  table.put(next);
  return next;
}
