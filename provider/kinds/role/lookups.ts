/**
 * Role lookups (built-in and custom roles): `getRoles`, `getRole` and their `...Output` twins (see `core.ts`).
 */
import type { ApiRole as Role } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";
import type { GetRolesArgs, GetRoleArgs } from "./types";
export type { GetRolesArgs, GetRoleArgs } from "./types";

const lookups = namedLookups<Role, GetRolesArgs, GetRoleArgs>(["getRoles", "getRole"], ["role", "roles"], (c) => c.roles);

/**
 * Lists roles (built-in and custom), walking pages lazily.
 * @returns roles in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const [editor] = await getRoles({ name: "editor" });
 */
export const getRoles: ListLookup<GetRolesArgs, Role> = lookups.list;

/** {@link getRoles} with `Input` arguments and an `Output` result. */
export const getRolesOutput: ListLookupOutput<GetRolesArgs, Role> = lookups.listOutput;

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
