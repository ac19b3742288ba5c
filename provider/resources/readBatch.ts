/**
 * Batched reads for refresh. The engine refreshes resources about ten at a time, each a `read` of one uid; one
 * GET each costs a round trip and its share of the provider process's CPU. Reads that arrive together (in
 * the same turn of the event loop, or within {@link BATCH_WINDOW_MS}) are fetched with one List filtered by
 * `uidp.ids` (up to {@link MAX_BATCH} uids a request).
 *
 * Exactness: a uid missing from the List's answer is fetched again with its own GET. So NOT_FOUND still means
 * gone, and PERMISSION_DENIED still fails the read. Losing access can never look like a deletion.
 */
import type { ReadableCollection } from "../client/client";

/** How long a batch waits for more reads, in milliseconds. */
export const BATCH_WINDOW_MS = 2;
/** Most uids in one List (the API's maximum page size). */
export const MAX_BATCH = 200;

interface Pending<T> {
  uid: string;
  resolve: (row: T) => void;
  reject: (err: unknown) => void;
}

const batchers = new WeakMap<object, Batcher<{ uid: string }>>();

class Batcher<T extends { uid: string }> {
  private queue: Array<Pending<T>> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly collection: ReadableCollection<T>) {}

  get(uid: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ uid, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS);
    });
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
      this.collection.get(only.uid).then(only.resolve, only.reject);
      return;
    }
    let found = new Map<string, T>();
    try {
      const ids = [...new Set(batch.map((p) => p.uid))];
      const rows = await this.collection.list({ ids, pageSize: MAX_BATCH }).collect();
      found = new Map(rows.map((r) => [r.uid, r]));
    } catch {
      // The List failed as a whole: every read falls back to its own GET below, with its own error.
    }
    for (const p of batch) {
      const row = found.get(p.uid);
      if (row) p.resolve(row);
      else this.collection.get(p.uid).then(p.resolve, p.reject);
    }
  }
}

/**
 * Reads one object through its collection's batcher.
 * @throws what `collection.get(uid)` throws (NotFoundError when gone, and so on).
 */
export function batchedGet<T extends { uid: string }>(collection: ReadableCollection<T>, uid: string): Promise<T> {
  let b = batchers.get(collection) as Batcher<T> | undefined;
  if (!b) {
    b = new Batcher<T>(collection);
    batchers.set(collection, b as unknown as Batcher<{ uid: string }>);
  }
  return b.get(uid);
}
