/**
 * `/registry/{version}/repos` (with the `readme` sub-resource) and `/registry/{version}/tags`.
 *
 * Repos: create under a group, get, list, PATCH (updateMask), delete; `GET|PATCH repos/{uid}/readme`.
 * Tags: create under a repo (a create of a name the repo already has updates that tag: TagsService CreateTag
 * "creates (or updates) a tag under a repo"), get, list, delete; no PATCH.
 *
 * Field names and shapes follow the vendor's OpenAPI (`registry.v2beta1.Repo`, `Tag`, `SyncConfig`,
 * `RepoReadme`); note the repo's sync settings are spelled `sync_config` on the wire (the OpenAPI's JSON name),
 * while an updateMask may name them `syncConfig` (a FieldMask path in its JSON form) or `sync_config`.
 *
 * Deleting a repo deletes its tags, overlay bindings and README with it: the vendor's DeleteRepo ("deletes a
 * repository by UID") documents no precondition, where DeleteGroup ("Fails if the group has child repos…")
 * and DeleteOverlay ("still referenced by bindings fails with FailedPrecondition") do. A deleted repo's tags
 * are never readable afterwards.
 */
import type { CollectionSpec, SubResource } from "../collection";
import { alreadyExists, invalidArgument, type FieldViolation } from "../errors";
import { param, type RawQuery } from "../list";
import type { Row, Store } from "../store";
import { isChild, isUidp, newChildUid, parentOf, rootOf } from "../uidp";
import { checkKnownKeys, checkOptionalObject, checkOptionalString, jsonEqual, maskPaths, pickBody, timestamp, type HandlerContext } from "./common";
import { checkCustomOverlay, populated } from "./customOverlay";

/** registry.v2beta1.CatalogTier, in enum order (a number on input names the value at that index). */
export const CATALOG_TIERS = [
  "CATALOG_TIER_UNSPECIFIED",
  "CATALOG_TIER_APPLICATION",
  "CATALOG_TIER_BASE",
  "CATALOG_TIER_FIPS",
  "CATALOG_TIER_AI",
  "CATALOG_TIER_DEVTOOLS",
  "CATALOG_TIER_COMMERCIAL",
] as const;

/**
 * Fields a repo with a `sync_config` inherits from its source. The OpenAPI's Repo field descriptions say so for
 * exactly these four: `activeTags`, `aliases`, `bundles` ("Repositories that sync from another repository
 * inherit … from their source, and attempts to change them fail with INVALID_ARGUMENT") and `catalogTier`
 * ("inherit the tier from their source, and attempts to change it fail with INVALID_ARGUMENT"). `description`
 * only defaults to the source's, and stays writable.
 */
export const INHERITED = ["activeTags", "aliases", "bundles", "catalogTier"] as const;

/** SyncConfig members a client sets; `source` is required. */
const SYNC_WRITABLE = ["source", "amazon", "google", "azure"];
/** SyncConfig members the server manages (readOnly in the OpenAPI): ignored on input, always output. */
const SYNC_READ_ONLY = ["apkoOverlay", "expirationTime", "gracePeriod", "uniqueTags"];
/** SyncConfig.expirationTime: "Defaults to 14 days from creation". */
const SYNC_EXPIRY_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * A repo name: it is the last part of an image reference (`cgr.dev/<org>/<name>`), so it follows the OCI
 * distribution spec's repository-name grammar (lowercase path components separated by `/`), at most 255
 * characters.
 */
const REPO_NAME = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
/** An OCI tag: `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}` (distribution spec). */
export const TAG_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
/** An OCI digest the registry uses: `sha256:` + 64 hex or `sha512:` + 128 hex. */
const DIGEST = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function checkStrings(field: string, v: unknown, violations: FieldViolation[]): void {
  if (v === undefined) return;
  if (!Array.isArray(v) || !v.every((s) => typeof s === "string" && s !== "")) violations.push({ field, description: "must be a list of non-empty strings" });
}

/** A catalog tier given by name or enum number, as its name (anything else is returned unchanged for validation). */
function tierName(v: unknown): unknown {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v < CATALOG_TIERS.length ? CATALOG_TIERS[v] : v;
}

