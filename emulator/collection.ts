/**
 * One router for every API collection. A collection is described by a {@link CollectionSpec} (its own file in
 * `handlers/`); this module turns the spec into the documented routes:
 *
 * | route                          | needs (at the row's scope)     | contract                                     |
 * |--------------------------------|--------------------------------|----------------------------------------------|
 * | `GET /<api>/<v>/<c>`           | `caps.list` (rows filtered)    | List semantics in `list.ts`                   |
 * | `GET /<api>/<v>/<c>/<uid>`     | `caps.list`                    | NOT_FOUND with ResourceInfo when missing      |
 * | `POST /<api>/<v>/<c>/<parent>` | `caps.create` at the parent    | body holds only resource fields               |
 * | `PATCH /<api>/<v>/<c>/<uid>`   | `caps.update`                  | updateMask, `*`, or the fields present        |
 * | `DELETE /<api>/<v>/<c>/<uid>`  | `caps.delete`                  | NOT_FOUND when missing (unless idempotent)    |
 *
 * | `GET /<api>/<v>/<c>/<uid>/<s>` | `caps.list`                    | a singleton sub-resource (a repo's `readme`)  |
 * | `PATCH /<api>/<v>/<c>/<uid>/<s>`| `caps.update`                 | its own fields and mask                       |
 *
 * A method a spec leaves out answers UNIMPLEMENTED with HTTP 405 (advisories are read-only; tags, overlays,
 * overlay bindings and subscriptions have no PATCH). Authorization is checked before existence, so a caller
 * without access cannot probe which uids exist.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Capability } from "./access";
import { failedPrecondition, invalidArgument, permissionDenied, unimplemented, type FieldViolation } from "./errors";
import { callerOf, applyMask, checkUid, jsonBody, jsonEqual, maskPaths, mustGet, pickBody, timestamp, uidParam, updateMaskOf, type HandlerContext } from "./handlers/common";
import { envelope, listPage, parseListQuery, type ListQuery, type RawQuery } from "./list";
import type { CollectionName, Row, Table } from "./store";

/** How one collection behaves; every hook is optional unless stated. */
export interface CollectionSpec {
  /** API segment: `iam`, `registry`, `events` or `vulnerabilities`. */
  api: "iam" | "registry" | "events" | "vulnerabilities";
  /**
   * Served only under beta version segments (`v2beta1`), not under GA ones (`v2`): the vendor's GA description
   * keeps overlays and overlay bindings beta-only.
   */
  betaOnly?: boolean;
  /** Collection segment and envelope key, e.g. `groups`. */
  collection: CollectionName;
  /** ResourceInfo.resourceType in NOT_FOUND, e.g. `iam.group`. */
  resourceType: string;
  /** Capability per method; a missing create/update/delete makes that method UNIMPLEMENTED. */
  caps: { list: Capability; create?: Capability; update?: Capability; delete?: Capability };
  /** The group whose grants apply to the row with this uid; undefined: any authenticated caller may read it. */
  scopeOf(uid: string): string | undefined;
  /** Scalar fields `order_by` may name (camelCase); `uid` is always allowed. */
  orderFields: readonly string[];
  /** Fields a client may set. */
  writable?: readonly string[];
  /** Fields a client may send but that are ignored. */
  readOnly?: readonly string[];
  /** Ignore unknown request fields instead of rejecting them. */
  ignoreUnknown?: boolean;
  /** Whether rows carry `updateTime` (advanced on a real change). Default true. */
  hasUpdateTime?: boolean;
  /**
   * Appends violations for a whole row (after create defaults or a PATCH's mask are applied).
   * @param parentUid on create, the parent from the path (e.g. the repo a binding's overlay name resolves in).
   */
  validate?(row: Record<string, unknown>, violations: FieldViolation[], ctx: HandlerContext, mode: "create" | "update", parentUid?: string): void;
  /** Builds the stored row from a validated create body (uid and timestamps included). Required with caps.create. */
  build?(ctx: HandlerContext, parentUid: string, body: Record<string, unknown>): Row;
  /**
   * Adjusts a PATCHed row before it is validated and stored (e.g. keep write-only secrets the request omitted).
   * May throw a StatusError (e.g. ALREADY_EXISTS for a rename onto a taken name).
   */
  merge?(current: Row, next: Row, ctx: HandlerContext): Row;
  /** The response body for a row; default: the row itself. */
  render?(row: Row, ctx: HandlerContext): unknown;
  /** The create response (e.g. with a one-time invite code); default: `render`. */
  renderCreated?(row: Row, ctx: HandlerContext, body: Record<string, unknown>): unknown;
  /** Why a row may not be changed or deleted (e.g. a built-in role), or undefined. */
  immutable?(row: Row): string | undefined;
  /** Throws FAILED_PRECONDITION when the row may not be deleted now. */
  beforeDelete?(ctx: HandlerContext, row: Row): void;
  /** Cascades after a delete (e.g. an identity's role bindings). */
  afterDelete?(ctx: HandlerContext, row: Row): void;
  /** DELETE of a missing uid succeeds (AIP-135), as the API documents for account associations. */
  deleteIdempotent?: boolean;
  /** Collection-specific List filters: a row predicate (or null) and a key binding it into page tokens. */
  listFilter?(query: RawQuery, ctx: HandlerContext): { predicate: ((row: Row) => boolean) | null; key: string };
  /** The parent a create needs; default: the group `parentUid` must exist. */
  parentTable?(ctx: HandlerContext): { table: Table<Row>; resourceType: string };
  /**
   * Singleton sub-resources served at `<uid>/<name>` (a repo's `readme`): GET needs `caps.list` and PATCH
   * `caps.update` at the row's scope; the row must exist (NOT_FOUND otherwise) before the handler runs.
   */
  subResources?: Record<string, SubResource>;
}

