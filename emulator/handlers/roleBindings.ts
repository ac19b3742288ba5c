/**
 * `/iam/{version}/roleBindings`: create under a group, get, list, PATCH (identityUid, roleUid), delete.
 *
 * Contract (the API description, RoleBinding): the create body holds `identityUid` and `roleUid`, other fields are
 * ignored; responses are hydrated with identity {uid, name, description, subject, issuer}, group {uid, name,
 * description} and role {uid, name, description}, and carry `createTime` but no `updateTime`.
 */
import type { CollectionSpec } from "../collection";
import type { Row, Store } from "../store";
import { newChildUid, parentOf } from "../uidp";
import { timestamp } from "./common";

/** A binding as the API returns it, hydrated from the current identity, group and role. */
export function renderBinding(store: Store, b: Row): Record<string, unknown> {
  const groupUid = parentOf(b.uid) ?? "";
  const g = store.groups.get(groupUid);
  const i = store.identities.get(b["identityUid"] as string);
  const r = store.roles.get(b["roleUid"] as string);
  const cm = (i?.["claimMatch"] ?? {}) as Record<string, unknown>;
  return {
    uid: b.uid,
    identityUid: b["identityUid"],
    roleUid: b["roleUid"],
    createTime: b["createTime"],
    identity: {
      uid: b["identityUid"],
      name: i?.["name"] ?? "",
      description: i?.["description"] ?? "",
      ...(typeof cm["subject"] === "string" ? { subject: cm["subject"] } : {}),
      ...(typeof cm["issuer"] === "string" ? { issuer: cm["issuer"] } : {}),
    },
    group: { uid: groupUid, name: g?.["name"] ?? "", description: g?.["description"] ?? "" },
    role: { uid: b["roleUid"], name: r?.["name"] ?? "", description: r?.["description"] ?? "" },
  };
}

export const roleBindings: CollectionSpec = {
  api: "iam",
  collection: "roleBindings",
  resourceType: "iam.roleBinding",
  caps: {
    list: "CAP_IAM_ROLE_BINDINGS_LIST",
    create: "CAP_IAM_ROLE_BINDINGS_CREATE",
    update: "CAP_IAM_ROLE_BINDINGS_UPDATE",
    delete: "CAP_IAM_ROLE_BINDINGS_DELETE",
  },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["identityUid", "roleUid", "createTime"],
  writable: ["identityUid", "roleUid"],
  ignoreUnknown: true,
  hasUpdateTime: false,
  validate(row, v, ctx) {
    for (const [field, table, what] of [
      ["identityUid", ctx.store.identities, "identity"],
      ["roleUid", ctx.store.roles, "role"],
    ] as const) {
      const uid = row[field];
      if (typeof uid !== "string" || uid === "") v.push({ field, description: "is required" });
      else if (!table.get(uid)) v.push({ field, description: `no ${what} with uid "${uid}"` });
    }
  },
  build(ctx, parentUid, body) {
    return { uid: newChildUid(parentUid), identityUid: body["identityUid"], roleUid: body["roleUid"], createTime: timestamp(ctx.now()) };
  },
  render: (row, ctx) => renderBinding(ctx.store, row),
};
