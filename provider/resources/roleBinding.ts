/**
 * RoleBinding: grants a role to an identity at a group and its descendants
 * (`pulumi-nodejs:dynamic/platform:RoleBinding`).
 *
 * Life cycle: create POSTs `{identityUid, roleUid}` under `groupUid`; a change of `groupUid` replaces; a change
 * of `identityUid` or `roleUid` PATCHes exactly those fields; outputs carry the server's hydrated identity,
 * group and role; read returns the server's values as inputs so drift shows; delete treats NOT_FOUND as done.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiBindingIdentityRef, ApiRoleBinding } from "../client/types";
import { getClient } from "../state";
import { Failures, isUnknown } from "../validation";
import { adoptExisting, changedFields, deleteIgnoringNotFound, fieldDiff, logInfo, parentOfUid, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { createSafely } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

/** Arguments of a {@link RoleBinding}. */
export interface RoleBindingArgs {
  /** uid of the group the role applies at (and below). Changing it replaces the binding. */
  groupUid: pulumi.Input<string>;
  /** uid of the identity that receives the role. */
  identityUid: pulumi.Input<string>;
  /** uid of the role (see `getRoles` to find built-ins by name). */
  roleUid: pulumi.Input<string>;
  /** uid of an existing binding at `groupUid` to take under management instead of creating one (read only at create). */
  adoptUid?: pulumi.Input<string>;
}

/** A binding's inputs after `check`. */
export interface RoleBindingInputs {
  groupUid: string;
  identityUid: string;
  roleUid: string;
  adoptUid?: string | undefined;
}

/**
 * A reference the server hydrates into a binding: `{uid, name, description}`, plus `subject`, `issuer` (and
 * `email` for users) on the identity. A plain interface (no index signature), so `binding.role.name` lifts to
 * an `Output<string>`.
 */
export type BindingRef = ApiBindingIdentityRef;

/** A binding's outputs: the inputs plus the server's fields, hydrated. */
export interface RoleBindingOutputs extends RoleBindingInputs {
  uid: string;
  createTime: string;
  identity: BindingRef | undefined;
  group: BindingRef | undefined;
  role: BindingRef | undefined;
  [serverField: string]: unknown;
}

const MUTABLE = ["identityUid", "roleUid"] as const;
const UID = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

function uidProblem(v: unknown): string | undefined {
  if (isUnknown(v)) return undefined;
  if (typeof v !== "string" || v === "") return "is required (a uid)";
  return UID.test(v) ? undefined : `"${v}" is not a uid: 40 lowercase hex characters, then "/" + 16 hex characters per level`;
}

function outputs(b: ApiRoleBinding, fallback: Partial<RoleBindingInputs> = {}): RoleBindingOutputs {
  return {
    ...b,
    groupUid: parentOfUid(b.uid),
    identityUid: b.identityUid ?? b.identity?.uid ?? fallback.identityUid ?? "",
    roleUid: b.roleUid ?? b.role?.uid ?? fallback.roleUid ?? "",
    createTime: b.createTime ?? "",
    identity: b.identity,
    group: b.group,
    role: b.role,
  };
}

