/**
 * Group lookups: `getGroups`, `getGroup` and their `...Output` twins (see `core.ts` for the rules they share).
 */
import type { ApiGroup as Group } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";
import type { GetGroupsArgs, GetGroupArgs } from "./types";
export type { GetGroupsArgs, GetGroupArgs } from "./types";

const lookups = namedLookups<Group, GetGroupsArgs, GetGroupArgs>(["getGroups", "getGroup"], ["group", "groups"], (c) => c.groups);

/**
 * Lists groups the caller can see, walking pages lazily.
 * @returns groups in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API (e.g. InvalidArgumentError for a bad `orderBy`);
 *   SettingsError when no client is given and none is configured.
 * @example const teams = await getGroups({ childrenOf: orgUid, orderBy: "name" });
 */
export const getGroups: ListLookup<GetGroupsArgs, Group> = lookups.list;

/** {@link getGroups} with `Input` arguments and an `Output` result. */
export const getGroupsOutput: ListLookupOutput<GetGroupsArgs, Group> = lookups.listOutput;

/**
 * Gets one group: by `uid`, or by filters that must match exactly one group.
 * @throws TypeError when both or neither of `uid` and filters are given, or for bad arguments;
 *   LookupError when the filters match no group, or several (listing their uids);
 *   NotFoundError when no group has that `uid`; other ApiErrors from the API.
 * @example
 * ```ts
 * const team = await getGroup({ name: "platform", parentUid: orgUid });
 * const same = await getGroup({ uid: team.uid });
 * ```
 */
export const getGroup: OneLookup<GetGroupArgs, Group> = lookups.one;

/** {@link getGroup} with `Input` arguments and an `Output` result. */
export const getGroupOutput: OneLookupOutput<GetGroupArgs, Group> = lookups.oneOutput;
