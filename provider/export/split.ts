/**
 * The export's split layout (`platform-pulumi export --layout split`, README "Export: one stack per top-level
 * group"): the org as a set of Pulumi projects instead of one, so no stack holds the whole org (the engine's cost
 * of one update grows faster than the stack's size, docs/performance.md):
 *
 * - **root** (`<project>`): what lives in the anchor (the org's root group, or the `--under` group) and the
 *   top-level groups themselves.
 * - **one child per top-level group** (`<project>.<group>`; or `children` of them, top groups dealt out by size):
 *   everything under its top-level groups, the groups' own contents included.
 * - **cross** (`<project>-cross`), only when needed: objects that refer to objects of two different children
 *   (a binding in one team's subtree of an identity of another's, a repo syncing from another team's repo, and what
 *   refers to those).
 *
 * An object that refers to an object of another stack reads its uid from that stack's `uids` output through a
 * `pulumi.StackReference`; a stack exports (`export const uids`) exactly the uids other stacks read. References go
 * one way only, root → children → cross: an object of the root that refers to a child's object (a binding at the
 * root of a team's identity) is declared in that child, and one that refers to two children's objects in cross.
 * So `pulumi up` runs the root, then the children (in any order, or in parallel), then cross; `destroy` the other
 * way round. Every object keeps its `adoptUid` (`adopt: true`), as in the one-stack export, so the first `up` of
 * the set creates nothing.
 *
 * Stack names: every project's program reads `<org>/<project>/<stack>` with the running stack's organization and
 * name (`pulumi.getOrganization()`, `pulumi.getStack()`), unless project config `stacks` (an object, project name →
 * fully qualified stack name) says otherwise.
 *
 * Server text reaches code only as {@link tsString} literals and {@link tsComment} comments; project and folder
 * names are the top-level group's path segment with every character outside `[A-Za-z0-9_-]` replaced.
 */
import { tsComment, tsString } from "./escape";
import type { GroupNode, OrgModel, Ref } from "./model";
import { writeIndex, writeTypeScriptProject, type GeneratedFile, type TypeScriptProjectOptions } from "./typescript";

/** One stack of the set. */
export interface SplitStack {
  /** Pulumi project name, also the project's folder under the export's `--out`. */
  project: string;
  /** `root`, `child` or `cross`. */
  role: "root" | "child" | "cross";
  /** The top-level groups (uids) whose subtrees a child holds. */
  topGroups: string[];
  /** The stack's model (a subset of the org's). */
  model: OrgModel;
  /** Objects declared here, by uid, that other stacks of the set read (the `uids` output's keys are their variables). */
  exported: Array<{ uid: string; varName: string }>;
  /** Objects of other stacks this stack reads: the stack's project and the variable. */
  imported: Array<{ project: string; varName: string }>;
}

/** The set: stacks in the order `pulumi up` runs them (`tiers[0]` first; the stacks of one tier in any order). */
export interface SplitLayout {
  stacks: SplitStack[];
  /** Project names by tier: [[root], [children...], [cross]] (cross only when there is one). */
  tiers: string[][];
}

/** Options of {@link splitModel}. */
export interface SplitOptions {
  /** The root project's name; children are `<project>.<segment>`, cross is `<project>-cross`. */
  project: string;
  /** At most this many child stacks (top-level groups dealt out by size, largest first); default one per top-level group. */
  children?: number | undefined;
}

type Node = OrgModel["groups"][number] | OrgModel["identities"][number] | OrgModel["roles"][number] | OrgModel["identityProviders"][number]
  | OrgModel["roleBindings"][number] | OrgModel["accountAssociations"][number] | OrgModel["repos"][number] | OrgModel["tags"][number]
  | OrgModel["overlays"][number] | OrgModel["overlayBindings"][number] | OrgModel["subscriptions"][number];

