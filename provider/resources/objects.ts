/**
 * The API objects a group can hold, listed by kind as one row each (kind, uid, a name a person recognises): the one
 * table that `platform-pulumi unmanaged` (under a stack's groups) and a group's delete (the children that block
 * it) both read, so a kind added here is found and named by both.
 */
import type { PlatformClient } from "../client/client";
import { ApiError } from "../client/errors";
import type { ListParams } from "../client/pagination";

/** One object, named as a person would look for it. */
export interface ObjectRow {
  /** Resource kind: `Group`, `Identity`, `Role`, `RoleBinding`, `IdentityProvider`, `GroupInvite`, `Repo`, `Tag`, `Overlay`, `OverlayBinding` or `Subscription`. */
  kind: string;
  uid: string;
  /**
   * Its name; a role binding: `<identity> → <role>`; an invite: its email, else its role; an overlay binding:
   * `<overlay> → <tags>`; a subscription: its sink.
   */
  name: string;
}

/** Lists one kind's rows matching `params` (e.g. `{ childrenOf }` or `{ descendantsOf }`), at most `limit` of them. */
export type ObjectLister = (client: PlatformClient, params: ListParams, limit?: number) => Promise<ObjectRow[]>;

/** google.rpc.Code UNIMPLEMENTED (the client names no constant for it). */
const UNIMPLEMENTED = 12;

/** A beta-only collection's rows, or none when the API version does not serve it (UNIMPLEMENTED). */
export async function betaOnly<T>(rows: Promise<T[]>): Promise<T[]> {
  try {
    return await rows;
  } catch (err) {
    if (err instanceof ApiError && err.code === UNIMPLEMENTED) return [];
    throw err;
  }
}

const named =
  (kind: string, list: (c: PlatformClient) => { list(p: ListParams): { collect(limit?: number): Promise<Array<{ uid: string; name: string }>> } }): ObjectLister =>
  async (c, p, limit) =>
    (await list(c).list(p).collect(limit)).map((x) => ({ kind, uid: x.uid, name: x.name }));

/** Every kind a group holds, in the order reports list them (account associations, one per group, are not listed). */
export const OBJECT_LISTERS: ReadonlyArray<readonly [kind: string, list: ObjectLister]> = [
  ["Group", named("Group", (c) => c.groups)],
  ["Identity", named("Identity", (c) => c.identities)],
  ["Role", named("Role", (c) => c.roles)],
  [
    "RoleBinding",
    async (c, p, limit) =>
      (await c.roleBindings.list(p).collect(limit)).map((x) => ({
        kind: "RoleBinding",
        uid: x.uid,
        name: `${x.identity?.name ?? x.identityUid} → ${x.role?.name ?? x.roleUid}`,
      })),
  ],
  ["IdentityProvider", named("IdentityProvider", (c) => c.identityProviders)],
  [
    "GroupInvite",
    async (c, p, limit) =>
      (await c.groupInvites.list(p).collect(limit)).map((x) => ({ kind: "GroupInvite", uid: x.uid, name: x.email || x.role?.name || x.roleUid || "" })),
  ],
  ["Repo", named("Repo", (c) => c.repos)],
  ["Tag", named("Tag", (c) => c.tags)],
  ["Overlay", async (c, p, limit) => (await betaOnly(c.overlays.list(p).collect(limit))).map((x) => ({ kind: "Overlay", uid: x.uid, name: x.name }))],
  [
    "OverlayBinding",
    async (c, p, limit) =>
      (await betaOnly(c.overlayBindings.list(p).collect(limit))).map((x) => ({
        kind: "OverlayBinding",
        uid: x.uid,
        name: `${x.overlay?.name ?? x.overlay?.uid ?? "?"} → ${x.tags.join(", ")}`,
      })),
  ],
  ["Subscription", async (c, p, limit) => (await c.subscriptions.list(p).collect(limit)).map((x) => ({ kind: "Subscription", uid: x.uid, name: x.sink }))],
];