/** The RoleBinding provider implementation (runs in the provider process). */
export const roleBindingProvider: ProviderImpl<RoleBindingInputs, RoleBindingOutputs> = {
  /** Validates the three uids before any API call; reports all failures at once. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const failures = new Failures()
      .add("groupUid", uidProblem(n["groupUid"]))
      .add("identityUid", uidProblem(n["identityUid"]))
      .add("roleUid", uidProblem(n["roleUid"]))
      .add("adoptUid", n["adoptUid"] === undefined ? undefined : uidProblem(n["adoptUid"])).list;
    return {
      inputs: {
        groupUid: n["groupUid"] as string,
        identityUid: n["identityUid"] as string,
        roleUid: n["roleUid"] as string,
        ...(n["adoptUid"] !== undefined ? { adoptUid: n["adoptUid"] as string } : {}),
      },
      failures,
    };
  },

  /** `groupUid` replaces; `identityUid` and `roleUid` update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof RoleBindingInputs>(olds, news, ["groupUid"], MUTABLE);
  },

  /** All-or-nothing: if it throws, nothing was created (or the orphan was adopted). */
  async create(inputs) {
    const client = getClient();
    const body = { identityUid: inputs.identityUid, roleUid: inputs.roleUid };
    if (inputs.adoptUid) {
      const existing = outputs(await adoptExisting("role binding", inputs.adoptUid, inputs.groupUid, (uid) => client.roleBindings.get(uid)), inputs);
      const mask = changedFields<keyof RoleBindingInputs>(existing, inputs, MUTABLE);
      const b = mask.length ? outputs(await client.roleBindings.patch(existing.uid, body, mask), inputs) : existing;
      logInfo(`adopted role binding ${existing.uid}`);
      return { id: b.uid, outs: { ...b, adoptUid: inputs.adoptUid } };
    }
    const b = await createSafely({
      what: `role binding of ${inputs.identityUid} to ${inputs.roleUid}`,
      parentUid: inputs.groupUid,
      policy: client.transport.retry,
      log: logInfo,
      post: () => client.roleBindings.create(inputs.groupUid, body),
      candidates: async () =>
        (await client.roleBindings.list({ childrenOf: inputs.groupUid, pageSize: 200 }).collect()).filter(
          (x) => x.identityUid === inputs.identityUid && x.roleUid === inputs.roleUid,
        ),
    });
    return { id: b.uid, outs: outputs(b, inputs) };
  },

  /** Current server state; NOT_FOUND reports the binding gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const outs = outputs(await batchedGet(getClient().roleBindings, id), props);
      return { id, props: outs, inputs: { groupUid: outs.groupUid, identityUid: outs.identityUid, roleUid: outs.roleUid } };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (body, mask) => outputs(await getClient().roleBindings.patch(id, body, mask), news));
  },

  /** Deletes the binding; NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().roleBindings.delete(id));
  },
};

/**
 * A role binding: `identityUid` holds `roleUid` at `groupUid` and every group below it.
 *
 * @example
 * ```ts
 * const [editor] = await getRoles({ name: "editor" });
 * new RoleBinding("ci-bot-editor", { groupUid: platform.uid, identityUid: bot.uid, roleUid: editor.uid });
 * ```
 */
export class RoleBinding extends PlatformResource {
  /**
   * Reads an existing role binding by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the role binding alone. Built on
   * `new RoleBinding(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the role binding's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no role binding has that uid.
   * @example const org = RoleBinding.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): RoleBinding {
    return new RoleBinding(name, readArgs<RoleBindingArgs>(["groupUid", "identityUid", "roleUid"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a RoleBinding (type token `pulumi-nodejs:dynamic/platform:RoleBinding`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is RoleBinding {
    return isResourceOfKind(obj, "RoleBinding");
  }

  /** The binding's uid (its group's uid + `/` + 16 hex characters). */
  declare readonly uid: pulumi.Output<string>;
  /** uid of the group the role applies at. */
  declare readonly groupUid: pulumi.Output<string>;
  /** uid of the identity. */
  declare readonly identityUid: pulumi.Output<string>;
  /** uid of the role. */
  declare readonly roleUid: pulumi.Output<string>;
  /** Creation time, RFC 3339 (bindings have no update time). */
  declare readonly createTime: pulumi.Output<string>;
  /** The identity, as the server describes it: {uid, name, description, subject?, issuer?}. */
  declare readonly identity: pulumi.Output<BindingRef>;
  /** The group: {uid, name, description}. */
  declare readonly group: pulumi.Output<BindingRef>;
  /** The role: {uid, name, description}. */
  declare readonly role: pulumi.Output<BindingRef>;

  /**
   * @param name Pulumi resource name (unique in the stack).
   * @param args the binding's group, identity and role.
   * @param opts resource options.
   */
  constructor(name: string, args: RoleBindingArgs, opts?: pulumi.CustomResourceOptions) {
    super("RoleBinding", name,
      { uid: undefined, createTime: undefined, identity: undefined, group: undefined, role: undefined, ...args },
      opts);
    useIdAsUid(this);
  }
}