/**
 * Resolves a SyncConfig.source ("a repository UIDP, a catalog name (e.g. "chainguard/nginx"), or a full image
 * reference (e.g. "cgr.dev/chainguard/nginx"); always stored and returned as a UIDP") to a repo uid. A catalog
 * name is `<org name>/<repo name>`: a root group's name and a repo of that org; an image reference adds a
 * registry host in front.
 * @returns the uid, or why the source does not resolve.
 */
export function resolveSource(store: Store, source: string): { uid: string } | { error: string } {
  if (isUidp(source)) return store.repos.get(source) ? { uid: source } : { error: `no repository with uid "${source}"` };
  let path = source;
  const first = path.split("/", 1)[0] ?? "";
  if (first.includes(".") || first.includes(":") || first === "localhost") path = path.slice(first.length + 1);
  const slash = path.indexOf("/");
  if (slash <= 0 || slash === path.length - 1) return { error: `"${source}" is not a repository UIDP, a catalog name (<org>/<repo>) or an image reference (<host>/<org>/<repo>)` };
  const orgName = path.slice(0, slash);
  const repoName = path.slice(slash + 1);
  const orgs = new Set(store.groups.named(orgName).filter((g) => !g.uid.includes("/")).map((g) => g.uid));
  const matches = store.repos.named(repoName).filter((r) => orgs.has(rootOf(r.uid)));
  if (matches.length === 1) return { uid: matches[0]!.uid };
  if (matches.length === 0) return { error: `no repository "${repoName}" in an organization named "${orgName}"` };
  return { error: `"${source}" names ${matches.length} repositories; use the source's uid` };
}

/** The repo a synced repo's `sync_config.source` names, if it exists. */
function sourceOf(store: Store, row: Row): Row | undefined {
  const sync = row["sync_config"];
  return isObject(sync) && typeof sync["source"] === "string" ? store.repos.get(sync["source"]) : undefined;
}

/** The value a synced repo shows for an inherited field: its source's, or the field's zero value. */
function inheritedValue(store: Store, row: Row, field: (typeof INHERITED)[number]): unknown {
  const source = sourceOf(store, row);
  const zero = field === "catalogTier" ? CATALOG_TIERS[0] : [];
  return source?.[field] ?? zero;
}

/** Whether an inherited field carries a value of its own (not its zero value). */
function setsInherited(field: (typeof INHERITED)[number], v: unknown): boolean {
  return field === "catalogTier" ? v !== undefined && v !== CATALOG_TIERS[0] : populated(v);
}

/** A stored `sync_config`: the writable members given, the source as a uid, the server-managed members kept or defaulted. */
function normalizeSync(ctx: HandlerContext, sync: unknown, prior: unknown, nowMs: number): unknown {
  if (!isObject(sync)) return sync;
  const out: Record<string, unknown> = {};
  for (const k of SYNC_WRITABLE) if (sync[k] !== undefined) out[k] = sync[k];
  for (const k of Object.keys(sync)) if (!SYNC_WRITABLE.includes(k) && !SYNC_READ_ONLY.includes(k)) out[k] = sync[k]; // left for validation to name
  if (typeof out["source"] === "string") {
    const r = resolveSource(ctx.store, out["source"]);
    if ("uid" in r) out["source"] = r.uid;
  }
  const before = isObject(prior) ? prior : {};
  out["expirationTime"] = before["expirationTime"] ?? timestamp(new Date(nowMs + SYNC_EXPIRY_MS));
  out["gracePeriod"] = before["gracePeriod"] ?? false;
  out["uniqueTags"] = before["uniqueTags"] ?? false;
  return out;
}

function validateSync(ctx: HandlerContext, row: Row | Record<string, unknown>, v: FieldViolation[]): void {
  const sync = row["sync_config"];
  if (!checkOptionalObject("sync_config", sync, v) || sync === undefined) return;
  const s = sync as Record<string, unknown>;
  checkKnownKeys("sync_config", s, [...SYNC_WRITABLE, ...SYNC_READ_ONLY], v);
  for (const k of ["amazon", "google", "azure"]) checkOptionalString(`sync_config.${k}`, s[k], v);
  const source = s["source"];
  if (source === undefined || source === "") v.push({ field: "sync_config.source", description: "is required" });
  else if (typeof source !== "string") v.push({ field: "sync_config.source", description: "must be a string" });
  else {
    const r = resolveSource(ctx.store, source);
    if ("error" in r) v.push({ field: "sync_config.source", description: r.error });
    else if (r.uid === row["uid"]) v.push({ field: "sync_config.source", description: "a repository cannot sync from itself" });
  }
}

