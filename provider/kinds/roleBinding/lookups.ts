/**
 * Role binding lookups: `getRoleBindings`, `getRoleBinding` and their `...Output` twins (see `core.ts`).
 * The List takes no identity or role filter: those are applied in this process.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiRoleBinding as RoleBinding } from "../../client/types";
import { checkArgs, emptySet, listParams, outputOf, PAGING, programClientFromConfig, single, take, UIDP, type ArgSpec, type InputArgs } from "../../lookups/core";
import type { GetRoleBindingsArgs, GetRoleBindingArgs } from "./types";
export type { GetRoleBindingsArgs, GetRoleBindingArgs } from "./types";

const BINDINGS_SPEC: ArgSpec = { identityUid: "string", roleUid: "string", groupUid: "string", ...UIDP, ...PAGING };

function bindingFilter(a: { identityUid?: string; roleUid?: string }): ((b: RoleBinding) => boolean) | undefined {
  if (a.identityUid === undefined && a.roleUid === undefined) return undefined;
  return (b) =>
    (a.identityUid === undefined || (b.identityUid ?? b.identity?.uid) === a.identityUid) && (a.roleUid === undefined || (b.roleUid ?? b.role?.uid) === a.roleUid);
}

/**
 * Lists role bindings (hydrated with identity, group and role), walking pages lazily. A group's bindings are
 * its children: `childrenOf: groupUid`.
 * @returns bindings in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const bindings = await getRoleBindings({ childrenOf: teamUid, identityUid: ci.uid });
 */
export async function getRoleBindings(args: GetRoleBindingsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<RoleBinding[]> {
  const a = checkArgs("getRoleBindings", args, BINDINGS_SPEC);
  if (emptySet(a.ids)) return [];
  const keep = bindingFilter(a);
  return take(client.roleBindings.list(listParams(a, keep === undefined, "getRoleBindings")).pages(a.limit === undefined), a.limit, keep);
}

/** {@link getRoleBindings} with `Input` arguments and an `Output` result. */
export function getRoleBindingsOutput(args: pulumi.Input<InputArgs<GetRoleBindingsArgs>> = {}, client?: PlatformClient): pulumi.Output<RoleBinding[]> {
  return outputOf<GetRoleBindingsArgs, RoleBinding[]>(args, (a) => getRoleBindings(a, client));
}

/**
 * Gets one role binding: by `uid`, or by filters that must match exactly one binding.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no binding has that `uid`; other ApiErrors.
 * @example const b = await getRoleBinding({ groupUid: teamUid, identityUid: ci.uid, roleUid: editor.uid });
 */
export async function getRoleBinding(args: GetRoleBindingArgs, client: PlatformClient = programClientFromConfig()): Promise<RoleBinding> {
  const a = checkArgs("getRoleBinding", args, { uid: "string", groupUid: "string", identityUid: "string", roleUid: "string" });
  return single("getRoleBinding", ["role binding", "role bindings"], a, ["groupUid", "identityUid", "roleUid"], (uid) => client.roleBindings.get(uid), () => {
    const keep = bindingFilter(a);
    return {
      pages: client.roleBindings.list(listParams(a.groupUid !== undefined ? { childrenOf: a.groupUid } : {})).pages(),
      ...(keep ? { keep } : {}),
    };
  });
}

/** {@link getRoleBinding} with `Input` arguments and an `Output` result. */
export function getRoleBindingOutput(args: pulumi.Input<InputArgs<GetRoleBindingArgs>>, client?: PlatformClient): pulumi.Output<RoleBinding> {
  return outputOf<GetRoleBindingArgs, RoleBinding>(args, (a) => getRoleBinding(a, client));
}
