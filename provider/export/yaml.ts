/**
 * The export's YAML writer: the org-setup program's org file (`examples/org-setup`, format in its
 * README) with a `uid` on each object, which the program passes as `adoptUid`. The file format holds nested
 * groups, claimMatch identities with an exact issuer and subject, custom roles, bindings (built-in roles by name,
 * or the file's roles as the program resolves them), repos with a description, sync config and README, and
 * subscriptions; what it cannot express is listed as skipped, with why (an object the program would declare
 * differently from the server would be changed by the adoption, so it is left out instead).
 *
 * Server text reaches the file only as scalars of the document the `yaml` library writes (it quotes each one as
 * its content needs, line breaks and `#` included); the header lines hold none. The model has already refused
 * values that break the API's rules (`trust.ts`).
 */
import { stringify } from "yaml";
import { dottedName, wireName } from "../capabilities";
import { KINDS } from "../kinds/registry";
import type { GroupNode, OrgModel, Ref, Skipped } from "./model";
import { declaredCounts } from "./typescript";

/** The kinds the org file holds (its sections); the export skips every other kind, saying so. */
const ORG_FILE_KINDS: ReadonlySet<string> = new Set(["Group", "Identity", "Role", "RoleBinding", "Repo", "Subscription", "GroupInvite"]);

/** An org file group with its uid (none for an outside group). */
interface YamlGroup {
  name: string;
  uid?: string;
  outside?: true;
  description?: string;
  groups?: YamlGroup[];
}

/** The org file's text and what it could not hold. */
export interface OrgFileExport {
  text: string;
  /** Counts written, by kind. */
  counts: Record<string, number>;
  skipped: Skipped[];
  /** The uids of the objects the file declares. */
  written: Set<string>;
  /** What the file refers to outside itself (only with {@link OrgFileOptions}): uid by path, per kind. */
  outside: { groups: Map<string, string>; identities: Map<string, string>; roles: Map<string, string> };
}

/**
 * Options of {@link writeOrgFile} for one stack of the split layout (`split.ts`): the file holds some groups of the
 * org's tree, declared or outside, and its bindings may name identities and roles another stack declares.
 */
export interface OrgFileOptions {
  /** The org's whole tree of groups (the model's own `topGroups` are one stack's). */
  tree: readonly GroupNode[];
  /** The groups the file holds (uids): its own and, above and around them, the outside ones. */
  groups: ReadonlySet<string>;
  /** Of those, the groups another stack declares (written `outside: true`, without uid). */
  outsideGroups: ReadonlySet<string>;
  /** Identities and roles another stack declares that the file's bindings may name (uids). */
  outsideObjects: ReadonlySet<string>;
  /** The header comment lines (default: the one-stack export's). */
  header?: readonly string[];
}

