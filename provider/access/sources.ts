/**
 * Building an {@link AccessOrg} from what the API lists. UIDPs name their parents (a child's uid is its parent's
 * plus one segment; FACTS "UIDP shape"), so rows need no parent field: a group's parent, an identity's, a custom
 * role's and a binding's group are their uid without the last segment.
 */
import type { AccessOrg } from "./model";

/** The parent of a UIDP, or undefined for a root (one segment). */
export function parentUid(uid: string): string | undefined {
  const i = uid.lastIndexOf("/");
  return i < 0 ? undefined : uid.slice(0, i);
}

/** Rows as the API lists them (only the fields the model reads). */
export interface ApiRows {
  groups: ReadonlyArray<{ uid: string; name?: string | undefined }>;
  identities: ReadonlyArray<{ uid: string; name?: string | undefined }>;
  roles: ReadonlyArray<{ uid: string; name?: string | undefined; capabilities?: readonly string[] | undefined }>;
  roleBindings: ReadonlyArray<{ uid: string; identityUid?: string | undefined; roleUid?: string | undefined }>;
  identityProviders?: ReadonlyArray<{ uid: string; name?: string | undefined }> | undefined;
}

/** The org of `rows` (every id a uid). A binding without an identity or role uid is left out. */
export function orgFromApi(rows: ApiRows): AccessOrg {
  return {
    groups: rows.groups.map((g) => ({ id: g.uid, parentId: parentUid(g.uid), name: g.name ?? "" })),
    identities: rows.identities.map((i) => ({ id: i.uid, name: i.name ?? "", groupId: parentUid(i.uid) })),
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
