/**
 * Sample inputs of the AccountAssociation kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { AccountAssociationArgs } from "./index";

/** Sample AccountAssociation inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<AccountAssociationArgs> = (_top, u) => [
    {
      groupUid: u["Group"]![0]!,
      name: "team-accounts",
      description: "The team's accounts",
      amazon: { account: "123456789012" },
      google: { projectId: "team-prod", projectNumber: "1234567890" },
      azure: { tenantId: "0b3c8f4e-1111-2222-3333-444455556666", clientIds: { deployer: "8d2f-0001" } },
      github: { appInstallations: { "4242": { installations: [{ installationId: "777", name: "team-org" }] } } },
      chainguard: { serviceBindings: { builder: "binding-1" } },
    },
  ];