/** The declared nodes (with variables) a node refers to. */
function targets(n: Node): Node[] {
  const refs: Array<Ref | undefined> = [n.parent];
  switch (n.kind) {
    case "IdentityProvider":
      refs.push(n.defaultRole);
      break;
    case "RoleBinding":
      refs.push(n.identity, n.role);
      break;
    case "Repo":
      refs.push(n.syncSource);
      break;
    case "OverlayBinding":
      refs.push(n.overlay);
      break;
    default:
      break;
  }
  const out: Node[] = [];
  for (const r of refs) if (r?.to === "declared") out.push(r.node);
  if (n.kind === "Tag" || n.kind === "OverlayBinding") out.push(n.repo);
  return out;
}

/** A folder- and project-safe form of a path segment: `[A-Za-z0-9_-]`, at most 60 characters. */
export function safeSegment(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 60) || "group";
}

const ROOT = 0;
const CROSS = -1;

/**
 * Lays the model out as a set of stacks (pure: no I/O).
 * @throws Error when `children` is given and is not a positive integer.
 */
export function splitModel(m: OrgModel, o: SplitOptions): SplitLayout {
  if (o.children !== undefined && !(Number.isInteger(o.children) && o.children > 0)) throw new Error(`children ${String(o.children)} is not allowed: a positive whole number`);
  // Each top-level group's subtree size, and the child (1..n) each top group goes to.
  const topOf = new Map<string, GroupNode>();
  const size = new Map<string, number>();
  const mark = (g: GroupNode, top: GroupNode) => {
    topOf.set(g.uid, top);
    for (const c of g.children) mark(c, top);
  };
  for (const t of m.topGroups) mark(t, t);
  const all: Node[] = [
    ...m.groups, ...m.identities, ...m.roles, ...m.identityProviders, ...m.roleBindings, ...m.accountAssociations,
    ...m.repos, ...m.tags, ...m.overlays, ...m.overlayBindings, ...m.subscriptions,
  ];
  const groupOf = (n: Node): GroupNode | undefined => (n.kind === "Group" ? n : n.kind === "Tag" || n.kind === "OverlayBinding" ? groupOf(n.repo) : n.parent.to === "declared" ? (n.parent.node as GroupNode) : undefined);
  for (const n of all) {
    const g = groupOf(n);
    const t = g && topOf.get(g.uid);
    if (t) size.set(t.uid, (size.get(t.uid) ?? 0) + 1);
  }
  const childOfTop = new Map<string, number>();
  const n = Math.min(o.children ?? m.topGroups.length, m.topGroups.length);
  if (o.children === undefined) m.topGroups.forEach((t, i) => childOfTop.set(t.uid, i + 1));
  else {
    const load = new Array<number>(n).fill(0);
    for (const t of [...m.topGroups].sort((a, b) => (size.get(b.uid) ?? 0) - (size.get(a.uid) ?? 0) || (a.path < b.path ? -1 : 1))) {
      const i = load.indexOf(Math.min(...load));
      load[i]! += size.get(t.uid) ?? 0;
      childOfTop.set(t.uid, i + 1);
    }
  }

  // Home stack: a top-level group is the root's; everything else goes with the top-level group it lives under.
  const place = new Map<Node, number>();
  for (const x of all) {
    if (x.kind === "Group" && x.parent.to === "anchor") place.set(x, ROOT);
    else {
      const g = groupOf(x);
      place.set(x, g ? childOfTop.get(topOf.get(g.uid)!.uid)! : ROOT);
    }
  }
  // References go root → child → cross only: move what refers elsewhere, until nothing moves.
  const visible = (from: number, to: number) => from === to || to === ROOT || from === CROSS;
  for (let moved = true; moved; ) {
    moved = false;
    for (const x of all) {
      const at = place.get(x)!;
      const ts = targets(x).map((t) => place.get(t)!);
      if (ts.every((t) => visible(at, t))) continue;
      const others = new Set(ts.filter((t) => t !== ROOT));
      const next = others.size === 1 && !others.has(CROSS) && at === ROOT ? [...others][0]! : CROSS;
      place.set(x, next);
      moved = true;
    }
  }

  // Projects: root, children in top-group order, cross.
  const childTops = new Map<number, GroupNode[]>();
  for (const t of m.topGroups) childTops.set(childOfTop.get(t.uid)!, [...(childTops.get(childOfTop.get(t.uid)!) ?? []), t]);
  const used = new Set<string>([o.project, `${o.project}-cross`]);
  const projectOf = new Map<number, string>([[ROOT, o.project], [CROSS, `${o.project}-cross`]]);
  for (const [i, tops] of [...childTops].sort((a, b) => a[0] - b[0])) {
    const first = tops[0]!;
    let name = `${o.project}.${safeSegment(first.path)}${tops.length > 1 ? `-and-${tops.length - 1}` : ""}`;
    if (used.has(name)) name = `${name}-${first.uid.slice(first.uid.lastIndexOf("/") + 1, first.uid.lastIndexOf("/") + 7)}`;
    for (let k = 2; used.has(name); k++) name = `${name}-${k}`;
    used.add(name);
    projectOf.set(i, name);
  }

  const ids = [ROOT, ...[...childTops.keys()].sort((a, b) => a - b), CROSS];
  const stacks: SplitStack[] = [];
  for (const id of ids) {
    const here = all.filter((x) => place.get(x) === id);
    if (id === CROSS && here.length === 0) continue;
    const has = new Set(here);
    const pick = <T extends Node>(xs: readonly T[]) => xs.filter((x) => has.has(x));
    const tops = id === ROOT ? [] : (childTops.get(id) ?? []);
    if (id !== ROOT && id !== CROSS && here.length === 0) continue;
    // The root declares the top groups without what is under them; a child walks its top groups' subtrees.
    const topGroups = id === ROOT ? m.topGroups.map((t) => ({ ...t, children: [] })) : tops;
    const builtins = new Set<string>();
    const imported = new Map<string, { project: string; varName: string }>();
    for (const x of here) {
      const refs: Array<Ref | undefined> = [x.parent];
      if (x.kind === "IdentityProvider") refs.push(x.defaultRole);
      if (x.kind === "RoleBinding") refs.push(x.identity, x.role);
      for (const r of refs) if (r?.to === "builtin") builtins.add(r.name);
      for (const t of targets(x)) {
        const at = place.get(t)!;
        if (at !== id) imported.set((t as { varName: string }).varName, { project: projectOf.get(at)!, varName: (t as { varName: string }).varName });
      }
    }
    stacks.push({
      project: projectOf.get(id)!,
      role: id === ROOT ? "root" : id === CROSS ? "cross" : "child",
      topGroups: tops.map((t) => t.uid),
      model: {
        ...m,
        groups: pick(m.groups),
        topGroups,
        identities: pick(m.identities),
        roles: pick(m.roles),
        identityProviders: pick(m.identityProviders),
        roleBindings: pick(m.roleBindings),
        accountAssociations: pick(m.accountAssociations),
        repos: pick(m.repos),
        tags: pick(m.tags),
        overlays: pick(m.overlays),
        overlayBindings: pick(m.overlayBindings),
        subscriptions: pick(m.subscriptions),
        builtinRoles: m.builtinRoles.filter((b) => builtins.has(b.name)),
        skipped: id === ROOT ? m.skipped : [],
      },
      exported: [],
      imported: [...imported.values()].sort((a, b) => (a.varName < b.varName ? -1 : 1)),
    });
  }
  // What each stack exports: what the others import from it.
  const byProject = new Map(stacks.map((s) => [s.project, s]));
  const uidOf = new Map(all.filter((x): x is Node & { varName: string } => "varName" in x).map((x) => [x.varName, x.uid]));
  for (const s of stacks) for (const i of s.imported) byProject.get(i.project)!.exported.push({ uid: uidOf.get(i.varName)!, varName: i.varName });
  for (const s of stacks) s.exported = [...new Map(s.exported.map((e) => [e.varName, e])).values()].sort((a, b) => (a.varName < b.varName ? -1 : 1));
  const tiers = [[o.project], stacks.filter((s) => s.role === "child").map((s) => s.project), ...(stacks.some((s) => s.role === "cross") ? [[`${o.project}-cross`]] : [])].filter((t) => t.length > 0);
  return { stacks, tiers };
}

