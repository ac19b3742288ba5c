/**
 * `/iam/{version}/roles`: list and get every role; create, PATCH and delete custom roles.
 *
 * Built-in roles (`viewer`, `editor`, `owner`, `registry.pull`) have single-segment uids derived from their
 * names (the API description: built-in role uids are one 40-hex segment), so a uid is the same in every run; any caller
 * may read them and nobody may change them. A custom role lives under a group and carries at least one
 * capability; it cannot be deleted while a role binding uses it.
 */
import { BUILTIN_ROLES, CAPABILITIES } from "../access";
import type { CollectionSpec } from "../collection";
import { failedPrecondition } from "../errors";
import type { Store } from "../store";
import { newChildUid, parentOf, stableRootUid } from "../uidp";
import { checkName, checkOptionalString, timestamp } from "./common";

/** Seeds the built-in roles into `store`; returns their uids by name. */
export function seedBuiltinRoles(store: Store, createTime: string): Map<string, string> {
  const byName = new Map<string, string>();
  for (const r of BUILTIN_ROLES) {
    const uid = stableRootUid(r.name);
    store.roles.put({ uid, name: r.name, description: r.description, capabilities: [...r.capabilities], createTime, updateTime: createTime });
    byName.set(r.name, uid);
  }
  return byName;
}

export const roles: CollectionSpec = {
  api: "iam",
  collection: "roles",
  resourceType: "iam.role",
  caps: { list: "CAP_IAM_ROLES_LIST", create: "CAP_IAM_ROLES_CREATE", update: "CAP_IAM_ROLES_UPDATE", delete: "CAP_IAM_ROLES_DELETE" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["name", "description", "createTime", "updateTime"],
  writable: ["name", "description", "capabilities"],
  readOnly: ["uid", "createTime", "updateTime"],
  validate(row, v) {
    checkName(row["name"], v);
    checkOptionalString("description", row["description"], v);
    const caps = row["capabilities"];
    if (!Array.isArray(caps) || caps.length === 0) {
      v.push({ field: "capabilities", description: "at least one capability is required" });
      return;
    }
    caps.forEach((c, i) => {
      if (!(CAPABILITIES as readonly string[]).includes(c as string)) {
        v.push({ field: `capabilities[${i}]`, description: `"${String(c)}" is not a capability this API knows (names like CAP_IAM_GROUPS_LIST)` });
      }
    });
  },
  build(ctx, parentUid, body) {
    const t = timestamp(ctx.now());
    return {
      uid: newChildUid(parentUid),
      name: body["name"],
      description: body["description"] ?? "",
      capabilities: [...new Set(body["capabilities"] as string[])],
      createTime: t,
      updateTime: t,
    };
  },
  merge: (_current, next) => ({ ...next, description: next["description"] ?? "" }),
  immutable: (row) => (parentOf(row.uid) === undefined ? `role "${String(row["name"])}" is built in and cannot be changed or deleted` : undefined),
  beforeDelete(ctx, row) {
    const users = ctx.store.roleBindings.where("roleUid", row.uid);
    if (users.length > 0) {
      throw failedPrecondition("RESOURCE_IN_USE", row.uid, `role ${row.uid} is still used by role bindings: ${users.map((b) => b.uid).join(", ")}`);
    }
  },
};
