/**
 * Role lookups (built-in and custom roles): `getRoles`, `getRole` and their `...Output` twins (see `core.ts`).
 */
import type { ApiRole as Role } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput, type PagingArgs, type UidpFilterArgs } from "../../lookups/core";

const lookups = namedLookups<Role, GetRolesArgs, GetRoleArgs>(["getRoles", "getRole"], ["role", "roles"], (c) => c.roles);

/**
 * Arguments of {@link getRoles}: the List parameters of `/iam/v2/roles` plus `limit`. Built-in roles are
 * root-level (`inRoot: true`); custom roles are children of the group that owns them.
 */
export interface GetRolesArgs extends PagingArgs, UidpFilterArgs {
  /** Exact role name, e.g. `viewer`, `editor`, `owner`, `registry.pull`. Default: every role. */
  name?: string;
}

/**
 * Lists roles (built-in and custom), walking pages lazily.
 * @returns roles in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const [editor] = await getRoles({ name: "editor" });
 */
export const getRoles: ListLookup<GetRolesArgs, Role> = lookups.list;

/** {@link getRoles} with `Input` arguments and an `Output` result. */
export const getRolesOutput: ListLookupOutput<GetRolesArgs, Role> = lookups.listOutput;

/** Arguments of {@link getRole}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetRoleArgs {
  /** The role's uid (one GET). */
  uid?: string;
  /** Exact role name, e.g. `editor`. */
  name?: string;
  /** uid of the group owning a custom role (`uidp.children_of`). Default: any (built-in roles included). */
  parentUid?: string;
}

/**
 * Gets one role: by `uid`, or by filters that must match exactly one role. A custom role named like a
 * built-in one makes `{ name }` alone ambiguous: add `parentUid`, or use the uid.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no role has that `uid`; other ApiErrors.
 * @example const editor = await getRole({ name: "editor" });
 */
export const getRole: OneLookup<GetRoleArgs, Role> = lookups.one;

/** {@link getRole} with `Input` arguments and an `Output` result. */
export const getRoleOutput: OneLookupOutput<GetRoleArgs, Role> = lookups.oneOutput;
