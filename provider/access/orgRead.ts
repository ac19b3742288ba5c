/**
 * The live org as the access model's input (docs/access.md "The whole org"): every group, identity, custom role,
 * role binding and identity provider under the org's root, read from the API, as the objects a stack's state holds
 * ({@link StackObject}), so the org and the stack's own objects (its state, or its plan) make one model.
 *
 * Each object is read once, by a List under the root (`uidp.descendants_of`, seed §4 common List parameters), walked
 * page by page through the client (bounded in bytes and pages: provider/client/pagination.ts). Built-in roles (one
 * segment, outside the org) come from the roles List without a scope (seed §4 rule 5). An identity outside the org
 * that a binding grants (a user: the org's owner, seed §5) is added by its hydrated name and uid.
 */
import type { PlatformClient } from "../client/client";
import { parentUid } from "./sources";
import type { StackObject } from "./stack";

/** The URN an object read from the API carries in the model (`api:<uid>`): it has no resource of any stack. */
export const API_URN_PREFIX = "api:";

/** An org read from the API: its objects, and how many of each kind. */
export interface LiveOrg {
  objects: StackObject[];
  counts: Record<string, number>;
}

/**
 * Reads the org under `root` from the API as {@link StackObject}s.
 * @throws ApiError (or a client limit's error) from the API, naming the List that failed.
 */
export async function readLiveOrg(client: PlatformClient, root: string): Promise<LiveOrg> {
  const under = { descendantsOf: root, pageSize: 200 };
  const [top, groups, identities, roles, bindings, providers] = await Promise.all([
    client.groups.get(root),
    client.groups.list(under).collect(),
    client.identities.list(under).collect(),
    client.roles.list({ pageSize: 200 }).collect(),
    client.roleBindings.list({ ...under }).collect(),
    client.identityProviders.list(under).collect(),
  ]);
  const obj = (kind: string, uid: string, props: Record<string, unknown>): StackObject => ({ kind, urn: `${API_URN_PREFIX}${uid}`, name: String(props["name"] ?? uid), props: { uid, ...props } });
  const objects: StackObject[] = [];
  for (const g of [top, ...groups.filter((x) => x.uid !== root)]) objects.push(obj("Group", g.uid, { name: g.name, ...(parentUid(g.uid) && g.uid !== root ? { parentUid: parentUid(g.uid) } : {}) }));
  const known = new Set<string>();
  for (const i of identities) {
    known.add(i.uid);
    objects.push(obj("Identity", i.uid, { name: i.name, parentUid: parentUid(i.uid), ...(i.claimMatch ? { claimMatch: i.claimMatch } : {}) }));
  }
  // Built-in roles and the org's custom roles (a custom role's uid is under the root).
  for (const r of roles) if (parentUid(r.uid) === undefined || r.uid.startsWith(`${root}/`)) objects.push(obj("Role", r.uid, { name: r.name, ...(parentUid(r.uid) ? { parentUid: parentUid(r.uid) } : {}), capabilities: r.capabilities ?? [] }));
  for (const b of bindings) {
    const identityUid = b.identityUid ?? b.identity?.uid;
    const roleUid = b.roleUid ?? b.role?.uid;
    if (!identityUid || !roleUid) continue;
    if (!known.has(identityUid) && !identityUid.startsWith(`${root}/`)) {
      // A user (the org's owner): outside the org, named by the binding.
      known.add(identityUid);
      objects.push(obj("Identity", identityUid, { name: b.identity?.name || identityUid }));
    }
    objects.push(obj("RoleBinding", b.uid, { identityUid, roleUid, groupUid: parentUid(b.uid), ...(b.role?.name ? { role: { name: b.role.name } } : {}), name: `${b.identity?.name ?? identityUid} → ${b.role?.name ?? roleUid}` }));
  }
  for (const p of providers) objects.push(obj("IdentityProvider", p.uid, { name: p.name, parentUid: parentUid(p.uid) }));
  const counts: Record<string, number> = {};
  for (const o of objects) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  return { objects, counts };
}

/**
 * The live org's objects that are not the stack's: those no object of `stack` (its state; for a change, the state
 * too, so what the plan deletes stays deleted) holds, matched by kind and uid (an account association's uid is its
 * group's, seed §2: a stack holding only the association does not hold the group). The stack's own version of an
 * object wins.
 */
export function outsideStack(live: readonly StackObject[], stack: readonly StackObject[]): StackObject[] {
  const key = (o: StackObject) => `${o.kind}:${String(o.props["uid"])}`;
  const mine = new Set(stack.filter((o) => typeof o.props["uid"] === "string" && o.props["uid"] !== "").map(key));
  return live.filter((o) => !mine.has(key(o)));
}
