/**
 * The export's TypeScript writer: a Pulumi project a person would keep. `index.ts` declares the org
 * top-down (each group, then what lives in it, then its subgroups), every reference through a variable, the
 * built-in roles by name (`getRoleOutput`), every resource with `adoptUid` (`adopt: true` for account
 * associations), one field per line so that a one-line edit is a one-field change. Identity providers' client
 * secrets come from stack config (`requireSecret`); the project's README lists the `pulumi config set --secret`
 * lines to run.
 *
 * The output depends only on the model: no dates, no machine names, so a second export writes the same bytes.
 *
 * Server text reaches the files only through `escape.ts`: string literals through `tsString`, comments (and the
 * README's prose) through `tsComment`, the stack file's values through `yamlScalar`; `JSON.stringify` is used
 * only for the JSON files, on values that are not the server's.
 */
import { canonical } from "../engine/common";
import type { Field } from "../engine/declare";
import { KINDS, kindEntry } from "../kinds/registry";
import { declaresKind, GENERIC_KINDS } from "./kinds";
import { tsComment, tsString, yamlScalar } from "../escape";
import type {
  AccountAssociationNode,
  GenericNode,
  GroupNode,
  IdentityNode,
  IdentityProviderNode,
  OrgModel,
  OverlayBindingNode,
  OverlayNode,
  Ref,
  RepoNode,
  RoleBindingNode,
  RoleNode,
  TagNode,
} from "./model";
import { genericNodes, modelNodes } from "./model";

/** One generated file: path relative to the project folder, and its text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

/** Options of {@link writeTypeScriptProject}. */
export interface TypeScriptProjectOptions {
  /** Pulumi project name (Pulumi.yaml `name`, package.json `name`). */
  project: string;
  /** A stack to write `Pulumi.<stack>.yaml` for (with `platform:orgUid`, and `platform:apiUrl` when given). */
  stack?: string | undefined;
  /** The API URL the export read, written into the stack's config when `stack` is given. */
  apiUrl?: string | undefined;
  /** The version range of platform-pulumi the project depends on. */
  packageRange: string;
  /** The version range of @pulumi/pulumi the project depends on. */
  pulumiRange: string;
}

const INDENT = "    ";
/** Keys in the order a person writes them; others follow alphabetically. */
const KEY_ORDER = [
  "issuer", "issuerPattern", "subject", "subjectPattern", "audience", "audiencePattern", "claims", "claimPatterns",
  "issuerKeys", "expirationTime", "audiences", "awsAccount", "arn", "arnPattern", "userId", "userIdPattern",
  "clientId", "additionalScopes", "groupsClaim", "pkceEnabled", "account", "projectId", "projectNumber", "tenantId", "clientIds",
  "source", "amazon", "google", "azure",
];

function orderedKeys(o: Record<string, unknown>): string[] {
  const rank = (k: string) => {
    const i = KEY_ORDER.indexOf(k);
    return i < 0 ? KEY_ORDER.length : i;
  };
  return Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : tsString(k);
}

