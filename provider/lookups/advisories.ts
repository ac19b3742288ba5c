/**
 * Vulnerability advisory lookups: `getAdvisories`, `getAdvisory` and their `...Output` twins (see `core.ts`);
 * the advisory List's own filters are parameters of the client's `advisories.list`.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../client/client";
import type { Paginator } from "../client/pagination";
import type { ApiAdvisory as Advisory } from "../client/types";
import { checkArgs, compact, emptySet, listParams, outputOf, PAGING, programClientFromConfig, single, take, UIDP, type ArgSpec, type InputArgs, type PagingArgs, type UidpFilterArgs } from "./core";

/**
 * Arguments of {@link getAdvisories}: the List parameters of `/vulnerabilities/v2/advisories` plus
 * `advisoryIds`, `artifactNames` and `limit`. An empty array filter matches nothing (returns `[]` without a
 * request).
 */
export interface GetAdvisoriesArgs extends PagingArgs, UidpFilterArgs {
  /** Only these advisory ids, e.g. `CGA-2x4m-7v6q-9r3c` (sent as repeated `advisory_ids`). */
  advisoryIds?: readonly string[];
  /** Only advisories about these artifacts, e.g. `nginx` (sent as repeated `artifact_names`). */
  artifactNames?: readonly string[];
}

const ADVISORIES_SPEC: ArgSpec = { advisoryIds: "string[]", artifactNames: "string[]", ...UIDP, ...PAGING };

function advisoryPaginator(client: PlatformClient, a: GetAdvisoriesArgs): Paginator<Advisory> {
  const { advisoryIds, artifactNames, ...rest } = a;
  return client.advisories.list({ ...listParams(rest, true, "getAdvisories"), ...(advisoryIds ? { advisoryIds } : {}), ...(artifactNames ? { artifactNames } : {}) });
}

/**
 * Lists vulnerability advisories, walking pages lazily.
 * @returns advisories in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const nginxAdvisories = await getAdvisories({ artifactNames: ["nginx"], orderBy: "advisory_id" });
 */
export async function getAdvisories(args: GetAdvisoriesArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Advisory[]> {
  const a = checkArgs("getAdvisories", args, ADVISORIES_SPEC);
  if (emptySet(a.ids, a.advisoryIds, a.artifactNames)) return [];
  return take(advisoryPaginator(client, a).pages(), a.limit);
}

/** {@link getAdvisories} with `Input` arguments and an `Output` result. */
export function getAdvisoriesOutput(args: pulumi.Input<InputArgs<GetAdvisoriesArgs>> = {}, client?: PlatformClient): pulumi.Output<Advisory[]> {
  return outputOf<GetAdvisoriesArgs, Advisory[]>(args, (a) => getAdvisories(a, client));
}

/** Arguments of {@link getAdvisory}: `uid`, or filters (`advisoryId`, `artifactName`); exactly one of the two. */
export interface GetAdvisoryArgs {
  /** The advisory's uid (one GET). */
  uid?: string;
  /** The advisory id, e.g. `CGA-2x4m-7v6q-9r3c`. */
  advisoryId?: string;
  /** The artifact the advisory is about, e.g. `nginx`. */
  artifactName?: string;
}

/**
 * Gets one vulnerability advisory: by `uid`, or by filters that must match exactly one advisory.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no advisory has that `uid`; other ApiErrors.
 * @example const adv = await getAdvisory({ advisoryId: "CGA-2x4m-7v6q-9r3c" });
 */
export async function getAdvisory(args: GetAdvisoryArgs, client: PlatformClient = programClientFromConfig()): Promise<Advisory> {
  const a = checkArgs("getAdvisory", args, { uid: "string", advisoryId: "string", artifactName: "string" });
  return single("getAdvisory", ["advisory", "advisories"], a, ["advisoryId", "artifactName"], (uid) => client.advisories.get(uid), () => ({
    pages: advisoryPaginator(
      client,
      compact({
        advisoryIds: a.advisoryId === undefined ? undefined : [a.advisoryId],
        artifactNames: a.artifactName === undefined ? undefined : [a.artifactName],
      }) as GetAdvisoriesArgs,
    ).pages(),
  }));
}

/** {@link getAdvisory} with `Input` arguments and an `Output` result. */
export function getAdvisoryOutput(args: pulumi.Input<InputArgs<GetAdvisoryArgs>>, client?: PlatformClient): pulumi.Output<Advisory> {
  return outputOf<GetAdvisoryArgs, Advisory>(args, (a) => getAdvisory(a, client));
}
