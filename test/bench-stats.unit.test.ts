import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { growth, median, pairRatios, rotation, spread } from "../bench/stats";

const { orgGroups } = createRequire(__filename)("../bench/programs/org/shape.js") as {
  orgGroups: (size: number) => Array<{ key: string; name: string; parent: string | undefined; depth: number }>;
};

describe("bench statistics", () => {
  it("takes the median of the per-pair ratios, not the ratio of the medians", () => {
    // Medians: ours 2, base 2 (ratio of medians 1); per-pair ratios 0.5, 1, 3 → median 1, min 0.5, max 3.
    expect(pairRatios([1, 2, 3], [2, 2, 1])).toEqual({ median: 1, min: 0.5, max: 3 });
    expect(pairRatios([1.1, 1.3], [1, 1])).toEqual({ median: 1.2, min: 1.1, max: 1.3 });
  });
  it("refuses unpaired or empty samples", () => {
    expect(() => pairRatios([1, 2], [1])).toThrow(/unpaired/);
    expect(() => spread([])).toThrow();
    expect(() => median([])).toThrow();
  });
  it("measures per-resource growth from the smallest size to the largest", () => {
    expect(growth(new Map([[3000, 200], [150, 5], [750, 30]]))).toBeCloseTo(2, 6); // 200/3000 ÷ 5/150
    expect(growth(new Map([[150, 5]]))).toBeUndefined();
  });
  it("rotates the sides round by round, so each side runs once in each position every sides.length rounds", () => {
    const sides = ["native", "real", "noop"];
    expect([0, 1, 2, 3].map((r) => rotation(sides, r).join(""))).toEqual(["nativerealnoop", "realnoopnative", "noopnativereal", "nativerealnoop"]);
    for (let pos = 0; pos < 3; pos++) expect(new Set([0, 1, 2].map((r) => rotation(sides, r)[pos])).size).toBe(3);
    expect(sides).toEqual(["native", "real", "noop"]); // not changed in place
  });
  it("refuses a rotation of no sides or of a round that is not a non-negative integer", () => {
    expect(() => rotation([], 0)).toThrow(/no sides/);
    expect(() => rotation(["a"], -1)).toThrow(/non-negative integer, got -1/);
    expect(() => rotation(["a"], 1.5)).toThrow(/got 1.5/);
  });
});

describe("bench org shape", () => {
  it.each([150, 750, 3000])("declares %i resources as groups nested four deep, parents first", (size) => {
    const groups = orgGroups(size);
    expect(groups.length * 3).toBe(size);
    expect(new Set(groups.map((g) => g.key)).size).toBe(groups.length);
    expect(Math.max(...groups.map((g) => g.depth))).toBe(4);
    const seen = new Map<string, number>();
    for (const g of groups) {
      if (g.parent === undefined) expect(g.depth).toBe(1);
      else expect(seen.get(g.parent)).toBe(g.depth - 1);
      seen.set(g.key, g.depth);
    }
  });
  it("rejects a size that is not a multiple of 15", () => {
    expect(() => orgGroups(100)).toThrow(/multiple of 15/);
  });
});