/** A JSON value as a TypeScript literal at `indent`: objects one key per line, short scalar arrays on one line. */
export function literal(v: unknown, indent = ""): string {
  if (typeof v === "string") return tsString(v);
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "undefined";
  const inner = indent + INDENT;
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== "object")) {
      const one = `[${v.map((x) => literal(x)).join(", ")}]`;
      if (one.length + indent.length <= 100) return one;
    }
    return `[\n${v.map((x) => `${inner}${literal(x, inner)},`).join("\n")}\n${indent}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = orderedKeys(o);
  if (keys.length === 0) return "{}";
  return `{\n${keys.map((k) => `${inner}${key(k)}: ${literal(o[k], inner)},`).join("\n")}\n${indent}}`;
}

/** The expression for a reference: `x.uid`, `orgUid`, `viewerRole.uid`, or the uid string with its note. */
function ref(r: Ref, anchorVar: string): string {
  switch (r.to) {
    case "anchor":
      return anchorVar;
    case "declared":
      return `${r.node.varName}.uid`;
    case "builtin":
      return `${r.varName}.uid`;
    case "uid":
      return `${tsString(r.uid)} /* ${tsComment(r.note)} */`;
  }
}

/** `new Kind("name", {\n    field: value,\n}[, opts]);` with one field per line. */
function declaration(binding: string | undefined, kind: string, name: string, fields: Array<[string, string | undefined]>, opts?: string): string {
  const body = fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `${INDENT}${key(k)}: ${v},`)
    .join("\n");
  return `${binding ? `const ${binding} = ` : ""}new ${kind}(${tsString(name)}, {\n${body}\n}${opts ? `, ${opts}` : ""});`;
}

/** A node the writer declares as a resource. */
type DeclaredNode =
  | GroupNode
  | IdentityNode
  | RoleNode
  | IdentityProviderNode
  | RoleBindingNode
  | AccountAssociationNode
  | RepoNode
  | TagNode
  | OverlayNode
  | OverlayBindingNode
  | GenericNode;

/** Whether a value is left out of a declaration: unset, empty, or the field's default. */
function blank(v: unknown, def: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v) ? v.length === 0 : typeof v === "object" && Object.keys(v).length === 0) return true;
  return def !== undefined && canonical(v) === canonical(def);
}

/** A value as a literal, with the members `refs` names (`<field>.<member>`) written as references. */
function valueWithRefs(k: string, v: unknown, refs: Record<string, Ref> | undefined, anchorVar: string): string {
  const members = Object.entries(refs ?? {}).filter(([p]) => p.startsWith(`${k}.`));
  if (members.length === 0 || typeof v !== "object" || v === null || Array.isArray(v)) return literal(v, INDENT);
  const inner = INDENT + INDENT;
  const o = { ...(v as Record<string, unknown>) };
  const lines = members.map(([p, r]) => {
    delete o[p.slice(k.length + 1)];
    return `${inner}${key(p.slice(k.length + 1))}: ${ref(r, anchorVar)},`;
  });
  for (const m of orderedKeys(o)) lines.push(`${inner}${key(m)}: ${literal(o[m], inner)},`);
  return `{\n${lines.join("\n")}\n${INDENT}}`;
}

/**
 * One field of a declaration, derived from the kind's declared field (`engine/declare.ts`): the parent and
 * every reference field as a reference; an adoption field as the object's uid (or `true`); a write-only secret
 * from stack config; any other server-side field as a literal of the value `read` gives (left out when unset,
 * empty or its default); a state-only field from what the reader found beside the object, else left out.
 */
function fieldExpr(n: DeclaredNode, k: string, f: Field, v: unknown, anchorVar: string): string | undefined {
  // A tag's or overlay binding's parent is its repo.
  if (f.kind === "parent") return "repo" in n ? `${n.repo.varName}.uid` : ref(n.parent, anchorVar);
  const r = n.refs?.[k];
  if (r) return ref(r, anchorVar);
  if (f.adoption === "uid" || k === "adoptUid") return tsString(n.uid);
  if (f.adoption === "flag") return "true";
  // The API never returns a write-only secret: it comes from stack config (see README.md).
  if (f.secret && f.writeOnly) return "secretKey" in n ? `config.requireSecret(${tsString(n.secretKey)})` : undefined;
  if (f.kind === "createOnly") return undefined;
  const value = f.kind === "stateOnly" ? n.local?.[k] : v;
  if (blank(value, f.default)) return undefined;
  return valueWithRefs(k, f.exportAs ? f.exportAs(value) : value, n.refs, anchorVar);
}

/** The declaration of one object, every field from its kind's declaration in the kind registry. */
export function resourceDecl(n: DeclaredNode, anchorVar: string): string {
  const entry = kindEntry(n.kind);
  if (!entry) throw new Error(`export: no kind ${n.kind} in the kind registry`);
  const read = entry.inputsOf(entry.outputsOf(n.api as unknown as { uid: string })) as Record<string, unknown>;
  const fields = Object.entries(entry.fields).map(([k, f]): [string, string | undefined] => [k, fieldExpr(n, k, f, read[k], anchorVar)]);
  const protect = Object.entries(entry.fields).some(([k, f]) => f.protectWhenOutside && n.refs?.[k]?.to === "uid");
  return declaration("varName" in n ? n.varName : undefined, n.kind, n.resourceName, fields, protect ? "{ protect: true }" : undefined);
}

/** What a stack of a split layout adds to {@link writeIndex} (`split.ts`). */
export interface IndexExtras {
  /** Groups another stack of the set declares: their contents and subgroups are written, not their declaration. */
  declaredElsewhere?: ReadonlySet<string>;
  /** Lines after the org's uid (before anything that may use them). */
  prelude?: readonly string[];
  /** Lines at the end. */
  epilogue?: readonly string[];
}

/** The program's `index.ts`; `extras` for one stack of a split layout. */
export function writeIndex(m: OrgModel, extras: IndexExtras = {}): string {
  const s = m.snapshot;
  const under = s.anchor.uid !== s.rootUid;
  const anchorVar = under ? "underUid" : "orgUid";
  // What the program imports, in code point order (classes, then getRoleOutput): each name whose nodes the model has.
  const importable: Array<[string, readonly unknown[]]> = [
    ["AccountAssociation", m.accountAssociations], ["Group", m.groups], ["Identity", m.identities], ["IdentityProvider", m.identityProviders],
    ["Overlay", m.overlays], ["OverlayBinding", m.overlayBindings], ["Repo", m.repos], ["Role", m.roles], ["RoleBinding", m.roleBindings],
    ["Tag", m.tags], ["getRoleOutput", m.builtinRoles], ...GENERIC_KINDS.map((k): [string, readonly unknown[]] => [k.kind, genericNodes(m, k.kind)]),
  ];
  const imports = importable.filter(([, nodes]) => nodes.length > 0).map(([name]) => name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const out: string[] = [];
  out.push(
    "// Exported from the Platform API by `platform-pulumi export`. Every resource names the object it stands for",
    "// (adoptUid, or adopt: true for an account association), so the first `pulumi up` takes the existing objects",
    "// under management: it creates nothing, deletes nothing and changes nothing. adoptUid is read only at create;",
    "// once that first update has run it can stay or go.",
    'import * as pulumi from "@pulumi/pulumi";',
  );
  // The root's uid through the package's orgUid(): unset or misspelled, it fails at once, naming the key.
  out.push(`import { ${[...imports, "orgUid as readOrgUid"].join(", ")} } from "platform-pulumi";`);
  out.push("");
  if (m.identityProviders.length) out.push("const config = new pulumi.Config();");
  out.push("const orgUid = readOrgUid();");
  if (under) {
    out.push(
      `// Everything below lives under group "${tsComment(s.anchor.name)}", which this program reads but does not manage.`,
      `const underUid = orgUid + ${tsString(s.anchor.uid.slice(s.rootUid.length))};`,
    );
  }
  if (extras.prelude?.length) out.push("", ...extras.prelude);
  if (m.builtinRoles.length) {
    out.push("", "// Built-in roles, found by name.");
    for (const r of m.builtinRoles) out.push(`const ${r.varName} = getRoleOutput({ name: ${tsString(r.name)} });`);
  }

  // What lives directly in a group (or the anchor), in a fixed order.
  const identitiesIn = groupBy(m.identities);
  const rolesIn = groupBy(m.roles);
  const associationIn = new Map(m.accountAssociations.map((a) => [a.uid, a]));
  const overlaysIn = groupBy(m.overlays);
  // Each generic kind's objects (kinds.ts), by group, in the registry's order.
  const genericIn = GENERIC_KINDS.map((k) => groupBy(genericNodes(m, k.kind)));
  const tagsOf = groupBy(m.tags);
  // A repo that syncs from a repo of this export is declared after the tree, once its source is.
  const syncing = m.repos.filter((r) => r.syncSource?.to === "declared");
  const reposIn = groupBy(m.repos.filter((r) => r.syncSource?.to !== "declared"));
  const repoWithTags = (r: RepoNode) => [resourceDecl(r, anchorVar), ...(tagsOf.get(r.uid) ?? []).map((t) => resourceDecl(t, anchorVar))];
  const contents = (groupUid: string): string[] => {
    const parts: string[] = [];
    const a = associationIn.get(groupUid);
    if (a) parts.push(resourceDecl(a, anchorVar));
    for (const r of rolesIn.get(groupUid) ?? []) parts.push(resourceDecl(r, anchorVar));
    for (const i of identitiesIn.get(groupUid) ?? []) parts.push(resourceDecl(i, anchorVar));
    for (const o of overlaysIn.get(groupUid) ?? []) parts.push(resourceDecl(o, anchorVar));
    for (const r of reposIn.get(groupUid) ?? []) parts.push(...repoWithTags(r));
    for (const byGroup of genericIn) for (const x of byGroup.get(groupUid) ?? []) parts.push(resourceDecl(x, anchorVar));
    return parts;
  };
  const top = contents(s.anchor.uid);
  if (top.length) out.push("", `// ${under ? tsComment(s.anchor.name) : "The org's root group"}`, ...top.flatMap((p) => [p]));
  const walk = (g: GroupNode) => {
    const decl = extras.declaredElsewhere?.has(g.uid) ? [] : [resourceDecl(g, anchorVar)];
    out.push("", `// ${tsComment(g.path)}${g.api.description ? `: ${oneLine(g.api.description)}` : ""}`, ...decl, ...contents(g.uid));
    for (const c of g.children) walk(c);
  };
  for (const g of m.topGroups) walk(g);

  if (syncing.length) {
    out.push("", "// Repos that sync from another repo of this org.");
    const done = new Set(m.repos.filter((r) => r.syncSource?.to !== "declared").map((r) => r.uid));
    let left = syncing;
    while (left.length) {
      const ready = left.filter((r) => r.syncSource?.to === "declared" && done.has(r.syncSource.node.uid));
      // A cycle cannot be declared in order; it is declared as it comes (and the compiler will say so).
      const batch = ready.length ? ready : left;
      for (const r of batch) {
        out.push(`// ${tsComment(r.path)}`, ...repoWithTags(r));
        done.add(r.uid);
      }
      left = left.filter((r) => !done.has(r.uid));
    }
  }
  if (m.identityProviders.length) {
    out.push("", "// Identity providers. Their client secrets are stack config (see README.md): the API never returns them.");
    for (const p of m.identityProviders) out.push(resourceDecl(p, anchorVar));
  }
  if (m.roleBindings.length) {
    out.push("", "// Role bindings: who holds which role where.");
    let last = "";
    for (const b of m.roleBindings) {
      if (b.path !== last) out.push(`// at ${b.path === "/" ? (under ? tsComment(s.anchor.name) : "the root group") : tsComment(b.path)}`);
      last = b.path;
      out.push(resourceDecl(b, anchorVar));
    }
  }
  if (m.overlayBindings.length) {
    out.push("", "// Overlay bindings: which overlay applies to which tags of a repo.");
    for (const b of m.overlayBindings) out.push(resourceDecl(b, anchorVar));
  }
  if (extras.epilogue?.length) out.push("", ...extras.epilogue);
  return `${out.join("\n")}\n`;
}

