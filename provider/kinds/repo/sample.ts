/**
 * Sample inputs of the Repo kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { RepoArgs } from "./index";

/** Sample Repo inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<RepoArgs> = (top) => [
    {
      parentUid: top,
      name: "app",
      description: "The product",
      aliases: ["product"],
      activeTags: ["latest"],
      bundles: ["core"],
      catalogTier: "CATALOG_TIER_APPLICATION",
      customOverlay: { contents: { packages: ["bash"] }, environment: { MODE: "prod" } },
      readme: "# app\n\nThe product image.\n",
    },
  ];
