/** The dynamic-provider plugin's engine watcher: /proc parsing and when it decides the engine is gone. */
import { createServer, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chooseWatched, engineAddressArg, engineLost, findEngine, parseStat, readProcStat, watchEngine, type ProcStat, type StatReader } from "../provider/engineWatch";

/** A /proc/<pid>/stat line with the given fields (the rest as the kernel writes them, roughly). */
function statLine(pid: number, comm: string, state: string, ppid: number, start: number): string {
  const fields5to21 = Array.from({ length: 17 }, (_, i) => String(i)).join(" ");
  return `${pid} (${comm}) ${state} ${ppid} ${fields5to21} ${start} 123456 789 18446744073709551615\n`;
}

/** A fake process table. */
function table(procs: Array<[pid: number, comm: string, ppid: number, start?: number, state?: string]>): StatReader {
  const byPid = new Map<number, ProcStat>();
  for (const [pid, comm, ppid, start = pid * 10, state = "S"] of procs) byPid.set(pid, { pid, comm, ppid, state, startTime: String(start) });
  return (pid) => byPid.get(pid);
}

// The layout under the engine: pulumi (100) → sh pulumi-resource-pulumi-nodejs (200) → node (300).
const live = table([
  [1, "init", 0],
  [50, "bash", 1],
  [100, "pulumi", 50],
  [200, "pulumi-resource", 100],
]);

describe("parseStat", () => {
  it("reads pid, command, state, parent and start time", () => {
    expect(parseStat(statLine(200, "pulumi-resource", "S", 100, 987654))).toEqual({ pid: 200, comm: "pulumi-resource", state: "S", ppid: 100, startTime: "987654" });
  });

  it("takes the command up to the last parenthesis (it may hold spaces and parentheses)", () => {
    expect(parseStat(statLine(7, "a) b (c", "R", 1, 5))).toMatchObject({ comm: "a) b (c", state: "R", ppid: 1, startTime: "5" });
  });

  it("refuses text of another shape", () => {
    expect(parseStat("")).toBeUndefined();
    expect(parseStat("12 (x) S 1")).toBeUndefined();
    expect(parseStat("abc (x) S 1 " + "0 ".repeat(20))).toBeUndefined();
  });

  it.runIf(process.platform === "linux")("reads this process from /proc", () => {
    const me = readProcStat(process.pid);
    expect(me).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(me!.startTime).toMatch(/^\d+$/);
    expect(readProcStat(2 ** 30)).toBeUndefined();
  });
});

describe("findEngine", () => {
  it("walks up through the sh wrapper to the nearest `pulumi`", () => {
    expect(findEngine(200, live)?.map((p) => p.pid)).toEqual([200, 100]);
  });

  it("finds the engine as the direct parent", () => {
    expect(findEngine(100, live)?.map((p) => p.pid)).toEqual([100]);
  });

  it("gives up past the level limit, at the top, or at a missing or zombie process", () => {
    const deep = table([[1, "init", 0], [10, "pulumi", 1], [11, "a", 10], [12, "b", 11], [13, "c", 12], [14, "d", 13]]);
    expect(findEngine(14, deep)).toBeUndefined();
    expect(findEngine(13, deep)?.map((p) => p.pid)).toEqual([13, 12, 11, 10]);
    expect(findEngine(50, live)).toBeUndefined(); // a shell under init: no engine
    expect(findEngine(999, live)).toBeUndefined();
    expect(findEngine(2, table([[2, "pulumi", 1, 20, "Z"]]))).toBeUndefined();
  });

  it("does not take a process merely named like the engine's plugins for it", () => {
    expect(findEngine(5, table([[5, "pulumi-language", 4], [4, "pulumi-resource", 1], [1, "init", 0]]))).toBeUndefined();
  });
});

