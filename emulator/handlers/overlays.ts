/**
 * `/registry/v2beta1/overlays` and `/registry/v2beta1/overlayBindings`: named, reusable package overlays under a
 * group, and their bindings to one repo under exact tags. Create, get, list, delete; neither has PATCH.
 *
 * Served under beta version segments only: the vendor's GA description (`/registry/v2/`) keeps overlays
 * beta-only. Shapes follow the vendor's OpenAPI (`registry.v2beta1.Overlay`, `OverlayBinding`,
 * `CreateOverlayBindingBody`):
 *
 * - An overlay's `config` is a CustomOverlay that may carry `contents.packages` only, at least one package
 *   (CreateOverlay: "any other config field fails with InvalidArgument"); reads render packages only. Its name is
 *   "unique among the group's overlays": a second one is ALREADY_EXISTS.
 * - Deleting an overlay still referenced by bindings is FAILED_PRECONDITION (DeleteOverlay: "Deleting an overlay
 *   that is still referenced by bindings fails with FailedPrecondition"), violation type `RESOURCE_IN_USE`
 *   naming the bindings, as for a custom role still used by role bindings.
 * - A binding is created under a repo (`POST overlayBindings/{repoUid}`) with `overlay` (the overlay's UIDP, or
 *   its name "resolved within the repo's organization") and `tags` (at least one exact tag name). An overlay
 *   that does not resolve is INVALID_ARGUMENT naming `overlay`: it is a reference in the request body, which
 *   this API reports as a field violation (as a role binding's `roleUid` or an invite's `roleUid`), not a
 *   missing resource of the path. Responses expand `overlay` inline (uid, name, packages-only config) and name
 *   the `repo`.
 */
import type { CollectionSpec } from "../collection";
import { alreadyExists, failedPrecondition, type FieldViolation } from "../errors";
import { param, type RawQuery } from "../list";
import type { Row, Store } from "../store";
import { isChild, isUidp, newChildUid, parentOf, rootOf } from "../uidp";
import { checkName, timestamp } from "./common";
import { checkCustomOverlay, packagesOnly } from "./customOverlay";
import { TAG_NAME } from "./registry";

/** An overlay as reads render it: its config packages only. */
export function renderOverlay(row: Row): Record<string, unknown> {
  return { ...row, config: packagesOnly(row["config"]) };
}

