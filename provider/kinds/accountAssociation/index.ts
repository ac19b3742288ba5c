/**
 * AccountAssociation: a group's association with cloud accounts (`pulumi-nodejs:dynamic/platform:AccountAssociation`).
 *
 * Its uid is the group's uid: one per group. A change of `groupUid` replaces; the other fields PATCH in place.
 * If the group already has an association, create fails with ALREADY_EXISTS; set `adopt: true` to take it under
 * management instead.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiAccountAssociation as ApiAssoc } from "../../client/types";
import { isUnknown, optionalStringProblem } from "../../validation";
import { logInfo } from "../../engine/common";
import { isNotFound } from "../../client/errors";
import { z } from "zod";
import { createOnly, declareResource, mutable, parent } from "../../engine/declare";
import { createTime, descriptionArg, named, uidArg, updateTime } from "../../engine/fieldTypes";
import { createSafely, createTokenOf, markDescription, markerToken, restoreDescription } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { AccountAssociationArgs, AccountAssociationInputs, AccountAssociationOutputs, AccountAssociationOutputProperties } from "./types";
export type { AmazonAccountArgs, AmazonAccount, GoogleProjectArgs, GoogleProject, AzureTenantArgs, AzureTenant, GitHubAppsArgs, GitHubApps, GitHubAppInstallationsArgs, GitHubAppInstallations, GitHubInstallationArgs, GitHubInstallation, ServiceBindingsArgs, ServiceBindings, AccountAssociationArgs, AccountAssociationInputs, AccountAssociationOutputs, AccountAssociationOutputProperties } from "./types";

/** Cloud accounts an association can name. */
export const ACCOUNT_KINDS = ["amazon", "google", "azure", "github", "chainguard"] as const;

