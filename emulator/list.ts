/**
 * List semantics shared by every List endpoint (contract: the API description's List parameters, AIP-132/AIP-158).
 *
 * - Parameters are accepted in snake_case and lowerCamelCase (the vendor's gateway takes both).
 * - `page_size` defaults to 50; above 200 it is coerced to 200; negative is INVALID_ARGUMENT.
 * - `order_by` is `field [asc|desc]` over the collection's scalar fields (`created_at` and `create_time` both
 *   name `createTime`); default `uid asc`; ties are broken by uid, so keyset pages never repeat or skip a row,
 *   even while rows are created between pages.
 * - `page_token` is opaque: a cursor bound to the query's filters and order, stamped with its issue time. A token
 *   from another query, one older than 3 days, or one that does not decode restarts from the beginning without
 *   error (AIP-158).
 * - `skip` drops that many matching rows after the cursor; `skipped` echoes how many were dropped.
 * - `totalCount` counts every match, as an int64 decimal string.
 *
 * Cost: rows come from the table's sorted index for the order field. `uidp.descendants_of` under uid order is a
 * contiguous range of that index. With no row-level filter left, paging, skipping and counting are arithmetic
 * on the index (O(log n + page)); otherwise the range is scanned once, never copied or sorted.
 */
import { invalidArgument, type FieldViolation } from "./errors";
import { compareKeys, sortValueOf, type IndexEntry, type Row, type SortValue, type Table } from "./store";
import { isChild, isDescendant } from "./uidp";

/** Default and maximum page sizes. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
/** Page tokens older than this restart the listing (the API documents a 3-day expiry). */
export const PAGE_TOKEN_TTL_MS = 3 * 24 * 60 * 60 * 1000;

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
  /** Only root-level rows (single-segment uids: organizations, user identities). */
  inRoot: boolean | undefined;
  ids: string[] | undefined;
}

/** A raw query string, as fastify parses it (repeated keys become arrays). */
export type RawQuery = Record<string, string | string[] | undefined>;

function camel(snake: string): string {
  return snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Reads a parameter in either spelling; a repeated parameter's last value wins. */
export function param(q: RawQuery, snake: string): string | undefined {
  const v = q[snake] ?? q[camel(snake)];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** Reads a repeated parameter in either spelling; comma-separated values are split. */
export function repeated(q: RawQuery, snake: string): string[] | undefined {
  const v = q[snake] ?? q[camel(snake)];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).filter((s) => s !== "");
}

const ALIASES: Record<string, string> = { createdAt: "createTime", updatedAt: "updateTime" };

/**
 * Parses and validates the List parameters.
 * @param orderFields the collection's scalar fields (camelCase) that `order_by` may name; `uid` is always allowed.
 * @throws StatusError INVALID_ARGUMENT naming every bad parameter (page_size, skip, order_by, uidp.in_root).
 */
export function parseListQuery(q: RawQuery, orderFields: readonly string[]): ListQuery {
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
    const raw = m?.[1] ?? "";
    const field = ALIASES[camel(raw)] ?? camel(raw);
    if (!m || !(field === "uid" || orderFields.includes(field))) {
      violations.push({
        field: "order_by",
        description: `"${orderBy}" is not "<field> [asc|desc]" with field one of uid, ${orderFields.join(", ")} (snake_case or camelCase; created_at for createTime)`,
      });
    } else {
      orderField = field;
      descending = (m[2] ?? "asc").toLowerCase() === "desc";
    }
  }
  const inRootRaw = param(q, "uidp.in_root");
  let inRoot: boolean | undefined;
  if (inRootRaw !== undefined && inRootRaw !== "") {
    if (inRootRaw === "true" || inRootRaw === "false") inRoot = inRootRaw === "true";
    else violations.push({ field: "uidp.in_root", description: `must be true or false, got "${inRootRaw}"` });
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
    inRoot,
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
  /** fingerprint of filters + order (+ the collection's extra filters) */
  f: string;
  /** sort value of the last row returned */
  v?: SortValue;
  /** uid of the last row returned */
  u: string;
  /** issue time, ms since the epoch, on the emulator's clock */
  t: number;
}

function decodeCursor(token: string | undefined, fp: string, nowMs: number): Cursor | undefined {
  if (!token) return undefined;
  try {
    const c = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Partial<Cursor>;
    if (c.f === fp && typeof c.u === "string" && typeof c.t === "number" && nowMs - c.t <= PAGE_TOKEN_TTL_MS) return c as Cursor;
  } catch {
    // An undecodable token restarts the listing (AIP-158).
  }
  return undefined;
}

/**
 * The filters of `q` that the candidate range does not already guarantee, as a predicate (or null: none).
 * @param rangePrefix a uid whose descendants are exactly the candidate range, if the range was narrowed so.
 */
function rowFilter(q: ListQuery, rangePrefix: string | undefined): ((row: Row) => boolean) | null {
  const checks: Array<(row: Row) => boolean> = [];
  if (q.name !== undefined) checks.push((r) => r["name"] === q.name);
  if (q.descendantsOf !== undefined && q.descendantsOf !== rangePrefix) checks.push((r) => isDescendant(r.uid, q.descendantsOf!));
  if (q.childrenOf !== undefined) {
    // Within the descendants of X, a direct child is exactly X + "/" + 16 hex: a length test, no string scan.
    const childLength = q.childrenOf.length + 17;
    if (q.childrenOf === rangePrefix) checks.push((r) => r.uid.length === childLength);
    else checks.push((r) => isChild(r.uid, q.childrenOf!));
  }
  if (q.ancestorsOf !== undefined) checks.push((r) => isDescendant(q.ancestorsOf!, r.uid));
  if (q.inRoot !== undefined) checks.push((r) => !r.uid.includes("/") === q.inRoot);
  if (q.ids !== undefined) {
    const ids = new Set(q.ids);
    checks.push((r) => ids.has(r.uid));
  }
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0]!;
  return (r) => {
    for (const c of checks) if (!c(r)) return false;
    return true;
  };
}

