import { describe, expect, it } from "vitest";
import { parseStat, treeOf } from "../bench/jobs";

describe("bench:jobs process tree", () => {
  it("reads the parent pid and RSS of a stat line whose command name holds spaces and parentheses", () => {
    // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
    // cutime cstime priority nice num_threads itrealvalue starttime vsize rss …
    const line = "4242 (node (main) x) S 4200 4242 4242 0 -1 4194560 1 0 0 0 5 1 0 0 20 0 11 0 123 1073741824 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
    expect(parseStat(line)).toEqual({ ppid: 4200, rssKb: 2560 * 4, comm: "node (main) x" });
    expect(parseStat(line, 16).rssKb).toBe(2560 * 16);
  });

  it("refuses text that is not a stat line", () => {
    expect(() => parseStat("")).toThrow(/not a \/proc stat line/);
    expect(() => parseStat("12 (x) S")).toThrow(/not a \/proc stat line/);
  });

  it("finds every descendant of the root, and keeps a known process that was handed to another parent", () => {
    // 10 → 11 → 12, 10 → 13; 20 is someone else's; 14 was below 11 and is now under init (1).
    const parents = new Map([
      [1, 0],
      [10, 1],
      [11, 10],
      [12, 11],
      [13, 10],
      [20, 1],
      [14, 1],
    ]);
    expect(treeOf(parents, 10).sort((a, b) => a - b)).toEqual([10, 11, 12, 13]);
    expect(treeOf(parents, 10, new Set([14, 99])).sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14]);
    // The root has exited: its descendants still listed under it are counted, the root is not.
    const orphaned = new Map([[11, 10]]);
    expect(treeOf(orphaned, 10)).toEqual([11]);
  });
});