/** A description shortened to one comment line (through {@link tsComment}). */
function oneLine(s: string): string {
  const line = tsComment(s);
  return line.length > 80 ? tsComment(`${[...line].slice(0, 77).join("")}...`) : line;
}

function groupBy<T extends { uid: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const p = r.uid.slice(0, r.uid.lastIndexOf("/"));
    out.set(p, [...(out.get(p) ?? []), r]);
  }
  return out;
}

/** The template tsconfig of `pulumi new typescript`. */
export const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

/** The count of declared resources by kind, for every exported kind of the registry (the model's nodes by kind). */
export function declaredCounts(m: OrgModel): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of KINDS) if (declaresKind(k)) counts[k.kind] = 0;
  for (const n of modelNodes(m)) counts[n.kind] = (counts[n.kind] ?? 0) + 1;
  return counts;
}

function readme(m: OrgModel, o: TypeScriptProjectOptions): string {
  const s = m.snapshot;
  const counts = declaredCounts(m);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const stack = o.stack ?? "<stack>";
  const lines = [
    `# ${o.project}`,
    "",
    `The org under group \`${tsComment(s.anchor.uid)}\` as a Pulumi program, written by \`platform-pulumi export\`.`,
    `It declares ${total} existing objects (${Object.entries(counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(", ")}), each with the uid it stands for.`,
    "",
    "## First run: adopt",
    "",
    "```sh",
    "npm install",
    o.stack ? `pulumi stack select --create ${o.stack}      # Pulumi.${o.stack}.yaml already holds platform:orgUid` : `pulumi stack init ${stack}`,
    ...(o.stack ? [] : [`pulumi config set platform:orgUid ${tsComment(s.rootUid)}`]),
    "export PLATFORM_API_URL=... PLATFORM_TOKEN=...     # or stack config platform:apiUrl, or workload identity",
  ];
  for (const p of m.identityProviders) {
    // The name and uid passed the API's rules (trust.ts: no quotes, no line breaks); tsComment keeps the line one line.
    lines.push(`pulumi config set --secret ${p.secretKey} '<client secret of identity provider "${tsComment(p.api.name)}" (${tsComment(p.uid)})>'`);
  }
  lines.push(
    "pulumi up      # adopts every object: creates nothing, deletes nothing, changes nothing",
    "pulumi preview --expect-no-changes",
    "```",
    "",
  );
  if (m.identityProviders.length) {
    lines.push(
      "The API never returns an identity provider's client secret, so the program reads it from stack config",
      "(`config.requireSecret`). Set the value the provider has today: the adoption sends it once, and a",
      "different value would replace the provider's secret.",
      "",
    );
  }
  lines.push("## Not exported", "");
  if (m.skipped.length === 0) lines.push("Nothing was left out.");
  for (const k of m.skipped) lines.push(`- ${k.count} ${k.kind}: ${k.why}`);
  lines.push("");
  return lines.join("\n");
}

