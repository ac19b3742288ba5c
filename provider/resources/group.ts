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
import { getClient } from "../state";
import { Failures, nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { adoptExisting, changedFields, fieldDiff, logInfo, parentOfUid, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { createNamedSafely, deleteGroupPatiently, DEFAULT_DELETE_TIMEOUT_SECONDS, noteCreated, parseTimeout } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

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

const MUTABLE = ["name", "description"] as const;
/** Inputs that change no server field: a change updates the state only. */
const LOCAL = ["deleteTimeoutSeconds"] as const;

function outputs(g: ApiGroup, local: Partial<GroupInputs> = {}): GroupOutputs {
  return {
    ...g,
    parentUid: parentOfUid(g.uid),
    description: g.description,
    createTime: g.createTime ?? "",
    updateTime: g.updateTime ?? "",
    verified: g.verified,
    resourceLimits: g.resourceLimits,
    ...(local.adoptUid !== undefined ? { adoptUid: local.adoptUid } : {}),
    ...(local.deleteTimeoutSeconds !== undefined ? { deleteTimeoutSeconds: local.deleteTimeoutSeconds } : {}),
  };
}

/** The inputs that would produce `o`: output-only fields (uid, times, verified, resourceLimits) never become inputs. */
function inputsOf(o: GroupOutputs): GroupInputs {
  return {
    parentUid: o.parentUid,
    name: o.name,
    description: o.description ?? "",
    ...(o.adoptUid !== undefined ? { adoptUid: o.adoptUid } : {}),
    ...(o.deleteTimeoutSeconds !== undefined ? { deleteTimeoutSeconds: o.deleteTimeoutSeconds } : {}),
  };
}

/** The Group provider implementation (runs in the provider process). */
export const groupProvider: ProviderImpl<GroupInputs, GroupOutputs> = {
  /** Validates every field before any API call; reports all failures at once. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures()
      .add("parentUid", uidpProblem(n["parentUid"]))
      .add("name", nameProblem(n["name"]))
      .add("description", optionalStringProblem(n["description"]));
    if (n["adoptUid"] !== undefined) f.add("adoptUid", uidpProblem(n["adoptUid"]));
    const inputs: GroupInputs = {
      parentUid: n["parentUid"] as string,
      name: n["name"] as string,
      description: (n["description"] as string | undefined) ?? "",
      ...(n["adoptUid"] !== undefined ? { adoptUid: n["adoptUid"] as string } : {}),
      ...(n["deleteTimeoutSeconds"] !== undefined ? { deleteTimeoutSeconds: n["deleteTimeoutSeconds"] as number } : {}),
    };
    return { inputs, failures: f.list };
  },

  /** `parentUid` replaces; `name` and `description` update in place; `deleteTimeoutSeconds` updates the state. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof GroupInputs>(olds, news, ["parentUid"], [...MUTABLE, ...LOCAL]);
  },

  /** All-or-nothing: if it throws, nothing was created (or the orphan was adopted). */
  async create(inputs) {
    const client = getClient();
    if (inputs.adoptUid) {
      const existing = await adoptExisting("group", inputs.adoptUid, inputs.parentUid, (uid) => client.groups.get(uid));
      const current = outputs(existing, inputs);
      const mask = changedFields<keyof GroupInputs>(current, inputs, MUTABLE);
      const g = mask.length ? await client.groups.patch(existing.uid, { name: inputs.name, description: inputs.description }, mask) : existing;
      logInfo(`adopted group ${existing.uid}${mask.length ? ` and set ${mask.join(", ")}` : ""}`);
      return { id: g.uid, outs: outputs(g, inputs) };
    }
    const g = await createNamedSafely(client.groups, "group", inputs.parentUid, inputs.name, { name: inputs.name, description: inputs.description }, logInfo);
    noteCreated(g.uid);
    return { id: g.uid, outs: outputs(g, inputs) };
  },

  /** Current server state; NOT_FOUND reports the group gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const outs = outputs(await batchedGet(getClient().groups, id), props ?? {});
      return { id, props: outs, inputs: inputsOf(outs) };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (body, mask) => outputs(await getClient().groups.patch(id, body, mask), news));
  },

  /** Deletes the group, waiting for children to go until the delete timeout; NOT_FOUND counts as done. */
  async delete(id, props) {
    const client = getClient();
    const timeout = props?.deleteTimeoutSeconds ?? DEFAULT_DELETE_TIMEOUT_SECONDS;
    await deleteGroupPatiently(client, id, timeout, client.transport.retry, logInfo);
  },
};

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
  /**
   * Reads an existing group by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the group alone. Built on
   * `new Group(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the group's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no group has that uid.
   * @example const org = Group.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Group {
    return new Group(name, readArgs<GroupArgs>(["parentUid", "name", "description"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a Group (type token `pulumi-nodejs:dynamic/platform:Group`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is Group {
    return isResourceOfKind(obj, "Group");
  }

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
    super("Group", name,
      { uid: undefined, createTime: undefined, updateTime: undefined, verified: undefined, resourceLimits: undefined, description: undefined, ...args, ...(deleteTimeoutSeconds ? { deleteTimeoutSeconds } : {}) },
      opts);
    useIdAsUid(this);
  }
}