export const overlays: CollectionSpec = {
  api: "registry",
  collection: "overlays",
  resourceType: "registry.overlay",
  betaOnly: true,
  caps: { list: "CAP_REGISTRY_OVERLAYS_LIST", create: "CAP_REGISTRY_OVERLAYS_EDIT", delete: "CAP_REGISTRY_OVERLAYS_EDIT" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["name", "createTime", "updateTime"],
  writable: ["name", "config"],
  readOnly: ["uid", "createTime", "updateTime"],
  validate(row, v) {
    checkName(row["name"], v);
    checkCustomOverlay("config", row["config"], v, { packagesOnly: true, requirePackages: true });
  },
  build(ctx, parentUid, body) {
    const taken = ctx.store.table("overlays").named(body["name"] as string).find((r) => isChild(r.uid, parentUid));
    if (taken) throw alreadyExists("registry.overlay", taken.uid);
    const t = timestamp(ctx.now());
    return { uid: newChildUid(parentUid), name: body["name"], config: packagesOnly(body["config"]), createTime: t, updateTime: t };
  },
  render: renderOverlay,
  beforeDelete(ctx, row) {
    const users = ctx.store.table("overlayBindings").where("overlayUid", row.uid);
    if (users.length > 0) {
      throw failedPrecondition("RESOURCE_IN_USE", row.uid, `overlay ${row.uid} is still referenced by overlay bindings: ${users.map((b) => b.uid).sort().join(", ")}`);
    }
  },
};

/**
 * Resolves a binding's `overlay`: a UIDP of an overlay in the repo's organization, or the name of exactly one
 * overlay there. @returns the overlay's uid, or why it does not resolve.
 */
function resolveOverlay(store: Store, repoUid: string, ref: string): { uid: string } | { error: string } {
  const org = rootOf(repoUid);
  if (isUidp(ref)) {
    return store.table("overlays").get(ref) && rootOf(ref) === org ? { uid: ref } : { error: `no overlay with uid "${ref}" in the repo's organization` };
  }
  const matches = store.table("overlays").named(ref).filter((o) => rootOf(o.uid) === org);
  if (matches.length === 1) return { uid: matches[0]!.uid };
  if (matches.length === 0) return { error: `no overlay named "${ref}" in the repo's organization` };
  return { error: `${matches.length} overlays are named "${ref}" in the repo's organization (${matches.map((m) => m.uid).sort().join(", ")}); use the uid` };
}

function validateBinding(store: Store, repoUid: string | undefined, row: Record<string, unknown>, v: FieldViolation[]): void {
  const overlay = row["overlay"];
  if (overlay === undefined || overlay === "") v.push({ field: "overlay", description: "is required (the overlay's uid or name)" });
  else if (typeof overlay !== "string") v.push({ field: "overlay", description: "must be a string: the overlay's uid or name" });
  else if (repoUid !== undefined) {
    const r = resolveOverlay(store, repoUid, overlay);
    if ("error" in r) v.push({ field: "overlay", description: r.error });
  }
  const tags = row["tags"];
  if (tags === undefined || (Array.isArray(tags) && tags.length === 0)) {
    v.push({ field: "tags", description: "at least one tag is required (an all-tags change belongs on the repo's customOverlay)" });
  } else if (!Array.isArray(tags)) v.push({ field: "tags", description: "must be a list of tag names" });
  else tags.forEach((t, i) => {
    if (typeof t !== "string" || !TAG_NAME.test(t)) v.push({ field: `tags[${i}]`, description: `${JSON.stringify(t)} must be an OCI tag: [A-Za-z0-9_][A-Za-z0-9._-]{0,127}` });
  });
}

/** A binding as the API returns it: `repo`, `tags` and the overlay expanded inline (packages-only config). */
export function renderBinding(store: Store, row: Row): Record<string, unknown> {
  const { overlayUid, ...rest } = row;
  const overlay = store.table("overlays").get(overlayUid as string);
  return { ...rest, overlay: overlay ? { uid: overlay.uid, name: overlay["name"], config: packagesOnly(overlay["config"]) } : { uid: overlayUid } };
}

export const overlayBindings: CollectionSpec = {
  api: "registry",
  collection: "overlayBindings",
  resourceType: "registry.overlayBinding",
  betaOnly: true,
  caps: { list: "CAP_REGISTRY_OVERLAYS_LIST", create: "CAP_REGISTRY_OVERLAYS_EDIT", delete: "CAP_REGISTRY_OVERLAYS_EDIT" },
  // A binding lives under a repo; permissions apply at the repo's group.
  scopeOf: (uid) => {
    const repo = parentOf(uid);
    return repo === undefined ? undefined : parentOf(repo);
  },
  orderFields: ["repo", "createTime", "updateTime"],
  writable: ["overlay", "tags"],
  readOnly: ["uid", "repo", "createTime", "updateTime"],
  parentTable: (ctx) => ({ table: ctx.store.repos, resourceType: "registry.repo" }),
  validate(row, v, ctx, _mode, repoUid) {
    validateBinding(ctx.store, repoUid, row, v);
  },
  build(ctx, repoUid, body) {
    const r = resolveOverlay(ctx.store, repoUid, body["overlay"] as string) as { uid: string };
    const t = timestamp(ctx.now());
    return { uid: newChildUid(repoUid), repo: repoUid, overlayUid: r.uid, tags: [...new Set(body["tags"] as string[])], createTime: t, updateTime: t };
  },
  render: (row, ctx) => renderBinding(ctx.store, row),
  listFilter(query: RawQuery) {
    const overlay = param(query, "overlay");
    return { predicate: overlay ? (row) => row["overlayUid"] === overlay : null, key: overlay ?? "" };
  },
};
