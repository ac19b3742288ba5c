/**
 * The short version of `npm run soak`: one round of each scenario, through the real Pulumi CLI against
 * the standalone emulator in its own process. Two stacks with the same names under one root through resets,
 * UNAVAILABLE and dropped create responses; a `pulumi up` killed mid-apply, then `recover --yes` and `up`; invites
 * and account associations with dropped create responses. Each round checks against the API: no object in two
 * states, nothing on the server that no state holds after ups that exited 0, nothing left after destroy, no
 * process outliving its `pulumi`.
 */
import { describe, expect, it } from "vitest";
import { runSoak, violated } from "../bench/soak";

describe("soak, one round of each scenario (npm run soak runs more)", () => {
  for (const scenario of ["two-stacks", "kill", "invites"]) {
    it(`${scenario}: never shares, duplicates, orphans or leaks a process`, async () => {
      const [r] = await runSoak({ rounds: 1, scenarios: [scenario], seed: 11, size: { tops: 3, subs: 1, inviteGroups: 2, invites: 3 }, log: () => undefined });
      expect(r, JSON.stringify(r?.notes)).toBeDefined();
      expect({ violated: violated(r!), notes: r!.notes.filter((n) => !/^(killed after|recover settled)/.test(n)) }).toEqual({ violated: false, notes: [] });
    }, 300_000);
  }
});
