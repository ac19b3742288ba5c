/**
 * Running a test's independent work at the same time, bounded (docs/testing.md, "Pool settings": one engine run
 * keeps about 1.5 of this machine's 2 cores busy, so a file overlaps a few at most). One mechanism for every file
 * that overlaps runs of the CLI or the bin.
 */

/**
 * A gate of `n` slots: the function it returns runs `run` once one of the slots is free (in call order), and frees
 * the slot when `run` ends, however it ends.
 */
export function slots(n: number): <T>(run: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: Array<() => void> = [];
  return async (run) => {
    if (free > 0) free--;
    else await new Promise<void>((go) => waiting.push(go)); // handed the slot of a run that ended
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * `Promise.all` of `runs` that waits for every one to end before it fails (with the first failure, in order), so no
 * run a test started outlives it.
 */
export async function settled<T extends readonly unknown[] | []>(runs: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const done = (await Promise.allSettled(runs)) as Array<PromiseSettledResult<unknown>>;
  for (const d of done) if (d.status === "rejected") throw d.reason;
  return done.map((d) => (d as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/**
 * `task` of each of `items`, at most `limit` at once ({@link slots}), every one ended before this resolves or fails
 * ({@link settled}: the first failure in `items`' order).
 * @returns the results, in `items`' order.
 */
export function atMost<T, R>(limit: number, items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const gate = slots(limit);
  return settled(items.map((item) => gate(() => task(item))));
}
