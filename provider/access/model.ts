/**
 * Effective access: who can do what, and where. Pure functions over plain data (no API, no Pulumi), shared by the
 * `access` command, the policy pack's `no-new-access` and the tests.
 *
 * The contract it follows (README "Access review"): access is identity based; a role binding on a group grants the
 * role's capabilities at that group and every group below it; a role is built-in (viewer, editor, owner,
 * registry.pull) or custom with a capability list. Direct grants understate access, so the model closes them under
 * escalation steps, each one an action the API accepts from a holder of the named capability:
 *
 * | step               | needs (at the target's group)        | gives                                          |
 * |--------------------|--------------------------------------|------------------------------------------------|
 * | `assume`           | `CAP_IAM_IDENTITY_UPDATE`            | everything the rewritten identity holds        |
 * | `bind`             | `CAP_IAM_ROLE_BINDINGS_CREATE`       | any role there, owner included                 |
 * | `rebind`           | `CAP_IAM_ROLE_BINDINGS_UPDATE`       | an existing binding there, turned to itself    |
 * | `editRole`         | `CAP_IAM_ROLES_UPDATE` (role's group)| any capability added to a role bound to it     |
 * | `invite`           | `CAP_IAM_GROUP_INVITES_CREATE`       | a membership with any role (redeemed invite)   |
 * | `identityProvider` | `CAP_IAM_IDENTITY_PROVIDERS_CREATE`, or `_UPDATE` where one exists | its default role |
 * | `createRole`       | `CAP_IAM_ROLES_CREATE` (anywhere) and `CAP_IAM_ROLE_BINDINGS_CREATE` | any capability, in a new custom role bound to itself |
 * | `present`          | nothing: its own workload's token matches the target's `claimMatch` | everything the target holds |
 *
 * Each step is credited to the identity whose token takes it: after an `assume` or `present`, the steps that use
 * the assumed identity's grants are that identity's. Every route is kept apart: a direct grant (a binding) is
 * listed even where an escalation reaches the same capability above it, and direct grants come first.
 *
 * Identities and groups are named by `id`: a uid when known, or any stable placeholder (the command and the pack
 * use the resource's URN for objects a preview has not created yet). Parents are explicit (`parentId`), never
 * read from a uid's shape, for that reason.
 */
import type { ClaimMatch } from "../client/types";
import { CAPABILITY_NAMES, dottedName } from "../capabilities";
import { BUILTIN_ROLE_CAPABILITIES } from "./builtin";
import { presentedToken } from "./languages";

/** A group: `parentId` undefined for the org's root group. */
export interface AccessGroup {
  id: string;
  /** The parent group's id; undefined (or an id the org does not hold) for a root. */
  parentId?: string | undefined;
  /** Its name; `""` when not known (then paths through it show uids). */
  name: string;
}

/** An identity's `claimMatch` (seed §2 Identity), the client's type: exact values, or RE2 patterns matched against a whole claim. */
export type { ClaimMatch };

/** An identity (workload identity or user). */
export interface AccessIdentity {
  id: string;
  /** Its name; `""` when not known (then it is shown by its id). */
  name: string;
  /** The group it lives in (its uid's parent); undefined for a user at the top level. */
  groupId?: string | undefined;
  /** Which tokens may be exchanged for it; undefined for a user or when not known. */
  claimMatch?: ClaimMatch | undefined;
}

/** A role: built-in when `groupId` is undefined, else a custom role defined in that group. */
export interface AccessRole {
  id: string;
  name: string;
  groupId?: string | undefined;
  /** Capabilities in wire form (`CAP_IAM_GROUPS_LIST`). */
  capabilities: readonly string[];
}

/** A role binding: `identityId` holds `roleId` at `groupId` and below. */
export interface AccessBinding {
  identityId: string;
  roleId: string;
  groupId: string;
  /** What declares it, for messages (a stack resource's URN); optional. */
  label?: string | undefined;
}

/** An identity provider: people who sign in through it get its default role at its group. */
export interface AccessIdentityProvider {
  id: string;
  name: string;
  groupId: string;
}

/** The org the model reads. Every id a binding names should be present; a binding to an unknown role grants nothing. */
export interface AccessOrg {
  groups: readonly AccessGroup[];
  identities: readonly AccessIdentity[];
  roles: readonly AccessRole[];
  bindings: readonly AccessBinding[];
  identityProviders?: readonly AccessIdentityProvider[];
}

