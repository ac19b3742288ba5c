/**
 * The scale of the property and fuzz tests (docs/testing.md, "Tiers"): full by default (`npm test`, CI);
 * `PLATFORM_TEST_SCALE=small` (set by `npm run test:fast`) runs each with fewer cases, same seeds, same checks.
 */
export const SMALL_SCALE = process.env["PLATFORM_TEST_SCALE"] === "small";

/** `full` normally, `small` under `PLATFORM_TEST_SCALE=small`. */
export function scaled(full: number, small: number): number {
  return SMALL_SCALE ? small : full;
}
