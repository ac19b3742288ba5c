/**
 * `/iam/{version}/identityProviders`: OIDC identity providers for an org's users: create under a group, get,
 * list, PATCH, delete.
 *
 * `oidc.clientSecret` is write-only: required on create, never returned, and kept when a PATCH omits it.
 */
import type { CollectionSpec } from "../collection";
import type { FieldViolation } from "../errors";
import type { Row } from "../store";
import { newChildUid, parentOf } from "../uidp";
import { checkKnownKeys, checkName, checkOptionalObject, checkOptionalString, timestamp } from "./common";

const OIDC_FIELDS = ["issuer", "clientId", "clientSecret", "additionalScopes", "groupsClaim", "pkceEnabled", "correlationRule"];

function validateOidc(o: Record<string, unknown>, v: FieldViolation[], mode: "create" | "update"): void {
  checkKnownKeys("oidc", o, OIDC_FIELDS, v);
  if (typeof o["issuer"] !== "string" || !/^https:\/\/\S+$/.test(o["issuer"])) v.push({ field: "oidc.issuer", description: "must be an https URL" });
  if (typeof o["clientId"] !== "string" || o["clientId"] === "") v.push({ field: "oidc.clientId", description: "is required" });
  if (mode === "create" && (typeof o["clientSecret"] !== "string" || o["clientSecret"] === "")) {
    v.push({ field: "oidc.clientSecret", description: "is required on create" });
  }
  checkOptionalString("oidc.groupsClaim", o["groupsClaim"], v);
  const scopes = o["additionalScopes"];
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === "string"))) {
    v.push({ field: "oidc.additionalScopes", description: "must be a list of strings" });
  }
  if (o["pkceEnabled"] !== undefined && typeof o["pkceEnabled"] !== "boolean") v.push({ field: "oidc.pkceEnabled", description: "must be a boolean" });
}

/** An identity provider as the API returns it: never the client secret. */
export function renderIdentityProvider(row: Row): Record<string, unknown> {
  const oidc = { ...((row["oidc"] as Record<string, unknown> | undefined) ?? {}) };
  delete oidc["clientSecret"];
  return { ...row, oidc };
}

export const identityProviders: CollectionSpec = {
  api: "iam",
  collection: "identityProviders",
  resourceType: "iam.identityProvider",
  caps: {
    list: "CAP_IAM_IDENTITY_PROVIDERS_LIST",
    create: "CAP_IAM_IDENTITY_PROVIDERS_CREATE",
    update: "CAP_IAM_IDENTITY_PROVIDERS_UPDATE",
    delete: "CAP_IAM_IDENTITY_PROVIDERS_DELETE",
  },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["name", "description", "defaultRole", "createTime", "updateTime"],
  writable: ["name", "description", "oidc", "defaultRole"],
  readOnly: ["uid", "createTime", "updateTime", "scim"],
  validate(row, v, ctx, mode) {
    checkName(row["name"], v);
    checkOptionalString("description", row["description"], v);
    if (row["oidc"] === undefined) v.push({ field: "oidc", description: "is required" });
    else if (checkOptionalObject("oidc", row["oidc"], v)) validateOidc(row["oidc"] as Record<string, unknown>, v, mode);
    const role = row["defaultRole"];
    if (role !== undefined && role !== "" && !ctx.store.roles.get(role as string)) v.push({ field: "defaultRole", description: `no role with uid "${String(role)}"` });
  },
  build(ctx, parentUid, body) {
    const t = timestamp(ctx.now());
    return { ...structuredClone(body), uid: newChildUid(parentUid), description: body["description"] ?? "", createTime: t, updateTime: t };
  },
  merge(current, next) {
    const oldOidc = (current["oidc"] ?? {}) as Record<string, unknown>;
    const newOidc = (next["oidc"] ?? {}) as Record<string, unknown>;
    const oidc = newOidc["clientSecret"] === undefined && oldOidc["clientSecret"] !== undefined ? { ...newOidc, clientSecret: oldOidc["clientSecret"] } : newOidc;
    return { ...next, oidc, description: next["description"] ?? "" };
  },
  render: renderIdentityProvider,
};