/** The kinds of escalation step (see the table at the top of this module). */
export type EscalationKind = "assume" | "bind" | "rebind" | "editRole" | "invite" | "identityProvider" | "createRole" | "present";

/** Every escalation kind, the default of {@link AccessOptions.escalations}. */
export const ESCALATION_KINDS: readonly EscalationKind[] = ["assume", "bind", "rebind", "editRole", "invite", "identityProvider", "createRole", "present"];

/** One escalation step, as data (the words are in {@link Via.steps}). `actorId` is the identity acting. */
export type EscalationStep =
  | { kind: "assume"; actorId: string; targetId: string; heldAt: string }
  | { kind: "bind"; actorId: string; roleId: string; groupId: string }
  | { kind: "rebind"; actorId: string; binding: AccessBinding; roleId: string }
  | { kind: "editRole"; actorId: string; roleId: string; capability: string; heldAt: string }
  | { kind: "invite"; actorId: string; roleId: string; groupId: string }
  | { kind: "identityProvider"; actorId: string; roleId: string; groupId: string; providerId?: string }
  | { kind: "createRole"; actorId: string; roleGroupId: string; groupId: string; capability: string }
  | { kind: "present"; actorId: string; targetId: string };

/** The role id a grant gotten by `createRole` names (the role does not exist yet): `new-role:<capability>`. */
export const NEW_ROLE_PREFIX = "new-role:";

/** Why an identity holds a grant: a binding of its own, or an escalation path ending in a binding-like grant. */
export interface Via {
  kind: "binding" | "escalation";
  /** The role whose capability this is, and its name. */
  roleId: string;
  role: string;
  /** The group the role is (or would be) bound at. */
  boundAt: string;
  /** The escalation steps in words, in order; empty for a binding. */
  steps: string[];
  /** The same steps as data. */
  path: EscalationStep[];
  /**
   * The steps in words with the capability a step adds left out (`adds the capabilities to custom role …`): the
   * same for every capability one path gives, so reports can show a path once with all it gives. Empty for a
   * binding.
   */
  route?: string[] | undefined;
}

/** One grant: `identityId` holds `capability` (wire form) at `groupId` and every group below it. */
export interface Grant {
  identityId: string;
  capability: string;
  groupId: string;
  via: Via[];
}

/** Options of {@link effectiveAccess}. */
export interface AccessOptions {
  /** The escalation steps to close over. @default every kind ({@link ESCALATION_KINDS}); `[]` gives direct grants only. */
  escalations?: readonly EscalationKind[];
}

const IDENTITY_UPDATE = "CAP_IAM_IDENTITY_UPDATE";
const BINDINGS_CREATE = "CAP_IAM_ROLE_BINDINGS_CREATE";
const BINDINGS_UPDATE = "CAP_IAM_ROLE_BINDINGS_UPDATE";
const ROLES_UPDATE = "CAP_IAM_ROLES_UPDATE";
const INVITES_CREATE = "CAP_IAM_GROUP_INVITES_CREATE";
const IDP_CREATE = "CAP_IAM_IDENTITY_PROVIDERS_CREATE";
const IDP_UPDATE = "CAP_IAM_IDENTITY_PROVIDERS_UPDATE";
const ROLES_CREATE = "CAP_IAM_ROLES_CREATE";

/** An org indexed for the model: group ancestry and paths, names by id. */
export class OrgIndex {
  readonly groups = new Map<string, AccessGroup>();
  readonly identities = new Map<string, AccessIdentity>();
  readonly roles = new Map<string, AccessRole>();
  private readonly ancestorCache = new Map<string, string[]>();

  constructor(readonly org: AccessOrg) {
    for (const g of org.groups) this.groups.set(g.id, g);
    for (const i of org.identities) this.identities.set(i.id, i);
    for (const r of org.roles) this.roles.set(r.id, r);
  }

  /** `id` and its ancestors, nearest first (stops at a root or a parent the org does not hold, and on a cycle). */
  ancestors(id: string): string[] {
    const hit = this.ancestorCache.get(id);
    if (hit) return hit;
    const out = [id];
    let g = this.groups.get(id);
    while (g?.parentId !== undefined && this.groups.has(g.parentId) && !out.includes(g.parentId)) {
      out.push(g.parentId);
      g = this.groups.get(g.parentId);
    }
    this.ancestorCache.set(id, out);
    return out;
  }

  /** Whether `group` is `top` or below it. */
  within(group: string, top: string): boolean {
    return this.ancestors(group).includes(top);
  }