/** Every file of the generated project. */
export function writeTypeScriptProject(m: OrgModel, o: TypeScriptProjectOptions): GeneratedFile[] {
  const files: GeneratedFile[] = [
    {
      path: "Pulumi.yaml",
      text: [`name: ${o.project}`, "description: The org's groups, identities, roles, bindings and registry, exported by platform-pulumi", "runtime:", "  name: nodejs", "  options:", "    packagemanager: npm", ""].join("\n"),
    },
    {
      path: "package.json",
      text: `${JSON.stringify(
        {
          name: o.project,
          main: "index.ts",
          devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
          dependencies: { "@pulumi/pulumi": o.pulumiRange, "platform-pulumi": o.packageRange },
        },
        null,
        4,
      )}\n`,
    },
    { path: "tsconfig.json", text: `${JSON.stringify(TEMPLATE_TSCONFIG, null, 4)}\n` },
    { path: ".gitignore", text: "/bin/\n/node_modules/\n" },
    { path: "index.ts", text: writeIndex(m) },
    { path: "README.md", text: readme(m, o) },
  ];
  if (o.stack) {
    const config = [`  platform:orgUid: ${yamlScalar(m.snapshot.rootUid)}`];
    if (o.apiUrl) config.push(`  platform:apiUrl: ${yamlScalar(o.apiUrl)}`);
    files.push({ path: `Pulumi.${o.stack}.yaml`, text: `config:\n${config.join("\n")}\n` });
  }
  return files;
}
