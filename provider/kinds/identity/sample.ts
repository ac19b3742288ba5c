/**
 * Sample inputs of the Identity kind for the tests that walk every kind (`test/harness/samples.ts`): together they set
 * every declared field but the parent and adoption fields (`export-fields.unit.test.ts` checks). Not built into the
 * package (`tsconfig.json` excludes `sample.ts`).
 */
import type { KindSample } from "../ties";
import type { IdentityArgs } from "./index";

/** Sample Identity inputs under the top group `top`, given the uids made so far by kind (`u`). */
export const sample: KindSample<IdentityArgs> = (top) => [
    { parentUid: top, name: "deployer", description: "Deploys", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/app:ref:refs/heads/main" } },
    { parentUid: top, name: "scanner", staticKeys: { issuer: "https://scanner.example.com", subject: "scanner", issuerKeys: '{"keys":[]}', expirationTime: "2030-01-01T00:00:00.000Z" } },
    { parentUid: top, name: "aws-deployer", awsIdentity: { awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/deployer" } },
    { parentUid: top, name: "cosigned", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" },
  ];
