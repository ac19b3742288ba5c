/**
 * Sample inputs of the Role kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { RoleArgs } from "./index";

/** Sample Role inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<RoleArgs> = (top) => [{ parentUid: top, name: "auditor", description: "Reads IAM", capabilities: ["groups.list", "identity.list"] }];
