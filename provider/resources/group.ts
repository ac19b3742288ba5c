/**
 * Group: an IAM group under a parent group (`pulumi-nodejs:dynamic/platform:Group`).
 *
 * Life cycle: create POSTs under `parentUid`; a change of `parentUid` replaces; a change of `name` or
 * `description` PATCHes exactly those fields (`updateMask`); read reports the server's current values and
 * returns them as inputs too, so a refresh shows an out-of-band edit as a diff and an out-of-band delete as a
 * re-create; delete treats NOT_FOUND as done.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Group as ApiGroup } from "../client/schemas";
import { getClient } from "../state";
import { Failures, nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { deleteIgnoringNotFound, fieldDiff, parentOfUid, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { shim } from "./shim";

/** Arguments of a {@link Group}. */
export interface GroupArgs {
  /** uid of the parent group (the org's root group or any group under it). Changing it replaces the group. */
  parentUid: pulumi.Input<string>;
  /** Group name: `^[a-z0-9 ._-]{1,}$`, 3–63 characters. Names need not be unique under a parent. */
  name: pulumi.Input<string>;
  /** Free-text description; default `""`. */
  description?: pulumi.Input<string>;
}

/** A group's inputs after `check`: every field present. */
export interface GroupInputs {
  parentUid: string;
  name: string;
  description: string;
}

/** A group's outputs: the inputs plus every field the server returns. */
export interface GroupOutputs extends GroupInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  [serverField: string]: unknown;
}

const MUTABLE = ["name", "description"] as const;

function outputs(g: ApiGroup): GroupOutputs {
  return { ...g, parentUid: parentOfUid(g.uid), description: g.description, createTime: g.createTime ?? "", updateTime: g.updateTime ?? "" };
}

function inputsOf(o: GroupOutputs): GroupInputs {
  return { parentUid: o.parentUid, name: o.name, description: o.description ?? "" };
}

/** The Group provider implementation (runs in the provider process). */
export const groupProvider: ProviderImpl<GroupInputs, GroupOutputs> = {
  /** Validates every field before any API call; reports all failures at once. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const failures = new Failures()
      .add("parentUid", uidpProblem(n["parentUid"]))
      .add("name", nameProblem(n["name"]))
      .add("description", optionalStringProblem(n["description"])).list;
    const inputs: GroupInputs = {
      parentUid: n["parentUid"] as string,
      name: n["name"] as string,
      description: (n["description"] as string | undefined) ?? "",
    };
    return { inputs, failures };
  },

  /** `parentUid` replaces; `name` and `description` update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof GroupInputs>(olds, news, ["parentUid"], MUTABLE);
  },

  /** All-or-nothing: if it throws, nothing was created. */
  async create(inputs) {
    const g = await getClient().groups.create(inputs.parentUid, { name: inputs.name, description: inputs.description });
    return { id: g.uid, outs: outputs(g) };
  },

  /** Current server state; NOT_FOUND reports the group gone. */
  async read(id) {
    return readOrGone(async () => {
      const outs = outputs(await getClient().groups.get(id));
      return { id, props: outs, inputs: inputsOf(outs) };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (body, mask) => outputs(await getClient().groups.patch(id, body, mask)));
  },

  /** Deletes the group; NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().groups.delete(id));
  },
};

const provider = shim("Group");

/**
 * An IAM group.
 *
 * @example
 * ```ts
 * const platform = new Group("platform", { parentUid: orgUid, name: "platform", description: "Platform team" });
 * const ci = new Group("ci-cd", { parentUid: platform.uid, name: "ci-cd" });
 * ```
 */
export class Group extends pulumi.dynamic.Resource {
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

  /**
   * @param name Pulumi resource name (unique in the stack; not the group's name).
   * @param args the group's fields.
   * @param opts resource options.
   */
  constructor(name: string, args: GroupArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, { uid: undefined, createTime: undefined, updateTime: undefined, description: undefined, ...args }, opts, "platform", "Group");
    useIdAsUid(this);
  }
}
