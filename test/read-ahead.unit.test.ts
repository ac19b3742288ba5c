/**
 * Reads for refresh (provider/engine/readBatch.ts) against the emulator over loopback: batching by `uidp.ids`,
 * read-ahead by `uidp.descendants_of`, and the exactness rules both keep: NOT_FOUND only from a GET, a row used
 * once, never across this process's own write, never older than its maximum age, and a bounded cost.
 *
 * Each test reads through a client of its own, so the per-collection counters start at zero. Reads are driven
 * the way the engine drives them: a fixed number of workers (`--parallel`, 8 by default on 2 cores), each
 * starting its next read when the last one returned.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { NotFoundError } from "../provider/client/errors";
import { PlatformClient, ReadableCollection } from "../provider/client/client";
import type { ListParams, Paginator } from "../provider/client/pagination";
import type * as Api from "../provider/client/types";
import { READ_AHEAD_AFTER, READ_AHEAD_BASE_ROWS, READ_AHEAD_MAX_AGE_MS, READ_AHEAD_ROWS_PER_READ, batchedGet, commonParent, readStats } from "../provider/engine/readBatch";

let emu: Emulator;
const clients: PlatformClient[] = [];
beforeAll(async () => {
  emu = await startEmulator({ seed: { groups: 1000 } });
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  for (const c of clients) await c.close();
  await emu.close();
});

function freshClient(): PlatformClient {
  const c = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  clients.push(c);
  return c;
}

/** Reads `uids` with `workers` concurrent readers, as the engine's step executor does; settles every read. */
async function readAll<T extends { uid: string }>(coll: ReadableCollection<T>, uids: readonly string[], workers = 8, readAhead = true) {
  const results = new Array<PromiseSettledResult<T>>(uids.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < uids.length) {
        const i = next++;
        results[i] = await batchedGet(coll, uids[i]!, readAhead).then(
          (value) => ({ status: "fulfilled", value }) as const,
          (reason: unknown) => ({ status: "rejected", reason }) as const,
        );
      }
    }),
  );
  return results;
}

/** `n` groups under a new team group, made directly on the server; returns the team and the groups in order. */
async function team(client: PlatformClient, name: string, n: number) {
  const t = await client.groups.create(emu.orgUid, { name });
  const made: Api.ApiGroup[] = [];
  for (let i = 0; i < n; i++) made.push(await client.groups.create(t.uid, { name: `${name}-${i}`, description: `d${i}` }));
  return { team: t, groups: made };
}

const requestsSince = (since: number) => emu.requests.slice(since);
const isReadAhead = (r: { query: Record<string, string> }) => r.query["uidp.descendants_of"] !== undefined;

/**
 * A team of 40 groups made by another client, and a fresh client that has read the first 20 (by uid) and so
 * holds read-ahead rows for all 40 (waited for).
 */
async function warmed(name: string) {
  const { groups } = await team(freshClient(), name, 40);
  const client = freshClient();
  await readAll(client.groups, groups.slice(0, 20).map((g) => g.uid));
  await vi.waitFor(() => expect(readStats(client.groups).readAheadRows).toBeGreaterThanOrEqual(40));
  return { groups, client };
}

