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
import type { ApiGroup, ApiResourceLimits } from "../client/types";
import { nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { logInfo } from "./common";
import { z } from "zod";
import { createOnly, declareResource, mutable, output, parent, stateOnly } from "./declare";
import { adoptUidArg, createTime, descriptionArg, nameArg, named, uidArg, updateTime } from "./fieldTypes";
import { deleteGroupPatiently, DEFAULT_DELETE_TIMEOUT_SECONDS, parseTimeout } from "./lifecycle";
import { PlatformResource, type ResourceShape } from "./shim";

/** Arguments of a {@link Group}. */
export interface GroupArgs {
  /** uid of the parent group (the org's root group or any group under it). Changing it replaces the group. */
  parentUid: pulumi.Input<string>;
  /** Group name: `^[a-z0-9 ._-]{1,}$`, 3–63 characters. Names need not be unique under a parent. */
  name: pulumi.Input<string>;
  /** Free-text description; default `""`. */
  description?: pulumi.Input<string>;
  /**
   * uid of an existing group to take under management instead of creating one (the replacement for
   * `pulumi import`, which dynamic providers do not support). It must live under `parentUid`; its name and
   * description are then set to the declared ones. Read only at create: later changes are ignored.
   */
  adoptUid?: pulumi.Input<string>;
}

/** A group's inputs after `check`: every field present. */
export interface GroupInputs {
  parentUid: string;
  name: string;
  description: string;
  adoptUid?: string | undefined;
  /** From the resource's `customTimeouts.delete`, in seconds; how long a delete waits for children to go. */
  deleteTimeoutSeconds?: number | undefined;
}

/** A group's outputs: the inputs plus every field the server returns. */
export interface GroupOutputs extends GroupInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  /** Whether the group is verified (server-set; `false` when new or not sent). Output only. */
  verified: boolean;
  /** The group's limits (server-set; `{}` when none). Output only. */
  resourceLimits: ApiResourceLimits;
  [serverField: string]: unknown;
}

const group = declareResource<GroupInputs, GroupOutputs, ApiGroup>({
  kind: "Group",
  what: "group",
  description: "An IAM group under a parent group. A change of `parentUid` replaces it; `name` and `description` are updated in place (one PATCH of the changed fields); a delete waits for the group's children to go.",
  module: "iam",
  collection: (c) => c.groups,
  listing: { path: true },
  blocksGroupDelete: true,
  fields: {
    parentUid: parent({ type: uidArg("uid of the parent group (the org's root group or any group under it). Changing it replaces the group.") }),
    name: mutable({ check: nameProblem, type: nameArg("Group", "Names need not be unique under a parent.") }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("group (it must live under `parentUid`; its name and description are then set to the declared ones)") }),
    deleteTimeoutSeconds: stateOnly({ internal: true }),
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

/** The Group provider implementation (runs in the provider process). */
export const groupProvider = group.provider;
/** The Group kind's declaration, as the kind registry (`registry.ts`) lists it. */
export const groupKind = group;

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
  static override readonly __shape: ResourceShape = group;

  /** The group's uid (UIDP: the parent's uid + `/` + 16 hex characters). */
  declare readonly uid: pulumi.Output<string>;
  /** uid of the parent group. */
  declare readonly parentUid: pulumi.Output<string>;
  /** Group name. */
  declare readonly name: pulumi.Output<string>;
  /** Description (`""` when none). */
  declare readonly description: pulumi.Output<string>;
  /** Creation time, RFC 3339. */
  declare readonly createTime: pulumi.Output<string>;
  /** Last update time, RFC 3339. */
  declare readonly updateTime: pulumi.Output<string>;
  /** Whether the group is verified: `false` for a new group (contract §2). Server-set, output only; never a diff. */
  declare readonly verified: pulumi.Output<boolean>;
  /**
   * The group's limits, e.g. `{ repositories: 100 }`: integer members `clusters`, `idps`, `repositories`;
   * `{}` when none are set (contract §2). Server-set, output only; never a diff.
   */
  declare readonly resourceLimits: pulumi.Output<ApiResourceLimits>;

  /**
   * @param name Pulumi resource name (unique in the stack; not the group's name).
   * @param args the group's fields.
   * @param opts resource options; `customTimeouts.delete` (e.g. `"10m"`) bounds how long a delete waits for the
   *   group's children to go (default 5 minutes).
   */
  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    const deleteTimeoutSeconds = parseTimeout(opts?.customTimeouts?.delete);
    super(group, name, args, opts, deleteTimeoutSeconds ? { deleteTimeoutSeconds } : {});
  }
}
