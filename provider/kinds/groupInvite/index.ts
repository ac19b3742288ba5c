/**
 * GroupInvite: an invitation to join a group with a role (`pulumi-nodejs:dynamic/platform:GroupInvite`).
 *
 * The API has no PATCH for invites, so any change replaces. `code` is returned only when the invite is created:
 * it is a secret output kept from then on. An invite past its `expirationTime` is replaced on the next up (the
 * diff reports it); no check ever fails because of time, so previews keep working.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiGroupInvite as ApiInvite } from "../../client/types";
import { isUnknown, optionalStringProblem, uidpProblem } from "../../validation";
import { logInfo } from "../../engine/common";
import { z } from "zod";
import { declareResource, output, parent, replace } from "../../engine/declare";
import { createTime, uidArg } from "../../engine/fieldTypes";
import { candidatesInWindow, createSafely } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { GroupInviteArgs, GroupInviteInputs, GroupInviteOutputs, GroupInviteOutputProperties } from "./types";
export type { GroupInviteArgs, GroupInviteInputs, GroupInviteOutputs, GroupInviteOutputProperties } from "./types";

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

/**
 * The group's invites that match a create's every field: the same role, email and single-use flag, expiring `ttl`
 * after their creation.
 */
const matching = async (client: PlatformClient, inputs: GroupInviteInputs): Promise<ApiInvite[]> => {
  const ttlMs = (ttlSeconds(inputs.ttl) ?? 0) * 1000;
  return (await client.groupInvites.list({ childrenOf: inputs.parentUid, pageSize: 200 }).collect()).filter(
    (x) =>
      x.roleUid === inputs.roleUid &&
      (x.email ?? "") === (inputs.email ?? "") &&
      (x.singleUse ?? false) === (inputs.singleUse ?? false) &&
      Math.abs(Date.parse(x.expirationTime ?? "") - Date.parse(x.createTime ?? "") - ttlMs) <= 2000,
  );
};

/** The GroupInvite kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const groupInviteKind = declareResource<GroupInviteInputs, GroupInviteOutputs, ApiInvite>({
  kind: "GroupInvite",
  module: "iam",
  what: "group invite",
  description: "An invitation to join a group with a role. Every field replaces; the one-time `code` is kept secret.",
  collection: (c) => c.groupInvites,
  // An invite's code is only in the create response: a lost copy is deleted, never adopted.
  ownership: { proof: "window", matching, lost: "delete", same: "the same role, email and single-use flag" },
  listing: { label: (x) => x.email || x.role?.name || x.roleUid || "", notAdoptable: "an invite's code cannot be read back" },
  blocksGroupDelete: true,
  // The API has no PATCH for invites: every field replaces.
  fields: {
    parentUid: parent({ type: uidArg("uid of the group to invite into. Changing it replaces the invite.") }),
    roleUid: replace({ type: uidArg("uid of the role the invitee gets. Changing it replaces the invite."), check: uidpProblem, fromServer: (v, _api, local) => v ?? local["roleUid"] ?? "" }),
    ttl: replace({
      type: z.string().describe('How long the invite is valid: a duration such as `"72h"`, `"30m"` or `"3600s"`. Changing it replaces the invite.'),
      check: (v) => (isUnknown(v) || ttlSeconds(v) !== undefined ? undefined : `must be a duration such as "72h", "30m" or "3600s", got ${JSON.stringify(v)}`),
      normalize: (v) => `${ttlSeconds(v) ?? 0}s`,
      // The server returns the expiry, not the ttl: kept from the inputs (the prior state on read).
      fromServer: (_v, _api, local) => local["ttl"] ?? "",
    }),
    email: replace({
      type: z.string().optional().describe("Only this email address may accept; default: anyone with the code."),
      check: (v) => optionalStringProblem(v) ?? (typeof v === "string" && v !== "" && !/^[^@\s]+@[^@\s]+$/.test(v) ? `"${v}" is not an email address` : undefined),
      default: "",
    }),
    singleUse: replace({ type: z.boolean().optional().describe("The code works once; default false."), default: false, fromServer: (v, _api, local) => v ?? local["singleUse"] ?? false }),
  },
  // `code` is only in the create response: kept from then on (hooks.outputs), secret.
  server: {
    code: output(z.string().describe("The one-time code (secret).")),
    expirationTime: output(z.string().describe("When the invite expires, RFC 3339."), ""),
    createTime,
    keyId: output(z.string().describe("The verification key id."), ""),
  },
  secretOutputs: ["code"],
  hooks: {
    outputs: (o, api, local) => ({ ...o, code: api.code ?? local.code ?? "" }),
    /** An invite past its expirationTime is replaced too; no check ever fails because of time. */
    diff(olds, _news, d) {
      const replaces = [...(d.replaces ?? [])];
      const expiry = Date.parse(olds.expirationTime ?? "");
      if (!Number.isNaN(expiry) && expiry <= Date.now()) replaces.push("expirationTime");
      return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
    },
    async create(inputs, ctx) {
      const client = ctx.client();
      const body = { roleUid: inputs.roleUid, ttl: inputs.ttl, singleUse: inputs.singleUse, ...(inputs.email ? { email: inputs.email } : {}) };
      const what = `group invite for role ${inputs.roleUid}${inputs.email ? ` to ${inputs.email}` : ""}`;
      return createSafely({
        what,
        parentUid: inputs.parentUid,
        // Identical invites of one program are told apart by running their attempts one at a time (lifecycle.ts).
        key: JSON.stringify(["GroupInvite", inputs.parentUid, inputs.roleUid, inputs.email ?? "", inputs.singleUse ?? false]),
        creates: ctx.creates,
        policy: client.transport.retry,
        log: logInfo,
        post: () => client.groupInvites.create(inputs.parentUid, body),
        // An invite's code is only in the create response, so a copy whose answer was lost can never be adopted:
        // find it (same role, email and single-use flag, created during the attempt, expiring ttl after its
        // creation) and delete it, then send the create again. Never two live invites for one declared invite.
        recover: async (started, ended, err) => {
          const lost = await candidatesInWindow({ transport: client.transport, creates: ctx.creates }, started, ended, () => matching(client, inputs));
          if (lost.length > 1) {
            throw new Error(
              `${what}: the create failed ambiguously (${(err as Error).message}) and ${lost.length} matching invites were created under ${inputs.parentUid} during the attempt (${lost.map((x) => x.uid).join(", ")}); another writer may have made some, so none was deleted: delete the ones nobody holds a code for, then run \`pulumi up\` again`,
              { cause: err },
            );
          }
          for (const copy of lost) {
            logInfo(`${what}: invite ${copy.uid} was created by an attempt whose answer (and code) was lost; deleting it before sending the create again`);
            await client.groupInvites.delete(copy.uid);
          }
          return { retry: true };
        },
      });
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface GroupInvite extends GroupInviteOutputProperties {}

/**
 * An invitation into a group.
 *
 * `GroupInvite.get` (read by uid, unmanaged): Its `code` output is `""`: the API returns the code only when the invite is created.
 *
 * @example
 * ```ts
 * const invite = new GroupInvite("contractor", { parentUid: platform.uid, roleUid: viewer.uid, ttl: "72h", email: "c@example.com" });
 * export const inviteCode = invite.code; // secret
 * ```
 */
export class GroupInvite extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = groupInviteKind;

  /** @param name Pulumi resource name. @param args the invite. @param opts resource options. */
  constructor(name: string, args: GroupInviteArgs, opts?: pulumi.CustomResourceOptions) {
    super(groupInviteKind, name, args, opts);
  }
}
