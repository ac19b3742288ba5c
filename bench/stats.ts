/**
 * Statistics the benchmarks report: every figure as the median of per-pair ratios with its spread, so a reader sees
 * how far one run's noise reaches next to the figure itself.
 */

/** A figure with its spread: median, smallest and largest of its samples, rounded to `digits` decimals. */
export interface Spread {
  /** The median sample (mean of the middle two for an even count). */
  median: number;
  /** The smallest sample. */
  min: number;
  /** The largest sample. */
  max: number;
}

/** The median of `xs` (mean of the middle two for an even count). @throws Error when `xs` is empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error("median of no samples");
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** `x` rounded to `digits` decimals (default 3). */
export function round(x: number, digits = 3): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

/** Median, min and max of `xs`, each rounded to `digits` decimals (default 3). @throws Error when `xs` is empty. */
export function spread(xs: readonly number[], digits = 3): Spread {
  if (xs.length === 0) throw new Error("spread of no samples");
  return { median: round(median(xs), digits), min: round(Math.min(...xs), digits), max: round(Math.max(...xs), digits) };
}

/**
 * The ratio of each interleaved pair (`ours[i] / base[i]`), then their median and min–max: a pair shares the
 * machine's load of its moment, so its ratio cancels load that drifts between rounds.
 * @throws Error when the two lists differ in length or are empty.
 */
export function pairRatios(ours: readonly number[], base: readonly number[], digits = 3): Spread {
  if (ours.length !== base.length) throw new Error(`unpaired samples: ${ours.length} vs ${base.length}`);
  return spread(ours.map((x, i) => x / base[i]!), digits);
}

/**
 * Per-resource cost growth from the smallest to the largest size: (seconds per resource at the largest) / (seconds
 * per resource at the smallest), from the median seconds at each. 1 means linear cost; above 1, each resource costs
 * more in a bigger stack. Undefined when fewer than two sizes were measured.
 */
export function growth(secondsBySize: ReadonlyMap<number, number>): number | undefined {
  const sizes = [...secondsBySize.keys()].sort((a, b) => a - b);
  if (sizes.length < 2) return undefined;
  const lo = sizes[0]!;
  const hi = sizes[sizes.length - 1]!;
  return round(secondsBySize.get(hi)! / hi / (secondsBySize.get(lo)! / lo));
}

/**
 * The order of the sides in interleaved round `r` (from 0) of a benchmark of several sides: `sides` rotated left by
 * `r` (ABC, BCA, CAB, ABC, …), so over every `sides.length` rounds each side runs once in each position, and load
 * that rises or falls within a round is shared out evenly. @throws Error when `sides` is empty or `r` is not a
 * non-negative integer.
 */
export function rotation<T>(sides: readonly T[], r: number): T[] {
  if (sides.length === 0) throw new Error("rotation of no sides");
  if (!Number.isInteger(r) || r < 0) throw new Error(`round must be a non-negative integer, got ${r}`);
  const k = r % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}