/**
 * Filters, orders and pages one List request over `table`.
 * @param extra further row predicates (the collection's own filters, the caller's visibility), or null.
 * @param extraKey a string identifying `extra`'s parameters, bound into the page token.
 * @param nowMs the emulator's clock, for page-token expiry.
 */
export function listPage<T extends Row>(
  table: Table<T>,
  q: ListQuery,
  extra: ((row: T) => boolean) | null,
  extraKey: string,
  nowMs: number,
): Page<T> {
  const fp = JSON.stringify([q.orderField, q.descending, q.name, q.descendantsOf, q.childrenOf, q.ancestorsOf, q.inRoot, q.ids, extraKey]);

  // Candidates: a small explicit set (ids, name) sorted here, or a range of the order field's index.
  let entries: Array<IndexEntry<T>>;
  let lo = 0;
  let hi: number;
  let rangePrefix: string | undefined;
  const small = q.ids ? q.ids.map((id) => table.get(id)).filter((r): r is T => r !== undefined) : q.name !== undefined ? table.named(q.name) : undefined;
  if (small) {
    entries = [...new Map(small.map((r) => [r.uid, r])).values()].map((row) => ({ v: sortValueOf(row, q.orderField), u: row.uid, row }));
    entries.sort(compareKeys);
    hi = entries.length;
  } else {
    const index = table.index(q.orderField);
    entries = index.entries;
    hi = entries.length;
    const prefixOf = q.descendantsOf ?? q.childrenOf;
    if (q.orderField === "uid" && prefixOf !== undefined) {
      // Descendants of X are exactly the uids in ["X/", "X0"): "/" sorts just before "0".
      lo = index.bound({ v: `${prefixOf}/`, u: "" });
      hi = index.bound({ v: `${prefixOf}0`, u: "" });
      rangePrefix = prefixOf;
    }
  }

  const own = rowFilter(q, rangePrefix);
  const keep: ((row: T) => boolean) | null = own && extra ? (row) => own(row) && extra(row) : (own ?? extra);
  const cursor = decodeCursor(q.pageToken, fp, nowMs);
  const dir = q.descending ? -1 : 1;

  // Position of the first entry after the cursor, walking in `dir`.
  const boundIn = (key: { v: SortValue; u: string }, strict: boolean): number => {
    let a = lo;
    let b = hi;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const c = compareKeys(entries[mid]!, key);
      if (c < 0 || (strict && c === 0)) a = mid + 1;
      else b = mid;
    }
    return a;
  };
  let pos: number;
  if (dir === 1) pos = cursor ? boundIn({ v: cursor.v, u: cursor.u }, true) : lo;
  else pos = cursor ? boundIn({ v: cursor.v, u: cursor.u }, false) - 1 : hi - 1;

  const rows: T[] = [];
  let totalCount: number;
  let skipped = 0;
  let more: boolean;
  if (!keep) {
    totalCount = hi - lo;
    const available = dir === 1 ? hi - pos : pos - lo + 1;
    skipped = Math.min(q.skip, Math.max(0, available));
    pos += skipped * dir;
    for (let i = pos; rows.length < q.pageSize && i >= lo && i < hi; i += dir) rows.push(entries[i]!.row);
    const next = pos + rows.length * dir;
    more = next >= lo && next < hi;
  } else {
    totalCount = 0;
    for (let i = lo; i < hi; i++) if (keep(entries[i]!.row)) totalCount++;
    more = false;
    for (let i = pos; i >= lo && i < hi; i += dir) {
      const row = entries[i]!.row;
      if (!keep(row)) continue;
      if (skipped < q.skip) {
        skipped++;
        continue;
      }
      if (rows.length === q.pageSize) {
        more = true;
        break;
      }
      rows.push(row);
    }
  }
  const last = rows[rows.length - 1];
  const token: Cursor | undefined = more && last ? { f: fp, v: sortValueOf(last, q.orderField), u: last.uid, t: nowMs } : undefined;
  return { rows, nextPageToken: token ? Buffer.from(JSON.stringify(token)).toString("base64url") : undefined, totalCount, skipped };
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