describe("read-ahead", () => {
  it("answers a refresh-sized run of reads with a few Lists: 300 reads, at most 0.2 requests each", async () => {
    const setup = freshClient();
    const { team: t, groups } = await team(setup, "ra-bulk", 300);
    const client = freshClient();
    const since = emu.requests.length;
    // An order unrelated to the List's (uid) order, as the engine's is: 0, 7, 14, … modulo 300.
    const shuffled = groups.map((_g, i) => groups[(i * 7) % 300]!);
    const results = await readAll(client.groups, shuffled.map((g) => g.uid));
    // Every read returns its own group, as the server has it.
    expect(results.map((r) => (r.status === "fulfilled" ? `${r.value.uid} ${r.value.description}` : "rejected"))).toEqual(shuffled.map((g) => `${g.uid} ${g.description}`));
    const sent = requestsSince(since);
    const stats = readStats(client.groups);
    expect(stats.scope).toBe(t.uid); // the common parent of the reads, not the whole org
    expect(sent.filter(isReadAhead).every((r) => r.query["uidp.descendants_of"] === t.uid)).toBe(true);
    expect(stats.readAheadHits).toBeGreaterThan(200);
    expect(sent.length).toBe(stats.readAheadLists + stats.batchLists + stats.gets);
    expect(sent.length / 300).toBeLessThanOrEqual(0.2);
    expect(sent.every((r) => r.method === "GET" && r.status === 200)).toBe(true);
  });

  it("does not start for fewer reads than READ_AHEAD_AFTER (a few lookups stay exact reads)", async () => {
    const { groups } = await team(freshClient(), "ra-few", READ_AHEAD_AFTER - 1);
    const client = freshClient();
    const since = emu.requests.length;
    await readAll(client.groups, groups.map((g) => g.uid));
    expect(requestsSince(since).filter(isReadAhead)).toEqual([]);
    expect(readStats(client.groups)).toMatchObject({ reads: READ_AHEAD_AFTER - 1, readAheadLists: 0, readAheadHits: 0 });
  });

  it("never reports a group gone from a List: a deleted one is confirmed by its own GET (NOT_FOUND)", async () => {
    const setup = freshClient();
    const { groups } = await team(setup, "ra-gone", 40);
    await setup.groups.delete(groups[30]!.uid);
    const client = freshClient();
    const since = emu.requests.length;
    const results = await readAll(client.groups, groups.map((g) => g.uid));
    expect(results.filter((r) => r.status === "rejected").length).toBe(1);
    const gone = results[30]!;
    expect(gone.status === "rejected" && gone.reason).toBeInstanceOf(NotFoundError);
    expect(requestsSince(since).filter((r) => r.path.endsWith(groups[30]!.uid)).map((r) => r.status)).toEqual([404]);
  });

  it("uses a row once: reading the same uid again asks the server", async () => {
    const { groups, client } = await warmed("ra-once");
    const last = groups[39]!.uid;
    const before = readStats(client.groups).readAheadHits;
    await batchedGet(client.groups, last);
    expect(readStats(client.groups).readAheadHits).toBe(before + 1);
    const since = emu.requests.length;
    await batchedGet(client.groups, last);
    expect(readStats(client.groups).readAheadHits).toBe(before + 1);
    expect(requestsSince(since).map((r) => r.path)).toEqual([`/iam/v2beta1/groups/${last}`]);
  });

  it("never answers from a row listed before this process's own write", async () => {
    const { groups, client } = await warmed("ra-write");
    const target = groups[35]!;
    // Any write of this process (here through another client) moves the write epoch.
    await freshClient().groups.patch(target.uid, { description: "changed after the List" }, ["description"]);
    const before = readStats(client.groups).readAheadHits;
    const row = await batchedGet(client.groups, target.uid);
    expect(row.description).toBe("changed after the List");
    expect(readStats(client.groups).readAheadHits).toBe(before);
  });

  it("the write counter lives on the transport: clients sharing one see each other's writes, a client with its own does not", async () => {
    const { groups } = await team(freshClient(), "ra-counter", 1);
    const shared = { value: 0 };
    const make = (writeCounter?: { value: number }) => {
      const c = new PlatformClient({ apiUrl: emu.url, token: emu.token, ...(writeCounter ? { writeCounter } : {}) });
      clients.push(c);
      return c;
    };
    const a = make(shared);
    const b = make(shared);
    const alone = make({ value: 0 });
    const before = [a.transport.writeEpoch(), alone.transport.writeEpoch()];
    await b.groups.patch(groups[0]!.uid, { description: "through b" }, ["description"]);
    expect(a.transport.writeEpoch()).toBe(before[0]! + 2); // started and ended
    expect(alone.transport.writeEpoch()).toBe(before[1]);
    // Clients given no counter share the process's.
    const p1 = make();
    const e = p1.transport.writeEpoch();
    await make().groups.patch(groups[0]!.uid, { description: "through another" }, ["description"]);
    expect(p1.transport.writeEpoch()).toBe(e + 2);
  });

  it("the documented limit: another writer's edit after the List is not seen by a read that row answers", async () => {
    const { groups, client } = await warmed("ra-other-writer");
    const target = groups[37]!;
    // Another writer (plain fetch, not this process's transport, so the write epoch does not move).
    const res = await fetch(`${emu.url}/iam/v2beta1/groups/${target.uid}?updateMask=description`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
      body: JSON.stringify({ description: "edited by someone else" }),
    });
    expect(res.status).toBe(200);
    expect((await batchedGet(client.groups, target.uid)).description).toBe(target.description); // as listed
    expect((await batchedGet(client.groups, target.uid)).description).toBe("edited by someone else"); // the next read asks
  });

  it(`never answers from a row older than READ_AHEAD_MAX_AGE_MS (${READ_AHEAD_MAX_AGE_MS} ms)`, async () => {
    const { groups, client } = await warmed("ra-age");
    const before = readStats(client.groups).readAheadHits;
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + READ_AHEAD_MAX_AGE_MS + 1);
    const since = emu.requests.length;
    await batchedGet(client.groups, groups[36]!.uid);
    expect(readStats(client.groups).readAheadHits).toBe(before);
    expect(requestsSince(since).map((r) => r.path)).toEqual([`/iam/v2beta1/groups/${groups[36]!.uid}`]);
  });

  it("stays within its budget: 20 reads beside 1,000 other groups list 2 pages (a page past 200 + 4 rows per read at most)", async () => {
    // The seeded 1,000 groups sit directly under the org, beside the 20 read here, so the scope is the org.
    const setup = freshClient();
    const { groups } = await team(setup, "ra-budget-a", 10);
    const { groups: more } = await team(setup, "ra-budget-b", 10);
    const client = freshClient();
    const since = emu.requests.length;
    await readAll(client.groups, [...groups, ...more].map((g) => g.uid));
    await new Promise((r) => setTimeout(r, 200)); // let any read-ahead still in flight finish
    const stats = readStats(client.groups);
    expect(stats.scope).toBe(emu.orgUid);
    expect(stats.readAheadRows).toBeLessThanOrEqual(READ_AHEAD_BASE_ROWS + READ_AHEAD_ROWS_PER_READ * 20 + 200);
    expect(stats.readAheadLists).toBeLessThanOrEqual(2);
    expect(requestsSince(since).filter(isReadAhead).length).toBe(stats.readAheadLists);
  });

  it("is off with platform:readAhead false: no List by descendants, every read from a GET or a List by ids", async () => {
    const { groups } = await team(freshClient(), "ra-off", 60);
    const client = freshClient();
    const since = emu.requests.length;
    const results = await readAll(client.groups, groups.map((g) => g.uid), 8, false);
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    const sent = requestsSince(since);
    expect(sent.filter(isReadAhead)).toEqual([]);
    expect(sent.every((r) => r.query["uidp.ids"] !== undefined || r.path.startsWith("/iam/v2beta1/groups/"))).toBe(true);
    expect(readStats(client.groups)).toMatchObject({ reads: 60, readAheadLists: 0, readAheadHits: 0 });
  });

  it("ends read-ahead when its List fails; the reads go on and all succeed", async () => {
    const { groups } = await team(freshClient(), "ra-fail", 60);
    const client = freshClient();
    const original = ReadableCollection.prototype.list;
    vi.spyOn(client.groups, "list").mockImplementation(function (this: ReadableCollection<Api.ApiGroup>, params?: ListParams) {
      if (params?.descendantsOf) throw new Error("read-ahead List refused");
      return original.call(this, params) as Paginator<Api.ApiGroup>;
    });
    const results = await readAll(client.groups, groups.map((g) => g.uid));
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    expect(readStats(client.groups)).toMatchObject({ readAheadHits: 0, readAheadLists: 1 });
  });
});

