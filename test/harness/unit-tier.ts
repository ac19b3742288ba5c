/**
 * The unit tier's one error text (docs/testing.md, "Tiers"), shared by the config's `unit-tier-guard` plugin
 * (vitest.config.mts: an ES import of dist/) and the setup file test/harness/unit-guard.ts (a require of dist/, a
 * Pulumi binary started). This module has no side effects, so the config can import it.
 */

/** The error a unit test gets for reaching `what` (a module or command in `dist/`, or a Pulumi binary). */
export function unitTierError(what: string): Error {
  return new Error(
    `unit tier: this test reached ${what}, which needs the build (dist/) or the Pulumi CLI; a *.unit.test.ts file ` +
      `must need neither: name it *.test.ts (run by npm test) or stop using it (docs/testing.md, "Tiers")`,
  );
}
