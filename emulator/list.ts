/**
 * List semantics shared by every List endpoint (contract: FACTS.md "List parameters", AIP-132/AIP-158).
 *
 * - Parameters are accepted in snake_case and lowerCamelCase (the vendor's gateway takes both).
 * - `page_size` defaults to 50; above 200 it is coerced to 200; negative is INVALID_ARGUMENT.
 * - `order_by` is `field [asc|desc]`; default `uid asc`; ties are broken by uid, so keyset pages never repeat or
 *   skip a row even while rows are created between pages.
 * - `page_token` is opaque: a cursor bound to the query's filters and order. A token from another query, or one
 *   that does not decode, restarts from the beginning without error (AIP-158).
 * - `skip` drops that many rows after the cursor; `skipped` echoes how many were dropped.
 * - `totalCount` counts every match, as an int64 decimal string.
 */
import { invalidArgument, type FieldViolation } from "./errors";
import type { Row } from "./store";
import { isChild, isDescendant, rootOf } from "./uidp";

/** Default and maximum page sizes. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** A parsed List request. */
export interface ListQuery {
  pageSize: number;
  pageToken: string | undefined;
  orderField: string;
  descending: boolean;
  skip: number;
  name: string | undefined;
  descendantsOf: string | undefined;
  childrenOf: string | undefined;
  ancestorsOf: string | undefined;
  inRoot: string | undefined;
  ids: string[] | undefined;
}

type Query = Record<string, string | string[] | undefined>;

/** Reads a parameter in either spelling; a repeated parameter's last value wins except where noted. */
function param(q: Query, snake: string): string | undefined {
  const camel = snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  const v = q[snake] ?? q[camel];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function repeated(q: Query, snake: string): string[] | undefined {
  const camel = snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  const v = q[snake] ?? q[camel];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).filter((s) => s !== "");
}

/** Field names `order_by` accepts on every collection, mapped to the stored field. */
const COMMON_ORDER_FIELDS: Record<string, string> = {
  uid: "uid",
  name: "name",
  created_at: "createTime",
  create_time: "createTime",
  createTime: "createTime",
  updated_at: "updateTime",
  update_time: "updateTime",
  updateTime: "updateTime",
};

/**
 * Parses and validates the List parameters.
 * @throws StatusError INVALID_ARGUMENT naming every bad parameter (page_size, skip, order_by).
 */
export function parseListQuery(q: Query): ListQuery {
  const violations: FieldViolation[] = [];
  const int = (field: string, raw: string | undefined): number => {
    if (raw === undefined || raw === "") return 0;
    if (!/^-?\d+$/.test(raw)) {
      violations.push({ field, description: `must be an integer, got "${raw}"` });
      return 0;
    }
    const n = Number(raw);
    if (n < 0) violations.push({ field, description: `must not be negative, got ${n}` });
    return n;
  };
  let pageSize = int("page_size", param(q, "page_size"));
  if (pageSize <= 0) pageSize = DEFAULT_PAGE_SIZE;
  if (pageSize > MAX_PAGE_SIZE) pageSize = MAX_PAGE_SIZE;
  const skip = Math.max(0, int("skip", param(q, "skip")));

  let orderField = "uid";
  let descending = false;
  const orderBy = param(q, "order_by")?.trim();
  if (orderBy) {
    const m = /^(\S+)(?:\s+(asc|desc))?$/i.exec(orderBy);
    const field = m?.[1] ? COMMON_ORDER_FIELDS[m[1]] : undefined;
    if (!m || !field) {
      violations.push({
        field: "order_by",
        description: `"${orderBy}" is not "<field> [asc|desc]" with field one of ${Object.keys(COMMON_ORDER_FIELDS).join(", ")}`,
      });
    } else {
      orderField = field;
      descending = (m[2] ?? "asc").toLowerCase() === "desc";
    }
  }
  if (violations.length > 0) throw invalidArgument(violations);
  return {
    pageSize,
    pageToken: param(q, "page_token") || undefined,
    orderField,
    descending,
    skip,
    name: param(q, "name") || undefined,
    descendantsOf: param(q, "uidp.descendants_of") || undefined,
    childrenOf: param(q, "uidp.children_of") || undefined,
    ancestorsOf: param(q, "uidp.ancestors_of") || undefined,
    inRoot: param(q, "uidp.in_root") || undefined,
    ids: repeated(q, "uidp.ids"),
  };
}

