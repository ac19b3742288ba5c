/**
 * AccountAssociation: a group's association with cloud accounts (`pulumi-nodejs:dynamic/platform:AccountAssociation`).
 *
 * Its uid is the group's uid: one per group. A change of `groupUid` replaces; the other fields PATCH in place.
 * If the group already has an association, create fails with ALREADY_EXISTS; set `adopt: true` to take it under
 * management instead.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiAccountAssociation as ApiAssoc } from "../client/types";
import { getClient } from "../state";
import { Failures, isUnknown, optionalStringProblem, uidpProblem } from "../validation";
import { changedFields, deleteIgnoringNotFound, fieldDiff, logInfo, patchChanged, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { isAmbiguous } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

/** Cloud accounts an association can name. */
export const ACCOUNT_KINDS = ["amazon", "google", "azure", "github", "chainguard"] as const;

/** Arguments of an {@link AccountAssociation}. */
export interface AccountAssociationArgs {
  /** uid of the group. Changing it replaces the association. */
  groupUid: pulumi.Input<string>;
  /** Name; default `""`. */
  name?: pulumi.Input<string>;
  /** Description; default `""`. */
  description?: pulumi.Input<string>;
  /** AWS: `{ account: "<12-digit account id>" }`. */
  amazon?: pulumi.Input<{ account: pulumi.Input<string> }>;
  /** Google Cloud: `{ projectId, projectNumber? }`. */
  google?: pulumi.Input<{ projectId: pulumi.Input<string>; projectNumber?: pulumi.Input<string> }>;
  /** Azure: `{ tenantId, clientIds? }`. */
  azure?: pulumi.Input<{ tenantId: pulumi.Input<string>; clientIds?: pulumi.Input<Record<string, pulumi.Input<string>>> }>;
  /** GitHub app installations, as the API takes them. */
  github?: pulumi.Input<Record<string, unknown>>;
  /** Chainguard service bindings, as the API takes them. */
  chainguard?: pulumi.Input<Record<string, unknown>>;
  /** Take the group's existing association under management instead of failing with ALREADY_EXISTS. */
  adopt?: pulumi.Input<boolean>;
}

/** Inputs after `check`. */
export interface AccountAssociationInputs {
  groupUid: string;
  name: string;
  description: string;
  amazon?: Record<string, unknown> | undefined;
  google?: Record<string, unknown> | undefined;
  azure?: Record<string, unknown> | undefined;
  github?: Record<string, unknown> | undefined;
  chainguard?: Record<string, unknown> | undefined;
  adopt?: boolean | undefined;
}

/** Outputs. */
export interface AccountAssociationOutputs extends AccountAssociationInputs {
  uid: string;
  createTime: string;
  updateTime: string;
  [serverField: string]: unknown;
}

const MUTABLE = ["name", "description", ...ACCOUNT_KINDS] as const;

function outputs(a: ApiAssoc, local: Partial<AccountAssociationInputs> = {}): AccountAssociationOutputs {
  const out: AccountAssociationOutputs = { ...a, groupUid: a.uid, name: a.name, description: a.description, createTime: a.createTime ?? "", updateTime: a.updateTime ?? "" };
  if (local.adopt !== undefined) out.adopt = local.adopt;
  return out;
}

function inputsOf(o: AccountAssociationOutputs): AccountAssociationInputs {
  const i: AccountAssociationInputs = { groupUid: o.groupUid, name: o.name, description: o.description };
  for (const k of ACCOUNT_KINDS) if (o[k] !== undefined) i[k] = o[k] as Record<string, unknown>;
  if (o.adopt !== undefined) i.adopt = o.adopt;
  return i;
}

function body(i: AccountAssociationInputs): Record<string, unknown> {
  const b: Record<string, unknown> = { name: i.name, description: i.description };
  for (const k of ACCOUNT_KINDS) if (i[k] !== undefined) b[k] = i[k];
  return b;
}

