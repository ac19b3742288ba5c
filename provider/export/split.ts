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
 * With `--format yaml` ({@link writeSplitOrgFiles}) each project is the org-setup program instead: its org file and
 * an `index.ts` declaring it with `Org`, the other stacks' objects it refers to given as `Org`'s `outside` uids.
 *
 * Server text reaches code only as {@link tsString} literals and {@link tsComment} comments; project and folder
 * names are the top-level group's path segment with every character outside `[A-Za-z0-9_-]` replaced.
 */
import { tsComment, tsString } from "../escape";
import { GENERIC_KINDS, genericCollection, type HandPlacedKind } from "./kinds";
import { genericNodes, MODEL_COLLECTION, modelNodes, type ExportKind, type GenericModel, type GroupNode, type ModelNode, type OrgModel, type Ref, type Skipped } from "./model";
import { writeIndex, writeTypeScriptProject, type GeneratedFile, type TypeScriptProjectOptions } from "./typescript";
import { writeOrgFile } from "./yaml";

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

type Node = ModelNode;

/**
 * The references each hand-placed kind's node makes besides its parent (the fields its writer writes as
 * references, and a tag's or overlay binding's repo). A mapped type over those kinds: one placed by hand has no
 * layout until it has its line here. A generic kind's node (`kinds.ts`) refers to its parent only, and goes with
 * it: every collection of {@link MODEL_COLLECTION}, generic ones included, is dealt out among the stacks.
 */
const REFERENCES: { readonly [K in HandPlacedKind]: (n: Extract<Node, { kind: K }>) => Array<Ref | undefined> } = {
  Group: () => [],
  Identity: () => [],
  Role: () => [],
  RoleBinding: (n) => [n.identity, n.role],
  IdentityProvider: (n) => [n.defaultRole],
  AccountAssociation: () => [],
  Repo: (n) => [n.syncSource],
  Tag: (n) => [{ to: "declared", node: n.repo }],
  Overlay: () => [],
  OverlayBinding: (n) => [n.overlay, { to: "declared", node: n.repo }],
};

/** Every reference a node makes: its parent, then its kind's {@link REFERENCES} (none for a generic kind). */
function references(n: Node): Array<Ref | undefined> {
  const more = (REFERENCES as Partial<Record<ExportKind, (n: Node) => Array<Ref | undefined>>>)[n.kind];
  return [n.parent, ...(more ? more(n) : [])];
}

