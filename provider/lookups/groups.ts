/**
 * Group lookups: `getGroups`, `getGroup` and their `...Output` twins (see `core.ts` for the rules they share).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../client/client";
import type { ApiGroup as Group } from "../client/types";
import { namedList, namedLookup, outputOf, programClientFromConfig, type InputArgs, type PagingArgs, type UidpFilterArgs } from "./core";

/** Arguments of {@link getGroups}: the List parameters of `/iam/v2/groups` plus `limit`. */
export interface GetGroupsArgs extends PagingArgs, UidpFilterArgs {
  /** Exact group name. Default: any name. */
  name?: string;
}

/**
 * Lists groups the caller can see, walking pages lazily.
 * @returns groups in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API (e.g. InvalidArgumentError for a bad `orderBy`);
 *   SettingsError when no client is given and none is configured.
 * @example const teams = await getGroups({ childrenOf: orgUid, orderBy: "name" });
 */
export async function getGroups(args: GetGroupsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Group[]> {
  return namedList("getGroups", args, client.groups);
}

/** {@link getGroups} with `Input` arguments and an `Output` result. */
export function getGroupsOutput(args: pulumi.Input<InputArgs<GetGroupsArgs>> = {}, client?: PlatformClient): pulumi.Output<Group[]> {
  return outputOf<GetGroupsArgs, Group[]>(args, (a) => getGroups(a, client));
}

/** Arguments of {@link getGroup}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetGroupArgs {
  /** The group's uid (one GET). */
  uid?: string;
  /** Exact group name. */
  name?: string;
  /** uid of the parent group: only its direct children match (`uidp.children_of`). Default: any parent. */
  parentUid?: string;
}

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
export async function getGroup(args: GetGroupArgs, client: PlatformClient = programClientFromConfig()): Promise<Group> {
  return namedLookup("getGroup", ["group", "groups"], args, client.groups);
}

/** {@link getGroup} with `Input` arguments and an `Output` result. */
export function getGroupOutput(args: pulumi.Input<InputArgs<GetGroupArgs>>, client?: PlatformClient): pulumi.Output<Group> {
  return outputOf<GetGroupArgs, Group>(args, (a) => getGroup(a, client));
}
