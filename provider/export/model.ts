/**
 * The export's model of an org: what the reader found, arranged as a person would declare it.
 *
 * - **Paths.** Every group has a path of names from the anchor (`engineering/platform/ci-cd`); an identity, custom
 *   role or identity provider has its group's path plus its own name. Siblings of one kind with the same name
 *   (names need not be unique) get the first 6 hex of their uid's last segment appended (`ci-3f2a9b`), so paths
 *   are unique and depend on nothing but the objects themselves.
 * - **Resource names** are those paths (a role binding: `<identity>@<group>#<role>`, as the org-setup program
 *   names them; an account association: its group's path), so they are unique per kind and stable across
 *   exports of the same org.
 * - **Variable names** are the shortest trailing run of path segments, in camelCase, that no other object
 *   shares (`ciBot`, then `platformCiBot`); an exact tie falls back to the kind (`ciBotIdentity`), then the uid.
 * - **References** point at the declared object's variable when the export declares it, at a built-in role
 *   looked up by name, at the anchor, or (only when nothing is declared for it) at the uid as a string.
 *
 * Everything is ordered deterministically (paths, then uids), so a second export of the same org writes the
 * same bytes.
 */
import type * as Api from "../client/types";
import { KIND_NAMES, type KindApi } from "../kinds/registry";
import { GENERIC_KINDS, genericCollection, type ExportKind, type GenericCollection, type GenericKind, type HandPlacedKind } from "./kinds";
import type { OrgSnapshot } from "./read";
import { checkSnapshot } from "./trust";

export type { ExportKind } from "./kinds";

/** The model's collection of each kind placed by hand. */
const HAND_COLLECTION = {
  Group: "groups",
  Identity: "identities",
  Role: "roles",
  RoleBinding: "roleBindings",
  IdentityProvider: "identityProviders",
  AccountAssociation: "accountAssociations",
  Repo: "repos",
  Tag: "tags",
  Overlay: "overlays",
  OverlayBinding: "overlayBindings",
} as const satisfies { readonly [K in HandPlacedKind]: keyof OrgModel };

/**
 * The model's collection of each exported kind: the hand-placed kinds', then each generic kind's
 * ({@link GenericCollection}, in the registry's order). Whatever walks the model kind by kind (the split layout
 * picks each stack's share of every collection) iterates this, so a generic kind is walked with no edit here.
 */
export const MODEL_COLLECTION = {
  ...HAND_COLLECTION,
  ...Object.fromEntries(GENERIC_KINDS.map((k) => [k.kind, genericCollection(k.kind)])),
} as typeof HAND_COLLECTION & { readonly [K in GenericKind]: GenericCollection<K> };

/** A node of the model: a declared object of any exported kind. */
export type ModelNode = OrgModel[(typeof MODEL_COLLECTION)[ExportKind]][number];

/** Every declared node of `m`, kind by kind in {@link MODEL_COLLECTION}'s order. */
export function modelNodes(m: OrgModel): ModelNode[] {
  return Object.values(MODEL_COLLECTION).flatMap((k): ModelNode[] => m[k]);
}

/** A reference from one declared object to another object. */
export type Ref =
  | { to: "anchor" }
  | { to: "declared"; node: GroupNode | IdentityNode | RoleNode | RepoNode | OverlayNode }
  | { to: "builtin"; name: string; varName: string }
  /** Nothing declared for it: the uid itself, with a note saying what it is. */
  | { to: "uid"; uid: string; note: string };

interface NodeBase {
  uid: string;
  /** Pulumi resource name (unique per kind, stable across exports). */
  resourceName: string;
  /** Path from the anchor (see the module comment). */
  path: string;
  /** The group it lives in (`anchor` or a declared group). */
  parent: Ref;
  /**
   * References its declared fields make to other objects, by field name, or `<field>.<member>` for a member of
   * an object field (a repo's `syncConfig.source`): the writers write each as a reference, not the uid.
   */
  refs?: Record<string, Ref>;
  /** Values of state-only fields the reader found beside the object (a repo's `readme`), by field name. */
  local?: Record<string, unknown>;
}

