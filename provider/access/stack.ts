/**
 * Building an {@link AccessOrg} from a stack's resources: its state (every value known), a preview's plan, or the
 * resources a stack policy sees (values not known until apply). An object whose uid is not known yet is named by
 * its URN, and a field whose value is not known is followed to the resource it comes from (`refs`, from the
 * engine's property dependencies): a binding on a group being created is a binding on that group, by path.
 */
import { wireName } from "../capabilities";
import { BUILTIN_ROLE_CAPABILITIES, isBuiltinRoleName } from "./builtin";
import type { AccessGroup, AccessIdentity, AccessIdentityProvider, AccessOrg, AccessRole, AccessBinding } from "./model";
import { claimMatchOf, parentUid } from "./sources";

/** A role the stack does not declare, as the API describes it (for built-in roles and roles of other stacks). */
export interface RoleInfo {
  name: string;
  /** Wire or dotted names. */
  capabilities: readonly string[];
}

/** One resource of this package in a stack. */
export interface StackObject {
  /** The kind (`Group`, `Identity`, `Role`, `RoleBinding`, `IdentityProvider`, …). */
  kind: string;
  urn: string;
  /** The resource's name in the program. */
  name: string;
  /** Its inputs and outputs; a value not known yet is absent. */
  props: Record<string, unknown>;
  /** For a field whose value is not known yet: the URN of the resource it comes from. */
  refs?: Record<string, string> | undefined;
}

/** What {@link orgFromStack} needs besides the stack: how to learn about groups and roles the stack does not declare. */
export interface StackContext {
  /** A role the stack references by uid without declaring it (built-in roles, roles of other stacks). */
  role?: (uid: string) => RoleInfo | undefined;
  /** A group's name, for groups the stack references without declaring them. */
  groupName?: (uid: string) => string | undefined;
  /** The org's root group uid, when known: shown as `/`. Default: any one-segment uid is a root. */
  rootUid?: string | undefined;
}

/** The org a stack's resources describe, with ids: uids where known, URNs otherwise. */
export interface StackOrg {
  org: AccessOrg;
  /** The uid of each identity id (null while it is not known), for reports. */
  identityUid: Map<string, string | null>;
  /** Where each identity id is managed, when the org was read whole (`this stack`, `stack <name>`, `unmanaged`). */
  managed?: Map<string, string>;
}

/**
 * The org `objects` declare. Groups, identities and roles the stack only references (by uid) are added from their
 * uids (a UIDP names its parent) and `ctx`; a referenced role that `ctx.role` cannot describe, and whose hydrated
 * name (a binding's `role.name` output) is not a built-in role's, grants nothing.
 */
export function orgFromStack(objects: readonly StackObject[], ctx: StackContext = {}): StackOrg {
  const byUrn = new Map(objects.map((o) => [o.urn, o]));
  const idOf = (o: StackObject): string => (typeof o.props["uid"] === "string" && o.props["uid"] !== "" ? (o.props["uid"] as string) : o.urn);
  /** The id a field refers to: its uid, or the id of the resource its unknown value comes from. */
  const refOf = (o: StackObject, field: string): string | undefined => {
    const v = o.props[field];
    if (typeof v === "string" && v !== "") return v;
    const urn = o.refs?.[field];
    const src = urn === undefined ? undefined : byUrn.get(urn);
    return src ? idOf(src) : undefined;
  };

  const groups = new Map<string, AccessGroup>();
  const identities = new Map<string, AccessIdentity>();
  const roles = new Map<string, AccessRole>();
  const bindings: AccessBinding[] = [];
  const providers: AccessIdentityProvider[] = [];
  const identityUid = new Map<string, string | null>();
  const roleNameHint = new Map<string, string>();

  for (const o of objects) {
    const id = idOf(o);
    const name = typeof o.props["name"] === "string" ? (o.props["name"] as string) : o.name;
    switch (o.kind) {
      case "Group":
        groups.set(id, { id, parentId: refOf(o, "parentUid"), name });
        break;
      case "Identity":
        identities.set(id, { id, name, groupId: refOf(o, "parentUid"), claimMatch: claimMatchOf(o.props["claimMatch"]) });
        identityUid.set(id, id === o.urn ? null : id);
        break;
      case "Role": {
        const caps = Array.isArray(o.props["capabilities"]) ? (o.props["capabilities"] as unknown[]).filter((c): c is string => typeof c === "string") : [];
        roles.set(id, { id, name, groupId: refOf(o, "parentUid"), capabilities: caps.map((c) => wireName(c) ?? c) });
        break;
      }
      case "RoleBinding": {
        const identityId = refOf(o, "identityUid");
        const roleId = refOf(o, "roleUid");
        const groupId = refOf(o, "groupUid");
        if (identityId && roleId && groupId) bindings.push({ identityId, roleId, groupId, label: o.urn });
        const hydrated = (o.props["role"] as Record<string, unknown> | undefined)?.["name"];
        if (roleId && typeof hydrated === "string" && hydrated !== "") roleNameHint.set(roleId, hydrated);
        break;
      }
      case "IdentityProvider": {
        const groupId = refOf(o, "parentUid");
        if (groupId) providers.push({ id, name, groupId });
        break;
      }
    }
  }

  // References to objects the stack does not declare.
  for (const b of bindings) {
    if (!identities.has(b.identityId)) {
      identities.set(b.identityId, { id: b.identityId, name: "", groupId: parentUid(b.identityId) });
      identityUid.set(b.identityId, b.identityId);
    }
    if (!roles.has(b.roleId)) {
      const info = ctx.role?.(b.roleId);
      const hint = roleNameHint.get(b.roleId);
      if (info) roles.set(b.roleId, { id: b.roleId, name: info.name, groupId: parentUid(b.roleId), capabilities: info.capabilities.map((c) => wireName(c) ?? c) });
      else if (hint !== undefined && isBuiltinRoleName(hint) && parentUid(b.roleId) === undefined) {
        roles.set(b.roleId, { id: b.roleId, name: hint, capabilities: BUILTIN_ROLE_CAPABILITIES[hint] });
      }
    }
  }
  const addGroup = (id: string | undefined) => {
    // Walk up from a referenced group through the uids' shape until a declared group or a root.
    while (id !== undefined && !groups.has(id) && !byUrn.has(id)) {
      const parent = parentUid(id);
      const root = parent === undefined || id === ctx.rootUid;
      groups.set(id, { id, parentId: root ? undefined : parent, name: ctx.groupName?.(id) ?? "" });
      id = root ? undefined : parent;
    }
  };
  for (const g of [...groups.values()]) addGroup(g.parentId);
  for (const i of identities.values()) addGroup(i.groupId);
  for (const r of roles.values()) addGroup(r.groupId);
  for (const b of bindings) addGroup(b.groupId);
  for (const p of providers) addGroup(p.groupId);
  // The built-in roles are always there to be bound.
  for (const [name, capabilities] of Object.entries(BUILTIN_ROLE_CAPABILITIES)) {
    if (![...roles.values()].some((r) => r.groupId === undefined && r.name === name)) roles.set(`builtin:${name}`, { id: `builtin:${name}`, name, capabilities });
  }
  return { org: { groups: [...groups.values()], identities: [...identities.values()], roles: [...roles.values()], bindings, identityProviders: providers }, identityUid };
}