/** The `index.ts` of one stack of the set. */
export function writeSplitIndex(s: SplitStack, all: SplitLayout): string {
  const prelude: string[] = [];
  if (s.imported.length) {
    prelude.push(
      `// This stack is one of a set of ${all.stacks.length} (see ../README.md). What the others declare is read from their`,
      "// `uids` output: `<org>/<project>/<this stack's name>`, or project config `stacks` (project → stack).",
      'const _stacks: Record<string, string> = new pulumi.Config().getObject<Record<string, string>>("stacks") ?? {};',
      "const _refs = new Map<string, pulumi.StackReference>();",
      "const _uid = (project: string, name: string): pulumi.Output<string> => {",
      "    const stack = _stacks[project] ?? `${pulumi.getOrganization()}/${project}/${pulumi.getStack()}`;",
      "    if (!_refs.has(stack)) _refs.set(stack, new pulumi.StackReference(stack));",
      "    return _refs.get(stack)!.requireOutput(\"uids\").apply((uids: Record<string, unknown>) => {",
      "        const uid = uids[name];",
      "        if (typeof uid !== \"string\") throw new Error(`stack ${stack} has no uid ${name} in its uids output: run pulumi up there first`);",
      "        return uid;",
      "    });",
      "};",
    );
    for (const i of s.imported) prelude.push(`const ${i.varName} = { uid: _uid(${tsString(i.project)}, ${tsString(i.varName)}) };`);
  }
  const epilogue: string[] = [];
  if (s.exported.length) {
    epilogue.push("// The uids the other stacks of the set read (see ../README.md).", "export const uids = {");
    for (const e of s.exported) epilogue.push(`    ${e.varName}: ${e.varName}.uid,`);
    epilogue.push("};");
  }
  return writeIndex(s.model, { declaredElsewhere: new Set(s.topGroups), prelude, epilogue });
}

