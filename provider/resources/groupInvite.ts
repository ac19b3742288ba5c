/**
 * GroupInvite: an invitation to join a group with a role (`pulumi-nodejs:dynamic/platform:GroupInvite`).
 *
 * The API has no PATCH for invites, so any change replaces. `code` is returned only when the invite is created:
 * it is a secret output kept from then on. An invite past its `expirationTime` is replaced on the next up (the
 * diff reports it); no check ever fails because of time, so previews keep working.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiGroupInvite as ApiInvite } from "../client/types";
import { getClient } from "../state";
import { Failures, isUnknown, optionalStringProblem, uidpProblem } from "../validation";
import { canonical, deleteIgnoringNotFound, logInfo, parentOfUid, readOrGone, useIdAsUid, type ProviderImpl } from "./common";
import { createSafely } from "./lifecycle";
import { batchedGet } from "./readBatch";
import { isResourceOfKind, PlatformResource, readArgs } from "./shim";

/** Arguments of a {@link GroupInvite}. */
export interface GroupInviteArgs {
  /** uid of the group to invite into. */
  parentUid: pulumi.Input<string>;
  /** uid of the role the invitee gets. */
  roleUid: pulumi.Input<string>;
  /** How long the invite is valid: a duration such as `"72h"`, `"30m"` or `"3600s"`. */
  ttl: pulumi.Input<string>;
  /** Only this email address may accept; default: anyone with the code. */
  email?: pulumi.Input<string>;
  /** The code works once; default false. */
  singleUse?: pulumi.Input<boolean>;
}

/** Inputs after `check`: `ttl` in seconds as the API's Duration (`"259200s"`). */
export interface GroupInviteInputs {
  parentUid: string;
  roleUid: string;
  ttl: string;
  email: string;
  singleUse: boolean;
}

/** Outputs: the inputs, the server's fields, and the one-time `code` (secret). */
export interface GroupInviteOutputs extends GroupInviteInputs {
  uid: string;
  code: string;
  expirationTime: string;
  createTime: string;
  keyId: string;
  [serverField: string]: unknown;
}

const FIELDS = ["parentUid", "roleUid", "ttl", "email", "singleUse"] as const;

/** Parses `"72h"`, `"1h30m"`, `"90s"`, `"3600"` to whole seconds, or undefined. */
export function ttlSeconds(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s) || undefined;
  const re = /(\d+)(h|m|s)/g;
  let total = 0;
  let used = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1 }[m[2] as "h" | "m" | "s"];
    used += m[0].length;
  }
  return used === s.length && total > 0 ? total : undefined;
}

function outputs(i: ApiInvite, inputs: GroupInviteInputs, code: string): GroupInviteOutputs {
  return {
    ...i,
    ...inputs,
    parentUid: parentOfUid(i.uid),
    code,
    expirationTime: i.expirationTime ?? "",
    createTime: i.createTime ?? "",
    keyId: i.keyId ?? "",
  };
}

