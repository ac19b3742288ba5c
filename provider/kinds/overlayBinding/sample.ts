/**
 * Sample inputs of the OverlayBinding kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { OverlayBindingArgs } from "./index";

/** Sample OverlayBinding inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<OverlayBindingArgs> = (_top, u) => [{ repoUid: u["Repo"]![0]!, overlay: u["Overlay"]![0]!, tags: ["1.0"] }];
