/**
 * `/iam/{version}/accountAssociations`: a group's associations with cloud accounts (amazon, google, azure,
 * github, chainguard). An association's uid is its group's uid: at most one per group (a second create is
 * ALREADY_EXISTS), and DELETE of a missing one succeeds (AIP-135, as the API documents).
 */
import type { CollectionSpec } from "../collection";
import { alreadyExists, type FieldViolation } from "../errors";
import { checkKnownKeys, checkOptionalObject, checkOptionalString, timestamp } from "./common";

const PROVIDERS = ["amazon", "google", "azure", "github", "chainguard"] as const;

/** Appends a violation when `value` is present and not an object whose every value is a string. */
function checkStringMap(field: string, value: unknown, v: FieldViolation[]): void {
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.values(value).every((x) => typeof x === "string")) {
    v.push({ field, description: "must be a map of string to string" });
  }
}

/**
 * Validates one provider's block: only its own fields (a nested unknown field such as `amazon.x` is
 * INVALID_ARGUMENT), each of its type. Field names per provider follow the vendor's API.
 */
function validateProvider(p: (typeof PROVIDERS)[number], o: Record<string, unknown>, v: FieldViolation[]): void {
  switch (p) {
    case "amazon":
      checkKnownKeys(p, o, ["account"], v);
      if (typeof o["account"] !== "string" || !/^\d{12}$/.test(o["account"])) v.push({ field: "amazon.account", description: "must be a 12-digit AWS account id" });
      return;
    case "google":
      checkKnownKeys(p, o, ["projectId", "projectNumber"], v);
      if (typeof o["projectId"] !== "string" || o["projectId"] === "") v.push({ field: "google.projectId", description: "is required" });
      checkOptionalString("google.projectNumber", o["projectNumber"], v);
      return;
    case "azure":
      checkKnownKeys(p, o, ["tenantId", "clientIds"], v);
      if (typeof o["tenantId"] !== "string" || o["tenantId"] === "") v.push({ field: "azure.tenantId", description: "is required" });
      checkStringMap("azure.clientIds", o["clientIds"], v);
      return;
    case "chainguard":
      checkKnownKeys(p, o, ["serviceBindings"], v);
      checkStringMap("chainguard.serviceBindings", o["serviceBindings"], v);
      return;
    case "github": {
      checkKnownKeys(p, o, ["appInstallations"], v);
      const apps = o["appInstallations"];
      if (apps === undefined) return;
      if (!checkOptionalObject("github.appInstallations", apps, v)) return;
      for (const [appId, set] of Object.entries(apps as Record<string, unknown>)) {
        const field = `github.appInstallations.${appId}`;
        if (!checkOptionalObject(field, set, v) || set === undefined) continue;
        checkKnownKeys(field, set as Record<string, unknown>, ["installations"], v);
        const list = (set as Record<string, unknown>)["installations"];
        if (list === undefined) continue;
        if (!Array.isArray(list)) {
          v.push({ field: `${field}.installations`, description: "must be a list" });
          continue;
        }
        list.forEach((inst: unknown, i) => {
          const at = `${field}.installations[${i}]`;
          if (!checkOptionalObject(at, inst, v) || inst === undefined) return;
          const r = inst as Record<string, unknown>;
          checkKnownKeys(at, r, ["installationId", "name"], v);
          if (typeof r["installationId"] !== "string" || r["installationId"] === "") v.push({ field: `${at}.installationId`, description: "is required" });
          checkOptionalString(`${at}.name`, r["name"], v);
        });
      }
    }
  }
}

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
    if (!PROVIDERS.some((p) => row[p] !== undefined)) v.push({ field: "amazon", description: `at least one of ${PROVIDERS.join(", ")} is required` });
    for (const p of PROVIDERS) {
      if (checkOptionalObject(p, row[p], v) && row[p] !== undefined) validateProvider(p, row[p] as Record<string, unknown>, v);
    }
  },
  build(ctx, groupUid, body) {
    if (ctx.store.table("accountAssociations").get(groupUid)) throw alreadyExists("iam.accountAssociation", groupUid);
    const t = timestamp(ctx.now());
    return { ...structuredClone(body), uid: groupUid, name: body["name"] ?? "", description: body["description"] ?? "", createTime: t, updateTime: t };
  },
};