/** The AccountAssociation provider implementation (runs in the provider process). */
export const accountAssociationProvider: ProviderImpl<AccountAssociationInputs, AccountAssociationOutputs> = {
  /** Validates every field before any API call. */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures().add("groupUid", uidpProblem(n["groupUid"])).add("name", optionalStringProblem(n["name"])).add("description", optionalStringProblem(n["description"]));
    if (!ACCOUNT_KINDS.some((k) => n[k] !== undefined)) f.add("amazon", `give at least one of ${ACCOUNT_KINDS.join(", ")}`);
    const amazon = n["amazon"] as Record<string, unknown> | undefined;
    if (amazon && !isUnknown(amazon) && !isUnknown(amazon["account"]) && !/^\d{12}$/.test(String(amazon["account"] ?? ""))) {
      f.add("amazon.account", `must be a 12-digit AWS account id, got ${JSON.stringify(amazon["account"])}`);
    }
    const inputs: AccountAssociationInputs = { groupUid: n["groupUid"] as string, name: (n["name"] as string | undefined) ?? "", description: (n["description"] as string | undefined) ?? "" };
    for (const k of ACCOUNT_KINDS) if (n[k] !== undefined) inputs[k] = n[k] as Record<string, unknown>;
    if (n["adopt"] !== undefined) inputs.adopt = n["adopt"] as boolean;
    return { inputs, failures: f.list };
  },

  /** `groupUid` replaces; the rest update in place. */
  async diff(_id, olds, news) {
    return fieldDiff<keyof AccountAssociationInputs>(olds, news, ["groupUid"], MUTABLE);
  },

  /** Creates the group's association (or adopts the existing one with `adopt`). */
  async create(inputs) {
    const client = getClient();
    if (inputs.adopt) {
      const existing = outputs(await client.accountAssociations.get(inputs.groupUid), inputs);
      const mask = changedFields<keyof AccountAssociationInputs>(existing, inputs, MUTABLE);
      const a = mask.length ? outputs(await client.accountAssociations.patch(inputs.groupUid, body(inputs), mask), inputs) : existing;
      logInfo(`adopted the account association of group ${inputs.groupUid}`);
      return { id: a.uid, outs: a };
    }
    // The uid is the group's, so an ambiguous failure is settled by one GET.
    try {
      const a = await client.accountAssociations.create(inputs.groupUid, body(inputs));
      return { id: a.uid, outs: outputs(a, inputs) };
    } catch (err) {
      if (!isAmbiguous(err)) throw err;
      const a = await client.accountAssociations.get(inputs.groupUid);
      return { id: a.uid, outs: outputs(a, inputs) };
    }
  },

  /** Current server state; NOT_FOUND reports it gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const outs = outputs(await batchedGet(getClient().accountAssociations, id), props ?? {});
      return { id, props: outs, inputs: inputsOf(outs) };
    });
  },

  /** PATCHes exactly the changed fields. */
  async update(id, olds, news) {
    return patchChanged(olds, news, MUTABLE, async (_b, mask) => outputs(await getClient().accountAssociations.patch(id, body(news), mask), news));
  },

  /** Deletes the association (a missing one is success). */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().accountAssociations.delete(id));
  },
};

/**
 * A group's cloud-account association.
 *
 * @example
 * ```ts
 * new AccountAssociation("aws", { groupUid: platform.uid, amazon: { account: "123456789012" } });
 * ```
 */
export class AccountAssociation extends PlatformResource {
  /**
   * Reads an existing account association by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the account association alone. Built on
   * `new AccountAssociation(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * Its uid is its group's uid.
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the account association's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no account association has that uid.
   * @example const org = AccountAssociation.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): AccountAssociation {
    return new AccountAssociation(name, readArgs<AccountAssociationArgs>(["groupUid", "name", "description", "amazon", "google", "azure", "github", "chainguard"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a AccountAssociation (type token `pulumi-nodejs:dynamic/platform:AccountAssociation`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is AccountAssociation {
    return isResourceOfKind(obj, "AccountAssociation");
  }

  /** The association's uid (= the group's uid). */
  declare readonly uid: pulumi.Output<string>;
  /** uid of the group. */
  declare readonly groupUid: pulumi.Output<string>;
  /** Creation time, RFC 3339. */
  declare readonly createTime: pulumi.Output<string>;

  /** @param name Pulumi resource name. @param args the association. @param opts resource options. */
  constructor(name: string, args: AccountAssociationArgs, opts?: pulumi.CustomResourceOptions) {
    super("AccountAssociation", name, { uid: undefined, createTime: undefined, updateTime: undefined, ...args }, opts);
    useIdAsUid(this);
  }
}
