/**
 * Building an {@link AccessOrg} from what the API lists. UIDPs name their parents (a child's uid is its parent's
 * plus one segment; FACTS "UIDP shape"), so rows need no parent field: a group's parent, an identity's, a custom
 * role's and a binding's group are their uid without the last segment.
 */
import type { AccessOrg, ClaimMatch } from "./model";

const CLAIM_STRINGS = ["issuer", "issuerPattern", "subject", "subjectPattern", "audience", "audiencePattern"] as const;

/**
 * A `claimMatch` as the model reads it (seed §2 Identity), from any value: string members kept, `claims` and
 * `claimPatterns` kept as string maps; undefined when `v` is not an object.
 */
export function claimMatchOf(v: unknown): ClaimMatch | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const out: { -readonly [K in keyof ClaimMatch]: ClaimMatch[K] } = {};
  for (const k of CLAIM_STRINGS) if (typeof o[k] === "string" && o[k] !== "") out[k] = o[k] as string;
  for (const k of ["claims", "claimPatterns"] as const) {
    const m = o[k];
    if (m && typeof m === "object" && !Array.isArray(m)) out[k] = Object.fromEntries(Object.entries(m).filter((e): e is [string, string] => typeof e[1] === "string"));
  }
  return out;
}

/** The parent of a UIDP, or undefined for a root (one segment). */
export function parentUid(uid: string): string | undefined {
  const i = uid.lastIndexOf("/");
  return i < 0 ? undefined : uid.slice(0, i);
}

/** Rows as the API lists them (only the fields the model reads). */
export interface ApiRows {
  groups: ReadonlyArray<{ uid: string; name?: string | undefined }>;
  identities: ReadonlyArray<{ uid: string; name?: string | undefined; claimMatch?: unknown }>;
  roles: ReadonlyArray<{ uid: string; name?: string | undefined; capabilities?: readonly string[] | undefined }>;
  roleBindings: ReadonlyArray<{ uid: string; identityUid?: string | undefined; roleUid?: string | undefined }>;
  identityProviders?: ReadonlyArray<{ uid: string; name?: string | undefined }> | undefined;
}

/** The org of `rows` (every id a uid). A binding without an identity or role uid is left out. */
export function orgFromApi(rows: ApiRows): AccessOrg {
  return {
    groups: rows.groups.map((g) => ({ id: g.uid, parentId: parentUid(g.uid), name: g.name ?? "" })),
    identities: rows.identities.map((i) => ({ id: i.uid, name: i.name ?? "", groupId: parentUid(i.uid), claimMatch: claimMatchOf(i.claimMatch) })),
    roles: rows.roles.map((r) => ({ id: r.uid, name: r.name ?? r.uid, groupId: parentUid(r.uid), capabilities: r.capabilities ?? [] })),
    bindings: rows.roleBindings.flatMap((b) =>
      b.identityUid && b.roleUid ? [{ identityId: b.identityUid, roleId: b.roleUid, groupId: parentUid(b.uid) ?? b.uid }] : [],
    ),
    identityProviders: (rows.identityProviders ?? []).flatMap((p) => {
      const g = parentUid(p.uid);
      return g === undefined ? [] : [{ id: p.uid, name: p.name ?? p.uid, groupId: g }];
    }),
  };
}
