/**
 * Batched reads for refresh. The engine refreshes `--parallel` resources at a time (default: 4 per CPU, so 8 on
 * 2 cores), each a `read` of one uid, and waits on each; one GET per read costs a round trip and its share of
 * the provider process's CPU. Two ways to need fewer requests, both per collection:
 *
 * 1. **Batching.** Reads that arrive together (in the same turn of the event loop, or within
 *    {@link BATCH_WINDOW_MS}) are fetched with one List filtered by `uidp.ids` (up to {@link MAX_BATCH} uids).
 * 2. **Read-ahead**, once a collection has had {@link READ_AHEAD_AFTER} reads in this process (a refresh of a
 *    large stack, not a few lookups): the collection's rows under the common parent of the uids read so far are
 *    listed page by page (`uidp.descendants_of`, 200 a page, uid order), and a later read of a listed uid is
 *    answered from that row without a request. The engine can have only `--parallel` reads waiting, so batching
 *    alone can never put more than that many in one request; read-ahead is what lets a refresh of thousands of
 *    resources cost a few requests per hundred.
 *
 * Exactness, which neither way gives up:
 * - A uid that no List answered is fetched again with its own GET. So NOT_FOUND still means gone, and
 *   PERMISSION_DENIED still fails the read. Losing access can never look like a deletion.
 * - A read-ahead row answers at most one read, and only while it is younger than {@link READ_AHEAD_MAX_AGE_MS}
 *   and no write of this client started or ended since its List was sent (its transport's `writeEpoch`). So a
 *   read sees this process's own writes (the provider process has one client), and what it returns is the object's state at a moment during the same operation,
 *   never older than that age: the same as if the engine had happened to read that resource earlier.
 * - Read-ahead costs are bounded: it asks for another page only while it has listed fewer than
 *   {@link READ_AHEAD_BASE_ROWS} + {@link READ_AHEAD_ROWS_PER_READ} × reads rows (so at most one page more than
 *   that), so a small stack in a large org lists a page or two more, not the whole org. A List that
 *   fails ends read-ahead for that collection in this process; reads go on by batch and GET.
 */
import type { ReadableCollection } from "../client/client";
import { parentOfUid } from "./common";

/** How long a batch waits for more reads, in milliseconds. */
export const BATCH_WINDOW_MS = 2;
/** Most uids in one List (the API's maximum page size). */
export const MAX_BATCH = 200;
/** Reads of one collection in this process before read-ahead starts. */
export const READ_AHEAD_AFTER = 16;
/** Oldest read-ahead row that may answer a read, in milliseconds since its List was sent. */
export const READ_AHEAD_MAX_AGE_MS = 30_000;
/** Read-ahead's budget: rows it may fetch = this + {@link READ_AHEAD_ROWS_PER_READ} × reads served. */
export const READ_AHEAD_BASE_ROWS = 200;
/** See {@link READ_AHEAD_BASE_ROWS}. */
export const READ_AHEAD_ROWS_PER_READ = 4;

/** Counts of what one collection's reads cost in this process (for tests and benchmarks). */
export interface ReadStats {
  /** Reads asked for. */
  reads: number;
  /** Reads answered by a read-ahead row. */
  readAheadHits: number;
  /** Read-ahead Lists sent (answered or failed), and the rows they returned. */
  readAheadLists: number;
  readAheadRows: number;
  /** Lists by `uidp.ids`, and single GETs. */
  batchLists: number;
  gets: number;
  /** The parent whose descendants are read ahead, once chosen. */
  scope: string | undefined;
}

interface Pending<T> {
  uid: string;
  resolve: (row: T) => void;
  reject: (err: unknown) => void;
}

interface AheadRow<T> {
  row: T;
  /** `Date.now()` and the collection's `writeEpoch()` when its List was sent. */
  sentAt: number;
  epoch: number;
}

const readers = new WeakMap<object, Reader<{ uid: string }>>();

class Reader<T extends { uid: string }> {
  readonly stats: ReadStats = { reads: 0, readAheadHits: 0, readAheadLists: 0, readAheadRows: 0, batchLists: 0, gets: 0, scope: undefined };
  private queue: Array<Pending<T>> = [];
  private timer: NodeJS.Timeout | undefined;
  /** Parents of the first reads, to choose the read-ahead scope from. */
  private parents: string[] = [];
  private ahead = new Map<string, AheadRow<T>>();
  private pages: AsyncIterator<{ items: T[] }> | undefined;
  private fetching = false;
  private aheadState: "waiting" | "reading" | "done" = "waiting";
  /** The latest read's `readAhead` setting (the setting is per process; a `false` stops further pages). */
  private readAheadAllowed = true;

  constructor(private readonly collection: ReadableCollection<T>) {}

