/**
 * Sample inputs of the Group kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { GroupArgs } from "./index";

/** Sample Group inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<GroupArgs> = (top) => [{ parentUid: top, name: "team", description: "The team", deleteTimeoutSeconds: 60 }];