describe("read-ahead under the emulator's faults", () => {
  afterEach(() => emu.control.reset());

  it("50% UNAVAILABLE and 20% connection resets: every read returns its own row; no fault looks like a deletion", async () => {
    // Which requests the faults hit depends on the order concurrent reads reach the server, so one seed does not
    // always fault the read-ahead List itself. Every seed's reads must be exact; seeds are tried until one also
    // faulted the List (the case this test is for).
    let faultedList = false;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { groups } = await team(freshClient(), `ra-faults-${seed}`, 120);
      const client = new PlatformClient({ apiUrl: emu.url, token: emu.token, retry: { maxAttempts: 8, baseDelayMs: 1, maxDelayMs: 5 } });
      clients.push(client);
      emu.control.set({ errorRates: { "14": 0.5 }, resetRate: 0.2, seed });
      const since = emu.requests.length;
      const results = await readAll(client.groups, groups.map((g) => g.uid));
      emu.control.reset();
      const sent = requestsSince(since);
      expect(sent.filter((r) => r.status === 503 || r.status === 0).length).toBeGreaterThan(0); // faults did happen
      expect(results.map((r) => (r.status === "fulfilled" ? r.value.uid : `rejected: ${String(r.reason)}`))).toEqual(groups.map((g) => g.uid));
      expect(readStats(client.groups).readAheadHits).toBeGreaterThan(0);
      if (sent.some((r) => isReadAhead(r) && r.status !== 200)) {
        faultedList = true; // the read-ahead List among the faulted requests
        break;
      }
    }
    expect(faultedList, "no seed faulted a read-ahead List").toBe(true);
  });

  it("without retries, a faulted read fails with its fault, never with NOT_FOUND, and the others return their rows", async () => {
    const { groups } = await team(freshClient(), "ra-faults-once", 120);
    const client = new PlatformClient({ apiUrl: emu.url, token: emu.token, retry: { maxAttempts: 1 } });
    clients.push(client);
    emu.control.set({ errorRates: { "14": 0.3 }, resetRate: 0.1, seed: 1 });
    const results = await readAll(client.groups, groups.map((g) => g.uid));
    emu.control.reset();
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(failed.length).toBeGreaterThan(0); // faults reached some reads
    expect(failed.filter((r) => r.reason instanceof NotFoundError)).toEqual([]);
    results.forEach((r, i) => {
      if (r.status === "fulfilled") expect(r.value.uid).toBe(groups[i]!.uid);
    });
  });
});

describe("commonParent", () => {
  it("is the longest common uid prefix by segment", () => {
    expect(commonParent(["o/a/b", "o/a/c", "o/a"])).toBe("o/a");
    expect(commonParent(["o/ab", "o/a"])).toBe("o");
    expect(commonParent(["o/a", "p/a"])).toBe("");
    expect(commonParent([])).toBe("");
  });
});