/** The page a List returns, before it is wrapped in the collection's envelope. */
export interface Page<T> {
  rows: T[];
  nextPageToken: string | undefined;
  totalCount: number;
  skipped: number;
}

interface Cursor {
  /** fingerprint of filters + order */
  f: string;
  /** sort value of the last row returned */
  v: string;
  /** uid of the last row returned */
  u: string;
}

function fingerprint(q: ListQuery): string {
  return JSON.stringify([q.orderField, q.descending, q.name, q.descendantsOf, q.childrenOf, q.ancestorsOf, q.inRoot, q.ids]);
}

function decodeCursor(token: string | undefined, fp: string): Cursor | undefined {
  if (!token) return undefined;
  try {
    const c = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Partial<Cursor>;
    if (c.f === fp && typeof c.v === "string" && typeof c.u === "string") return c as Cursor;
  } catch {
    // An undecodable token restarts the listing (AIP-158).
  }
  return undefined;
}

function sortValue(row: Row, field: string): string {
  const v = row[field];
  return typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);
}

/** Whether `row` passes the query's filters. */
export function matches(row: Row, q: ListQuery): boolean {
  if (q.name !== undefined && row["name"] !== q.name) return false;
  if (q.descendantsOf !== undefined && !isDescendant(row.uid, q.descendantsOf)) return false;
  if (q.childrenOf !== undefined && !isChild(row.uid, q.childrenOf)) return false;
  if (q.ancestorsOf !== undefined && !isDescendant(q.ancestorsOf, row.uid)) return false;
  if (q.inRoot !== undefined && rootOf(row.uid) !== q.inRoot) return false;
  if (q.ids !== undefined && !q.ids.includes(row.uid)) return false;
  return true;
}

/**
 * Filters, orders and pages `rows` for one List request.
 * @param rows every row of the collection (not modified).
 */
export function paginate<T extends Row>(rows: readonly T[], q: ListQuery): Page<T> {
  const fp = fingerprint(q);
  const dir = q.descending ? -1 : 1;
  const cmp = (a: { v: string; u: string }, b: { v: string; u: string }): number =>
    (a.v < b.v ? -1 : a.v > b.v ? 1 : 0) * dir || (a.u < b.u ? -1 : a.u > b.u ? 1 : 0);

  const keyed = rows.filter((r) => matches(r, q)).map((r) => ({ row: r, v: sortValue(r, q.orderField), u: r.uid }));
  keyed.sort(cmp);
  const cursor = decodeCursor(q.pageToken, fp);
  let start = 0;
  if (cursor) {
    start = keyed.findIndex((k) => cmp(k, { v: cursor.v, u: cursor.u }) > 0);
    if (start < 0) start = keyed.length;
  }
  const skipped = Math.min(q.skip, keyed.length - start);
  start += skipped;
  const page = keyed.slice(start, start + q.pageSize);
  const last = page[page.length - 1];
  const more = start + page.length < keyed.length;
  return {
    rows: page.map((k) => k.row),
    nextPageToken:
      more && last ? Buffer.from(JSON.stringify({ f: fp, v: last.v, u: last.u } satisfies Cursor)).toString("base64url") : undefined,
    totalCount: keyed.length,
    skipped,
  };
}

/** Wraps a page in the collection's envelope: `{<plural>, nextPageToken?, totalCount, skipped}`. */
export function envelope<T>(plural: string, page: Page<T>, render: (row: T) => unknown): Record<string, unknown> {
  return {
    [plural]: page.rows.map(render),
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    totalCount: String(page.totalCount),
    skipped: page.skipped,
  };
}
