/**
 * `/iam/{version}/groupInvites`: invitations to join a group with a role: create, get, list, delete (no PATCH).
 *
 * `ttl` (a protobuf Duration such as `"86400s"`) is consumed on create to compute `expirationTime`; `code` is
 * returned only by create and never stored; `role` is hydrated with name, description and capabilities.
 */
import { randomBytes } from "node:crypto";
import type { CollectionSpec } from "../collection";
import type { RawQuery } from "../list";
import { param } from "../list";
import type { Row } from "../store";
import { newChildUid, parentOf } from "../uidp";
import { checkOptionalString, parseDuration, timestamp } from "./common";

export const groupInvites: CollectionSpec = {
  api: "iam",
  collection: "groupInvites",
  resourceType: "iam.groupInvite",
  caps: { list: "CAP_IAM_GROUP_INVITES_LIST", create: "CAP_IAM_GROUP_INVITES_CREATE", delete: "CAP_IAM_GROUP_INVITES_DELETE" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["email", "roleUid", "keyId", "createTime", "expirationTime"],
  writable: ["email", "roleUid", "ttl", "singleUse"],
  readOnly: ["uid", "createTime", "expirationTime", "code", "keyId", "role"],
  hasUpdateTime: false,
  validate(row, v, ctx) {
    const role = row["roleUid"];
    if (typeof role !== "string" || role === "") v.push({ field: "roleUid", description: "is required" });
    else if (!ctx.store.roles.get(role)) v.push({ field: "roleUid", description: `no role with uid "${role}"` });
    const ttl = parseDuration(row["ttl"]);
    if (row["ttl"] === undefined) v.push({ field: "ttl", description: 'is required (a duration such as "86400s")' });
    else if (ttl === undefined || ttl <= 0) v.push({ field: "ttl", description: `must be a positive duration such as "86400s", got ${JSON.stringify(row["ttl"])}` });
    checkOptionalString("email", row["email"], v);
    if (typeof row["email"] === "string" && row["email"] !== "" && !/^[^@\s]+@[^@\s]+$/.test(row["email"])) v.push({ field: "email", description: "must be an email address" });
    if (row["singleUse"] !== undefined && typeof row["singleUse"] !== "boolean") v.push({ field: "singleUse", description: "must be a boolean" });
  },
  build(ctx, parentUid, body) {
    const now = ctx.now();
    return {
      uid: newChildUid(parentUid),
      email: body["email"] ?? "",
      roleUid: body["roleUid"],
      singleUse: body["singleUse"] ?? false,
      keyId: randomBytes(8).toString("hex"),
      createTime: timestamp(now),
      expirationTime: timestamp(new Date(now.getTime() + parseDuration(body["ttl"])! * 1000)),
    };
  },
  render(row, ctx) {
    const role = ctx.store.roles.get(row["roleUid"] as string);
    return { ...row, role: { uid: row["roleUid"], name: role?.["name"] ?? "", description: role?.["description"] ?? "", capabilities: role?.["capabilities"] ?? [] } };
  },
  renderCreated(row, ctx) {
    return { ...(groupInvites.render!(row, ctx) as Row), code: randomBytes(24).toString("base64url") };
  },
  listFilter(query: RawQuery) {
    const keyId = param(query, "key_id");
    return { predicate: keyId ? (row) => row["keyId"] === keyId : null, key: keyId ?? "" };
  },
};