/** A repo as the API returns it: defaults filled in; a synced repo shows its source's inherited fields. */
export function renderRepo(store: Store, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...row,
    description: row["description"] ?? "",
    aliases: row["aliases"] ?? [],
    activeTags: row["activeTags"] ?? [],
    bundles: row["bundles"] ?? [],
    catalogTier: row["catalogTier"] ?? CATALOG_TIERS[0],
  };
  if (row["sync_config"] !== undefined) for (const f of INHERITED) out[f] = inheritedValue(store, row, f);
  return out;
}

/** Throws ALREADY_EXISTS when another repo of group `parentUid` is named `name` (the name is its image path). */
function assertRepoNameFree(store: Store, parentUid: string, name: unknown, self?: string): void {
  if (typeof name !== "string") return;
  const taken = store.repos.named(name).find((r) => r.uid !== self && isChild(r.uid, parentUid));
  if (taken) throw alreadyExists("registry.repo", taken.uid);
}

/** Deletes every row of `table` under `uid` (a uid-index range scan). */
function deleteUnder(store: Store, collection: "tags" | "overlayBindings", uid: string): void {
  const t = store.table(collection);
  const index = t.index("uid");
  const lo = index.bound({ v: `${uid}/`, u: "" });
  const hi = index.bound({ v: `${uid}0`, u: "" });
  const doomed = index.entries.slice(lo, hi).map((e) => e.u);
  for (const u of doomed) t.delete(u);
}

/**
 * `GET|PATCH /registry/{version}/repos/{uid}/readme` (RepoReadme `{uid, content}`). A repo without one reads
 * `content: ""`. A synced repo's README "is synced from the source repository": reads show the source's, and a
 * PATCH of `content` is INVALID_ARGUMENT like the other inherited fields (an inference: the OpenAPI does not say
 * how the service answers it). A README PATCH leaves the repo's own `updateTime` alone.
 */
export const readme: SubResource = {
  get(ctx, repo) {
    const from = repo["sync_config"] !== undefined ? sourceOf(ctx.store, repo) : repo;
    return { uid: repo.uid, content: (from ? ctx.store.table("repoReadmes").get(from.uid)?.["content"] : undefined) ?? "" };
  },
  patch(ctx, repo, raw, mask) {
    const violations: FieldViolation[] = [];
    const body = pickBody(raw, ["content"], ["uid"], violations);
    const paths = maskPaths(mask, body, ["content"]);
    if (body["content"] !== undefined && typeof body["content"] !== "string") violations.push({ field: "content", description: "must be a string" });
    if (paths.includes("content") && repo["sync_config"] !== undefined) {
      violations.push({ field: "content", description: "a repository with sync_config has its README synced from sync_config.source" });
    }
    if (violations.length > 0) throw invalidArgument(violations);
    if (paths.includes("content")) {
      const content = (body["content"] as string | undefined) ?? "";
      if (content === "") ctx.store.table("repoReadmes").delete(repo.uid);
      else ctx.store.table("repoReadmes").put({ uid: repo.uid, content, updateTime: timestamp(ctx.now()) });
    }
    return readme.get(ctx, repo);
  },
};

