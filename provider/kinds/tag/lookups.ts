/**
 * Registry tag lookups: `getTags`, `getTag` and their `...Output` twins (see `core.ts`). Tags are children of
 * their repo; the tag List's own `digest` filter is a parameter of the client's `tags.list`.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { Paginator } from "../../client/pagination";
import type { ApiTag as Tag } from "../../client/types";
import { checkArgs, emptySet, outputOf, PAGING, pick, programClientFromConfig, single, take, UIDP, underRepo, type ArgSpec, type InputArgs } from "../../lookups/core";
import type { GetTagsArgs, GetTagArgs } from "./types";
export type { GetTagsArgs, GetTagArgs } from "./types";

const TAGS_SPEC: ArgSpec = { name: "string", repoUid: "string", digest: "string", ...UIDP, ...PAGING };

function tagPaginator(fn: string, client: PlatformClient, a: GetTagsArgs): Paginator<Tag> {
  const { digest, ...rest } = a;
  return client.tags.list({ ...underRepo(fn, rest), ...(digest !== undefined ? { digest } : {}) });
}

/**
 * Lists registry tags, walking pages lazily.
 * @returns tags in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments (or `repoUid` and `childrenOf` that differ); ApiError from the API;
 *   SettingsError when not configured.
 * @example const tags = await getTags({ repoUid: nginx.uid, orderBy: "name" });
 */
export async function getTags(args: GetTagsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Tag[]> {
  const a = checkArgs("getTags", args, TAGS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(tagPaginator("getTags", client, a).pages(), a.limit);
}

/** {@link getTags} with `Input` arguments and an `Output` result. */
export function getTagsOutput(args: pulumi.Input<InputArgs<GetTagsArgs>> = {}, client?: PlatformClient): pulumi.Output<Tag[]> {
  return outputOf<GetTagsArgs, Tag[]>(args, (a) => getTags(a, client));
}

/**
 * Gets one registry tag: by `uid`, or by filters that must match exactly one tag.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no tag has that `uid`; other ApiErrors.
 * @example const latest = await getTag({ repoUid: nginx.uid, name: "latest" });
 */
export async function getTag(args: GetTagArgs, client: PlatformClient = programClientFromConfig()): Promise<Tag> {
  const a = checkArgs("getTag", args, { uid: "string", name: "string", repoUid: "string", digest: "string" });
  return single("getTag", ["tag", "tags"], a, ["name", "repoUid", "digest"], (uid) => client.tags.get(uid), () => ({
    pages: tagPaginator("getTag", client, pick(a, ["name", "repoUid", "digest"]) as GetTagsArgs).pages(),
  }));
}

/** {@link getTag} with `Input` arguments and an `Output` result. */
export function getTagOutput(args: pulumi.Input<InputArgs<GetTagArgs>>, client?: PlatformClient): pulumi.Output<Tag> {
  return outputOf<GetTagArgs, Tag>(args, (a) => getTag(a, client));
}