/** Writes the model as an org file; `o` for one stack of a split layout. */
export function writeOrgFile(m: OrgModel, o?: OrgFileOptions): OrgFileExport {
  const outside = { groups: new Map<string, string>(), identities: new Map<string, string>(), roles: new Map<string, string>() };
  const skipped: Skipped[] = [...m.skipped];
  const skip = (kind: string, count: number, why: string, objects?: Array<{ uid: string; path: string }>) => {
    if (count > 0) skipped.push({ kind, count, why, ...(objects?.length ? { objects } : {}) });
  };
  /** The declared objects each leave-out reason names (`skip`'s `objects`). */
  const left = { notExact: [] as Array<{ uid: string; path: string }>, identities: [] as Array<{ uid: string; path: string }>, roles: [] as Array<{ uid: string; path: string }>, bindings: [] as Array<{ uid: string; path: string }>, repos: [] as Array<{ uid: string; path: string }>, subscriptions: [] as Array<{ uid: string; path: string }> };
  // Paths in the file are names joined by "/", unique: a group with a same-named sibling cannot be referred to.
  const inFile = new Set<string>();
  let dupGroups = 0;
  const walk = (g: GroupNode): YamlGroup | undefined => {
    if (o && !o.groups.has(g.uid)) return undefined;
    if (o?.outsideGroups.has(g.uid)) {
      inFile.add(g.uid);
      outside.groups.set(g.path, g.uid);
      const kids = g.children.map(walk).filter((x): x is YamlGroup => x !== undefined);
      return { name: g.api.name, outside: true, ...(kids.length ? { groups: kids } : {}) };
    }
    if (g.path.split("/").pop() !== g.api.name) {
      const count = (n: GroupNode): number => 1 + n.children.reduce((a, c) => a + count(c), 0);
      dupGroups += count(g);
      return undefined;
    }
    inFile.add(g.uid);
    const kids = g.children.map(walk).filter((x): x is YamlGroup => x !== undefined);
    return { name: g.api.name, uid: g.uid, ...(g.api.description ? { description: g.api.description } : {}), ...(kids.length ? { groups: kids } : {}) };
  };
  const groups = (o?.tree ?? m.topGroups).map(walk).filter((x): x is YamlGroup => x !== undefined);
  skip("Group", dupGroups, "a sibling has the same name, and the org file refers to groups by their path of names (with what is under them)");

  const identities: Array<Record<string, unknown>> = [];
  const identityPath = new Map<string, string>();
  let notExact = 0;
  let outOfFile = 0;
  for (const i of m.identities) {
    const cm = i.api.claimMatch;
    const exact = cm && cm.issuer && cm.subject && Object.entries(cm).every(([k, v]) => ["issuer", "subject"].includes(k) || v === undefined || v === "" || (typeof v === "object" && Object.keys(v).length === 0));
    const group = i.parent.to === "declared" && inFile.has(i.parent.node.uid) ? i.parent.node.path : undefined;
    if (!exact) {
      notExact++;
      left.notExact.push({ uid: i.uid, path: i.path });
    } else if (group === undefined || i.path.split("/").pop() !== i.api.name) {
      outOfFile++;
      left.identities.push({ uid: i.uid, path: i.path });
    }
    else {
      identityPath.set(i.uid, i.path);
      identities.push({ name: i.api.name, uid: i.uid, group, ...(i.api.description ? { description: i.api.description } : {}), claimMatch: { issuer: cm!.issuer, subject: cm!.subject } });
    }
  }
  skip("Identity", notExact, "the org file holds claimMatch identities with an exact issuer and subject only (use --format ts)", left.notExact);
  skip("Identity", outOfFile, "in the group the file's top-level groups live in (the root or the --under group), or a group the file cannot hold (use --format ts)", left.identities);

  /** The file path of the group an object lives in, or undefined when the file does not hold that group. */
  const groupIn = ({ parent }: { parent: Ref }): string | undefined => (parent.to === "declared" && inFile.has(parent.node.uid) ? parent.node.path : undefined);
  /** Whether an object's path ends in its own name (not a `name-<hex>` told apart from a same-named sibling). */
  const named = (path: string, name: string) => path === name || path.endsWith(`/${name}`);

  // Custom roles, at their groups; capabilities dotted when that spelling maps back exactly.
  const roles: Array<Record<string, unknown>> = [];
  const fileRoles: Array<{ uid: string; name: string; group: string }> = [];
  let rolesOut = 0;
  for (const r of m.roles) {
    const group = groupIn(r);
    if (group === undefined || !named(r.path, r.api.name)) {
      rolesOut++;
      left.roles.push({ uid: r.uid, path: r.path });
    } else {
      fileRoles.push({ uid: r.uid, name: r.api.name, group });
      const caps = [...new Set(r.api.capabilities)].sort().map((w) => (wireName(dottedName(w)) === w ? dottedName(w) : w));
      roles.push({ name: r.api.name, uid: r.uid, group, ...(r.api.description ? { description: r.api.description } : {}), capabilities: caps });
    }
  }
  skip("Role", rolesOut, "in the group the file's top-level groups live in (the root or the --under group), or with a same-named sibling: the org file puts roles in its groups, by name (use --format ts)", left.roles);
  /** The role the org-setup program would bind for `name` at `group`: the file's nearest at or above, else a built-in. */
  const resolves = (name: string, group: string) =>
    fileRoles.filter((r) => r.name === name && (group === r.group || group.startsWith(`${r.group}/`))).sort((a, b) => b.group.length - a.group.length)[0]?.uid;

  // Identities and roles of another stack the bindings name: by path, as the program gives them (`outside`).
  for (const b of m.roleBindings) {
    if (b.identity.to === "declared" && o?.outsideObjects.has(b.identity.node.uid)) identityPath.set(b.identity.node.uid, b.identity.node.path);
    const r = b.role.to === "declared" ? b.role.node : undefined;
    if (r?.kind === "Role" && o?.outsideObjects.has(r.uid) && r.parent.to === "declared" && !fileRoles.some((f) => f.uid === r.uid)) {
      fileRoles.push({ uid: r.uid, name: r.api.name, group: r.parent.node.path });
    }
  }
  const bindings: Array<Record<string, unknown>> = [];
  let unbindable = 0;
  for (const b of m.roleBindings) {
    const identity = b.identity.to === "declared" ? identityPath.get(b.identity.node.uid) : undefined;
    const group = groupIn(b);
    const role =
      group === undefined ? undefined
      : b.role.to === "builtin" && resolves(b.role.name, group) === undefined ? b.role.name
      : b.role.to === "declared" && b.role.node.kind === "Role" && resolves(b.role.node.api.name, group) === b.role.node.uid ? b.role.node.api.name
      : undefined;
    if (identity === undefined || group === undefined || role === undefined) {
      unbindable++;
      left.bindings.push({ uid: b.uid, path: b.path });
    } else {
      bindings.push({ identity, group, role, uid: b.uid });
      if (b.identity.to === "declared" && o?.outsideObjects.has(b.identity.node.uid)) outside.identities.set(identity, b.identity.node.uid);
      const r = b.role.to === "declared" ? b.role.node : undefined;
      if (r && o?.outsideObjects.has(r.uid)) outside.roles.set(`${fileRoles.find((f) => f.uid === r.uid)!.group}/${role}`, r.uid);
    }
  }
  skip("RoleBinding", unbindable, "the org file binds its own identities, at its own groups, to built-in roles or its own roles by name (use --format ts)", left.bindings);

  // Repos: the file holds name, description, sync config and README; one with more would be changed by adoption.
  const repos: Array<Record<string, unknown>> = [];
  let reposOut = 0;
  for (const r of m.repos) {
    const a = r.api;
    const group = groupIn(r);
    const extra = !a.sync_config && ((a.aliases?.length ?? 0) > 0 || (a.activeTags?.length ?? 0) > 0 || (a.bundles?.length ?? 0) > 0 || (a.catalogTier ?? "CATALOG_TIER_UNSPECIFIED") !== "CATALOG_TIER_UNSPECIFIED");
    const overlay = a.customOverlay !== undefined && Object.keys(a.customOverlay).length > 0;
    if (group === undefined || extra || overlay || !named(r.path, a.name)) {
      reposOut++;
      left.repos.push({ uid: r.uid, path: r.path });
    } else {
      const sync = a.sync_config ? Object.fromEntries((["source", "amazon", "google", "azure"] as const).filter((k) => a.sync_config![k]).map((k) => [k, a.sync_config![k]])) : undefined;
      repos.push({ name: a.name, uid: r.uid, group, ...(a.description ? { description: a.description } : {}), ...(sync ? { syncConfig: sync } : {}), ...(r.readme ? { readme: r.readme } : {}) });
    }
  }
  skip("Repo", reposOut, "aliases, active tags, bundles, a catalog tier or a custom overlay (the org file has none of them), a same-named sibling, or the group the file's top-level groups live in (use --format ts)", left.repos);
  const subscriptions: Array<Record<string, unknown>> = [];
  let subsOut = 0;
  for (const x of m.subscriptions) {
    const group = groupIn(x);
    if (group === undefined) {
      subsOut++;
      left.subscriptions.push({ uid: x.uid, path: x.path });
    } else subscriptions.push({ group, sink: x.api.sink, uid: x.uid });
  }
  skip("Subscription", subsOut, "in the group the file's top-level groups live in (the root or the --under group), which the org file cannot name (use --format ts)", left.subscriptions);
  // Every other kind of the registry the export declares has no place in the org file.
  const declared = declaredCounts(m);
  for (const k of KINDS) if (!ORG_FILE_KINDS.has(k.kind)) skip(k.kind, declared[k.kind] ?? 0, `the org file has no ${k.what}s (use --format ts)`);

  const header = o?.header ?? [
    "# Exported by `platform-pulumi export --format yaml`: the org-setup program's org file, with the uid of each",
    "# existing object, which the program adopts (adoptUid) instead of creating it. parentUid: the group its",
    "# top-level groups live under (the org's root group, or the --under group), which Org takes when given none.",
  ];
  const count = (gs: YamlGroup[]): number => gs.reduce((a, g) => a + (g.outside ? 0 : 1) + count(g.groups ?? []), 0);
  const written = new Set<string>([...inFile].filter((u) => !o?.outsideGroups.has(u)));
  for (const list of [identities, roles, bindings, repos, subscriptions]) for (const x of list) written.add(x["uid"] as string);
  return {
    // One file for one stack records where its top-level groups live (a split set's index.ts gives it instead).
    text: `${header.join("\n")}\n${stringify({ ...(o ? {} : { parentUid: m.snapshot.anchor.uid }), groups, identities, roles, bindings, repos, subscriptions }, { lineWidth: 0 })}`,
    written,
    outside,
    counts: { Group: count(groups), Identity: identities.length, Role: roles.length, RoleBinding: bindings.length, Repo: repos.length, Subscription: subscriptions.length },
    skipped,
  };
}