/** A group to declare. */
export interface GroupNode extends NodeBase {
  kind: "Group";
  api: Api.ApiGroup;
  varName: string;
  children: GroupNode[];
}

/** An identity to declare. */
export interface IdentityNode extends NodeBase {
  kind: "Identity";
  api: Api.ApiIdentity;
  varName: string;
}

/** A custom role to declare. */
export interface RoleNode extends NodeBase {
  kind: "Role";
  api: Api.ApiRole;
  varName: string;
}

/** An identity provider to declare; its client secret comes from stack config `secretKey`. */
export interface IdentityProviderNode extends NodeBase {
  kind: "IdentityProvider";
  api: Api.ApiIdentityProvider;
  varName: string;
  /** Stack config key holding the client secret (the API never returns it). */
  secretKey: string;
  defaultRole: Ref | undefined;
}

/** A role binding to declare. */
export interface RoleBindingNode extends NodeBase {
  kind: "RoleBinding";
  api: Api.ApiRoleBinding;
  identity: Ref;
  role: Ref;
}

/** An account association to declare (adopted with `adopt: true`: its uid is its group's). */
export interface AccountAssociationNode extends NodeBase {
  kind: "AccountAssociation";
  api: Api.ApiAccountAssociation;
}

/** A repo to declare, with its README (when it does not sync) and the repo it syncs from. */
export interface RepoNode extends NodeBase {
  kind: "Repo";
  api: Api.ApiRepo;
  varName: string;
  /** Its README; undefined for a synced repo (whose README is its source's). */
  readme: string | undefined;
  /** The repo it syncs from, when it syncs. */
  syncSource: Ref | undefined;
}

/** A tag to declare, under its repo. */
export interface TagNode extends NodeBase {
  kind: "Tag";
  api: Api.ApiTag;
  repo: RepoNode;
}

/** An overlay to declare. */
export interface OverlayNode extends NodeBase {
  kind: "Overlay";
  api: Api.ApiOverlay;
  varName: string;
}

/** An overlay binding to declare, under its repo. */
export interface OverlayBindingNode extends NodeBase {
  kind: "OverlayBinding";
  api: Api.ApiOverlayBinding;
  repo: RepoNode;
  overlay: Ref;
}

/**
 * An object of a generic kind (`kinds.ts`) to declare, in its group: `path` is the group's path (`/` for the
 * anchor), the resource name `<group path>-><label>` (its declaration's `listing` label), with `~<6 hex of its uid>`
 * when two of the kind would share one.
 */
export interface GenericNode<K extends GenericKind = GenericKind> extends NodeBase {
  kind: K;
  api: KindApi<K>;
}

/** A subscription to declare (a generic kind). */
export type SubscriptionNode = GenericNode<"Subscription">;

/** The model's nodes of each generic kind, by its collection. */
export type GenericModel = { [K in GenericKind as GenericCollection<K>]: Array<GenericNode<K>> };

/** The model's nodes of a generic kind (`kinds.ts`). */
export function genericNodes(m: GenericModel, kind: GenericKind): readonly GenericNode[] {
  return m[genericCollection(kind)];
}

/** Objects the export leaves out, by kind, with why. */
export interface Skipped {
  kind: string;
  count: number;
  why: string;
  /**
   * The objects left out, by uid and path, when the export read them (the org file's own leave-outs: objects the
   * model declares that the file cannot hold); absent for objects it could not read.
   */
  objects?: Array<{ uid: string; path: string }>;
}

/** The org as the writers see it: the hand-placed kinds ({@link HandModel}) and the generic ones ({@link GenericModel}). */
export type OrgModel = HandModel & GenericModel;

