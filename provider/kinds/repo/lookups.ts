/**
 * Registry repo lookups: `getRepos`, `getRepo` and their `...Output` twins (see `core.ts`).
 */
import type { ApiRepo as Repo } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";
import type { GetReposArgs, GetRepoArgs } from "./types";
export type { GetReposArgs, GetRepoArgs } from "./types";

const lookups = namedLookups<Repo, GetReposArgs, GetRepoArgs>(["getRepos", "getRepo"], ["repo", "repos"], (c) => c.repos);

/**
 * Lists registry repos, walking pages lazily.
 * @returns repos in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const repos = await getRepos({ childrenOf: orgUid, orderBy: "name" });
 */
export const getRepos: ListLookup<GetReposArgs, Repo> = lookups.list;

/** {@link getRepos} with `Input` arguments and an `Output` result. */
export const getReposOutput: ListLookupOutput<GetReposArgs, Repo> = lookups.listOutput;

/**
 * Gets one registry repo: by `uid`, or by filters that must match exactly one repo.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no repo has that `uid`; other ApiErrors.
 * @example const nginx = await getRepo({ name: "nginx", parentUid: orgUid });
 */
export const getRepo: OneLookup<GetRepoArgs, Repo> = lookups.one;

/** {@link getRepo} with `Input` arguments and an `Output` result. */
export const getRepoOutput: OneLookupOutput<GetRepoArgs, Repo> = lookups.oneOutput;