/** The GroupInvite provider implementation (runs in the provider process). */
export const groupInviteProvider: ProviderImpl<GroupInviteInputs, GroupInviteOutputs> = {
  /** Validates the fields (never against the clock). */
  async check(_olds, news) {
    const n = news as unknown as Record<string, unknown>;
    const f = new Failures().add("parentUid", uidpProblem(n["parentUid"])).add("roleUid", uidpProblem(n["roleUid"])).add("email", optionalStringProblem(n["email"]));
    const ttl = n["ttl"];
    const secs = ttlSeconds(ttl);
    if (!isUnknown(ttl) && secs === undefined) f.add("ttl", `must be a duration such as "72h", "30m" or "3600s", got ${JSON.stringify(ttl)}`);
    const email = n["email"];
    if (typeof email === "string" && email !== "" && !/^[^@\s]+@[^@\s]+$/.test(email)) f.add("email", `"${email}" is not an email address`);
    return {
      inputs: {
        parentUid: n["parentUid"] as string,
        roleUid: n["roleUid"] as string,
        ttl: isUnknown(ttl) ? (ttl as string) : `${secs ?? 0}s`,
        email: (email as string | undefined) ?? "",
        singleUse: (n["singleUse"] as boolean | undefined) ?? false,
      },
      failures: f.list,
    };
  },

  /** Any change replaces (no PATCH for invites); so does an expired invite. */
  async diff(_id, olds, news) {
    const replaces: string[] = FIELDS.filter((k) => canonical(olds[k]) !== canonical(news[k]));
    const expiry = Date.parse(olds.expirationTime ?? "");
    if (!Number.isNaN(expiry) && expiry <= Date.now()) replaces.push("expirationTime");
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },

  /** Creates the invite; the code comes only from this response. */
  async create(inputs) {
    const client = getClient();
    const body = { roleUid: inputs.roleUid, ttl: inputs.ttl, singleUse: inputs.singleUse, ...(inputs.email ? { email: inputs.email } : {}) };
    const i = await createSafely({
      what: `group invite for role ${inputs.roleUid}`,
      parentUid: inputs.parentUid,
      policy: client.transport.retry,
      log: logInfo,
      post: () => client.groupInvites.create(inputs.parentUid, body),
      // An invite adopted after an ambiguous failure has no code (it was only in the lost response): fail then.
      candidates: async () => [],
    });
    return { id: i.uid, outs: outputs(i, inputs, i.code ?? "") };
  },

  /** Current server state (the code is kept from state); NOT_FOUND (deleted or expired away) reports it gone. */
  async read(id, props) {
    return readOrGone(async () => {
      const i = await batchedGet(getClient().groupInvites, id);
      const prior = (props ?? {}) as Partial<GroupInviteOutputs>;
      const inputs: GroupInviteInputs = {
        parentUid: parentOfUid(i.uid),
        roleUid: i.roleUid ?? prior.roleUid ?? "",
        ttl: prior.ttl ?? "",
        email: i.email,
        singleUse: i.singleUse ?? prior.singleUse ?? false,
      };
      return { id, props: outputs(i, inputs, prior.code ?? ""), inputs };
    });
  },

  /** Never called with a real change (every change replaces); keeps the state as it is. */
  async update(_id, olds, news) {
    return { outs: { ...olds, ...news } };
  },

  /** Deletes the invite; NOT_FOUND counts as done. */
  async delete(id) {
    await deleteIgnoringNotFound(() => getClient().groupInvites.delete(id));
  },
};

/**
 * An invitation into a group.
 *
 * @example
 * ```ts
 * const invite = new GroupInvite("contractor", { parentUid: platform.uid, roleUid: viewer.uid, ttl: "72h", email: "c@example.com" });
 * export const inviteCode = invite.code; // secret
 * ```
 */
export class GroupInvite extends PlatformResource {
  /**
   * Reads an existing group invite by uid without managing it: its current server state becomes this resource's
   * outputs (refreshed by `pulumi refresh`), and `pulumi destroy` leaves the group invite alone. Built on
   * `new GroupInvite(name, args, { id: uid })`, which works for dynamic resources (`pulumi import` does not).
   * Its `code` output is `""`: the API returns the code only when the invite is created.
   * @param name Pulumi resource name (unique in the stack).
   * @param uid the group invite's uid.
   * @param opts resource options (`id` is set to `uid`).
   * @returns the typed resource; the operation fails at preview/up with NOT_FOUND when no group invite has that uid.
   * @example const org = GroupInvite.get("org", orgUid);
   */
  static get(name: string, uid: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): GroupInvite {
    return new GroupInvite(name, readArgs<GroupInviteArgs>(["parentUid", "roleUid", "ttl", "email", "singleUse"]), { ...opts, id: uid });
  }

  /**
   * Whether `obj` is a GroupInvite (type token `pulumi-nodejs:dynamic/platform:GroupInvite`). Checks the token, not the
   * class, so it holds when the program loads two copies of this package.
   */
  static override isInstance(obj: unknown): obj is GroupInvite {
    return isResourceOfKind(obj, "GroupInvite");
  }

  /** The invite's uid. */
  declare readonly uid: pulumi.Output<string>;
  /** The one-time code (secret). */
  declare readonly code: pulumi.Output<string>;
  /** When the invite expires, RFC 3339. */
  declare readonly expirationTime: pulumi.Output<string>;
  /** The verification key id. */
  declare readonly keyId: pulumi.Output<string>;

  /** @param name Pulumi resource name. @param args the invite. @param opts resource options. */
  constructor(name: string, args: GroupInviteArgs, opts?: pulumi.CustomResourceOptions) {
    super("GroupInvite", name,
      { uid: undefined, code: undefined, expirationTime: undefined, keyId: undefined, createTime: undefined, ...args },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "code"] });
    useIdAsUid(this);
  }
}
