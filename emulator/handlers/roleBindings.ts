/**
 * `/iam/{version}/roleBindings`: create under a group, get, list, PATCH (identityUid, roleUid), delete.
 *
 * Contract (FACTS.md "RoleBinding"): the create body holds `identityUid` and `roleUid`, other fields are
 * ignored; responses are hydrated with identity {uid, name, description, subject, issuer}, group {uid, name,
 * description} and role {uid, name, description}, and carry `createTime` but no `updateTime`.
 */
import { invalidArgument, type FieldViolation } from "../errors";
import { envelope, paginate, parseListQuery } from "../list";
import type { RoleBindingRow, Store } from "../store";
import { newChildUid, parentOf } from "../uidp";
import { applyMask, maskPaths, mustGet, pickBody, prefixes, timestamp, uidParam, updateMaskOf, type Handler } from "./common";

const WRITABLE = ["identityUid", "roleUid"] as const;

/** A binding as the API returns it, hydrated from the current identity, group and role. */
export function renderBinding(store: Store, b: RoleBindingRow): Record<string, unknown> {
  const groupUid = parentOf(b.uid) ?? "";
  const g = store.groups.get(groupUid);
  const i = store.identities.get(b.identityUid);
  const r = store.roles.get(b.roleUid);
  const cm = (i?.claimMatch ?? {}) as Record<string, unknown>;
  return {
    uid: b.uid,
    identityUid: b.identityUid,
    roleUid: b.roleUid,
    createTime: b.createTime,
    identity: {
      uid: b.identityUid,
      name: i?.name ?? "",
      description: i?.description ?? "",
      ...(typeof cm["subject"] === "string" ? { subject: cm["subject"] } : {}),
      ...(typeof cm["issuer"] === "string" ? { issuer: cm["issuer"] } : {}),
    },
    group: { uid: groupUid, name: g?.name ?? "", description: g?.description ?? "" },
    role: { uid: b.roleUid, name: r?.name ?? "", description: r?.description ?? "" },
  };
}

function validate(store: Store, b: Record<string, unknown>): void {
  const v: FieldViolation[] = [];
  for (const [field, table] of [["identityUid", store.identities], ["roleUid", store.roles]] as const) {
    const uid = b[field];
    if (typeof uid !== "string" || uid === "") v.push({ field, description: "is required" });
    else if (!table.get(uid)) v.push({ field, description: `no ${field === "roleUid" ? "role" : "identity"} with uid "${uid}"` });
  }
  if (v.length > 0) throw invalidArgument(v);
}

/** Registers the roleBindings routes. */
export const roleBindings: Handler = (app, ctx) => {
  const { store } = ctx;
  const render = (b: RoleBindingRow) => renderBinding(store, b);
  for (const base of prefixes(ctx, "iam", "roleBindings")) {
    app.get(base, async (req) => {
      const q = parseListQuery(req.query as Record<string, string>);
      return envelope("roleBindings", paginate(store.roleBindings.all(), q), render);
    });

    app.get(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      return render(mustGet(store.roleBindings.get(uid), "iam.roleBinding", uid));
    });

    app.post(`${base}/*`, async (req) => {
      const groupUid = uidParam(req, "parent");
      mustGet(store.groups.get(groupUid), "iam.group", groupUid);
      const body = pickBody(req.body, WRITABLE, [], "ignoreUnknown");
      validate(store, body);
      const row: RoleBindingRow = {
        uid: newChildUid(groupUid),
        identityUid: body["identityUid"] as string,
        roleUid: body["roleUid"] as string,
        createTime: timestamp(ctx.now()),
      };
      store.roleBindings.put(row);
      return render(row);
    });

    app.patch(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      const current = mustGet(store.roleBindings.get(uid), "iam.roleBinding", uid);
      const body = pickBody(req.body, WRITABLE, [], "ignoreUnknown");
      const next = applyMask(current, body, maskPaths(updateMaskOf(req), body, WRITABLE));
      validate(store, next);
      store.roleBindings.put(next);
      return render(next);
    });

    app.delete(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      mustGet(store.roleBindings.get(uid), "iam.roleBinding", uid);
      store.roleBindings.delete(uid);
      return {};
    });
  }
};
