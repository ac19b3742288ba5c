/**
 * `/registry/{version}/repos` and `/registry/{version}/tags`: list and get over seeded data (read-only in this
 * project, FACTS.md "Registry and advisories are read-only here"; writes answer UNIMPLEMENTED). A repo lives
 * under a group; a tag lives under a repo (its uid is the repo's uid + `/` + 16 hex characters).
 */
import type { CollectionSpec } from "../collection";
import { param, type RawQuery } from "../list";
import { parentOf } from "../uidp";

/** The group a tag's permissions are checked at: its repo's group. */
function tagScope(uid: string): string | undefined {
  const repo = parentOf(uid);
  return repo === undefined ? undefined : parentOf(repo);
}

export const repos: CollectionSpec = {
  api: "registry",
  collection: "repos",
  resourceType: "registry.repo",
  caps: { list: "CAP_REPO_LIST" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["name", "description", "catalogTier", "createTime", "updateTime"],
};

export const tags: CollectionSpec = {
  api: "registry",
  collection: "tags",
  resourceType: "registry.tag",
  caps: { list: "CAP_TAG_LIST" },
  scopeOf: tagScope,
  orderFields: ["name", "digest", "deprecated", "updateTime"],
  listFilter(query: RawQuery) {
    const digest = param(query, "digest");
    const since = param(query, "updated_since");
    const sinceMs = since ? Date.parse(since) : undefined;
    const checks: Array<(row: Record<string, unknown>) => boolean> = [];
    if (digest) checks.push((r) => r["digest"] === digest);
    if (sinceMs !== undefined && !Number.isNaN(sinceMs)) checks.push((r) => Date.parse(String(r["updateTime"])) >= sinceMs);
    return { predicate: checks.length ? (row) => checks.every((c) => c(row)) : null, key: JSON.stringify([digest, since]) };
  },
};