/** A singleton sub-resource of a row (e.g. `GET|PATCH /registry/v2beta1/repos/{uid}/readme`). */
export interface SubResource {
  /** The sub-resource of `row`. */
  get(ctx: HandlerContext, row: Row): unknown;
  /** Applies a PATCH body (already a JSON value, not yet checked) with an optional updateMask; returns the new state. */
  patch?(ctx: HandlerContext, row: Row, body: unknown, mask: string | undefined): unknown;
}

/** Splits a wildcard tail `<uid>/<name>` into the uid and the sub-resource name when `name` is one of `names`. */
function subResourceOf(tail: string, names: readonly string[]): { uid: string; name: string } | undefined {
  const i = tail.lastIndexOf("/");
  if (i < 0) return undefined;
  const name = tail.slice(i + 1);
  return names.includes(name) ? { uid: tail.slice(0, i), name } : undefined;
}

function table(ctx: HandlerContext, spec: CollectionSpec): Table<Row> {
  return ctx.store.table(spec.collection);
}

/** Registers the routes of `spec` for every served version. */
export function registerCollection(app: FastifyInstance, ctx: HandlerContext, spec: CollectionSpec): void {
  const writable = spec.writable ?? [];
  const readOnly = spec.readOnly ?? [];
  const render = (row: Row) => (spec.render ? spec.render(row, ctx) : row);
  const scopeFor = (uid: string) => spec.scopeOf(uid);

  const validateOrThrow = (row: Record<string, unknown>, violations: FieldViolation[], mode: "create" | "update", parentUid?: string) => {
    spec.validate?.(row, violations, ctx, mode, parentUid);
    if (violations.length > 0) throw invalidArgument(violations);
  };

  const subNames = Object.keys(spec.subResources ?? {});
  // A collection with some writes answers its missing methods as "not a method" rather than "read-only".
  const unserved = spec.caps.create || spec.caps.update || spec.caps.delete ? "is not a method of this collection" : undefined;

  for (const version of ctx.versions) {
    if (spec.betaOnly && !version.includes("beta")) continue;
    const base = `/${spec.api}/${version}/${spec.collection}`;

    app.get(base, async (req) => {
      const q = parseListQuery(req.query as RawQuery, spec.orderFields);
      const visible = ctx.access.visibility(callerOf(req), spec.caps.list, ctx.orgUid, scopeFor);
      const extra = spec.listFilter?.(req.query as RawQuery, ctx) ?? { predicate: null, key: "" };
      const preds = [visible, extra.predicate].filter((p): p is (row: Row) => boolean => p !== null);
      const predicate = preds.length === 0 ? null : (row: Row) => preds.every((p) => p(row));
      return envelope(spec.collection, listPage(table(ctx, spec), q, predicate, extra.key, ctx.now().getTime()), render);
    });

    app.get(`${base}/*`, async (req) => {
      const sub = subResourceOf((req.params as Record<string, string>)["*"] ?? "", subNames);
      if (sub) {
        const uid = checkUid(sub.uid);
        const scope = scopeFor(uid);
        if (scope !== undefined) ctx.access.require(callerOf(req), spec.caps.list, scope);
        return spec.subResources![sub.name]!.get(ctx, mustGet(table(ctx, spec).get(uid), spec.resourceType, uid));
      }
      const uid = uidParam(req);
      const scope = scopeFor(uid);
      if (scope !== undefined && uid !== callerOf(req)) ctx.access.require(callerOf(req), spec.caps.list, scope);
      return render(mustGet(table(ctx, spec).get(uid), spec.resourceType, uid));
    });

    app.post(`${base}/*`, async (req: FastifyRequest, reply: FastifyReply) => {
      if (!spec.caps.create || !spec.build) throw unimplemented("POST", base, unserved);
      const parentUid = uidParam(req, "parent");
      ctx.access.require(callerOf(req), spec.caps.create, parentUid);
      const parent = spec.parentTable?.(ctx) ?? { table: ctx.store.groups, resourceType: "iam.group" };
      const parentRow = mustGet(parent.table.get(parentUid), parent.resourceType, parentUid);
      const lag = ctx.control.current.consistencyDelayMs;
      if (lag > 0 && ctx.now().getTime() - Date.parse(String(parentRow["createTime"] ?? "")) < lag) {
        throw permissionDenied(`${parentUid} is not yet visible to the permission check (eventual consistency)`);
      }
      const violations: FieldViolation[] = [];
      const body = pickBody(jsonBody(req), writable, readOnly, spec.ignoreUnknown ? "ignoreUnknown" : violations);
      validateOrThrow(body, violations, "create", parentUid);
      const row = spec.build(ctx, parentUid, body);
      table(ctx, spec).put(row);
      const out = spec.renderCreated ? spec.renderCreated(row, ctx, body) : render(row);
      if (ctx.control.takeDroppedCreate()) {
        // Fault injection: the create is committed, but the client never hears back.
        ctx.onHijack?.(req.method, req.url);
        void reply.hijack();
        req.raw.socket.destroy();
        return reply;
      }
      return out;
    });

    app.patch(`${base}/*`, async (req) => {
      const sub = subResourceOf((req.params as Record<string, string>)["*"] ?? "", subNames);
      if (sub) {
        const resource = spec.subResources![sub.name]!;
        if (!spec.caps.update || !resource.patch) throw unimplemented("PATCH", `${base}/{uid}/${sub.name}`, unserved);
        const uid = checkUid(sub.uid);
        const scope = scopeFor(uid);
        if (scope !== undefined) ctx.access.require(callerOf(req), spec.caps.update, scope);
        return resource.patch(ctx, mustGet(table(ctx, spec).get(uid), spec.resourceType, uid), jsonBody(req), updateMaskOf(req));
      }
      if (!spec.caps.update) throw unimplemented("PATCH", base, unserved);
      const uid = uidParam(req);
      const scope = scopeFor(uid);
      if (scope !== undefined) ctx.access.require(callerOf(req), spec.caps.update, scope);
      const t = table(ctx, spec);
      const current = mustGet(t.get(uid), spec.resourceType, uid);
      const why = spec.immutable?.(current);
      if (why) throw failedPrecondition("IMMUTABLE", uid, why);
      const violations: FieldViolation[] = [];
      const body = pickBody(jsonBody(req), writable, readOnly, spec.ignoreUnknown ? "ignoreUnknown" : violations);
      let next = applyMask(current, body, maskPaths(updateMaskOf(req), body, writable));
      if (spec.merge) next = spec.merge(current, next, ctx);
      validateOrThrow(next, violations, "update");
      if (jsonEqual(next, current)) return render(current);
      if (spec.hasUpdateTime !== false) next["updateTime"] = timestamp(ctx.now());
      t.put(next);
      return render(next);
    });

    app.delete(`${base}/*`, async (req) => {
      if (!spec.caps.delete) throw unimplemented("DELETE", base, unserved);
      const uid = uidParam(req);
      const scope = scopeFor(uid);
      if (scope !== undefined) ctx.access.require(callerOf(req), spec.caps.delete, scope);
      const t = table(ctx, spec);
      const current = t.get(uid);
      if (!current) {
        if (spec.deleteIdempotent) return {};
        mustGet(current, spec.resourceType, uid);
      }
      const why = spec.immutable?.(current!);
      if (why) throw failedPrecondition("IMMUTABLE", uid, why);
      spec.beforeDelete?.(ctx, current!);
      t.delete(uid);
      spec.afterDelete?.(ctx, current!);
      return {};
    });
  }
}

