/**
 * The emulator's state: one table per API collection, keyed by uid, with sorted indexes so a List over
 * 100,000 rows never copies or sorts the whole table per request (issue: "index or sorted structure").
 *
 * Every table keeps a uid-ordered index and a name index from the start; an index on any other scalar field is
 * built the first time a List orders by it and maintained on every write after that. Objects are stored in the
 * API's JSON shape (camelCase, RFC 3339 timestamps) so handlers return copies of them without translation.
 */

/** Fields every stored object has. */
export interface Row {
  uid: string;
  [field: string]: unknown;
}

/** A scalar value an index orders by; undefined sorts first. */
export type SortValue = string | number | boolean | undefined;

/** Orders two sort values: undefined first, then numbers, booleans and strings by their natural order. */
export function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (typeof a !== typeof b) return typeof a < typeof b ? -1 : 1;
  return a < b ? -1 : 1;
}

/** The value a row has for `field`, as an index orders it (non-scalars sort as undefined). */
export function sortValueOf(row: Row, field: string): SortValue {
  const v = row[field];
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : undefined;
}

/** One index entry. */
export interface IndexEntry<T extends Row> {
  v: SortValue;
  u: string;
  row: T;
}

/** Compares index keys: by value, then by uid (so ties never reorder between pages). */
export function compareKeys(a: { v: SortValue; u: string }, b: { v: SortValue; u: string }): number {
  return compareValues(a.v, b.v) || (a.u < b.u ? -1 : a.u > b.u ? 1 : 0);
}

/** Rows ordered by (field value, uid) in one array; inserts and removals are a binary search and a splice. */
export class SortedIndex<T extends Row> {
  readonly entries: Array<IndexEntry<T>> = [];
  private readonly keys = new Map<string, SortValue>();

  constructor(readonly field: string) {}