  /**
   * A group's path from the root: `/` for a root, `/engineering/platform` below it. A group the org does not
   * hold, or at or below a group whose name is not known (`""`), is shown by its id.
   */
  groupPath(id: string): string {
    if (!this.groups.has(id)) return id;
    const chain = [...this.ancestors(id)].reverse();
    const top = this.groups.get(chain[0]!)!;
    // A group on the way whose name is not known ("") makes a path meaningless: show the uid.
    if (chain.slice(1).some((g) => this.groups.get(g)!.name === "")) return id;
    const names = chain.slice(1).map((g) => this.groups.get(g)!.name);
    // A top group whose parent the org does not hold (a stack's subtree): shown from that parent's id.
    const lead = top.parentId === undefined ? "" : `${top.parentId}/${top.name}`;
    return `${lead}/${names.join("/")}`.replace(/\/$/, "") || "/";
  }

  /** An identity's path: its group's path, then its name (`/engineering/ci-deployer`). */
  identityPath(id: string): string {
    const i = this.identities.get(id);
    if (!i || i.name === "") return id; // not held, or known only by its uid
    if (i.groupId === undefined) return `/${i.name}`;
    const g = this.groupPath(i.groupId);
    return `${g === "/" ? "" : g}/${i.name}`;
  }

  /** A name for messages: the identity's name, or its id. */
  identityName(id: string): string {
    return this.identities.get(id)?.name || id;
  }

  /** A role's name, or its id when the org does not hold it. */
  roleName(id: string): string {
    return this.roles.get(id)?.name ?? id;
  }
}

/** What one identity holds: capability → group → the ways it holds it. */
type Holdings = Map<string, Map<string, Via[]>>;

function stepWords(ix: OrgIndex, s: EscalationStep, generic = false): string {
  const added = (cap: string) => (generic ? "the capabilities" : dottedName(cap));
  const who = `"${ix.identityName(s.actorId)}"`;
  const role = (id: string) => `"${ix.roleName(id)}"`;
  const at = (g: string) => ix.groupPath(g);
  switch (s.kind) {
    case "assume":
      return `${who} rewrites the claimMatch of identity "${ix.identityName(s.targetId)}" (${ix.identityPath(s.targetId)}; identity.update held at ${at(s.heldAt)}) and exchanges a token for it`;
    case "bind":
      return `${who} binds itself ${role(s.roleId)} at ${at(s.groupId)} (role_bindings.create)`;
    case "rebind":
      return `${who} rewrites the binding of "${ix.identityName(s.binding.identityId)}" to ${role(s.binding.roleId)} at ${at(s.binding.groupId)} into one of itself to ${role(s.roleId)} (role_bindings.update)`;
    case "editRole": {
      const r = ix.roles.get(s.roleId);
      return `${who} adds ${added(s.capability)} to custom role ${role(s.roleId)} (defined at ${r?.groupId !== undefined ? at(r.groupId) : "?"}; roles.update held at ${at(s.heldAt)})`;
    }
    case "invite":
      return `${who} creates an invite to ${at(s.groupId)} with role ${role(s.roleId)} and redeems it (group_invites.create)`;
    case "createRole":
      return `${who} creates a custom role at ${at(s.roleGroupId)} with ${added(s.capability)} (roles.create) and binds itself to it at ${at(s.groupId)} (role_bindings.create)`;
    case "present": {
      // Through patterns on both sides: which token, as one value both admit (its subject).
      const own = ix.identities.get(s.actorId)?.claimMatch;
      const token = own && !own.subject ? presentedToken(own, ix.identities.get(s.targetId)?.claimMatch) : undefined;
      const which = token ? ` (a token with subject ${JSON.stringify(token.subject)} matches both)` : "";
      return `${who}'s own workload token matches the claimMatch of identity "${ix.identityName(s.targetId)}" (${ix.identityPath(s.targetId)})${which}, so it exchanges that token for it`;
    }
    case "identityProvider":
      return s.providerId !== undefined
        ? `${who} sets the default role of identity provider "${s.providerId}" at ${at(s.groupId)} to ${role(s.roleId)} and signs in through it (identity_providers.update)`
        : `${who} creates an identity provider at ${at(s.groupId)} whose default role is ${role(s.roleId)} and signs in through it (identity_providers.create)`;
  }
}