/** The group's association (its uid is the group's), or none. */
const matching = async (client: PlatformClient, inputs: AccountAssociationInputs): Promise<ApiAssoc[]> => {
  try {
    return [await client.accountAssociations.get(inputs.groupUid)];
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
};

/** The AccountAssociation kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const accountAssociationKind = declareResource<AccountAssociationInputs, AccountAssociationOutputs, ApiAssoc>({
  kind: "AccountAssociation",
  module: "iam",
  what: "account association",
  description: "A group's association with cloud accounts (AWS, Google Cloud, Azure, GitHub, Chainguard service bindings); one per group, its uid the group's.",
  collection: (c) => c.accountAssociations,
  // One per group: found by one GET, proven by the ownership marker.
  ownership: { proof: "marker", matching },
  listing: false,
  fields: {
    // The association's uid is its group's uid (one per group).
    groupUid: parent({ fromServer: (_v, api) => api["uid"], type: uidArg("uid of the group (one association per group; its uid is the group's). Changing it replaces the association.") }),
    name: mutable({ check: optionalStringProblem, default: "", type: z.string().optional().describe('Name; default `""`.') }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    amazon: mutable({
      type: named("iam", "AmazonAccount", z.object({ account: z.string().describe("The 12-digit AWS account id.") }).describe("Amazon account association.")).optional(),
      nested: (v, f) => {
        const account = (v as Record<string, unknown>)["account"];
        if (!isUnknown(v) && !isUnknown(account) && !/^\d{12}$/.test(String(account ?? ""))) f.add("amazon.account", `must be a 12-digit AWS account id, got ${JSON.stringify(account)}`);
      },
    }),
    google: mutable({
      type: named(
        "iam",
        "GoogleProject",
        z.object({ projectId: z.string().describe("GCP project id."), projectNumber: z.string().optional().describe("GCP project number.") }).describe("Google Cloud project association."),
      ).optional(),
    }),
    azure: mutable({
      type: named(
        "iam",
        "AzureTenant",
        z
          .object({
            tenantId: z.string().describe("Azure tenant id (Microsoft Entra ID)."),
            clientIds: z.record(z.string(), z.string()).optional().describe("Component name → Azure client id (application id)."),
          })
          .describe("Azure tenant and client association."),
      ).optional(),
    }),
    github: mutable({
      type: named(
        "iam",
        "GitHubApps",
        z
          .object({
            appInstallations: z
              .record(
                z.string(),
                named(
                  "iam",
                  "GitHubAppInstallations",
                  z
                    .object({
                      installations: z
                        .array(
                          named(
                            "iam",
                            "GitHubInstallation",
                            z
                              .object({
                                installationId: z.string().describe("The GitHub App installation id (an int64, as a string)."),
                                name: z.string().optional().describe("The GitHub user or org the installation belongs to (informational)."),
                              })
                              .describe("One GitHub App installation."),
                          ),
                        )
                        .optional()
                        .describe("The app's installations."),
                    })
                    .describe("The installations of one GitHub App."),
                ),
              )
              .optional()
              .describe("App id → that app's installations associated with the group."),
          })
          .describe("GitHub App installations associated with the group."),
      ).optional(),
    }),
    chainguard: mutable({
      type: named(
        "iam",
        "ServiceBindings",
        z
          .object({
            serviceBindings: z.record(z.string(), z.string()).describe("Service principal name → uid of the identity that service assumes."),
          })
          .describe("Chainguard service principal bindings."),
      ).optional(),
    }),
    adopt: createOnly({ adoption: "flag", type: z.boolean().optional().describe("Take the group's existing association under management instead of failing with ALREADY_EXISTS (read only at create).") }),
  },
  server: { createTime, updateTime },
  hooks: {
    check(news, f) {
      if (!ACCOUNT_KINDS.some((k) => news[k] !== undefined)) f.add("amazon", `give at least one of ${ACCOUNT_KINDS.join(", ")}`);
    },
    /** `adopt: true` takes the group's existing association (its uid is the group's) instead of failing with ALREADY_EXISTS. */
    adopt: async (inputs, client) => (inputs.adopt ? client.accountAssociations.get(inputs.groupUid) : undefined),
    /**
     * The uid is the group's, so an ambiguous failure is settled by one GET; the ownership marker in the
     * description tells this create's association from one another writer made in the same instant.
     */
    async create(inputs, ctx) {
      const client = ctx.client();
      const what = `account association of group ${inputs.groupUid}`;
      const token = createTokenOf(inputs);
      const body: Record<string, unknown> = { name: inputs.name };
      for (const k of ACCOUNT_KINDS) if (inputs[k] !== undefined) body[k] = inputs[k];
      const created = await createSafely({
        what,
        parentUid: inputs.groupUid,
        creates: ctx.creates,
        policy: client.transport.retry,
        log: logInfo,
        post: () => client.accountAssociations.create(inputs.groupUid, { ...body, description: markDescription(inputs.description, token) }),
        recover: async (_started, _ended, err) => {
          const [found] = await matching(client, inputs);
          if (!found) return { retry: true };
          if (markerToken(found.description) === token) return { adopt: found };
          throw new Error(
            `${what}: the create failed ambiguously (${(err as Error).message}) and the group has an account association this create did not make (another writer's); declare it with adopt: true to manage it, or delete it, then run \`pulumi up\` again`,
            { cause: err },
          );
        },
      });
      return restoreDescription(client.accountAssociations, what, created, inputs.description, logInfo);
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface AccountAssociation extends AccountAssociationOutputProperties {}

/**
 * A group's cloud-account association.
 *
 * `AccountAssociation.get` (read by uid, unmanaged): Its uid is its group's uid.
 *
 * @example
 * ```ts
 * new AccountAssociation("aws", { groupUid: platform.uid, amazon: { account: "123456789012" } });
 * ```
 */
export class AccountAssociation extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = accountAssociationKind;

  /** @param name Pulumi resource name. @param args the association. @param opts resource options. */
  constructor(name: string, args: AccountAssociationArgs, opts?: pulumi.CustomResourceOptions) {
    super(accountAssociationKind, name, args, opts);
  }
}