/** The org as the writers see it, the generic kinds aside. */
export interface HandModel {
  snapshot: OrgSnapshot;
  /** Groups in depth-first order (parents before children; siblings by name, then uid). */
  groups: GroupNode[];
  /** Top-level groups (children of the anchor), in order. */
  topGroups: GroupNode[];
  identities: IdentityNode[];
  roles: RoleNode[];
  identityProviders: IdentityProviderNode[];
  roleBindings: RoleBindingNode[];
  accountAssociations: AccountAssociationNode[];
  repos: RepoNode[];
  tags: TagNode[];
  overlays: OverlayNode[];
  overlayBindings: OverlayBindingNode[];
  /** Built-in roles referred to, by name, with their variable names. */
  builtinRoles: Array<{ name: string; varName: string }>;
  skipped: Skipped[];
}

/**
 * Identifiers a generated program already declares (every layout and format: `typescript.ts`, `split.ts`: the
 * imports, `config`, `orgUid`, `underUid`, a split stack's `uids` output, `_uid`, `_refs`, `_stacks`, the YAML
 * layout's `org`, `Org` and `counts`), JavaScript's reserved words, and globals a module-level `const` would shadow.
 */
export const RESERVED: ReadonlySet<string> = new Set([
  "pulumi", "config", "platformConfig", "orgUid", "underUid", "uids", "_uid", "_refs", "_stacks", "org", "Org", "counts", "outside",
  "Group", "Identity", "Role", "RoleBinding", "IdentityProvider", "AccountAssociation", "getRoleOutput",
  "Repo", "Tag", "Overlay", "OverlayBinding", ...KIND_NAMES,
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum", "export", "extends",
  "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null", "return", "super", "switch", "this",
  "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield", "let", "static", "implements", "interface", "package",
  "private", "protected", "public", "await", "arguments", "eval", "undefined", "NaN", "Infinity", "require", "module", "exports",
  "process", "console", "globalThis", "__dirname", "__filename", "as", "any", "type", "declare", "namespace", "of",
]);

