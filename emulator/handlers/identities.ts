/**
 * `/iam/{version}/identities`: create under a group, get, list, PATCH, delete.
 *
 * An identity has exactly one relationship (the API description): `claimMatch` {issuer | issuerPattern, subject |
 * subjectPattern, audience | audiencePattern, claims, claimPatterns}, `staticKeys` {issuer, subject, issuerKeys,
 * expirationTime, audiences}, `awsIdentity` {arn | arnPattern, userId | userIdPattern, awsAccount} or
 * `servicePrincipal` (an enum name). Patterns are regular expressions matched against the whole value.
 * Deleting an identity also removes the role bindings that name it.
 */
import type { CollectionSpec } from "../collection";
import type { FieldViolation } from "../errors";
import { newChildUid, parentOf } from "../uidp";
import { checkKnownKeys, checkName, checkOptionalObject, checkOptionalString, checkPattern, timestamp } from "./common";

/** The relationship oneof: exactly one of these is set. */
export const RELATIONSHIPS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;

/** Service principals an identity may name. */
export const SERVICE_PRINCIPALS = [
  "SERVICE_PRINCIPAL_COSIGNED", "SERVICE_PRINCIPAL_INGESTER", "SERVICE_PRINCIPAL_CATALOG_SYNCER", "SERVICE_PRINCIPAL_APKO_BUILDER",
  "SERVICE_PRINCIPAL_ENTITLEMENT_SYNCER", "SERVICE_PRINCIPAL_TENANT_SCANNER", "SERVICE_PRINCIPAL_SEDIMENTOLOGY", "SERVICE_PRINCIPAL_SKILLUP",
  "SERVICE_PRINCIPAL_MATERIALIZER", "SERVICE_PRINCIPAL_MICROFLOW", "SERVICE_PRINCIPAL_GUARDENER", "SERVICE_PRINCIPAL_MICROVM", "SERVICE_PRINCIPAL_SKILLS",
];

const CLAIM_MATCH_FIELDS = ["issuer", "issuerPattern", "subject", "subjectPattern", "audience", "audiencePattern", "claims", "claimPatterns"];
const STATIC_KEYS_FIELDS = ["issuer", "subject", "issuerKeys", "expirationTime", "audiences"];
const AWS_FIELDS = ["arn", "arnPattern", "userId", "userIdPattern", "awsAccount"];

function has(o: Record<string, unknown>, k: string): boolean {
  return o[k] !== undefined && o[k] !== "";
}

function exactlyOne(prefix: string, o: Record<string, unknown>, a: string, b: string, required: boolean, v: FieldViolation[]): void {
  if (has(o, a) && has(o, b)) v.push({ field: `${prefix}.${a}`, description: `set only one of ${a} and ${b}` });
  else if (required && !has(o, a) && !has(o, b)) v.push({ field: `${prefix}.${a}`, description: `one of ${a} and ${b} is required` });
}

function validateClaimMatch(o: Record<string, unknown>, v: FieldViolation[]): void {
  checkKnownKeys("claimMatch", o, CLAIM_MATCH_FIELDS, v);
  exactlyOne("claimMatch", o, "issuer", "issuerPattern", true, v);
  exactlyOne("claimMatch", o, "subject", "subjectPattern", true, v);
  exactlyOne("claimMatch", o, "audience", "audiencePattern", false, v);
  for (const k of ["issuer", "subject", "audience"]) checkOptionalString(`claimMatch.${k}`, o[k], v);
  for (const k of ["issuerPattern", "subjectPattern", "audiencePattern"]) checkPattern(`claimMatch.${k}`, o[k], v);
  for (const [mapField, isPattern] of [["claims", false], ["claimPatterns", true]] as const) {
    const m = o[mapField];
    if (m === undefined) continue;
    if (typeof m !== "object" || m === null || Array.isArray(m)) {
      v.push({ field: `claimMatch.${mapField}`, description: "must be a map of string to string" });
      continue;
    }
    for (const [ck, cv] of Object.entries(m)) {
      if (isPattern) checkPattern(`claimMatch.${mapField}.${ck}`, cv, v);
      else checkOptionalString(`claimMatch.${mapField}.${ck}`, cv, v);
    }
  }
}