/** Options of {@link writeSplitProjects}. */
export interface SplitProjectOptions extends Omit<TypeScriptProjectOptions, "project" | "packageRange"> {
  /** The version range of platform-pulumi each project depends on, from its folder. */
  packageRange: (folder: string) => string;
}

/** Every file of the set: one project per folder (the project's name), plus README.md and layout.json at the top. */
export function writeSplitProjects(layout: SplitLayout, o: SplitProjectOptions): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const s of layout.stacks) {
    for (const f of writeTypeScriptProject(s.model, { ...o, project: s.project, packageRange: o.packageRange(s.project) })) {
      files.push({ path: `${s.project}/${f.path}`, text: f.path === "index.ts" ? writeSplitIndex(s, layout) : f.text });
    }
  }
  const stack = o.stack ?? "<stack>";
  const root = layout.stacks[0]!.model.snapshot;
  const lines = [
    `# ${layout.tiers[0]![0]} (split)`,
    "",
    `The org under group \`${tsComment(root.anchor.uid)}\` as ${layout.stacks.length} Pulumi projects, written by`,
    "`platform-pulumi export --layout split`. Each folder is a project with its own README (secrets to set, what was",
    "left out). Objects one project declares and another refers to travel through the `uids` output of the one that",
    "declares them (a `pulumi.StackReference` named `<org>/<project>/<stack>`, the same stack name in every project;",
    "project config `stacks`, an object of project name → stack name, says otherwise).",
    "",
    "Run them in this order (the projects of one step in any order, or in parallel); `pulumi destroy` in the reverse:",
    "",
  ];
  layout.tiers.forEach((t, i) => lines.push(`${i + 1}. ${t.map((p) => `\`${p}\``).join(", ")}`));
  lines.push(
    "",
    "```sh",
    `for p in ${layout.tiers.flat().join(" ")}; do (cd "$p" && npm install && pulumi stack select --create ${stack} && pulumi up --yes); done`,
    "```",
    "",
    "Every resource names the object it stands for (`adoptUid`), so the first `pulumi up` of the set creates nothing.",
    "`platform-pulumi unmanaged` in one project counts the other projects' stacks as managing their objects when given",
    "them: `--with <org>/<project>/<stack>` once per other project.",
    "",
  );
  files.push({ path: "README.md", text: lines.join("\n") });
  files.push({ path: "layout.json", text: `${JSON.stringify({ tiers: layout.tiers }, null, 2)}\n` });
  return files;
}
