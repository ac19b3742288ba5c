/**
 * Group: an IAM group under a parent group (`pulumi-nodejs:dynamic/platform:Group`).
 *
 * Life cycle: create POSTs under `parentUid` without ever duplicating (`lifecycle.ts`), or adopts `adoptUid`;
 * a change of `parentUid` replaces; a change of `name` or `description` PATCHes exactly those fields
 * (`updateMask`); read reports the server's current values and returns them as inputs too, so a refresh shows an
 * out-of-band edit as a diff and an out-of-band delete as a re-create; delete waits out RESOURCE_NOT_EMPTY until
 * the delete timeout and treats NOT_FOUND as done.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiGroup } from "../../client/types";
import { nameProblem, optionalStringProblem, uidpProblem } from "../../validation";
import { logInfo } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, mutable, output, parent, stateOnly } from "../../engine/declare";
import { adoptUidArg, createTime, descriptionArg, lookupsByName, nameArg, named, uidArg, updateTime } from "../../engine/fieldTypes";
import { deleteGroupPatiently, DEFAULT_DELETE_TIMEOUT_SECONDS, parseTimeout } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { GroupArgs, GroupInputs, GroupOutputs, GroupOutputProperties } from "./types";
export type { ResourceLimits, GroupArgs, GroupInputs, GroupOutputs, GroupOutputProperties } from "./types";

/** The Group kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const groupKind = declareResource<GroupInputs, GroupOutputs, ApiGroup>({
  kind: "Group",
  what: "group",
  description: "An IAM group under a parent group. A change of `parentUid` replaces it; `name` and `description` are updated in place (one PATCH of the changed fields); a delete waits for the group's children to go.",
  module: "iam",
  collection: (c) => c.groups,
  listing: { path: true },
  blocksGroupDelete: true,
  lookups: lookupsByName("Groups", {
    listName: "Exact group name. Default: any name.",
    name: "Exact group name.",
    parentUid: "uid of the parent group: only its direct children match (`uidp.children_of`). Default: any parent.",
    list: "Lists groups the caller can see, walking pages lazily.",
    listExample: "const teams = await getGroups({ childrenOf: orgUid, orderBy: \"name\" });",
    oneExample: "const team = await getGroup({ name: \"platform\", parentUid: orgUid });",
  }),
  fields: {
    parentUid: parent({ type: uidArg("uid of the parent group (the org's root group or any group under it). Changing it replaces the group.") }),
    name: mutable({ check: nameProblem, type: nameArg("Group", "Names need not be unique under a parent.") }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("group (it must live under `parentUid`; its name and description are then set to the declared ones)") }),
    deleteTimeoutSeconds: stateOnly({ internal: true, type: z.number().optional().describe("From the resource's `customTimeouts.delete`, in seconds: how long a delete waits for the group's children to go.") }),
  },
  // Output only: never inputs, never a diff (the wire schema defaults verified and resourceLimits).
  server: {
    createTime,
    updateTime,
    verified: output(z.boolean().describe("Whether the group is verified: `false` for a new group (seed §2). Server-set.")),
    resourceLimits: output(
      named(
        "iam",
        "ResourceLimits",
        z
          .object({
            clusters: z.number().int().optional().describe("Most clusters the group may hold; absent when unlimited or not reported."),
            idps: z.number().int().optional().describe("Most identity providers the group may hold; absent when unlimited or not reported."),
            repositories: z.number().int().optional().describe("Most registry repositories the group may hold; absent when unlimited or not reported."),
          })
          .describe("The group's limits; `{}` when none are set (seed §2). Server-set."),
      ),
    ),
  },
  hooks: {
    // Children created right after their new parent may be refused while the service catches up (lifecycle.ts).
    afterCreate: (g, ctx) => ctx.creates.noteCreated(g.uid),
    // Waits out RESOURCE_NOT_EMPTY until the delete timeout (children deleted in parallel); NOT_FOUND is done.
    delete: (id, props, client, ctx) => deleteGroupPatiently(client, id, props?.deleteTimeoutSeconds ?? DEFAULT_DELETE_TIMEOUT_SECONDS, client.transport.retry, ctx.groupChildren(), logInfo),
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Group extends GroupOutputProperties {}

/**
 * An IAM group.
 *
 * @example
 * ```ts
 * const platform = new Group("platform", { parentUid: orgUid, name: "platform", description: "Platform team" });
 * const ci = new Group("ci-cd", { parentUid: platform.uid, name: "ci-cd" });
 * // Take an existing group under management instead of creating it:
 * const legacy = new Group("legacy", { parentUid: orgUid, name: "legacy", adoptUid: "<existing uid>" });
 * ```
 */
export class Group extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = groupKind;

  /**
   * @param name Pulumi resource name (unique in the stack; not the group's name).
   * @param args the group's fields.
   * @param opts resource options; `customTimeouts.delete` (e.g. `"10m"`) bounds how long a delete waits for the
   *   group's children to go (default 5 minutes).
   */
  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    const deleteTimeoutSeconds = parseTimeout(opts?.customTimeouts?.delete);
    super(groupKind, name, args, opts, deleteTimeoutSeconds ? { deleteTimeoutSeconds } : {});
  }
}