function validateStaticKeys(o: Record<string, unknown>, v: FieldViolation[]): void {
  checkKnownKeys("staticKeys", o, STATIC_KEYS_FIELDS, v);
  for (const k of ["issuer", "subject", "issuerKeys"]) {
    if (!has(o, k)) v.push({ field: `staticKeys.${k}`, description: "is required" });
    else checkOptionalString(`staticKeys.${k}`, o[k], v);
  }
  if (o["expirationTime"] !== undefined && (typeof o["expirationTime"] !== "string" || Number.isNaN(Date.parse(o["expirationTime"])))) {
    v.push({ field: "staticKeys.expirationTime", description: "must be an RFC 3339 timestamp" });
  }
  if (o["audiences"] !== undefined && !(Array.isArray(o["audiences"]) && o["audiences"].every((a) => typeof a === "string"))) {
    v.push({ field: "staticKeys.audiences", description: "must be a list of strings" });
  }
}

function validateAws(o: Record<string, unknown>, v: FieldViolation[]): void {
  checkKnownKeys("awsIdentity", o, AWS_FIELDS, v);
  exactlyOne("awsIdentity", o, "arn", "arnPattern", false, v);
  exactlyOne("awsIdentity", o, "userId", "userIdPattern", false, v);
  if (!has(o, "arn") && !has(o, "arnPattern") && !has(o, "userId") && !has(o, "userIdPattern")) {
    v.push({ field: "awsIdentity.arn", description: "one of arn, arnPattern, userId, userIdPattern is required" });
  }
  if (!has(o, "awsAccount")) v.push({ field: "awsIdentity.awsAccount", description: "is required" });
  else if (typeof o["awsAccount"] !== "string" || !/^\d{12}$/.test(o["awsAccount"])) {
    v.push({ field: "awsIdentity.awsAccount", description: "must be a 12-digit AWS account id (a string)" });
  }
  for (const k of ["arn", "userId"]) checkOptionalString(`awsIdentity.${k}`, o[k], v);
  for (const k of ["arnPattern", "userIdPattern"]) checkPattern(`awsIdentity.${k}`, o[k], v);
}

export const identities: CollectionSpec = {
  api: "iam",
  collection: "identities",
  resourceType: "iam.identity",
  caps: { list: "CAP_IAM_IDENTITY_LIST", create: "CAP_IAM_IDENTITY_CREATE", update: "CAP_IAM_IDENTITY_UPDATE", delete: "CAP_IAM_IDENTITY_DELETE" },
  scopeOf: (uid) => parentOf(uid) ?? uid,
  orderFields: ["name", "description", "createTime", "updateTime"],
  writable: ["name", "description", "company", ...RELATIONSHIPS],
  readOnly: ["uid", "createTime", "updateTime", "email", "emailUnverified", "lastSeenTime"],
  validate(row, v) {
    checkName(row["name"], v);
    checkOptionalString("description", row["description"], v);
    checkOptionalString("company", row["company"], v);
    const set = RELATIONSHIPS.filter((r) => row[r] !== undefined);
    if (set.length === 0) v.push({ field: "relationship", description: `one of ${RELATIONSHIPS.join(", ")} is required` });
    else if (set.length > 1) v.push({ field: "relationship", description: `only one of ${RELATIONSHIPS.join(", ")} may be set, got ${set.join(", ")}` });
    if (checkOptionalObject("claimMatch", row["claimMatch"], v) && row["claimMatch"]) validateClaimMatch(row["claimMatch"] as Record<string, unknown>, v);
    if (checkOptionalObject("staticKeys", row["staticKeys"], v) && row["staticKeys"]) validateStaticKeys(row["staticKeys"] as Record<string, unknown>, v);
    if (checkOptionalObject("awsIdentity", row["awsIdentity"], v) && row["awsIdentity"]) validateAws(row["awsIdentity"] as Record<string, unknown>, v);
    const sp = row["servicePrincipal"];
    if (sp !== undefined && !SERVICE_PRINCIPALS.includes(sp as string)) {
      v.push({ field: "servicePrincipal", description: `"${String(sp)}" is not one of ${SERVICE_PRINCIPALS.join(", ")}` });
    }
  },
  // Seed §2 Identity: lastSeenTime is "set by the server (present in the create response)"; it starts at the
  // create time and moves each time the identity is assumed through the token exchange (sts.ts).
  build(ctx, parentUid, body) {
    const t = timestamp(ctx.now());
    return { ...structuredClone(body), uid: newChildUid(parentUid), description: body["description"] ?? "", createTime: t, updateTime: t, lastSeenTime: t };
  },
  merge: (_current, next) => ({ ...next, description: next["description"] ?? "" }),
  afterDelete(ctx, row) {
    for (const b of ctx.store.roleBindings.where("identityUid", row.uid)) ctx.store.roleBindings.delete(b.uid);
  },
};
