/**
 * Registry repo lookups: `getRepos`, `getRepo` and their `...Output` twins (see `core.ts`).
 */
import type { ApiRepo as Repo } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput, type PagingArgs, type UidpFilterArgs } from "../../lookups/core";

const lookups = namedLookups<Repo, GetReposArgs, GetRepoArgs>(["getRepos", "getRepo"], ["repo", "repos"], (c) => c.repos);

/** Arguments of {@link getRepos}: the List parameters of `/registry/v2/repos` plus `limit`. Repos are children of a group. */
export interface GetReposArgs extends PagingArgs, UidpFilterArgs {
  /** Exact repo name, e.g. `nginx`. Default: any name. */
  name?: string;
}

/**
 * Lists registry repos, walking pages lazily.
 * @returns repos in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const repos = await getRepos({ childrenOf: orgUid, orderBy: "name" });
 */
export const getRepos: ListLookup<GetReposArgs, Repo> = lookups.list;

/** {@link getRepos} with `Input` arguments and an `Output` result. */
export const getReposOutput: ListLookupOutput<GetReposArgs, Repo> = lookups.listOutput;

/** Arguments of {@link getRepo}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetRepoArgs {
  /** The repo's uid (one GET). */
  uid?: string;
  /** Exact repo name, e.g. `nginx`. */
  name?: string;
  /** uid of the group holding the repo (`uidp.children_of`). Default: any group. */
  parentUid?: string;
}

/**
 * Gets one registry repo: by `uid`, or by filters that must match exactly one repo.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no repo has that `uid`; other ApiErrors.
 * @example const nginx = await getRepo({ name: "nginx", parentUid: orgUid });
 */
export const getRepo: OneLookup<GetRepoArgs, Repo> = lookups.one;

/** {@link getRepo} with `Input` arguments and an `Output` result. */
export const getRepoOutput: OneLookupOutput<GetRepoArgs, Repo> = lookups.oneOutput;
