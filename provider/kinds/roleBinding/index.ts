/**
 * RoleBinding: grants a role to an identity at a group and its descendants
 * (`pulumi-nodejs:dynamic/platform:RoleBinding`).
 *
 * Life cycle: create POSTs `{identityUid, roleUid}` under `groupUid`; a change of `groupUid` replaces; a change
 * of `identityUid` or `roleUid` PATCHes exactly those fields; outputs carry the server's hydrated identity,
 * group and role; read returns the server's values as inputs so drift shows; delete treats NOT_FOUND as done.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiRoleBinding } from "../../client/types";
import { uidpProblem } from "../../validation";
import { logInfo } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, mutable, output, parent } from "../../engine/declare";
import { adoptUidArg, lookupFilter, named, uidArg } from "../../engine/fieldTypes";
import { adoptOnlyCandidate, candidatesInWindow, createSafely } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { RoleBindingArgs, RoleBindingInputs, RoleBindingOutputs, RoleBindingOutputProperties } from "./types";
export type { BindingIdentityRef, BindingRef, RoleBindingArgs, RoleBindingInputs, RoleBindingOutputs, RoleBindingOutputProperties } from "./types";

/** A hydrated reference's uid (`identity.uid`, `role.uid`), for servers that send only the hydrated form. */
function refUid(ref: unknown): unknown {
  return (ref as { uid?: unknown } | undefined)?.uid;
}

/** The role's bindings under the group that match a create's every field: the same identity and role. */
const matching = async (client: PlatformClient, inputs: RoleBindingInputs): Promise<ApiRoleBinding[]> =>
  (await client.roleBindings.list({ childrenOf: inputs.groupUid, pageSize: 200 }).collect()).filter((x) => x.identityUid === inputs.identityUid && x.roleUid === inputs.roleUid);

/** What the server tells of every object a binding refers to (seed §2, RoleBinding). */
const refFields = {
  uid: z.string().describe("Its uid."),
  name: z.string().describe('Its name; `""` when the server sends none.'),
  description: z.string().describe('Its description; `""` when the server sends none.'),
};

/** A group or role a binding refers to, hydrated by the server (seed §2, RoleBinding). */
const BindingRef = named(
  "iam",
  "BindingRef",
  z
    .object({
      ...refFields,
    })
    .describe("An object a role binding refers to, as the server describes it."),
);

/** The identity a binding refers to, hydrated by the server (seed §2, RoleBinding). */
const BindingIdentityRef = named(
  "iam",
  "BindingIdentityRef",
  z
    .object({
      ...refFields,
      subject: z.string().optional().describe("The subject the identity matches (claimMatch identities)."),
      issuer: z.string().optional().describe("The issuer the identity trusts (claimMatch identities)."),
      email: z.string().optional().describe("The user's email (user identities)."),
    })
    .describe("The identity that receives the role, as the server describes it."),
);

/** The RoleBinding kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const roleBindingKind = declareResource<RoleBindingInputs, RoleBindingOutputs, ApiRoleBinding>({
  kind: "RoleBinding",
  module: "iam",
  what: "role binding",
  description: "Grants a role to an identity at a group and its descendants.",
  collection: (c) => c.roleBindings,
  ownership: { proof: "window", matching, same: "the same identity and role" },
  listing: { label: (x) => `${x.identity?.name ?? x.identityUid} → ${x.role?.name ?? x.roleUid}` },
  blocksGroupDelete: true,
  lookups: {
    plural: "RoleBindings",
    listFilters: {
      identityUid: lookupFilter("Only bindings of this identity (filtered in this process)."),
      roleUid: lookupFilter("Only bindings to this role (filtered in this process)."),
      groupUid: lookupFilter("Only bindings on this group (`uidp.children_of`), the name `getRoleBinding` uses; same as `childrenOf`."),
    },
    oneFilters: {
      groupUid: lookupFilter("uid of the group the binding is in (`uidp.children_of`). Default: any group."),
      identityUid: lookupFilter("uid of the bound identity (filtered in this process)."),
      roleUid: lookupFilter("uid of the bound role (filtered in this process)."),
    },
  },
  fields: {
    groupUid: parent({ type: uidArg("uid of the group the role applies at (and below). Changing it replaces the binding.") }),
    // A grant to someone the export does not declare (the org's owners, people) is exported protected, so a
    // `pulumi destroy` of that stack cannot lock them out.
    identityUid: mutable({ type: uidArg("uid of the identity that receives the role."), check: uidpProblem, protectWhenOutside: true, fromServer: (v, api, local) => v ?? refUid(api["identity"]) ?? local["identityUid"] ?? "" }),
    roleUid: mutable({ type: uidArg("uid of the role (find built-ins by name with `getRole`)."), check: uidpProblem, fromServer: (v, api, local) => v ?? refUid(api["role"]) ?? local["roleUid"] ?? "" }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("binding at `groupUid`") }),
  },
  // Bindings have no update time; the server hydrates identity, group and role.
  server: {
    createTime: output(z.string().describe("Creation time, RFC 3339 (bindings have no update time)."), ""),
    identity: output(BindingIdentityRef),
    group: output(BindingRef),
    role: output(BindingRef),
  },
  hooks: {
    /** No free-text field to mark: the same identity and role under the group, created during the attempt. */
    async create(inputs, ctx) {
      const client = ctx.client();
      const what = `role binding of ${inputs.identityUid} to ${inputs.roleUid}`;
      return createSafely({
        what,
        parentUid: inputs.groupUid,
        // Identical bindings of one program are told apart by running their attempts one at a time (lifecycle.ts).
        key: JSON.stringify(["RoleBinding", inputs.groupUid, inputs.identityUid, inputs.roleUid]),
        creates: ctx.creates,
        policy: client.transport.retry,
        log: logInfo,
        post: () => client.roleBindings.create(inputs.groupUid, { identityUid: inputs.identityUid, roleUid: inputs.roleUid }),
        recover: async (started, ended, err) =>
          adoptOnlyCandidate(
            what,
            inputs.groupUid,
            await candidatesInWindow({ transport: client.transport, creates: ctx.creates }, started, ended, () => matching(client, inputs)),
            err,
          ),
      });
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface RoleBinding extends RoleBindingOutputProperties {}

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
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = roleBindingKind;

  /**
   * @param name Pulumi resource name (unique in the stack).
   * @param args the binding's group, identity and role.
   * @param opts resource options.
   */
  constructor(name: string, args: RoleBindingArgs, opts?: pulumi.CustomResourceOptions) {
    super(roleBindingKind, name, args, opts);
  }
}
