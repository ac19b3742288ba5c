/**
 * Role: a custom IAM role under a group, granting capabilities (`pulumi-nodejs:dynamic/platform:Role`).
 *
 * Capabilities are given by their dotted names (`groups.list`, `role_bindings.create`) or wire names
 * (`CAP_IAM_GROUPS_LIST`); check validates every one and normalizes them (wire form, sorted, deduplicated), so
 * order and spelling never show as a diff. A change of `parentUid` replaces; `name`, `description` and
 * `capabilities` PATCH in place. Built-in roles (`viewer`, …) are not resources: find them with `getRoles`.
 */
import * as pulumi from "@pulumi/pulumi";
import { dottedNames, wireName } from "../capabilities";
import type { ApiRole } from "../client/types";
import { getClient } from "../state";
import { Failures, isUnknown, nameProblem, optionalStringProblem, uidpProblem } from "../validation";
import { adoptExisting, changedFields, deleteIgnoringNotFound, fieldDiff, logInfo, parentOfUid, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { createNamedSafely } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

/** Arguments of a {@link Role}. */
export interface RoleArgs {
  /** uid of the group the role belongs to (usable there and below). Changing it replaces the role. */
  parentUid: pulumi.Input<string>;
  /** Role name: `^[a-z0-9 ._-]{1,}$`, 3–63 characters. */
  name: pulumi.Input<string>;
  /** Free-text description; default `""`. */
  description?: pulumi.Input<string>;
  /** At least one capability, dotted (`groups.list`) or wire (`CAP_IAM_GROUPS_LIST`) names. */
  capabilities: pulumi.Input<pulumi.Input<string>[]>;
  /** uid of an existing custom role to take under management instead of creating one (read only at create). */
  adoptUid?: pulumi.Input<string>;
}

/** A role's inputs after `check`: capabilities in wire form, sorted. */
export interface RoleInputs {
  parentUid: string;
  name: string;
  description: string;
  capabilities: string[];
  adoptUid?: string | undefined;
}

/** A role's outputs. */
export interface RoleOutputs extends RoleInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  [serverField: string]: unknown;
}

const MUTABLE = ["name", "description", "capabilities"] as const;

function outputs(r: ApiRole, local: Partial<RoleInputs> = {}): RoleOutputs {
  return {
    ...r,
    parentUid: parentOfUid(r.uid),
    description: r.description,
    capabilities: [...new Set(r.capabilities)].sort(),
    createTime: r.createTime ?? "",
    updateTime: r.updateTime ?? "",
    ...(local.adoptUid !== undefined ? { adoptUid: local.adoptUid } : {}),
  };
}

/** The Role provider implementation (runs in the provider process). */
export const roleProvider: ProviderImpl<RoleInputs, RoleOutputs> = {
  /** Validates every field and capability name before any API call. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures()
      .add("parentUid", uidpProblem(n["parentUid"]))
      .add("name", nameProblem(n["name"]))
      .add("description", optionalStringProblem(n["description"]));
    if (n["adoptUid"] !== undefined) f.add("adoptUid", uidpProblem(n["adoptUid"]));
    let capabilities = n["capabilities"] as string[];
    if (!isUnknown(capabilities)) {
      if (!Array.isArray(capabilities) || capabilities.length === 0) {
        f.add("capabilities", "at least one capability is required, e.g. groups.list");
      } else {
        const wire: string[] = [];
        capabilities.forEach((c, i) => {
          if (isUnknown(c)) return void wire.push(c);
          const w = typeof c === "string" ? wireName(c) : undefined;
          if (w) wire.push(w);
          else f.add(`capabilities[${i}]`, `"${String(c)}" is not a capability; known: ${dottedNames().join(", ")}`);
        });
        capabilities = [...new Set(wire)].sort();
      }
    }
    return {
      inputs: {
        parentUid: n["parentUid"] as string,
        name: n["name"] as string,
        description: (n["description"] as string | undefined) ?? "",
        capabilities,
        ...(n["adoptUid"] !== undefined ? { adoptUid: n["adoptUid"] as string } : {}),
      },
      failures: f.list,
    };
  },

  /** `parentUid` replaces; the rest update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof RoleInputs>(olds, news, ["parentUid"], MUTABLE);
  },

  /** All-or-nothing: if it throws, nothing was created (or the orphan was adopted). */
  async create(inputs) {
    const client = getClient();
    const body = { name: inputs.name, description: inputs.description, capabilities: inputs.capabilities };
    if (inputs.adoptUid) {
      const existing = outputs(await adoptExisting("role", inputs.adoptUid, inputs.parentUid, (uid) => client.roles.get(uid)), inputs);
      const mask = changedFields<keyof RoleInputs>(existing, inputs, MUTABLE);
      const r = mask.length ? outputs(await client.roles.patch(existing.uid, body, mask), inputs) : existing;
      logInfo(`adopted role ${existing.uid}`);
      return { id: r.uid, outs: r };
    }
    const r = await createNamedSafely(client.roles, "role", inputs.parentUid, inputs.name, body, logInfo);
    return { id: r.uid, outs: outputs(r, inputs) };
  },

  /** Current server state; NOT_FOUND reports the role gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const outs = outputs(await batchedGet(getClient().roles, id), props ?? {});
      const { uid: _u, createTime: _c, updateTime: _t, ...rest } = outs;
      return { id, props: outs, inputs: { parentUid: rest.parentUid, name: rest.name, description: rest.description, capabilities: rest.capabilities, ...(rest.adoptUid ? { adoptUid: rest.adoptUid } : {}) } };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (body, mask) => outputs(await getClient().roles.patch(id, body, mask), news));
  },

  /** Deletes the role (refused while a role binding uses it); NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().roles.delete(id));
  },
};

/**
 * A custom role.
 *
 * @example
 * ```ts
 * const auditor = new Role("auditor", { parentUid: orgUid, name: "auditor", capabilities: ["groups.list", "identity.list", "role_bindings.list"] });
 * ```
 */
export class Role extends PlatformResource {
  /**
   * Reads an existing role by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the role alone. Built on
   * `new Role(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the role's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no role has that uid.
   * @example const org = Role.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Role {
    return new Role(name, readArgs<RoleArgs>(["parentUid", "name", "description", "capabilities"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a Role (type token `pulumi-nodejs:dynamic/platform:Role`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is Role {
    return isResourceOfKind(obj, "Role");
  }

  /** The role's uid (its group's uid + `/` + 16 hex characters). */
  declare readonly uid: pulumi.Output<string>;
  /** uid of the group the role belongs to. */
  declare readonly parentUid: pulumi.Output<string>;
  /** Role name. */
  declare readonly name: pulumi.Output<string>;
  /** Description. */
  declare readonly description: pulumi.Output<string>;
  /** Capabilities in wire form (`CAP_…`), sorted. */
  declare readonly capabilities: pulumi.Output<string[]>;
  /** Creation time, RFC 3339. */
  declare readonly createTime: pulumi.Output<string>;
  /** Last update time, RFC 3339. */
  declare readonly updateTime: pulumi.Output<string>;

  /** @param name Pulumi resource name. @param args the role's fields. @param opts resource options. */
  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) {
    super("Role", name, { uid: undefined, createTime: undefined, updateTime: undefined, description: undefined, ...args }, opts);
    useIdAsUid(this);
  }
}