/** The declared nodes (with variables) a node refers to. */
function targets(n: Node): Node[] {
  const out: Node[] = [];
  for (const r of references(n)) if (r?.to === "declared") out.push(r.node);
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
  const all = modelNodes(m);
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
      for (const r of references(x)) if (r?.to === "builtin") builtins.add(r.name);
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
        ...(Object.fromEntries(Object.values(MODEL_COLLECTION).map((k) => [k, pick(m[k] as readonly Node[])])) as unknown as Pick<OrgModel, (typeof MODEL_COLLECTION)[ExportKind]>),
        topGroups,
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

/**
 * The lines that define `_uid(project, name)`: the uid `name` of the `uids` output of project `project`'s stack
 * (`<org>/<project>/<this stack's name>`, or project config `stacks`), failing when that stack has none.
 */
function stackReferencePrelude(stacks: number): string[] {
  return [
    `// This stack is one of a set of ${stacks} (see ../README.md). What the others declare is read from their`,
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
  ];
}

/** The `index.ts` of one stack of the set. */
export function writeSplitIndex(s: SplitStack, all: SplitLayout): string {
  const prelude: string[] = [];
  if (s.imported.length) {
    prelude.push(...stackReferencePrelude(all.stacks.length));
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
  files.push(...setFiles(layout, o.stack));
  return files;
}

/** The set's README.md (the order to run the projects) and layout.json (the tiers). */
function setFiles(layout: SplitLayout, stackName: string | undefined): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const stack = stackName ?? "<stack>";
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

/** What {@link writeSplitOrgFiles} wrote: the files, the objects by kind, and what the org files cannot hold. */
export interface SplitOrgFilesExport {
  files: GeneratedFile[];
  counts: Record<string, number>;
  skipped: Skipped[];
  layout: SplitLayout;
}

/**
 * The split layout as org-setup programs (`--layout split --format yaml`): each project of the set holds an org
 * file (`org.yaml`) and an `index.ts` that declares it with the `Org` component (provider/org); what the project refers to
 * in another stack (the top-level groups a child's file places its groups under, an identity or custom role a
 * binding names) is an `outside` group of the file, or an `outside` identity or role of the program, its uid read
 * from that stack's `uids` output (a `pulumi.StackReference`). The set holds exactly what the one-stack org file
 * holds (`writeOrgFile` of the whole model): what it cannot hold is skipped, as there.
 */
export function writeSplitOrgFiles(m: OrgModel, o: SplitOptions & SplitProjectOptions): SplitOrgFilesExport {
  const one = writeOrgFile(m);
  const w = one.written;
  const keep = <T extends { uid: string }>(xs: readonly T[]) => xs.filter((x) => w.has(x.uid));
  // The org with only what the org file holds, laid out: placement then follows the file's references only.
  const held: OrgModel = {
    ...m,
    topGroups: keep(m.topGroups),
    groups: keep(m.groups),
    identities: keep(m.identities),
    roles: keep(m.roles),
    roleBindings: keep(m.roleBindings),
    // The file gives a sync source as the server's text, so it refers to no object of the set.
    repos: keep(m.repos).map((r) => ({ ...r, syncSource: undefined })),
    // Generic kinds: what the file holds (subscriptions); the others have no place in it.
    ...(Object.fromEntries(GENERIC_KINDS.map((k) => [genericCollection(k.kind), keep(genericNodes(m, k.kind))])) as unknown as GenericModel),
    identityProviders: [],
    accountAssociations: [],
    tags: [],
    overlays: [],
    overlayBindings: [],
  };
  const layout = splitModel(held, o);
  const groupByUid = new Map(held.groups.map((g) => [g.uid, g]));
  const home = new Map<string, string>();
  const key = new Map<string, string>();
  for (const s of layout.stacks) {
    for (const x of [...s.model.groups, ...s.model.identities, ...s.model.roles]) {
      home.set(x.uid, s.project);
      key.set(x.uid, x.varName);
    }
  }
  const under = m.snapshot.anchor.uid !== m.snapshot.rootUid;
  // Per stack: its org file, and what it reads from (imports) and gives to (exports) the others.
  const perStack = layout.stacks.map((s) => {
    const own = new Set(s.model.groups.map((g) => g.uid));
    const needed = new Set<string>();
    const need = (g: GroupNode | undefined) => {
      for (let x = g; x && !needed.has(x.uid); x = x.parent.to === "declared" ? (x.parent.node as GroupNode) : undefined) needed.add(x.uid);
    };
    const groupOf = (r: Ref) => (r.to === "declared" && r.node.kind === "Group" ? groupByUid.get(r.node.uid) : undefined);
    for (const g of s.model.groups) need(g);
    for (const x of [...s.model.identities, ...s.model.roles, ...s.model.roleBindings, ...s.model.repos, ...GENERIC_KINDS.flatMap((k) => genericNodes(s.model, k.kind))]) need(groupOf(x.parent));
    const mine = new Set([...s.model.identities, ...s.model.roles].map((x) => x.uid));
    const outsideObjects = new Set<string>();
    for (const b of s.model.roleBindings) {
      for (const r of [b.identity, b.role]) if (r.to === "declared" && !mine.has(r.node.uid)) outsideObjects.add(r.node.uid);
    }
    const file = writeOrgFile(s.model, {
      tree: held.topGroups,
      groups: needed,
      outsideGroups: new Set([...needed].filter((u) => !own.has(u))),
      outsideObjects,
      header: [
        `# One project of a split export (\`platform-pulumi export --layout split --format yaml\`, see ../README.md): the`,
        "# org-setup program's org file, with the uid of each existing object, which the program adopts (adoptUid).",
        ...(s.role === "root" ? [] : ["# A group marked `outside` is declared by another project; index.ts reads its uid from that project's stack."]),
      ],
    });
    return { s, file };
  });
  const exports = new Map<string, Map<string, { kind: "groups" | "identities" | "roles"; path: string }>>();
  for (const { file } of perStack) {
    for (const kind of ["groups", "identities", "roles"] as const) {
      for (const [p, uid] of file.outside[kind]) {
        const from = home.get(uid)!;
        if (!exports.has(from)) exports.set(from, new Map());
        exports.get(from)!.set(key.get(uid)!, { kind, path: p });
      }
    }
  }

  const files: GeneratedFile[] = [];
  for (const { s, file } of perStack) {
    const lines = [
      "// One project of a split export (`platform-pulumi export --layout split --format yaml`, see ../README.md): the",
      "// org-setup program, declaring org.yaml with the Org component. Every object there has a uid, which the",
      "// program adopts (adoptUid): the first `pulumi up` creates nothing, deletes nothing and changes nothing.",
      'import * as pulumi from "@pulumi/pulumi";',
      'import { Org, orgUid as readOrgUid } from "platform-pulumi";',
      "",
    ];
    const declaresTop = held.topGroups.some((t) => s.model.groups.some((g) => g.uid === t.uid));
    if (declaresTop) {
      // Through the package's orgUid(): unset or misspelled, it fails at once, naming the key.
      lines.push("const orgUid = readOrgUid();");
      if (under) lines.push(`// The top-level groups live under group "${tsComment(m.snapshot.anchor.name)}", which this program reads but does not manage.`, `const underUid = orgUid + ${tsString(m.snapshot.anchor.uid.slice(m.snapshot.rootUid.length))};`);
    }
    const outsides = (["groups", "identities", "roles"] as const).filter((k) => file.outside[k].size > 0);
    if (outsides.length) lines.push(...stackReferencePrelude(layout.stacks.length), "");
    lines.push('const org = new Org("org", {');
    if (declaresTop) lines.push(`    parentUid: ${under ? "underUid" : "orgUid"},`);
    lines.push('    file: "org.yaml",');
    if (outsides.length) {
      lines.push("    outside: {");
      for (const k of outsides) {
        lines.push(`        ${k}: {`);
        for (const [p, uid] of [...file.outside[k]].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(`            ${tsString(p)}: _uid(${tsString(home.get(uid)!)}, ${tsString(key.get(uid)!)}),`);
        lines.push("        },");
      }
      lines.push("    },");
    }
    lines.push("});", "", "export const counts = org.counts;");
    const ex = exports.get(s.project);
    if (ex?.size) {
      const output = { groups: "groupUids", identities: "identityUids", roles: "roleUids" } as const;
      lines.push("// The uids the other stacks of the set read (see ../README.md).", "export const uids = {");
      for (const [k, e] of [...ex].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(`    ${k}: org.${output[e.kind]}.apply((u) => u[${tsString(e.path)}]),`);
      lines.push("};");
    }
    lines.push("");
    const base = writeTypeScriptProject(s.model, { ...o, project: s.project, packageRange: o.packageRange(s.project) }).filter((f) => f.path !== "index.ts" && f.path !== "README.md");
    const readme = [
      `# ${s.project}`,
      "",
      `One project of a split export (see ../README.md for the order to run them): \`org.yaml\` holds ${Object.entries(file.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(", ") || "nothing"},`,
      "each with the uid it stands for; `index.ts` declares it with the `Org` component.",
      "",
      "```sh",
      "npm install",
      o.stack ? `pulumi stack select --create ${o.stack}` : "pulumi stack init <stack>",
      ...(declaresTop && !o.stack ? [`pulumi config set platform:orgUid ${tsComment(m.snapshot.rootUid)}`] : []),
      "pulumi up      # adopts every object: creates nothing, deletes nothing, changes nothing",
      "pulumi preview --expect-no-changes",
      "```",
      "",
    ];
    for (const f of [...base, { path: "index.ts", text: lines.join("\n") }, { path: "org.yaml", text: file.text }, { path: "README.md", text: readme.join("\n") }]) files.push({ path: `${s.project}/${f.path}`, text: f.text });
  }
  files.push(...setFiles(layout, o.stack));
  return { files, counts: one.counts, skipped: one.skipped, layout };
}
