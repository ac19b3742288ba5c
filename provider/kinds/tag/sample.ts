/**
 * Sample inputs of the Tag kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { TagArgs } from "./index";

/** A well-formed image digest. */
const DIGEST = `sha256:${"ab".repeat(32)}`;

/** Sample Tag inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<TagArgs> = (_top, u) => [{ repoUid: u["Repo"]![0]!, name: "1.0", digest: DIGEST, bundles: ["core"], deprecated: true }];
