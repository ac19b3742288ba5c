/**
 * Sample inputs of the RoleBinding kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { RoleBindingArgs } from "./index";

/** Sample RoleBinding inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<RoleBindingArgs> = (top, u) => [{ groupUid: top, identityUid: u["Identity"]![0]!, roleUid: u["Role"]![0]! }];
