/**
 * Sample inputs of the GroupInvite kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { GroupInviteArgs } from "./index";

/** Sample GroupInvite inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<GroupInviteArgs> = (top, u) => [{ parentUid: top, roleUid: u["Role"]![0]!, ttl: "72h", email: "new@example.com", singleUse: true }];