/**
 * The v1 form of a row (seed §9 rule 3, read backwards): `uid` → `id`, `createTime` → `createdAt`,
 * `updateTime` → `updatedAt`, at the top level; every other field as in v2.
 */
export function toV1(row: unknown): unknown {
  if (typeof row !== "object" || row === null || Array.isArray(row)) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k === "uid" ? "id" : k === "createTime" ? "createdAt" : k === "updateTime" ? "updatedAt" : k] = v;
  return out;
}

/**
 * Registers the v1 read routes of `spec` (seed §1 rule 5, §9 rules 2–4: "v1 paths (for example `/iam/v1/...`,
 * `/registry/v1/...`) remain available"): `GET /<api>/v1/<c>` lists every visible row under the key `items`
 * (v1 has no pagination; the scoping filters `uidp.*` and `name` apply), `GET /<api>/v1/<c>/<id>` returns one
 * row; rows are in v1 form ({@link toV1}). v1 writes are not served: their methods and bodies are not part of
 * the contract (seed §9 rule 5 says only that they replace the whole resource), so they answer UNIMPLEMENTED.
 */
export function registerV1Collection(app: FastifyInstance, ctx: HandlerContext, spec: CollectionSpec): void {
  const base = `/${spec.api}/v1/${spec.collection}`;
  const render = (row: Row) => toV1(spec.render ? spec.render(row, ctx) : row);
  app.get(base, async (req) => {
    const raw = req.query as RawQuery;
    const parsed = parseListQuery({ ...raw, page_size: undefined, pageSize: undefined, page_token: undefined, pageToken: undefined, skip: undefined }, spec.orderFields);
    const q: ListQuery = { ...parsed, pageSize: Number.MAX_SAFE_INTEGER, pageToken: undefined, skip: 0 };
    const visible = ctx.access.visibility(callerOf(req), spec.caps.list, ctx.orgUid, spec.scopeOf);
    const extra = spec.listFilter?.(raw, ctx) ?? { predicate: null, key: "" };
    const preds = [visible, extra.predicate].filter((p): p is (row: Row) => boolean => p !== null);
    const predicate = preds.length === 0 ? null : (row: Row) => preds.every((p) => p(row));
    return { items: listPage(table(ctx, spec), q, predicate, extra.key, ctx.now().getTime()).rows.map(render) };
  });
  app.get(`${base}/*`, async (req) => {
    const uid = uidParam(req, "id");
    const scope = spec.scopeOf(uid);
    if (scope !== undefined && uid !== callerOf(req)) ctx.access.require(callerOf(req), spec.caps.list, scope);
    return render(mustGet(table(ctx, spec).get(uid), spec.resourceType, uid));
  });
  for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
    const refuse = async () => {
      throw unimplemented(method, base, "is not emulated: v1 writes are not part of the contract; use the v2 path");
    };
    app.route({ method, url: base, handler: refuse });
    app.route({ method, url: `${base}/*`, handler: refuse });
  }
}
