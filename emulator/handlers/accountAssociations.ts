/**
 * `/iam/{version}/accountAssociations`: a group's associations with cloud accounts (amazon, google, azure,
 * github, chainguard). An association's uid is its group's uid: at most one per group (a second create is
 * ALREADY_EXISTS), and DELETE of a missing one succeeds (AIP-135, as the API documents).
 */
import type { CollectionSpec } from "../collection";
import { alreadyExists } from "../errors";
import { checkOptionalObject, checkOptionalString, timestamp } from "./common";

const PROVIDERS = ["amazon", "google", "azure", "github", "chainguard"] as const;

export const accountAssociations: CollectionSpec = {
  api: "iam",
  collection: "accountAssociations",
  resourceType: "iam.accountAssociation",
  caps: {
    list: "CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST",
    create: "CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE",
    update: "CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE",
    delete: "CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE",
  },
  scopeOf: (uid) => uid,
  orderFields: ["name", "description", "createTime", "updateTime"],
  writable: ["name", "description", ...PROVIDERS],
  readOnly: ["uid", "createTime", "updateTime"],
  deleteIdempotent: true,
  validate(row, v) {
    checkOptionalString("name", row["name"], v);
    checkOptionalString("description", row["description"], v);
    for (const p of PROVIDERS) checkOptionalObject(p, row[p], v);
    if (!PROVIDERS.some((p) => row[p] !== undefined)) v.push({ field: "amazon", description: `at least one of ${PROVIDERS.join(", ")} is required` });
    const amazon = row["amazon"] as Record<string, unknown> | undefined;
    if (amazon && !/^\d{12}$/.test(String(amazon["account"] ?? ""))) v.push({ field: "amazon.account", description: "must be a 12-digit AWS account id" });
    const google = row["google"] as Record<string, unknown> | undefined;
    if (google && !google["projectId"]) v.push({ field: "google.projectId", description: "is required" });
    const azure = row["azure"] as Record<string, unknown> | undefined;
    if (azure && !azure["tenantId"]) v.push({ field: "azure.tenantId", description: "is required" });
  },
  build(ctx, groupUid, body) {
    if (ctx.store.tables.accountAssociations.get(groupUid)) throw alreadyExists("iam.accountAssociation", groupUid);
    const t = timestamp(ctx.now());
    return { ...structuredClone(body), uid: groupUid, name: body["name"] ?? "", description: body["description"] ?? "", createTime: t, updateTime: t };
  },
};
