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
  /**
   * Set on a class row ({@link AccessOptions.classRowsFrom}): every one of these identities (a class that presents
   * for each other, {@link presentClasses}, in the org's order; `identityId` is the first) holds the grant by
   * `via`, each entering the route's first identity by its own `present` steps. A member's own bindings are
   * grants of their own beside it. Absent on a grant of one identity.
   */
  members?: readonly string[];
  /**
   * A class row's key: the class's `claimMatch` values, so the same class in two states of an org has the same
   * key whoever joins or leaves it (diffs match class rows by it). Set with {@link members}.
   */
  classKey?: string;
}

/** The class size from which the `access` command, the gate and the pack list a class's grants once ({@link AccessOptions.classRowsFrom}). */
export const CLASS_ROWS_FROM = 8;

/** Options of {@link effectiveAccess}. */
export interface AccessOptions {
  /** The escalation steps to close over. @default every kind ({@link ESCALATION_KINDS}); `[]` gives direct grants only. */
  escalations?: readonly EscalationKind[];
  /**
   * From this many members, a class of identities that present for each other has what it holds listed once, as
   * class rows ({@link Grant.members}), not once per member: N identities trusting one workload then give grants
   * in proportion to N, not N². Each member's own bindings are still its own grants. Smaller classes, and every
   * class when unset, are listed member by member.
   * @default undefined (every grant is one identity's)
   */
  classRowsFrom?: number;
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
  private readonly pathCache = new Map<string, string>();

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
    let p = this.pathCache.get(id);
    if (p === undefined) this.pathCache.set(id, (p = this.pathOf(id)));
    return p;
  }

  private pathOf(id: string): string {
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

/** A step's identity for {@link once}, computed once per step object (paths share their steps). */
const stepKeys = new WeakMap<EscalationStep, string>();
function stepKey(s: EscalationStep): string {
  let k = stepKeys.get(s);
  if (k === undefined) stepKeys.set(s, (k = JSON.stringify(s)));
  return k;
}

/** `steps` with a step that repeats an earlier one (the same action by the same actor) left out. */
function once(steps: readonly EscalationStep[]): EscalationStep[] {
  if (steps.length < 2) return [...steps];
  const seen = new Set<string>();
  return steps.filter((s) => {
    const k = stepKey(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A `claimMatch` as a string, equal for equal values whatever the order of their members. */
function claimKey(cm: ClaimMatch): string {
  const sorted = (o: Readonly<Record<string, string>> | undefined) => (o ? Object.keys(o).sort().map((k) => [k, o[k]]) : null);
  return JSON.stringify([cm.issuer, cm.issuerPattern, cm.subject, cm.subjectPattern, cm.audience, cm.audiencePattern, sorted(cm.claims), sorted(cm.claimPatterns)]);
}

/**
 * The identities that can `present` for each other, in classes: the strongly connected components of the
 * `present` graph (an edge from x to y when x's own workload token satisfies y's `claimMatch`, {@link presents}).
 * Whoever runs as one member of a class can become every other, so a class holds one set of grants, which each
 * member reaches by the `present` steps of {@link PresentClasses.chain}. `presents` is asked once per pair of
 * distinct `claimMatch` values, not per pair of identities: identities with equal values present alike.
 */
export interface PresentClasses {
  /** Each identity's class: an index into {@link members}. */
  classOf: Map<string, number>;
  /** Each class's members, in the order of the org's identities; a class of one is an identity no other can present for and back. */
  members: string[][];
  /**
   * The `present` steps (fewest) that take `from` to `to`, both of one class; `[]` when they are the same.
   * @throws Error when they are not of one class.
   */
  chain(from: string, to: string): EscalationStep[];
  /** Per class: one `present` edge `[actor, target]` into each other class a member's token reaches, the first found. */
  out: Array<Array<[string, string]>>;
  /** Whether each member of class `c` presents for each other in one step (so {@link chain} is one step between any two). */
  clique(c: number): boolean;
}

/** The {@link PresentClasses} of `identities` (an identity without a `claimMatch` is a class of its own). */
export function presentClasses(identities: readonly AccessIdentity[]): PresentClasses {
  const keyOf = new Map<string, string>();
  const keyMembers = new Map<string, string[]>();
  const keyCm = new Map<string, ClaimMatch>();
  for (const i of identities) {
    if (!i.claimMatch) continue;
    const k = claimKey(i.claimMatch);
    keyOf.set(i.id, k);
    if (!keyMembers.has(k)) {
      keyMembers.set(k, []);
      keyCm.set(k, i.claimMatch);
    }
    keyMembers.get(k)!.push(i.id);
  }
  const keys = [...keyMembers.keys()];
  const edges = new Map<string, string[]>(keys.map((k) => [k, []]));
  for (const a of keys) for (const b of keys) if (presents(keyCm.get(a), keyCm.get(b))) edges.get(a)!.push(b);

  // Strongly connected components of the key graph (Tarjan's algorithm, iterative).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const sccOf = new Map<string, number>();
  const sccCyclic: boolean[] = [];
  let counter = 0;
  for (const root of keys) {
    if (index.has(root)) continue;
    const work: Array<[string, number]> = [[root, 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const [v, i] = top;
      const next = edges.get(v)!;
      if (i < next.length) {
        top[1]++;
        const w = next[i]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1]![0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        const id = sccCyclic.length;
        const comp: string[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          sccOf.set(w, id);
          comp.push(w);
          if (w === v) break;
        }
        // A class is a component whose every claimMatch presents for every other in one step (a clique): a member
        // then holds its own token for any other. Presenting is not transitive (a pattern's token that another
        // pattern accepts is not the token a third identity accepts), so a component that is not a clique is split:
        // each claimMatch that presents for itself is a class, reached from the others by their direct steps.
        const clique = comp.every((a) => comp.every((b) => edges.get(a)!.includes(b)));
        sccCyclic.push(clique && (comp.length > 1 || edges.get(v)!.includes(v)));
      }
    }
  }

  // Identities of a cyclic clique component form one class; so do identities of one self-presenting claimMatch
  // (of a component that is not a clique); any other identity is a class of its own.
  const classOf = new Map<string, number>();
  const members: string[][] = [];
  const byScc = new Map<string, number>();
  for (const i of identities) {
    if (classOf.has(i.id)) continue;
    const k = keyOf.get(i.id);
    const scc = k === undefined ? undefined : sccOf.get(k)!;
    const group = scc === undefined ? undefined : sccCyclic[scc] ? `scc:${scc}` : edges.get(k!)!.includes(k!) ? `key:${k}` : undefined;
    if (group !== undefined) {
      let c = byScc.get(group);
      if (c === undefined) {
        byScc.set(group, (c = members.length));
        members.push([]);
      }
      members[c]!.push(i.id);
      classOf.set(i.id, c);
    } else {
      classOf.set(i.id, members.length);
      members.push([i.id]);
    }
  }

  const steps = new Map<string, EscalationStep>();
  const present = (actorId: string, targetId: string): EscalationStep => {
    const k = `${actorId}\u0000${targetId}`;
    let s = steps.get(k);
    if (!s) steps.set(k, (s = { kind: "present", actorId, targetId }));
    return s;
  };
  /** The fewest keys from `from` to `to` (both in one cyclic component), `from` first: [from, to] when one step does. */
  const keyPaths = new Map<string, string[]>();
  const keyPath = (from: string, to: string): string[] => {
    const memo = keyPaths.get(`${from}\u0000${to}`);
    if (memo) return memo;
    const parent = new Map<string, string>();
    const queue = [from];
    let found = false;
    for (let q = 0; q < queue.length && !found; q++) {
      const v = queue[q]!;
      for (const w of edges.get(v)!) {
        if (parent.has(w)) continue;
        parent.set(w, v);
        if (w === to) {
          found = true;
          break;
        }
        queue.push(w);
      }
    }
    if (!found) throw new Error(`presentClasses: no present path between claimMatch keys ${from} and ${to}`);
    const path = [to];
    for (let k = parent.get(to)!; path.length <= keys.length; k = parent.get(k)!) {
      path.push(k);
      if (k === from) break;
    }
    path.reverse();
    keyPaths.set(`${from}\u0000${to}`, path);
    return path;
  };
  const chains = new Map<string, Map<string, EscalationStep[]>>();
  const chain = (from: string, to: string): EscalationStep[] => {
    if (from === to) return [];
    let byTo = chains.get(from);
    if (!byTo) chains.set(from, (byTo = new Map()));
    let c = byTo.get(to);
    if (c) return c;
    if (classOf.get(from) !== classOf.get(to) || classOf.get(from) === undefined) throw new Error(`presentClasses: identities ${from} and ${to} are not of one class`);
    const kp = keyPath(keyOf.get(from)!, keyOf.get(to)!);
    const ids = [from, ...kp.slice(1, -1).map((key) => keyMembers.get(key)![0]!), to];
    c = ids.slice(1).map((t, i) => present(ids[i]!, t));
    byTo.set(to, c);
    return c;
  };
  /** Whether every member of class `c` presents for every other in one step (one `claimMatch` value that accepts its own token). */
  const clique = (c: number): boolean => {
    const ms = members[c]!;
    const k = keyOf.get(ms[0]!);
    return ms.length === 1 || (k !== undefined && ms.every((m) => keyOf.get(m) === k) && edges.get(k)!.includes(k));
  };

  const out: Array<Array<[string, string]>> = members.map((ms, c) => {
    const edgesOut: Array<[string, string]> = [];
    const reached = new Set<number>([c]);
    const firstOfKey = new Map<string, string>();
    for (const m of ms) {
      const k = keyOf.get(m);
      if (k !== undefined && !firstOfKey.has(k)) firstOfKey.set(k, m);
    }
    for (const [k, a] of firstOfKey) {
      for (const k2 of edges.get(k)!) {
        for (const y of keyMembers.get(k2)!) {
          const d = classOf.get(y)!;
          if (reached.has(d)) continue;
          reached.add(d);
          edgesOut.push([a, y]);
        }
      }
    }
    return edgesOut;
  });
  return { classOf, members, chain, out, clique };
}

/**
 * A way a class of identities ({@link presentClasses}) holds a grant, before it is put in words: the
 * {@link Via}'s data, and the member whose token starts its path (`origin`). A member other than the origin
 * reaches it by the class's `present` steps to the origin first.
 */
interface ClassVia {
  kind: "binding" | "escalation";
  roleId: string;
  role: string;
  boundAt: string;
  path: EscalationStep[];
  origin: string;
}

/** What one class holds: capability → group → the ways it holds it. */
type ClassHoldings = Map<string, Map<string, ClassVia[]>>;

/**
 * Each identity's effective access: its direct grants (from its bindings) closed under the escalation steps
 * of `opts.escalations`. Every escalated grant carries the path that gives it (the shortest found, by rounds of
 * one step), each step credited to the identity whose token takes it. Direct grants are always listed (a binding
 * at an ancestor covers one below it); an escalated grant is left out where a grant of the same capability at the
 * group or an ancestor already exists. A binding to a role the org does not hold grants nothing.
 *
 * Identities that can `present` for each other ({@link presentClasses}) are closed over once, as a class: each
 * member holds what the class holds, through its own bindings where it has them, else by `present` steps to the
 * member whose path it is (one step when their tokens match each other's `claimMatch`), so N identities trusting
 * one workload cost the closure of one, not N² takeovers.
 * @returns grants sorted by identity id, capability, then group path; for one identity, capability and group,
 *   direct grants come first.
 */
export function effectiveAccess(org: AccessOrg, opts: AccessOptions = {}): Grant[] {
  const ix = new OrgIndex(org);
  const kinds = new Set(opts.escalations ?? ESCALATION_KINDS);
  const pc = kinds.has("present") ? presentClasses(org.identities) : presentClasses(org.identities.map((i) => ({ ...i, claimMatch: undefined })));
  const classOf = pc.classOf;
  const members = pc.members;
  /** The class of `id`; an identity the org does not hold (only a binding names it) becomes a class of its own. */
  const nodeOf = (id: string): number => {
    let c = classOf.get(id);
    if (c === undefined) {
      classOf.set(id, (c = members.length));
      members.push([id]);
      pc.out.push([]);
    }
    return c;
  };
  const held = new Map<number, ClassHoldings>();
  const holdingsOf = (c: number): ClassHoldings => {
    let h = held.get(c);
    if (!h) held.set(c, (h = new Map()));
    return h;
  };
  const shortest = (vias: readonly ClassVia[]): ClassVia => vias.reduce((a, b) => (b.path.length < a.path.length ? b : a));
  /** The cheapest way class `c` holds `cap` at `group` (at it or an ancestor), or undefined. */
  const how = (c: number, cap: string, group: string): { at: string; via: ClassVia } | undefined => {
    const byGroup = held.get(c)?.get(cap);
    if (!byGroup) return undefined;
    let best: { at: string; via: ClassVia } | undefined;
    for (const a of ix.ancestors(group)) {
      for (const v of byGroup.get(a) ?? []) if (!best || v.path.length < best.via.path.length) best = { at: a, via: v };
    }
    return best;
  };
  /** Groups where class `c` holds `cap` (each reaching its subtree). */
  const groupsWith = (c: number, cap: string): string[] => [...(held.get(c)?.get(cap)?.keys() ?? [])];
  /** The (capability, group) pairs each class gained in the last round: what a takeover after its first need look at. */
  let gainedLast = new Map<number, Array<[string, string]>>();
  const add = (c: number, cap: string, group: string, via: ClassVia): boolean => {
    if (how(c, cap, group)) return false;
    const h = holdingsOf(c);
    let byGroup = h.get(cap);
    if (!byGroup) h.set(cap, (byGroup = new Map()));
    byGroup.set(group, [via]);
    return true;
  };

  // Direct grants: every binding of a known role, per identity (a binding at an ancestor makes one below redundant).
  const direct = new Map<string, Map<string, Map<string, ClassVia[]>>>();
  for (const b of org.bindings) {
    const role = ix.roles.get(b.roleId);
    if (!role) continue;
    nodeOf(b.identityId);
    let h = direct.get(b.identityId);
    if (!h) direct.set(b.identityId, (h = new Map()));
    for (const cap of new Set(role.capabilities)) {
      let byGroup = h.get(cap);
      if (!byGroup) h.set(cap, (byGroup = new Map()));
      const vias = byGroup.get(b.groupId) ?? [];
      if (!vias.some((v) => v.roleId === role.id)) vias.push({ kind: "binding", roleId: role.id, role: role.name, boundAt: b.groupId, path: [], origin: b.identityId });
      byGroup.set(b.groupId, vias);
    }
  }
  for (const [id, h] of direct) {
    const mine = holdingsOf(nodeOf(id));
    for (const [cap, byGroup] of h) {
      for (const g of [...byGroup.keys()]) if (ix.ancestors(g).slice(1).some((a) => byGroup.has(a))) byGroup.delete(g);
      let classGroups = mine.get(cap);
      if (!classGroups) mine.set(cap, (classGroups = new Map()));
      for (const [g, vias] of byGroup) classGroups.set(g, [...(classGroups.get(g) ?? []), ...vias]);
    }
  }
  for (const [c, h] of held) gainedLast.set(c, [...h].flatMap(([cap, byGroup]) => [...byGroup.keys()].map((g): [string, string] => [cap, g])));

  const universe = [...new Set([...CAPABILITY_NAMES, ...Object.values(BUILTIN_ROLE_CAPABILITIES).flat(), ...org.roles.flatMap((r) => r.capabilities)])].sort();
  const owner = org.roles.find((r) => r.groupId === undefined && r.name === "owner");
  const byName = [...org.roles].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  /** The role an actor would pick to get each capability: owner when it has it, else the first role (by name) that has it. */
  const roleFor = new Map<string, AccessRole>();
  for (const cap of universe) {
    const r = owner?.capabilities.includes(cap) ? owner : byName.find((x) => x.capabilities.includes(cap));
    if (r) roleFor.set(cap, r);
  }
  const escalation = (origin: string, roleId: string, role: string, boundAt: string, steps: readonly EscalationStep[]): ClassVia => ({ kind: "escalation", roleId, role, boundAt, path: once(steps), origin });
  type Found = [number, string, string, ClassVia];
  /**
   * A round's candidates: for each (class, capability, group) only the first with the fewest steps, which is the
   * one a sort by length would keep (the others are refused once it is added).
   */
  class Candidates {
    private readonly best = new Map<string, Found>();
    /** Whether a candidate of `steps` steps could still be kept for `c`, `cap`, `g`. */
    worth(c: number, cap: string, g: string, steps: number): boolean {
      const o = this.best.get(`${c}\u0000${cap}\u0000${g}`);
      return !o || steps < o[3].path.length;
    }
    push(f: Found): void {
      const k = `${f[0]}\u0000${f[1]}\u0000${f[2]}`;
      const o = this.best.get(k);
      if (!o || f[3].path.length < o[3].path.length) this.best.set(k, f);
    }
    /** The kept candidates, fewest steps first (in the order they were offered among equals). */
    sorted(): Found[] {
      return [...this.best.values()].sort((a, b) => a[3].path.length - b[3].path.length);
    }
  }
  /** A role gotten at `group` by a step that may pick any role (`bind`, `invite`, an identity provider's default). */
  const anyRole = (c: number, origin: string, group: string, prefix: readonly EscalationStep[], step: (roleId: string) => EscalationStep, out: Candidates) => {
    const steps = new Map<string, EscalationStep>();
    for (const cap of universe) {
      const role = roleFor.get(cap);
      if (!role) continue;
      let s = steps.get(role.id);
      if (!s) steps.set(role.id, (s = step(role.id)));
      out.push([c, cap, group, escalation(origin, role.id, role.name, group, [...prefix, s])]);
    }
  };
  /** Steps already taken (class, kind, target): taking one again in a later round finds nothing new. */
  const done = new Set<string>();
  const first = (key: string): boolean => (done.has(key) ? false : (done.add(key), true));
  /** Class pairs (taker, taken) whose holdings were taken over whole: later rounds take only what the taken gained. */
  const taken = new Set<string>();
  const identitiesByGroup = new Map<string, AccessIdentity[]>();
  for (const y of org.identities) if (y.groupId !== undefined) identitiesByGroup.set(y.groupId, [...(identitiesByGroup.get(y.groupId) ?? []), y]);
  const bindingsByGroup = new Map<string, Array<[number, AccessBinding]>>();
  org.bindings.forEach((b, i) => bindingsByGroup.set(b.groupId, [...(bindingsByGroup.get(b.groupId) ?? []), [i, b]]));

  for (let round = 0; round < 64; round++) {
    const found = new Candidates();
    const takenNow: string[] = [];
    /** Class c takes over class d (entering it as `entry`) by `prefix` then `step`, and holds whatever d holds, with d's own steps after. */
    const takeOver = (c: number, origin: string, d: number, entry: string, prefix: readonly EscalationStep[], step: EscalationStep) => {
      const pair = `${c}>${d}`;
      const whole = !taken.has(pair);
      takenNow.push(pair);
      const h = held.get(d);
      if (!h) return;
      const pairs: Iterable<[string, string]> = whole ? [...h].flatMap(([cap, byGroup]) => [...byGroup.keys()].map((g): [string, string] => [cap, g])) : (gainedLast.get(d) ?? []);
      for (const [cap, g] of pairs) {
        const all = h.get(cap)?.get(g);
        if (!all || how(c, cap, g)) continue;
        // What d holds through the identity entered, by its own routes: d's `present` steps are not c's to take (c
        // holds its own token, or one of its choosing, not d's workloads'), and another member's grants would need
        // d's workload token too. c presents for that member directly where its own token is accepted.
        const vias = all.filter((x) => x.origin === entry && !x.path.some((st) => st.kind === "present"));
        if (vias.length === 0) continue;
        const v = shortest(vias);
        const enter = pc.chain(entry, v.origin);
        if (!found.worth(c, cap, g, prefix.length + 1 + enter.length + v.path.length)) continue;
        found.push([c, cap, g, escalation(origin, v.roleId, v.role, v.boundAt, [...prefix, step, ...enter, ...v.path])]);
      }
    };
    for (let c = 0; c < members.length; c++) {
      if (kinds.has("present")) for (const [a, b] of pc.out[c]!) takeOver(c, a, classOf.get(b)!, b, [], { kind: "present", actorId: a, targetId: b });
      if (!held.has(c)) continue;
      if (kinds.has("assume")) {
        // One takeover per class reached: through the identity it can rewrite with the fewest steps.
        const best = new Map<number, { h: { at: string; via: ClassVia }; y: string }>();
        for (const [g, ys] of identitiesByGroup) {
          const h = how(c, IDENTITY_UPDATE, g);
          if (!h) continue;
          for (const y of ys) {
            const d = classOf.get(y.id)!;
            if (d === c) continue;
            const b = best.get(d);
            if (!b || h.via.path.length < b.h.via.path.length) best.set(d, { h, y: y.id });
          }
        }
        for (const [d, { h, y }] of best) takeOver(c, h.via.origin, d, y, h.via.path, { kind: "assume", actorId: actorAfter(h.via.origin, h.via.path), targetId: y, heldAt: h.at });
      }
      if (kinds.has("bind")) {
        for (const g of groupsWith(c, BINDINGS_CREATE)) {
          if (!first(`${c}\u0000bind\u0000${g}`)) continue;
          const h = how(c, BINDINGS_CREATE, g)!;
          const actor = actorAfter(h.via.origin, h.via.path);
          anyRole(c, h.via.origin, g, h.via.path, (roleId) => ({ kind: "bind", actorId: actor, roleId, groupId: g }), found);
        }
      }
      if (kinds.has("createRole")) {
        // A new custom role with any capability, bound to the actor where it may bind.
        const rc = [...(held.get(c)?.get(ROLES_CREATE) ?? [])].map(([at, vias]) => ({ at, via: shortest(vias) }));
        rc.sort((a, b) => a.via.path.length - b.via.path.length);
        const make = rc[0];
        if (make) {
          for (const g of groupsWith(c, BINDINGS_CREATE)) {
            if (!first(`${c}\u0000createRole\u0000${g}`)) continue;
            const h = how(c, BINDINGS_CREATE, g)!;
            const origin = h.via.origin;
            // The way to create roles that its origin reaches in the fewest steps.
            const mk = rc.reduce((a, b) => (b.via.path.length + pc.chain(origin, b.via.origin).length < a.via.path.length + pc.chain(origin, a.via.origin).length ? b : a));
            const prefix = [...h.via.path, ...pc.chain(origin, mk.via.origin), ...mk.via.path];
            const actor = actorAfter(origin, prefix);
            for (const cap of universe) {
              if (how(c, cap, g)) continue;
              const step: EscalationStep = { kind: "createRole", actorId: actor, roleGroupId: mk.at, groupId: g, capability: cap };
              found.push([c, cap, g, escalation(origin, `${NEW_ROLE_PREFIX}${cap}`, "a new custom role", g, [...prefix, step])]);
            }
          }
        }
      }
      if (kinds.has("rebind")) {
        for (const [g, bs] of bindingsByGroup) {
          const h = how(c, BINDINGS_UPDATE, g);
          if (!h) continue;
          const actor = actorAfter(h.via.origin, h.via.path);
          for (const [i, b] of bs) {
            // An identity alone does not rewrite its own binding (as before classes); a member of a class may (another member can).
            if ((members[c]!.length === 1 && b.identityId === members[c]![0]) || !first(`${c}\u0000rebind\u0000${i}`)) continue;
            anyRole(c, h.via.origin, b.groupId, h.via.path, (roleId) => ({ kind: "rebind", actorId: actor, binding: b, roleId }), found);
          }
        }
      }
      if (kinds.has("editRole")) {
        // A custom role bound to a member, or to an identity the class can take over (edit the role first, then assume).
        org.bindings.forEach((b, i) => {
          const role = ix.roles.get(b.roleId);
          if (!role || role.groupId === undefined) return;
          const h = how(c, ROLES_UPDATE, role.groupId);
          if (!h) return;
          const editor = actorAfter(h.via.origin, h.via.path);
          let origin = h.via.origin;
          let path: EscalationStep[];
          const edit = (cap: string): EscalationStep => ({ kind: "editRole", actorId: editor, roleId: role.id, capability: cap, heldAt: h.at });
          let steps: (cap: string) => EscalationStep[];
          if (classOf.get(b.identityId) === c) {
            // A member's own role: that member holds it once edited (after becoming the editor's origin).
            origin = b.identityId;
            path = [...pc.chain(b.identityId, h.via.origin), ...h.via.path];
            steps = (cap) => [...path, edit(cap)];
          } else {
            const target = ix.identities.get(b.identityId);
            const t = target?.groupId !== undefined && kinds.has("assume") ? how(c, IDENTITY_UPDATE, target.groupId) : undefined;
            if (!t) return;
            const takeover = [...pc.chain(h.via.origin, t.via.origin), ...t.via.path, { kind: "assume", actorId: actorAfter(t.via.origin, t.via.path), targetId: b.identityId, heldAt: t.at } as EscalationStep];
            steps = (cap) => [...h.via.path, edit(cap), ...takeover];
          }
          if (!first(`${c}\u0000editRole\u0000${i}`)) return;
          for (const cap of universe) {
            if (role.capabilities.includes(cap)) continue;
            found.push([c, cap, b.groupId, escalation(origin, role.id, role.name, b.groupId, steps(cap))]);
          }
        });
      }
      if (kinds.has("invite")) {
        for (const g of groupsWith(c, INVITES_CREATE)) {
          if (!first(`${c}\u0000invite\u0000${g}`)) continue;
          const h = how(c, INVITES_CREATE, g)!;
          const actor = actorAfter(h.via.origin, h.via.path);
          anyRole(c, h.via.origin, g, h.via.path, (roleId) => ({ kind: "invite", actorId: actor, roleId, groupId: g }), found);
        }
      }
      if (kinds.has("identityProvider")) {
        for (const g of groupsWith(c, IDP_CREATE)) {
          if (!first(`${c}\u0000idp\u0000${g}`)) continue;
          const h = how(c, IDP_CREATE, g)!;
          const actor = actorAfter(h.via.origin, h.via.path);
          anyRole(c, h.via.origin, g, h.via.path, (roleId) => ({ kind: "identityProvider", actorId: actor, roleId, groupId: g }), found);
        }
        (org.identityProviders ?? []).forEach((p, i) => {
          const h = how(c, IDP_UPDATE, p.groupId);
          if (!h || !first(`${c}\u0000idpUpdate\u0000${i}`)) return;
          const actor = actorAfter(h.via.origin, h.via.path);
          anyRole(c, h.via.origin, p.groupId, h.via.path, (roleId) => ({ kind: "identityProvider", actorId: actor, roleId, groupId: p.groupId, providerId: p.name }), found);
        });
      }
    }
    for (const p of takenNow) taken.add(p);
    // Shortest paths first, so a grant keeps the fewest steps found in this round.
    const gained = new Map<number, Array<[string, string]>>();
    for (const [c, cap, g, via] of found.sorted()) {
      if (add(c, cap, g, via)) {
        gained.set(c, [...(gained.get(c) ?? []), [cap, g]]);
        // A new grant at an ancestor covers escalated grants below it; a binding stays listed (a route of its own).
        const byGroup = held.get(c)!.get(cap)!;
        for (const other of [...byGroup.keys()]) {
          if (other === g || !ix.within(other, g)) continue;
          const kept = byGroup.get(other)!.filter((v) => v.kind === "binding");
          if (kept.length) byGroup.set(other, kept);
          else byGroup.delete(other);
        }
      }
    }
    gainedLast = gained;
    if (gained.size === 0) break;
  }

  // Each member's grants: its own bindings where it has them, else the class's way, entered by `present` steps.
  const words = new WeakMap<EscalationStep, [string, string]>();
  const wordsOf = (s: EscalationStep): [string, string] => {
    let w = words.get(s);
    if (!w) words.set(s, (w = [stepWords(ix, s), stepWords(ix, s, true)]));
    return w;
  };
  const own = new Map<ClassVia, Via>();
  const viaOf = (m: string, v: ClassVia): Via => {
    if (v.origin === m) {
      let hit = own.get(v);
      if (!hit) {
        hit = { kind: v.kind, roleId: v.roleId, role: v.role, boundAt: v.boundAt, steps: v.path.map((s) => wordsOf(s)[0]), path: v.path };
        if (v.kind === "escalation") hit.route = v.path.map((s) => wordsOf(s)[1]);
        own.set(v, hit);
      }
      return hit;
    }
    const path = once([...pc.chain(m, v.origin), ...v.path]);
    return { kind: "escalation", roleId: v.roleId, role: v.role, boundAt: v.boundAt, steps: path.map((s) => wordsOf(s)[0]), path, route: path.map((s) => wordsOf(s)[1]) };
  };
  // A class row's route: the class's members enter the origin, then the origin's own steps (or binding).
  const classVias = new Map<ClassVia, Via>();
  const classViaOf = (c: number, v: ClassVia): Via => {
    let hit = classVias.get(v);
    if (hit) return hit;
    const ms = members[c]!;
    const entry = `each identity of the class presents as identity "${ix.identityName(v.origin)}" (${ix.identityPath(v.origin)}): ${pc.clique(c) ? "its own workload token matches that claimMatch" : "its own workload token, or one it takes by the class's present steps, matches that claimMatch"}`;
    const tail = v.kind === "binding" ? [`"${ix.identityName(v.origin)}" holds "${v.role}" bound at ${ix.groupPath(v.boundAt)}`] : [];
    const other = ms.find((m) => m !== v.origin) ?? v.origin;
    const path = [{ kind: "present", actorId: other, targetId: v.origin } as EscalationStep, ...v.path];
    hit = { kind: "escalation", roleId: v.roleId, role: v.role, boundAt: v.boundAt, steps: [entry, ...v.path.map((s) => wordsOf(s)[0]), ...tail], path, route: [entry, ...v.path.map((s) => wordsOf(s)[1]), ...tail] };
    classVias.set(v, hit);
    return hit;
  };
  const classKeys = new Map<number, string>();
  const classKeyOf = (c: number): string => {
    let k = classKeys.get(c);
    if (k === undefined) classKeys.set(c, (k = [...new Set(members[c]!.map((m) => { const cm = ix.identities.get(m)?.claimMatch; return cm ? claimKey(cm) : `id:${m}`; }))].sort().join("\n")));
    return k;
  };
  const out: Grant[] = [];
  for (const [c, h] of held) {
    const ms = members[c]!;
    const oneStep = pc.clique(c);
    const shared = opts.classRowsFrom !== undefined && ms.length >= opts.classRowsFrom;
    for (const [cap, byGroup] of h) {
      for (const [g, vias] of byGroup) {
        const covered = ix.ancestors(g).slice(1).some((a) => byGroup.has(a));
        // The members' own bindings here, by member; the class's shortest way for the others.
        const mineOf = new Map<string, ClassVia[]>();
        for (const v of vias) if (v.kind === "binding") mineOf.set(v.origin, [...(mineOf.get(v.origin) ?? []), v]);
        const best = shortest(vias);
        if (shared) {
          // A large class: each member's own bindings, then one row the whole class holds (unless an ancestor's does).
          for (const [m, mine] of mineOf) out.push({ identityId: m, capability: cap, groupId: g, via: mine.map((v) => viaOf(m, v)) });
          if (!covered && mineOf.size < ms.length) out.push({ identityId: ms[0]!, members: ms, classKey: classKeyOf(c), capability: cap, groupId: g, via: [classViaOf(c, best)] });
          continue;
        }
        const esc = vias.find((v) => v.kind === "escalation");
        for (const m of ms) {
          const mine = mineOf.get(m);
          if (mine) out.push({ identityId: m, capability: cap, groupId: g, via: mine.map((v) => viaOf(m, v)) });
          else if (!covered) {
            // In a class whose members each present for every other, entering costs one step (none from the origin).
            const v = oneStep ? (esc?.origin === m && esc.path.length <= best.path.length + 1 ? esc : best) : vias.reduce((a, b) => (cost(m, b) < cost(m, a) ? b : a));
            out.push({ identityId: m, capability: cap, groupId: g, via: [viaOf(m, v)] });
          }
        }
      }
    }
  }
  function cost(m: string, v: ClassVia): number {
    return v.path.length + (v.origin === m ? 0 : pc.chain(m, v.origin).length);
  }
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