  get(uid: string, readAhead: boolean): Promise<T> {
    this.readAheadAllowed = readAhead;
    this.stats.reads++;
    const hit = this.ahead.get(uid);
    if (hit && readAhead) {
      this.ahead.delete(uid); // one read per row: reading the same uid again asks the server
      if (hit.epoch === this.collection.writeEpoch() && Date.now() - hit.sentAt <= READ_AHEAD_MAX_AGE_MS) {
        this.stats.readAheadHits++;
        this.readAhead();
        return Promise.resolve(hit.row);
      }
    }
    if (this.aheadState === "waiting" && this.parents.length < READ_AHEAD_AFTER) this.parents.push(parentOfUid(uid));
    this.readAhead();
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ uid, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS);
    });
  }

  /** Starts or continues read-ahead when it is due and within budget (never waits for it). */
  private readAhead(): void {
    if (!this.readAheadAllowed || this.aheadState === "done" || this.fetching) return;
    if (this.aheadState === "waiting") {
      if (this.stats.reads < READ_AHEAD_AFTER) return;
      const scope = commonParent(this.parents);
      this.parents = [];
      if (!scope) {
        this.aheadState = "done"; // reads under different roots: nothing narrower than the whole API to list
        return;
      }
      this.stats.scope = scope;
      this.aheadState = "reading";
    }
    if (this.stats.readAheadRows >= READ_AHEAD_BASE_ROWS + READ_AHEAD_ROWS_PER_READ * this.stats.reads) return;
    this.fetching = true;
    const sentAt = Date.now();
    const epoch = this.collection.writeEpoch();
    const ended = () => {
      // Read-ahead is an optimization: a List that fails ends it, and reads go on by batch and GET.
      this.fetching = false;
      this.aheadState = "done";
    };
    let next: Promise<IteratorResult<{ items: T[] }>>;
    try {
      this.pages ??= this.collection.list({ descendantsOf: this.stats.scope!, pageSize: MAX_BATCH }).pages()[Symbol.asyncIterator]();
      next = this.pages.next();
    } catch {
      this.stats.readAheadLists++;
      ended();
      return;
    }
    next.then(
      (r) => {
        this.fetching = false;
        if (r.done) {
          this.aheadState = "done";
          return;
        }
        this.stats.readAheadLists++;
        this.stats.readAheadRows += r.value.items.length;
        for (const row of r.value.items) this.ahead.set(row.uid, { row, sentAt, epoch });
        this.readAhead();
      },
      () => {
        this.stats.readAheadLists++;
        ended();
      },
    );
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) this.timer = setTimeout(() => this.flush(), BATCH_WINDOW_MS);
    void this.run(batch);
  }

  private async run(batch: Array<Pending<T>>): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0]!;
      this.stats.gets++;
      this.collection.get(only.uid).then(only.resolve, only.reject);
      return;
    }
    let found = new Map<string, T>();
    try {
      const ids = [...new Set(batch.map((p) => p.uid))];
      this.stats.batchLists++;
      const rows = await this.collection.list({ ids, pageSize: MAX_BATCH }).collect();
      found = new Map(rows.map((r) => [r.uid, r]));
    } catch {
      // The List failed as a whole: every read falls back to its own GET below, with its own error.
    }
    for (const p of batch) {
      const row = found.get(p.uid);
      if (row) p.resolve(row);
      else {
        this.stats.gets++;
        this.collection.get(p.uid).then(p.resolve, p.reject);
      }
    }
  }
}

/** The longest uid that is `p` or an ancestor of `p` for every `p` in `parents` (segment-wise), or "" when none. */
export function commonParent(parents: readonly string[]): string {
  if (parents.length === 0) return "";
  let common = parents[0]!.split("/");
  for (const p of parents.slice(1)) {
    const segs = p.split("/");
    let i = 0;
    while (i < common.length && i < segs.length && common[i] === segs[i]) i++;
    common = common.slice(0, i);
  }
  return common.join("/");
}

function readerOf<T extends { uid: string }>(collection: ReadableCollection<T>): Reader<T> {
  let r = readers.get(collection) as Reader<T> | undefined;
  if (!r) {
    r = new Reader<T>(collection);
    readers.set(collection, r as unknown as Reader<{ uid: string }>);
  }
  return r;
}

/**
 * Reads one object through its collection's batcher and, unless `readAhead` is false (setting `platform:readAhead`),
 * its read-ahead (module comment).
 * @throws what `collection.get(uid)` throws (NotFoundError when gone, and so on).
 */
export function batchedGet<T extends { uid: string }>(collection: ReadableCollection<T>, uid: string, readAhead = true): Promise<T> {
  return readerOf(collection).get(uid, readAhead);
}

/** What `collection`'s reads have cost in this process so far (a copy). */
export function readStats(collection: ReadableCollection<{ uid: string }>): ReadStats {
  return { ...readerOf(collection).stats };
}
