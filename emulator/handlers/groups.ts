/**
 * `/iam/{version}/groups`: list, get, create under a parent, PATCH with and without updateMask, delete.
 *
 * A group cannot be deleted while anything lives under it (child groups, identities, role bindings, identity
 * providers, invites, custom roles, repos, overlays, event subscriptions, its account association): FAILED_PRECONDITION with a `RESOURCE_NOT_EMPTY` violation whose
 * description names the kinds of children left. Duplicate names under one parent are allowed, as on the real
 * service (whose name lookups can return several).
 */
import type { CollectionSpec } from "../collection";
import { failedPrecondition } from "../errors";
import type { Row, Store } from "../store";
import { isChild, newChildUid, parentOf } from "../uidp";
import { checkName, checkOptionalString, timestamp } from "./common";

/**
 * Kinds of children still under `uid`, e.g. `["groups (2)", "identities (1)"]`: the rows of every collection whose
 * uid is a direct child of `uid` (seed §1 rule 4 and §4 "Common List parameters", `uidp.children_of`), so a
 * collection added to the store is counted with no list to keep; each collection's uid range alone is scanned
 * (a tag or an overlay binding is a repo's child, a group's grandchild, and is not counted). The
 * group's account association (whose uid is the group's own) counts too: seed §4 rule 4 ("Deleting a group that
 * still has child resources (for example repos) fails with a precondition failure") and the vendor's DeleteGroup
 * ("Fails if the group has child repos, child groups, or other child IAM resources") make it block the delete
 * like any other child, rather than vanish with the group.
 */
export function childrenOf(store: Store, uid: string): string[] {
  const out: string[] = [];
  for (const kind of store.names) {
    if (kind === "advisories") continue; // the vendor's findings about the org's images, listed under the root: not the org's to delete
    const index = store.table(kind).index("uid");
    const lo = index.bound({ v: `${uid}/`, u: "" });
    const hi = index.bound({ v: `${uid}0`, u: "" });
    let n = 0;
    for (let i = lo; i < hi; i++) if (isChild(index.entries[i]!.u, uid)) n++;
    if (n > 0) out.push(`${kind} (${n})`);
  }
  if (store.table("accountAssociations").get(uid)) out.push("accountAssociations (1)");
  return out;
}

/**
 * A group as the API returns it (seed §2 Group): `verified` (false unless set, and only the vendor sets it) and
 * `resourceLimits` (an object, `{}` when no limits are set) are always present; subgroups inherit the root's
 * provisioning `status`.
 */
export function renderGroup(g: Row): Record<string, unknown> {
  return { ...g, status: "ORG_STATUS_READY", verified: g["verified"] === true, resourceLimits: g["resourceLimits"] ?? {} };
}

export const groups: CollectionSpec = {
  api: "iam",
  collection: "groups",
  resourceType: "iam.group",
  caps: { list: "CAP_IAM_GROUPS_LIST", create: "CAP_IAM_GROUPS_CREATE", update: "CAP_IAM_GROUPS_UPDATE", delete: "CAP_IAM_GROUPS_DELETE" },
  scopeOf: (uid) => uid,
  orderFields: ["name", "description", "createTime", "updateTime"],
  writable: ["name", "description"],
  readOnly: ["uid", "createTime", "updateTime", "kind", "status", "resourceLimits", "verified"],
  validate(row, v) {
    checkName(row["name"], v);
    checkOptionalString("description", row["description"], v);
  },
  build(ctx, parentUid, body) {
    const t = timestamp(ctx.now());
    return { uid: newChildUid(parentUid), name: body["name"], description: body["description"] ?? "", createTime: t, updateTime: t };
  },
  merge: (_current, next) => ({ ...next, description: next["description"] ?? "" }),
  render: renderGroup,
  beforeDelete(ctx, row) {
    if (parentOf(row.uid) === undefined) throw failedPrecondition("ROOT_GROUP", row.uid, "the organization's root group cannot be deleted");
    const left = childrenOf(ctx.store, row.uid);
    if (left.length > 0) throw failedPrecondition("RESOURCE_NOT_EMPTY", row.uid, `group ${row.uid} still has ${left.join(", ")}`);
  },
};