/** camelCase of path segments: `["ci-cd", "ci bot"]` → `ciCdCiBot`. */
export function camel(segments: readonly string[]): string {
  const words = segments.flatMap((s) => s.toLowerCase().split(/[^a-z0-9]+/)).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

/** The first 6 hex of a uid's last segment: what tells same-named siblings apart. */
function shortUid(uid: string): string {
  return uid.slice(uid.lastIndexOf("/") + 1).slice(0, 6);
}

/** Segment names for siblings of one kind: the name, or name-<6 hex> when another sibling has the same name. */
function segments<T extends { uid: string; name: string }>(siblings: readonly T[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const s of siblings) count.set(s.name, (count.get(s.name) ?? 0) + 1);
  return new Map(siblings.map((s) => [s.uid, count.get(s.name)! > 1 ? `${s.name}-${shortUid(s.uid)}` : s.name]));
}

function byNameThenUid<T extends { uid: string; name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

function parentOf(uid: string): string {
  const i = uid.lastIndexOf("/");
  return i < 0 ? "" : uid.slice(0, i);
}

/** What the variable namer needs of an object. */
interface Nameable {
  uid: string;
  kind: ExportKind;
  /** Path segments, outermost first. */
  segs: string[];
  varName: string;
}

/**
 * Gives each object the shortest trailing run of its path segments (camelCase) that is a valid identifier no
 * other object wants at the same length. An object whose whole path is used up keeps it when only longer paths
 * compete; exact ties add the kind, then the short uid.
 */
function assignVarNames(items: Nameable[], reserved: Iterable<string>): void {
  const taken = new Set<string>([...RESERVED, ...reserved]);
  const valid = (n: string) => n !== "" && /^[a-z_$][A-Za-z0-9_$]*$/.test(n) && !taken.has(n);
  // Every name given goes through here: the first free of `n`, `n_2`, `n_3`, … (no two objects, and no object
  // and the generator, ever share one).
  const claim = (it: Nameable, n: string) => {
    let name = n;
    for (let i = 2; !valid(name); i++) name = `${n}_${i}`;
    it.varName = name;
    taken.add(name);
  };
  const fix = (n: string, kind: ExportKind) => (n === "" || /^[0-9]/.test(n) ? `${kind[0]!.toLowerCase()}${kind.slice(1)}${n[0]?.toUpperCase() ?? ""}${n.slice(1)}` : n);
  let open = [...items].sort((a, b) => (a.uid < b.uid ? -1 : 1));
  const longest = Math.max(0, ...items.map((i) => i.segs.length));
  for (let k = 1; k <= longest && open.length > 0; k++) {
    const cands = new Map<Nameable, string>();
    const counts = new Map<string, number>();
    for (const it of open) {
      const c = fix(camel(it.segs.slice(-k)), it.kind);
      cands.set(it, c);
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    // Among claimants of one name, those whose path is used up at this length win over those that can grow.
    const exhaustedCounts = new Map<string, number>();
    for (const it of open) if (it.segs.length <= k) exhaustedCounts.set(cands.get(it)!, (exhaustedCounts.get(cands.get(it)!) ?? 0) + 1);
    const next: Nameable[] = [];
    for (const it of open) {
      const c = cands.get(it)!;
      const done = it.segs.length <= k;
      const alone = counts.get(c) === 1;
      const winsTie = done && exhaustedCounts.get(c) === 1;
      if (valid(c) && (alone || winsTie)) claim(it, c);
      else if (done) {
        // Used up and tied (or taken): the kind, then the short uid.
        const withKind = `${c}${it.kind}`;
        claim(it, valid(withKind) && exhaustedCounts.get(c) === 1 ? withKind : `${withKind}${shortUid(it.uid)}`);
      } else next.push(it);
    }
    open = next;
  }
  for (const it of open) claim(it, `${fix(camel(it.segs), it.kind)}${it.kind}${shortUid(it.uid)}`);
}

/**
 * Builds the model of a snapshot (pure: no I/O).
 * @throws ExportRefusedError when a value the writers would put into code breaks the API's rule for its field
 *   (`trust.ts`): no model, so no file, is made of it.
 */
export function buildModel(s: OrgSnapshot): OrgModel {
  checkSnapshot(s);
  const anchorUid = s.anchor.uid;
  const skipped: Skipped[] = [];
  const groupsByParent = new Map<string, Api.ApiGroup[]>();
  for (const g of s.groups) groupsByParent.set(parentOf(g.uid), [...(groupsByParent.get(parentOf(g.uid)) ?? []), g]);

  // Groups, depth first from the anchor.
  const groups: GroupNode[] = [];
  const groupByUid = new Map<string, GroupNode>();
  const segsOf = new Map<string, string[]>([[anchorUid, []]]);
  const walk = (parentUid: string, parentRef: Ref): GroupNode[] => {
    const kids = [...(groupsByParent.get(parentUid) ?? [])].sort(byNameThenUid);
    const seg = segments(kids);
    return kids.map((g) => {
      const segs = [...segsOf.get(parentUid)!, seg.get(g.uid)!];
      segsOf.set(g.uid, segs);
      const node: GroupNode = { kind: "Group", api: g, uid: g.uid, path: segs.join("/"), resourceName: segs.join("/"), parent: parentRef, varName: "", children: [] };
      groups.push(node);
      groupByUid.set(g.uid, node);
      node.children = walk(g.uid, { to: "declared", node });
      return node;
    });
  };
  const topGroups = walk(anchorUid, { to: "anchor" });
  const unreachable = s.groups.length - groups.length;
  if (unreachable > 0) skipped.push({ kind: "Group", count: unreachable, why: "under a group the caller cannot list" });

  const parentRef = (uid: string): Ref | undefined => {
    const p = parentOf(uid);
    if (p === anchorUid) return { to: "anchor" };
    const g = groupByUid.get(p);
    return g ? { to: "declared", node: g } : undefined;
  };
  /** Each of `rows` with its parent group; those under a group the caller cannot list are counted as skipped `kind`s. */
  const withParents = <T extends { uid: string }>(rows: readonly T[], kind: string): Array<{ x: T; parent: Ref }> => {
    const out = rows.flatMap((x) => {
      const parent = parentRef(x.uid);
      return parent ? [{ x, parent }] : [];
    });
    if (out.length < rows.length) skipped.push({ kind, count: rows.length - out.length, why: "under a group the caller cannot list" });
    return out;
  };
  /** The fields of a node that `place` placed: its path, and its resource name, is its segments joined by "/". */
  const placedNode = <K extends string, T extends { uid: string }>(kind: K, p: { api: T; segs: string[]; parent: Ref }) =>
    ({ kind, api: p.api, uid: p.api.uid, path: p.segs.join("/"), resourceName: p.segs.join("/"), parent: p.parent, varName: "" });
  /** Nodes of one kind under their groups: paths from the group's path and the sibling-unique segment. */
  const place = <T extends { uid: string; name: string }>(rows: readonly T[], kind: string): Array<{ api: T; segs: string[]; parent: Ref }> => {
    const byParent = new Map<string, T[]>();
    let lost = 0;
    for (const r of rows) {
      if (!segsOf.has(parentOf(r.uid))) {
        lost++;
        continue;
      }
      byParent.set(parentOf(r.uid), [...(byParent.get(parentOf(r.uid)) ?? []), r]);
    }
    if (lost > 0) skipped.push({ kind, count: lost, why: "under a group the caller cannot list" });
    const out: Array<{ api: T; segs: string[]; parent: Ref }> = [];
    for (const [p, list] of byParent) {
      const seg = segments(list);
      for (const r of list) out.push({ api: r, segs: [...segsOf.get(p)!, seg.get(r.uid)!], parent: parentRef(r.uid)! });
    }
    return out.sort((a, b) => (a.segs.join("/") < b.segs.join("/") ? -1 : a.segs.join("/") > b.segs.join("/") ? 1 : a.api.uid < b.api.uid ? -1 : 1));
  };

  // Identities: only those with a relationship these resources declare (users have none and cannot be created).
  const RELATIONSHIPS = ["claimMatch", "staticKeys", "awsIdentity", "servicePrincipal"] as const;
  const declarable = s.identities.filter((i) => RELATIONSHIPS.some((k) => i[k] !== undefined && i[k] !== null));
  if (declarable.length < s.identities.length) {
    skipped.push({ kind: "Identity", count: s.identities.length - declarable.length, why: "user identities (no claimMatch, staticKeys, awsIdentity or servicePrincipal): people sign in, they are not declared" });
  }
  const identities: IdentityNode[] = place(declarable, "Identity").map((p) => placedNode("Identity", p));
  const roles: RoleNode[] = place(s.roles, "Role").map((p) => placedNode("Role", p));
  const placedIdps = place(s.identityProviders, "IdentityProvider");

  const identityByUid = new Map(identities.map((n) => [n.uid, n]));
  const roleByUid = new Map(roles.map((n) => [n.uid, n]));
  const outside = new Map(s.outsideRoles.map((r) => [r.uid, r]));
  const builtinVars = new Map<string, string>();
  const builtinVar = (name: string) => {
    const v = builtinVars.get(name) ?? `${camel([name])}Role`;
    builtinVars.set(name, v);
    return v;
  };
  const roleRef = (uid: string, hydratedName?: string): Ref => {
    const declared = roleByUid.get(uid);
    if (declared) return { to: "declared", node: declared };
    const r = outside.get(uid);
    if (r && !r.uid.includes("/")) return { to: "builtin", name: r.name, varName: builtinVar(r.name) };
    const name = r?.name ?? hydratedName;
    return { to: "uid", uid, note: name ? `role "${name}", outside this export` : "a role outside this export" };
  };

  const idps: IdentityProviderNode[] = placedIdps.map((p) => ({
    ...placedNode("IdentityProvider", p),
    secretKey: "",
    defaultRole: p.api.defaultRole ? roleRef(p.api.defaultRole) : undefined,
  }));
  for (const p of idps) if (p.defaultRole) p.refs = { defaultRole: p.defaultRole };

  // Registry: repos and overlays in their groups; tags and overlay bindings under their repos.
  const placedRepos = place(s.repos, "Repo");
  const repos: RepoNode[] = placedRepos.map((p) => ({
    ...placedNode("Repo", p),
    readme: p.api.sync_config ? undefined : s.readmes.get(p.api.uid),
    syncSource: undefined,
    local: { readme: p.api.sync_config ? undefined : s.readmes.get(p.api.uid) },
  }));
  const repoByUid = new Map(repos.map((r) => [r.uid, r]));
  for (const r of repos) {
    const src = r.api.sync_config?.source;
    if (src) {
      const node = repoByUid.get(src);
      r.syncSource = node ? { to: "declared", node } : { to: "uid", uid: src, note: "a repo outside this export" };
      r.refs = { "syncConfig.source": r.syncSource };
    }
  }
  const overlays: OverlayNode[] = place(s.overlays, "Overlay").map((p) => placedNode("Overlay", p));
  const overlayByUid = new Map(overlays.map((o) => [o.uid, o]));
  const underRepo = <T extends { uid: string }>(rows: readonly T[], kind: string): Array<{ api: T; repo: RepoNode }> => {
    const out: Array<{ api: T; repo: RepoNode }> = [];
    let lost = 0;
    for (const r of rows) {
      const repo = repoByUid.get(parentOf(r.uid));
      if (repo) out.push({ api: r, repo });
      else lost++;
    }
    if (lost > 0) skipped.push({ kind, count: lost, why: "under a repo the caller cannot list" });
    return out;
  };
  const uniqueNames = <T extends { resourceName: string; uid: string }>(rows: T[]): T[] => {
    const seen = new Map<string, number>();
    for (const r of rows) seen.set(r.resourceName, (seen.get(r.resourceName) ?? 0) + 1);
    for (const r of rows) if (seen.get(r.resourceName)! > 1) r.resourceName = `${r.resourceName}~${shortUid(r.uid)}`;
    return rows.sort((a, b) => (a.resourceName < b.resourceName ? -1 : a.resourceName > b.resourceName ? 1 : a.uid < b.uid ? -1 : 1));
  };
  const allTags = underRepo(s.tags, "Tag");
  const syncedTags = allTags.filter((t) => t.repo.api.sync_config !== undefined).length;
  if (syncedTags > 0) skipped.push({ kind: "Tag", count: syncedTags, why: "tags of a repo that syncs come from its source: the sync, not this program, keeps them" });
  const tags: TagNode[] = uniqueNames(
    allTags.filter((t) => t.repo.api.sync_config === undefined).map(({ api, repo }) => ({ kind: "Tag" as const, api, uid: api.uid, path: repo.path, resourceName: `${repo.path}:${api.name}`, parent: repo.parent, repo })),
  );
  const overlayBindings: OverlayBindingNode[] = uniqueNames(
    underRepo(s.overlayBindings, "OverlayBinding").map(({ api, repo }) => {
      const ouid = api.overlay?.uid ?? "";
      const declared = overlayByUid.get(ouid);
      const overlay: Ref = declared ? { to: "declared", node: declared } : { to: "uid", uid: ouid, note: `overlay ${api.overlay?.name ? `"${api.overlay.name}", ` : ""}outside this export` };
      return { kind: "OverlayBinding" as const, api, uid: api.uid, path: repo.path, resourceName: `${repo.path}#${declared ? declared.path : ouid}`, parent: repo.parent, repo, overlay, refs: { overlay } };
    }),
  );
  // Generic kinds (kinds.ts): children of their groups, named by the group's path and the declaration's label.
  const generic: Record<string, GenericNode[]> = {};
  for (const k of GENERIC_KINDS) {
    const rows = s[genericCollection(k.kind)] as ReadonlyArray<{ uid: string }>;
    if (k.export !== undefined) {
      if (rows.length > 0) skipped.push({ kind: k.kind, count: rows.length, why: k.export.skip });
      generic[genericCollection(k.kind)] = [];
      continue;
    }
    generic[genericCollection(k.kind)] = uniqueNames(
      withParents(rows, k.kind).map(({ x, parent }): GenericNode => {
        const groupPath = parent.to === "declared" ? parent.node.path : "/";
        return { kind: k.kind, api: x as GenericNode["api"], uid: x.uid, path: groupPath, resourceName: `${groupPath}->${k.labelOf(x)}`, parent };
      }),
    );
  }

  // Variables for everything another object (or a person) refers to.
  const nameables: Array<Nameable & { target: { varName: string } }> = [
    ...groups.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
    ...identities.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
    ...roles.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
    ...idps.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
    ...repos.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
    ...overlays.map((n) => ({ uid: n.uid, kind: n.kind, segs: n.path.split("/"), varName: "", target: n })),
  ];
  // Built-in role variables are fixed names (`viewerRole`): reserved before naming the rest.
  assignVarNames(nameables, s.outsideRoles.filter((r) => !r.uid.includes("/")).map((r) => `${camel([r.name])}Role`));
  for (const n of nameables) n.target.varName = n.varName;
  for (const p of idps) p.secretKey = `${p.varName}ClientSecret`;

  // Role bindings, at their groups, by the names of what they bind.
  const bindingsPlaced: RoleBindingNode[] = [];
  for (const { x: b, parent } of withParents(s.roleBindings, "RoleBinding")) {
    const identityUid = b.identityUid ?? b.identity?.uid ?? "";
    const roleUid = b.roleUid ?? b.role?.uid ?? "";
    const idNode = identityByUid.get(identityUid);
    const who = b.identity?.email || b.identity?.name;
    const identity: Ref = idNode ? { to: "declared", node: idNode } : { to: "uid", uid: identityUid, note: who ? `identity "${who}", outside this export` : "an identity outside this export" };
    const role = roleRef(roleUid, b.role?.name);
    const groupPath = parent.to === "declared" ? parent.node.path : "/";
    const identityLabel = identity.to === "declared" ? identity.node.path : identityUid;
    const roleLabel = role.to === "declared" ? role.node.path : role.to === "builtin" ? role.name : roleUid;
    bindingsPlaced.push({ kind: "RoleBinding", api: b, uid: b.uid, path: groupPath, resourceName: `${identityLabel}@${groupPath}#${roleLabel}`, parent, identity, role, refs: { identityUid: identity, roleUid: role } });
  }
  const sameName = new Map<string, number>();
  for (const b of bindingsPlaced) sameName.set(b.resourceName, (sameName.get(b.resourceName) ?? 0) + 1);
  for (const b of bindingsPlaced) if (sameName.get(b.resourceName)! > 1) b.resourceName = `${b.resourceName}~${shortUid(b.uid)}`;
  const groupOrder = new Map(groups.map((g, i) => [g.uid, i]));
  const orderOf = (r: Ref) => (r.to === "declared" ? (groupOrder.get(r.node.uid) ?? -1) : -1);
  const roleBindings = bindingsPlaced.sort((a, b) => orderOf(a.parent) - orderOf(b.parent) || (a.resourceName < b.resourceName ? -1 : a.resourceName > b.resourceName ? 1 : 0));

  // Account associations, named by their group's path ("/" for the anchor's own).
  const accountAssociations: AccountAssociationNode[] = [];
  for (const a of s.accountAssociations) {
    const g = a.uid === anchorUid ? undefined : groupByUid.get(a.uid);
    if (a.uid !== anchorUid && !g) continue;
    accountAssociations.push({ kind: "AccountAssociation", api: a, uid: a.uid, path: g?.path ?? "/", resourceName: g?.path ?? "/", parent: g ? { to: "declared", node: g } : { to: "anchor" } });
  }
  accountAssociations.sort((a, b) => orderOf(a.parent) - orderOf(b.parent));

  if (s.groupInvites > 0) skipped.push({ kind: "GroupInvite", count: s.groupInvites, why: "an invite's code is returned only when it is created and cannot be read back; invite again after adoption if needed" });

  return {
    snapshot: s,
    groups,
    topGroups,
    identities,
    roles,
    identityProviders: idps,
    roleBindings,
    accountAssociations,
    repos,
    tags,
    overlays,
    overlayBindings,
    ...(generic as GenericModel),
    builtinRoles: [...builtinVars].map(([name, varName]) => ({ name, varName })).sort((a, b) => (a.name < b.name ? -1 : 1)),
    skipped,
  };
}