  /** First position whose key is >= `key` (or > `key` when `strict`). */
  bound(key: { v: SortValue; u: string }, strict = false): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareKeys(this.entries[mid]!, key);
      if (c < 0 || (strict && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(row: T): void {
    const v = sortValueOf(row, this.field);
    this.keys.set(row.uid, v);
    this.entries.splice(this.bound({ v, u: row.uid }), 0, { v, u: row.uid, row });
  }

  remove(uid: string): void {
    if (!this.keys.has(uid)) return;
    const at = this.bound({ v: this.keys.get(uid), u: uid });
    if (this.entries[at]?.u === uid) this.entries.splice(at, 1);
    this.keys.delete(uid);
  }

  /** Replaces the whole content (bulk load): one sort instead of n splices. */
  rebuild(rows: Iterable<T>): void {
    this.entries.length = 0;
    this.keys.clear();
    for (const row of rows) {
      const v = sortValueOf(row, this.field);
      this.keys.set(row.uid, v);
      this.entries.push({ v, u: row.uid, row });
    }
    this.entries.sort(compareKeys);
  }
}

/** A keyed table with sorted indexes and a name index. */
export class Table<T extends Row> {
  private readonly rows = new Map<string, T>();
  private readonly indexes = new Map<string, SortedIndex<T>>();
  /** Hash indexes: field → value → uids. `name` always; others built on first {@link where}. */
  private readonly hashes = new Map<string, Map<string, Set<string>>>([["name", new Map()]]);
  /** Bumped on every write, so a handler can cache something derived from the whole table. */
  version = 0;

  constructor() {
    this.indexes.set("uid", new SortedIndex<T>("uid"));
  }

  /** The row with this uid, or undefined. */
  get(uid: string): T | undefined {
    return this.rows.get(uid);
  }

  /** Inserts or replaces a row, keeping every index current. */
  put(row: T): void {
    const old = this.rows.get(row.uid);
    if (old) this.unindex(old);
    this.version++;
    this.rows.set(row.uid, row);
    this.addToIndexes(row);
  }

  /** Removes a row; returns whether it existed. */
  delete(uid: string): boolean {
    const old = this.rows.get(uid);
    if (!old) return false;
    this.version++;
    this.unindex(old);
    this.rows.delete(uid);
    return true;
  }

  /** Adds many rows at once (seeding): indexes are rebuilt with one sort each. */
  bulkLoad(rows: Iterable<T>): void {
    for (const row of rows) this.rows.set(row.uid, row);
    this.version++;
    for (const [field, hash] of this.hashes) {
      hash.clear();
      for (const row of this.rows.values()) this.addHash(field, hash, row);
    }
    for (const index of this.indexes.values()) index.rebuild(this.rows.values());
  }

  /** Removes every row. */
  clear(): void {
    this.rows.clear();
    this.version++;
    for (const hash of this.hashes.values()) hash.clear();
    for (const index of this.indexes.values()) index.rebuild([]);
  }

  /** Rows whose string `field` equals `value` (any order); the field's hash index is built on first use. */
  where(field: string, value: string): T[] {
    let hash = this.hashes.get(field);
    if (!hash) {
      hash = new Map();
      for (const row of this.rows.values()) this.addHash(field, hash, row);
      this.hashes.set(field, hash);
    }
    return [...(hash.get(value) ?? [])].map((uid) => this.rows.get(uid)!);
  }

  /** The index ordered by `field`, built on first use. */
  index(field: string): SortedIndex<T> {
    let index = this.indexes.get(field);
    if (!index) {
      index = new SortedIndex<T>(field);
      index.rebuild(this.rows.values());
      this.indexes.set(field, index);
    }
    return index;
  }

  /** Rows whose `name` equals `name` (any order). */
  named(name: string): T[] {
    return this.where("name", name);
  }

  /** Every row, in no particular order. */
  all(): T[] {
    return [...this.rows.values()];
  }

  /** Every row, without copying. */
  values(): IterableIterator<T> {
    return this.rows.values();
  }

  /** Number of rows. */
  get size(): number {
    return this.rows.size;
  }

  private addToIndexes(row: T): void {
    for (const [field, hash] of this.hashes) this.addHash(field, hash, row);
    for (const index of this.indexes.values()) index.insert(row);
  }

  private addHash(field: string, hash: Map<string, Set<string>>, row: T): void {
    const value = row[field];
    if (typeof value !== "string") return;
    let set = hash.get(value);
    if (!set) hash.set(value, (set = new Set()));
    set.add(row.uid);
  }

  private unindex(row: T): void {
    for (const [field, hash] of this.hashes) {
      const value = row[field];
      if (typeof value === "string") hash.get(value)?.delete(row.uid);
    }
    for (const index of this.indexes.values()) index.remove(row.uid);
  }
}

/** A table's name: a collection's segment (`groups`), or `repoReadmes` (a repo's `readme` sub-resource). */
export type CollectionName = string;

/**
 * All tables of one emulated org, one per name given: each collection the emulator serves
 * (`handlers/index.ts`, `TABLES`), and `repoReadmes`, no collection of the API but a repo's `readme`
 * sub-resource, one row per repo that has one, keyed by the repo's uid.
 */
export class Store {
  private readonly byName: ReadonlyMap<string, Table<Row>>;

  /** @param names every table's name, in the order `dump` lists them. */
  constructor(names: readonly string[]) {
    this.byName = new Map(names.map((c) => [c, new Table<Row>()]));
  }

  /** Every table's name, in the order given. */
  get names(): readonly string[] {
    return [...this.byName.keys()];
  }

  /**
   * The table of a collection.
   * @throws Error when the store has no table of that name (a collection no handler serves).
   */
  table(name: string): Table<Row> {
    const t = this.byName.get(name);
    if (!t) throw new Error(`the emulator's store has no table "${name}" (it has: ${this.names.join(", ")})`);
    return t;
  }

  get groups(): Table<Row> {
    return this.table("groups");
  }
  get identities(): Table<Row> {
    return this.table("identities");
  }
  get roles(): Table<Row> {
    return this.table("roles");
  }
  get roleBindings(): Table<Row> {
    return this.table("roleBindings");
  }
  get repos(): Table<Row> {
    return this.table("repos");
  }

  /** Every row of every table (state dump), by table name. */
  dump(): Record<string, Row[]> {
    return Object.fromEntries([...this.byName].map(([c, t]) => [c, t.index("uid").entries.map((e) => e.row)]));
  }

  /** Replaces all state with `dump` (a deep copy is taken); a table the dump lacks is emptied. */
  restore(dump: Record<string, Row[]>): void {
    for (const [c, t] of this.byName) {
      t.clear();
      t.bulkLoad(structuredClone(dump[c] ?? []));
    }
  }
}
