/**
 * `/iam/{version}/identities`: create under a group, get, list, PATCH, delete.
 *
 * Contract: an identity has exactly one relationship: `claimMatch` {issuer | issuerPattern, subject |
 * subjectPattern, audience | audiencePattern, claims, claimPatterns} | `staticKeys` | `awsIdentity` |
 * `servicePrincipal` (FACTS.md "Identity has a oneof relationship"). Deleting an identity also removes the role
 * bindings that name it.
 */
import { invalidArgument, type FieldViolation } from "../errors";
import { envelope, paginate, parseListQuery } from "../list";
import type { IdentityRow } from "../store";
import { newChildUid } from "../uidp";
import { checkName, checkOptionalString, mustGet, patchRow, pickBody, prefixes, timestamp, uidParam, type Handler } from "./common";

/** The relationship oneof: exactly one of these is set. */
export const RELATIONSHIPS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;
const WRITABLE = ["name", "description", ...RELATIONSHIPS] as const;
const READ_ONLY = ["uid", "createTime", "updateTime", "email", "emailUnverified", "lastSeenTime", "company"] as const;
const CLAIM_MATCH_FIELDS = [
  "issuer",
  "issuerPattern",
  "subject",
  "subjectPattern",
  "audience",
  "audiencePattern",
  "claims",
  "claimPatterns",
] as const;

function checkPattern(field: string, value: unknown, violations: FieldViolation[]): void {
  if (value === undefined) return;
  if (typeof value !== "string") {
    violations.push({ field, description: "must be a string" });
    return;
  }
  try {
    new RegExp(value);
  } catch (err) {
    violations.push({ field, description: `is not a valid regular expression: ${(err as Error).message}` });
  }
}

function checkExactlyOne(cm: Record<string, unknown>, a: string, b: string, required: boolean, v: FieldViolation[]): void {
  const has = (k: string) => cm[k] !== undefined && cm[k] !== "";
  if (has(a) && has(b)) v.push({ field: `claimMatch.${a}`, description: `set only one of ${a} and ${b}` });
  else if (required && !has(a) && !has(b)) v.push({ field: `claimMatch.${a}`, description: `one of ${a} and ${b} is required` });
}

function validateClaimMatch(cm: unknown, v: FieldViolation[]): void {
  if (typeof cm !== "object" || cm === null || Array.isArray(cm)) {
    v.push({ field: "claimMatch", description: "must be an object" });
    return;
  }
  const o = cm as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!(CLAIM_MATCH_FIELDS as readonly string[]).includes(k)) {
      v.push({ field: `claimMatch.${k}`, description: `unknown field; allowed: ${CLAIM_MATCH_FIELDS.join(", ")}` });
    }
  }
  checkExactlyOne(o, "issuer", "issuerPattern", true, v);
  checkExactlyOne(o, "subject", "subjectPattern", true, v);
  checkExactlyOne(o, "audience", "audiencePattern", false, v);
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

function validate(i: Record<string, unknown>, v: FieldViolation[] = []): void {
  checkName(i["name"], v);
  checkOptionalString("description", i["description"], v);
  const set = RELATIONSHIPS.filter((r) => i[r] !== undefined);
  if (set.length === 0) {
    v.push({ field: "relationship", description: `one of ${RELATIONSHIPS.join(", ")} is required` });
  } else if (set.length > 1) {
    v.push({ field: "relationship", description: `only one of ${RELATIONSHIPS.join(", ")} may be set, got ${set.join(", ")}` });
  }
  if (i["claimMatch"] !== undefined) validateClaimMatch(i["claimMatch"], v);
  for (const k of ["staticKeys", "awsIdentity"]) {
    const x = i[k];
    if (x !== undefined && (typeof x !== "object" || x === null || Array.isArray(x))) v.push({ field: k, description: "must be an object" });
  }
  checkOptionalString("servicePrincipal", i["servicePrincipal"], v);
  if (v.length > 0) throw invalidArgument(v);
}

/** Registers the identities routes. */
export const identities: Handler = (app, ctx) => {
  const { store } = ctx;
  for (const base of prefixes(ctx, "iam", "identities")) {
    app.get(base, async (req) => {
      const q = parseListQuery(req.query as Record<string, string>);
      return envelope("identities", paginate(store.identities.all(), q), (r) => r);
    });

    app.get(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      return mustGet(store.identities.get(uid), "iam.identity", uid);
    });

    app.post(`${base}/*`, async (req) => {
      const parentUid = uidParam(req, "parent");
      mustGet(store.groups.get(parentUid), "iam.group", parentUid);
      const unknown: FieldViolation[] = [];
      const body = pickBody(req.body, WRITABLE, READ_ONLY, unknown);
      validate(body, unknown);
      const t = timestamp(ctx.now());
      const row: IdentityRow = {
        ...structuredClone(body),
        uid: newChildUid(parentUid),
        name: body["name"] as string,
        description: (body["description"] as string | undefined) ?? "",
        createTime: t,
        updateTime: t,
      };
      store.identities.put(row);
      return row;
    });

    app.patch(`${base}/*`, async (req) => patchRow(ctx, store.identities, req, "iam.identity", WRITABLE, READ_ONLY, validate));

    app.delete(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      mustGet(store.identities.get(uid), "iam.identity", uid);
      store.identities.delete(uid);
      for (const b of store.roleBindings.all()) if (b.identityUid === uid) store.roleBindings.delete(b.uid);
      return {};
    });
  }
};
