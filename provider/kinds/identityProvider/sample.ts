/**
 * Sample inputs of the IdentityProvider kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { IdentityProviderArgs } from "./index";

/** Sample IdentityProvider inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<IdentityProviderArgs> = (top, u) => [
    {
      parentUid: top,
      name: "okta",
      description: "Staff sign-in",
      oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3", additionalScopes: ["groups"], groupsClaim: "groups" },
      clientSecret: "sample-client-secret",
      defaultRole: u["Role"]![0]!,
    },
  ];