/**
 * Whether a token that `actor`'s own workload presents is accepted by `target`'s `claimMatch`, as the token exchange
 * decides (exact values equal, patterns match the whole claim; no audience rule on either side means the default
 * audience): for every claim the target constrains, the values the actor's `claimMatch` admits (its exact value, or
 * its pattern's language) and the ones the target admits have one in common, decided on the patterns' languages
 * ({@link presentedToken}, refa). A claim the actor does not constrain at all is not known, so it matches nothing
 * here, and a pattern that cannot be decided (refused, oversized) decides nothing: the model never claims a step it
 * cannot show.
 */
export function presents(actor: ClaimMatch | undefined, target: ClaimMatch | undefined): boolean {
  return presentedToken(actor, target) !== undefined;
}

/** The identity whose token takes the next step after `path`, starting as `x`: the last one assumed, or `x`. */
function actorAfter(x: string, path: readonly EscalationStep[]): string {
  let a = x;
  for (const s of path) if (s.kind === "assume" || s.kind === "present") a = s.targetId;
  return a;
}

/** `steps` with a step that repeats an earlier one (the same action by the same actor) left out. */
function once(steps: readonly EscalationStep[]): EscalationStep[] {
  const seen = new Set<string>();
  return steps.filter((s) => {
    const k = JSON.stringify(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * Each identity's effective access: its direct grants (from its bindings) closed under the escalation steps
 * of `opts.escalations`. Every escalated grant carries the path that gives it (the shortest found, by rounds of
 * one step), each step credited to the identity whose token takes it. Direct grants are always listed (a binding
 * at an ancestor covers one below it); an escalated grant is left out where a grant of the same capability at the
 * group or an ancestor already exists. A binding to a role the org does not hold grants nothing.
 * @returns grants sorted by identity id, capability, then group path; for one identity, capability and group,
 *   direct grants come first.
 */
export function effectiveAccess(org: AccessOrg, opts: AccessOptions = {}): Grant[] {
  const ix = new OrgIndex(org);
  const kinds = new Set(opts.escalations ?? ESCALATION_KINDS);
  const held = new Map<string, Holdings>();
  for (const i of org.identities) held.set(i.id, new Map());

  const holdingsOf = (id: string): Holdings => {
    let h = held.get(id);
    if (!h) held.set(id, (h = new Map()));
    return h;
  };
  /** The cheapest way `id` holds `cap` at `group` (at it or an ancestor), or undefined. */
  const how = (id: string, cap: string, group: string): { at: string; via: Via } | undefined => {
    const byGroup = held.get(id)?.get(cap);
    if (!byGroup) return undefined;
    let best: { at: string; via: Via } | undefined;
    for (const a of ix.ancestors(group)) {
      for (const v of byGroup.get(a) ?? []) if (!best || v.path.length < best.via.path.length) best = { at: a, via: v };
    }
    return best;
  };
  /** Groups where `id` holds `cap` (each reaching its subtree). */
  const groupsWith = (id: string, cap: string): string[] => [...(held.get(id)?.get(cap)?.keys() ?? [])];
  const add = (id: string, cap: string, group: string, via: Via): boolean => {
    if (how(id, cap, group)) return false;
    const h = holdingsOf(id);
    let byGroup = h.get(cap);
    if (!byGroup) h.set(cap, (byGroup = new Map()));
    byGroup.set(group, [via]);
    return true;
  };

  // Direct grants: every binding of a known role.
  for (const b of org.bindings) {
    const role = ix.roles.get(b.roleId);
    if (!role) continue;
    for (const cap of new Set(role.capabilities)) {
      const h = holdingsOf(b.identityId);
      let byGroup = h.get(cap);
      if (!byGroup) h.set(cap, (byGroup = new Map()));
      const vias = byGroup.get(b.groupId) ?? [];
      if (!vias.some((v) => v.roleId === role.id)) vias.push({ kind: "binding", roleId: role.id, role: role.name, boundAt: b.groupId, steps: [], path: [] });
      byGroup.set(b.groupId, vias);
    }
  }
  // A direct grant at a group is redundant when a binding at an ancestor holds the same capability.
  for (const h of held.values()) {
    for (const byGroup of h.values()) for (const g of [...byGroup.keys()]) if (ix.ancestors(g).slice(1).some((a) => byGroup.has(a))) byGroup.delete(g);
  }

  const universe = [...new Set([...CAPABILITY_NAMES, ...Object.values(BUILTIN_ROLE_CAPABILITIES).flat(), ...org.roles.flatMap((r) => r.capabilities)])].sort();
  const owner = org.roles.find((r) => r.groupId === undefined && r.name === "owner");
  /** The role an actor would pick to get `cap`: owner when it has it, else the first role (by name) that has it. */
  const roleFor = (cap: string): AccessRole | undefined =>
    owner?.capabilities.includes(cap) ? owner : [...org.roles].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)).find((r) => r.capabilities.includes(cap));
  const escalation = (roleId: string, role: string, boundAt: string, steps: readonly EscalationStep[]): Via => {
    const path = once(steps);
    return { kind: "escalation", roleId, role, boundAt, steps: path.map((s) => stepWords(ix, s)), path, route: path.map((s) => stepWords(ix, s, true)) };
  };
  /** A role gotten at `group` by a step that may pick any role (`bind`, `invite`, an identity provider's default). */
  const anyRole = (id: string, group: string, prefix: readonly EscalationStep[], step: (roleId: string) => EscalationStep, out: Array<[string, string, string, Via]>) => {
    for (const cap of universe) {
      const role = roleFor(cap);
      if (role) out.push([id, cap, group, escalation(role.id, role.name, group, [...prefix, step(role.id)])]);
    }
  };

  // Whose `claimMatch` each identity's own workload token satisfies: a step that needs no capability.
  const presentable = new Map<string, string[]>();
  if (kinds.has("present")) {
    for (const x of org.identities) {
      const targets = org.identities.filter((y) => y.id !== x.id && presents(x.claimMatch, y.claimMatch)).map((y) => y.id);
      if (targets.length) presentable.set(x.id, targets);
    }
  }

  const identityIds = org.identities.map((i) => i.id);
  for (let round = 0; round < 64; round++) {
    const found: Array<[string, string, string, Via]> = [];
    /** x takes over y by `prefix` then `step`, and holds whatever y holds, with y's own steps after. */
    const takeOver = (x: string, y: string, prefix: readonly EscalationStep[], step: EscalationStep) => {
      for (const [cap, byGroup] of held.get(y) ?? []) {
        for (const [g, vias] of byGroup) {
          if (how(x, cap, g)) continue;
          // y's own `present` steps are not x's to take: x holds its own token (or one of its choosing), not y's
          // workload's; x presents for that identity directly where its own token is accepted.
          const mine = vias.filter((v) => !v.path.some((s) => s.kind === "present"));
          if (mine.length === 0) continue;
          const v = mine.reduce((a, b) => (b.path.length < a.path.length ? b : a));
          found.push([x, cap, g, escalation(v.roleId, v.role, v.boundAt, [...prefix, step, ...v.path])]);
        }
      }
    };
    for (const x of identityIds) {
      if (kinds.has("present")) for (const y of presentable.get(x) ?? []) takeOver(x, y, [], { kind: "present", actorId: x, targetId: y });
      if (kinds.has("assume")) {
        for (const y of org.identities) {
          if (y.id === x || y.groupId === undefined) continue;
          const h = how(x, IDENTITY_UPDATE, y.groupId);
          if (!h) continue;
          takeOver(x, y.id, h.via.path, { kind: "assume", actorId: actorAfter(x, h.via.path), targetId: y.id, heldAt: h.at });
        }
      }
      if (kinds.has("bind")) {
        for (const g of groupsWith(x, BINDINGS_CREATE)) {
          const h = how(x, BINDINGS_CREATE, g)!;
          const actor = actorAfter(x, h.via.path);
          anyRole(x, g, h.via.path, (roleId) => ({ kind: "bind", actorId: actor, roleId, groupId: g }), found);
        }
      }
      if (kinds.has("createRole")) {
        // A new custom role with any capability, bound to the actor where it may bind.
        const rc = [...(held.get(x)?.get(ROLES_CREATE) ?? [])].map(([at, vias]) => ({ at, via: vias.reduce((a, b) => (b.path.length < a.path.length ? b : a)) }));
        rc.sort((a, b) => a.via.path.length - b.via.path.length);
        const make = rc[0];
        if (make) {
          for (const g of groupsWith(x, BINDINGS_CREATE)) {
            const h = how(x, BINDINGS_CREATE, g)!;
            const prefix = [...h.via.path, ...make.via.path];
            const actor = actorAfter(x, prefix);
            for (const cap of universe) {
              if (how(x, cap, g)) continue;
              const step: EscalationStep = { kind: "createRole", actorId: actor, roleGroupId: make.at, groupId: g, capability: cap };
              found.push([x, cap, g, escalation(`${NEW_ROLE_PREFIX}${cap}`, "a new custom role", g, [...prefix, step])]);
            }
          }
        }
      }
      if (kinds.has("rebind")) {
        for (const b of org.bindings) {
          if (b.identityId === x) continue;
          const h = how(x, BINDINGS_UPDATE, b.groupId);
          if (!h) continue;
          const actor = actorAfter(x, h.via.path);
          anyRole(x, b.groupId, h.via.path, (roleId) => ({ kind: "rebind", actorId: actor, binding: b, roleId }), found);
        }
      }
      if (kinds.has("editRole")) {
        // A custom role bound to x, or to an identity x can take over (edit the role first, then assume).
        for (const b of org.bindings) {
          const role = ix.roles.get(b.roleId);
          if (!role || role.groupId === undefined) continue;
          const h = how(x, ROLES_UPDATE, role.groupId);
          if (!h) continue;
          let takeover: EscalationStep[] = [];
          if (b.identityId !== x) {
            const target = ix.identities.get(b.identityId);
            const t = target?.groupId !== undefined && kinds.has("assume") ? how(x, IDENTITY_UPDATE, target.groupId) : undefined;
            if (!t) continue;
            takeover = [...t.via.path, { kind: "assume", actorId: actorAfter(x, t.via.path), targetId: b.identityId, heldAt: t.at }];
          }
          const editor = actorAfter(x, h.via.path);
          for (const cap of universe) {
            if (role.capabilities.includes(cap)) continue;
            const edit: EscalationStep = { kind: "editRole", actorId: editor, roleId: role.id, capability: cap, heldAt: h.at };
            found.push([x, cap, b.groupId, escalation(role.id, role.name, b.groupId, [...h.via.path, edit, ...takeover])]);
          }
        }
      }
      if (kinds.has("invite")) {
        for (const g of groupsWith(x, INVITES_CREATE)) {
          const h = how(x, INVITES_CREATE, g)!;
          const actor = actorAfter(x, h.via.path);
          anyRole(x, g, h.via.path, (roleId) => ({ kind: "invite", actorId: actor, roleId, groupId: g }), found);
        }
      }
      if (kinds.has("identityProvider")) {
        for (const g of groupsWith(x, IDP_CREATE)) {
          const h = how(x, IDP_CREATE, g)!;
          const actor = actorAfter(x, h.via.path);
          anyRole(x, g, h.via.path, (roleId) => ({ kind: "identityProvider", actorId: actor, roleId, groupId: g }), found);
        }
        for (const p of org.identityProviders ?? []) {
          const h = how(x, IDP_UPDATE, p.groupId);
          if (!h) continue;
          const actor = actorAfter(x, h.via.path);
          anyRole(x, p.groupId, h.via.path, (roleId) => ({ kind: "identityProvider", actorId: actor, roleId, groupId: p.groupId, providerId: p.name }), found);
        }
      }
    }
    // Shortest paths first, so a grant keeps the fewest steps found in this round.
    found.sort((a, b) => a[3].path.length - b[3].path.length);
    let changed = false;
    for (const [id, cap, g, via] of found) {
      if (add(id, cap, g, via)) {
        changed = true;
        // A new grant at an ancestor covers escalated grants below it; a binding stays listed (a route of its own).
        const byGroup = held.get(id)!.get(cap)!;
        for (const other of [...byGroup.keys()]) {
          if (other === g || !ix.within(other, g)) continue;
          const direct = byGroup.get(other)!.filter((v) => v.kind === "binding");
          if (direct.length) byGroup.set(other, direct);
          else byGroup.delete(other);
        }
      }
    }
    if (!changed) break;
  }

  const out: Grant[] = [];
  for (const [id, h] of held) for (const [cap, byGroup] of h) for (const [g, via] of byGroup) out.push({ identityId: id, capability: cap, groupId: g, via });
  return out.sort((a, b) => cmp(a.identityId, b.identityId) || cmp(a.capability, b.capability) || cmp(ix.groupPath(a.groupId), ix.groupPath(b.groupId)));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `grants` (of one {@link effectiveAccess} result) give `identityId` `capability` at `groupId`, with the grant. */
export function holds(ix: OrgIndex, grants: readonly Grant[], identityId: string, capability: string, groupId: string): Grant | undefined {
  const up = ix.ancestors(groupId);
  return grants.find((g) => g.identityId === identityId && g.capability === capability && up.includes(g.groupId));
}