describe("engineLost", () => {
  const watched = chooseWatched(200, live);

  it("watches the chain when an engine is found, else only the parent", () => {
    expect(watched).toMatchObject({ kind: "engine" });
    expect(chooseWatched(50, live)).toEqual({ kind: "parent", ppid: 50 });
    expect(chooseWatched(200, undefined)).toEqual({ kind: "parent", ppid: 200 }); // not Linux
  });

  it("never fires while the chain is unchanged", () => {
    expect(engineLost(watched, 200, live)).toBeUndefined();
  });

  it("fires when the engine is gone, a zombie, or its pid now names another process", () => {
    const base: Array<[number, string, number, number?, string?]> = [[1, "init", 0], [200, "pulumi-resource", 100]];
    expect(engineLost(watched, 200, table(base))).toMatch(/pulumi \(100\) is gone/);
    expect(engineLost(watched, 200, table([...base, [100, "pulumi", 50, 1000, "Z"]]))).toMatch(/is gone/);
    expect(engineLost(watched, 200, table([...base, [100, "pulumi", 50, 4242]]))).toMatch(/is gone/); // pid reused
  });

  it("fires when this process or the sh wrapper was re-parented", () => {
    expect(engineLost(watched, 1, live)).toMatch(/re-parented from 200 to 1/);
    const shOrphaned = table([[1, "init", 0], [100, "pulumi", 50], [200, "pulumi-resource", 1]]);
    expect(engineLost(watched, 200, shOrphaned)).toMatch(/pulumi-resource \(200\) re-parented from 100 to 1/);
  });

  it("does not care about the engine's own parent", () => {
    expect(engineLost(watched, 200, table([[100, "pulumi", 1], [200, "pulumi-resource", 100]]))).toBeUndefined();
  });

  it("without an engine, fires only when the direct parent changes", () => {
    const parent = chooseWatched(50, live);
    expect(engineLost(parent, 50, table([]))).toBeUndefined();
    expect(engineLost(parent, 1, live)).toMatch(/parent 50 is gone/);
  });
});

describe("watchEngine", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("exits once, a grace after the engine is gone, and not before", () => {
    vi.useFakeTimers();
    let procs = live;
    let ppid = 200;
    const exit = vi.fn();
    const w = watchEngine({ intervalMs: 500, graceMs: 300, platform: "linux", ppid: () => ppid, read: (pid) => procs(pid), exit });
    vi.advanceTimersByTime(5_000);
    expect(exit).not.toHaveBeenCalled();
    procs = table([[1, "init", 0]]);
    ppid = 1;
    vi.advanceTimersByTime(500);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit.mock.calls[0]![0]).toMatch(/re-parented/);
    vi.advanceTimersByTime(5_000);
    expect(exit).toHaveBeenCalledTimes(1);
    w.stop();
  });

  it("off Linux watches process.ppid only, never reading /proc", () => {
    vi.useFakeTimers();
    let ppid = 42;
    const read = vi.fn<StatReader>(() => undefined);
    const exit = vi.fn();
    const w = watchEngine({ intervalMs: 100, graceMs: 0, platform: "darwin", ppid: () => ppid, read, exit });
    expect(w.watched).toEqual({ kind: "parent", ppid: 42 });
    vi.advanceTimersByTime(1_000);
    expect(exit).not.toHaveBeenCalled();
    ppid = 1;
    vi.advanceTimersByTime(200);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(read).not.toHaveBeenCalled();
    w.stop();
  });

  it("run outside Pulumi (this test process), watches its parent and stays quiet", () => {
    vi.useFakeTimers();
    const exit = vi.fn();
    const w = watchEngine({ intervalMs: 10, exit });
    vi.advanceTimersByTime(200);
    expect(exit).not.toHaveBeenCalled();
    w.stop();
  });

  it("without an engine ancestor, given the engine's address, fires once that address refuses connections", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const exit = vi.fn();
    const w = watchEngine({ intervalMs: 50, graceMs: 0, platform: "linux", ppid: () => 42, read: () => undefined, exit, engineAddress: address });
    expect(w.watched).toEqual({ kind: "parent", ppid: 42 });
    await new Promise((r) => setTimeout(r, 400));
    expect(exit).not.toHaveBeenCalled(); // the engine listens
    await new Promise<void>((r) => server.close(() => r()));
    await vi.waitFor(() => expect(exit).toHaveBeenCalledTimes(1), { timeout: 3000 });
    expect(exit.mock.calls[0]![0]).toBe(`the engine at ${address} refuses connections`);
    w.stop();
  });
});

describe("engineAddressArg", () => {
  it("is the plugin's first argument when it is a host:port, as both plugin entries are run (node <script> <engine address>)", () => {
    expect(engineAddressArg(["node", "/x/cmd/dynamic-provider/index.js", "127.0.0.1:41234"])).toBe("127.0.0.1:41234");
    expect(engineAddressArg(["node", "/x/dist/provider/plugin.js", "localhost:9"])).toBe("localhost:9");
    expect(engineAddressArg(["node", "/x/cli/main.js"])).toBeUndefined();
    expect(engineAddressArg(["node", "/x/cli/main.js", "recover"])).toBeUndefined();
    expect(engineAddressArg(["node", "x", "127.0.0.1:123456"])).toBeUndefined();
  });
});