export const repos: CollectionSpec = {
  api: "registry",
  collection: "repos",
  resourceType: "registry.repo",
  caps: { list: "CAP_REPO_LIST", create: "CAP_REPO_CREATE", update: "CAP_REPO_UPDATE", delete: "CAP_REPO_DELETE" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["name", "description", "catalogTier", "createTime", "updateTime"],
  writable: ["name", "description", "aliases", "activeTags", "bundles", "catalogTier", "customOverlay", "sync_config"],
  readOnly: ["uid", "createTime", "updateTime"],
  validate(row, v, ctx, mode) {
    const name = row["name"];
    if (name === undefined || name === "") v.push({ field: "name", description: "is required" });
    else if (typeof name !== "string") v.push({ field: "name", description: `must be a string, got ${typeof name}` });
    else if (name.length > 255 || !REPO_NAME.test(name)) {
      v.push({ field: "name", description: `"${name}" must be an OCI repository name: lowercase letters and digits, separated by ".", "_", "__", "-" or "/"; at most 255 characters` });
    }
    checkOptionalString("description", row["description"], v);
    for (const f of ["aliases", "activeTags", "bundles"]) checkStrings(f, row[f], v);
    const tier = tierName(row["catalogTier"]);
    if (tier !== undefined && !(CATALOG_TIERS as readonly unknown[]).includes(tier)) {
      v.push({ field: "catalogTier", description: `must be one of ${CATALOG_TIERS.join(", ")}, got ${JSON.stringify(row["catalogTier"])}` });
    }
    if (row["customOverlay"] !== undefined) checkCustomOverlay("customOverlay", row["customOverlay"], v);
    validateSync(ctx, row, v);
    // The synced-repo rule: a repo with a sync_config inherits INHERITED from its source. On create any value of
    // its own is refused; on PATCH a value other than the one it inherits (what a GET shows) is refused, so a
    // full-resource PATCH that echoes a GET still passes.
    if (isObject(row["sync_config"]) && populated(row["sync_config"])) {
      for (const f of INHERITED) {
        const value = f === "catalogTier" ? tier : row[f];
        if (!setsInherited(f, value)) continue;
        if (mode === "update" && jsonEqual(value, inheritedValue(ctx.store, row as Row, f))) continue;
        v.push({ field: f, description: "is inherited from sync_config.source and cannot be set on a repository with a sync_config" });
      }
    }
  },
  build(ctx, parentUid, body) {
    assertRepoNameFree(ctx.store, parentUid, body["name"]);
    const now = ctx.now();
    const t = timestamp(now);
    const row: Row = { uid: newChildUid(parentUid), name: body["name"], description: body["description"] ?? "" };
    const sync = normalizeSync(ctx, body["sync_config"], undefined, now.getTime());
    if (sync !== undefined) {
      row["sync_config"] = sync;
      // Repo.description: "For repositories that sync from another repository, this defaults to that
      // repository's description."
      if (row["description"] === "") row["description"] = sourceOf(ctx.store, row)?.["description"] ?? "";
    } else {
      row["aliases"] = body["aliases"] ?? [];
      row["activeTags"] = body["activeTags"] ?? [];
      row["bundles"] = body["bundles"] ?? [];
      row["catalogTier"] = tierName(body["catalogTier"]) ?? CATALOG_TIERS[0];
    }
    if (populated(body["customOverlay"])) row["customOverlay"] = structuredClone(body["customOverlay"]);
    return { ...row, createTime: t, updateTime: t };
  },
  merge(current, next, ctx) {
    if (next["name"] !== current["name"]) assertRepoNameFree(ctx.store, parentOf(current.uid)!, next["name"], current.uid);
    const out: Row = { ...next, description: next["description"] ?? "" };
    if (out["catalogTier"] !== undefined) out["catalogTier"] = tierName(out["catalogTier"]);
    // A sync_config that is not an object stays as sent, for validation to name.
    if (next["sync_config"] !== undefined) out["sync_config"] = normalizeSync(ctx, next["sync_config"], current["sync_config"], ctx.now().getTime());
    if (out["customOverlay"] !== undefined && !populated(out["customOverlay"]) && isObject(out["customOverlay"])) delete out["customOverlay"];
    return out;
  },
  render: (row, ctx) => renderRepo(ctx.store, row),
  afterDelete(ctx, row) {
    deleteUnder(ctx.store, "tags", row.uid);
    deleteUnder(ctx.store, "overlayBindings", row.uid);
    ctx.store.table("repoReadmes").delete(row.uid);
  },
  subResources: { readme },
};

/** The group a tag's permissions are checked at: its repo's group. */
function tagScope(uid: string): string | undefined {
  const repo = parentOf(uid);
  return repo === undefined ? undefined : parentOf(repo);
}

/** A `true`/`false` List parameter, or undefined. @throws StatusError INVALID_ARGUMENT for another value. */
function boolParam(query: RawQuery, snake: string): boolean | undefined {
  const raw = param(query, snake);
  if (raw === undefined || raw === "") return undefined;
  if (raw === "true" || raw === "false") return raw === "true";
  throw invalidArgument([{ field: snake, description: `must be true or false, got "${raw}"` }]);
}

/**
 * Tag families ListTags leaves out unless asked for (its `includeReferrers`, `includeDates`, `includeEpochs`
 * parameters: "Include tags of the form …"; booleans, so false when absent).
 */
const TAG_FAMILIES: Array<[param: string, form: RegExp]> = [
  ["include_referrers", /^sha256-/],
  ["include_dates", /-20\d\d[01]\d[0-3]\d$/],
  ["include_epochs", /-r\d+$/],
];

let familyCache: { table: unknown; version: number; present: boolean[] } | undefined;

/**
 * Which TAG_FAMILIES any tag has, cached per table version: a List over tags with none of those forms (the
 * usual case) needs no row filter, so paging and counting stay arithmetic on the index.
 */
function familiesPresent(store: Store): boolean[] {
  const t = store.table("tags");
  if (familyCache?.table !== t || familyCache.version !== t.version) {
    const present = TAG_FAMILIES.map(() => false);
    for (const row of t.values()) TAG_FAMILIES.forEach(([, form], i) => (present[i] ||= form.test(String(row["name"]))));
    familyCache = { table: t, version: t.version, present };
  }
  return familyCache.present;
}

export const tags: CollectionSpec = {
  api: "registry",
  collection: "tags",
  resourceType: "registry.tag",
  caps: { list: "CAP_TAG_LIST", create: "CAP_TAG_CREATE", delete: "CAP_TAG_DELETE" },
  scopeOf: tagScope,
  orderFields: ["name", "digest", "deprecated", "updateTime"],
  writable: ["name", "digest", "bundles", "deprecated"],
  readOnly: ["uid", "updateTime"],
  parentTable: (ctx) => ({ table: ctx.store.repos, resourceType: "registry.repo" }),
  validate(row, v) {
    const name = row["name"];
    if (name === undefined || name === "") v.push({ field: "name", description: "is required" });
    else if (typeof name !== "string" || !TAG_NAME.test(name)) v.push({ field: "name", description: `${JSON.stringify(name)} must be an OCI tag: [A-Za-z0-9_][A-Za-z0-9._-]{0,127}` });
    const digest = row["digest"];
    if (digest === undefined || digest === "") v.push({ field: "digest", description: "is required" });
    else if (typeof digest !== "string" || !DIGEST.test(digest)) v.push({ field: "digest", description: `${JSON.stringify(digest)} must be sha256:<64 hex> or sha512:<128 hex>` });
    checkStrings("bundles", row["bundles"], v);
    if (row["deprecated"] !== undefined && typeof row["deprecated"] !== "boolean") v.push({ field: "deprecated", description: "must be a boolean" });
  },
  build(ctx, repoUid, body) {
    const fields = { name: body["name"], digest: body["digest"], bundles: body["bundles"] ?? [], deprecated: body["deprecated"] ?? false };
    // CreateTag "creates (or updates) a tag under a repo": a name the repo already has keeps its uid.
    const prior = ctx.store.table("tags").named(body["name"] as string).find((r) => isChild(r.uid, repoUid));
    if (prior && jsonEqual({ ...prior, updateTime: undefined, uid: undefined }, { ...fields, updateTime: undefined, uid: undefined })) return prior;
    return { uid: prior?.uid ?? newChildUid(repoUid), ...fields, updateTime: timestamp(ctx.now()) };
  },
  listFilter(query: RawQuery, ctx) {
    const digest = param(query, "digest");
    const since = param(query, "updated_since");
    const sinceMs = since ? Date.parse(since) : undefined;
    if (since && Number.isNaN(sinceMs)) throw invalidArgument([{ field: "updated_since", description: `must be an RFC 3339 timestamp, got "${since}"` }]);
    const checks: Array<(row: Record<string, unknown>) => boolean> = [];
    if (digest) checks.push((r) => r["digest"] === digest);
    if (sinceMs !== undefined) checks.push((r) => Date.parse(String(r["updateTime"])) >= sinceMs);
    const included = TAG_FAMILIES.map(([p]) => boolParam(query, p) === true);
    const present = familiesPresent(ctx.store);
    const excluded = TAG_FAMILIES.filter((_f, i) => !included[i] && present[i]).map(([, form]) => form);
    if (excluded.length > 0) checks.push((r) => !excluded.some((form) => form.test(String(r["name"]))));
    return { predicate: checks.length ? (row) => checks.every((c) => c(row)) : null, key: JSON.stringify([digest, since, included]) };
  },
};
