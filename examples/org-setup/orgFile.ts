/**
 * The org description file: a YAML layout of groups (nested), workload identities and role bindings, read and
 * checked completely before any resource is declared, so a malformed file fails with the line and path of
 * every problem and creates nothing.
 *
 * ```yaml
 * groups:     [{ name, description?, uid?, groups?: [ ...same shape, nested ] }]
 * identities: [{ name, group: "<group path: names joined by />", description?, uid?, claimMatch: { issuer, subject } }]
 * bindings:   [{ identity: "<group path>/<identity name>", group: "<group path>", role: "<role name>", uid? }]
 * ```
 *
 * `uid` names an existing object for the program to adopt (`adoptUid`) instead of creating one; `platform-pulumi
 * export --format yaml` writes it for every object (issue 13).
 */
import { readFileSync } from "node:fs";
import { LineCounter, isNode, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { nameProblem } from "../../provider/validation";

/** A group in the file, with its nested groups. */
export interface OrgGroup {
  name: string;
  description?: string | undefined;
  /** An existing group to adopt instead of creating one. */
  uid?: string | undefined;
  groups?: OrgGroup[] | undefined;
}

const OrgGroupSchema: z.ZodType<OrgGroup> = z.lazy(() =>
  z.strictObject({
    name: z.string(),
    description: z.string().optional(),
    uid: z.string().optional(),
    groups: z.array(OrgGroupSchema).optional(),
  }),
);

const OrgFileSchema = z.strictObject({
  groups: z.array(OrgGroupSchema).default([]),
  identities: z
    .array(
      z.strictObject({
        name: z.string(),
        group: z.string(),
        description: z.string().optional(),
        uid: z.string().optional(),
        claimMatch: z.strictObject({ issuer: z.string(), subject: z.string() }),
      }),
    )
    .default([]),
  bindings: z.array(z.strictObject({ identity: z.string(), group: z.string(), role: z.string(), uid: z.string().optional() })).default([]),
});

/** A parsed, checked org file. */
export type OrgFile = z.infer<typeof OrgFileSchema>;

/** A group with its path, in declaration order (parents before children). */
export interface FlatGroup {
  /** Names from the top joined by `/`, e.g. `engineering/platform/ci-cd`. */
  path: string;
  /** Path of the parent, or undefined for a top-level group (its parent is the org's root group). */
  parentPath: string | undefined;
  name: string;
  description: string | undefined;
  /** An existing group to adopt, when the file gives one. */
  uid: string | undefined;
}

/** The org file, checked and flattened for declaring resources. */
export interface OrgLayout {
  groups: FlatGroup[];
  identities: Array<OrgFile["identities"][number] & { path: string }>;
  bindings: OrgFile["bindings"];
}

/** Every problem in an org file, each as `<file>:<line>:<col>: <path>: <what is wrong>`. */
export class OrgFileError extends Error {
  override readonly name = "OrgFileError";
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n  ${problems.join("\n  ")}`);
  }
}

function location(doc: Document, lc: LineCounter, file: string, path: ReadonlyArray<string | number>): string {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) {
      const { line, col } = lc.linePos(node.range[0]);
      return `${file}:${line}:${col}`;
    }
  }
  return file;
}

function pathText(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), "") || "(top)";
}

/**
 * Parses and checks an org file's text.
 * @param knownRoles role names that exist; when given, every binding's role must be one of them.
 * @throws OrgFileError listing every problem (YAML syntax, unknown or missing fields, bad names, duplicate or
 *   unknown group and identity paths, unknown roles), each with its line.
 */
export function parseOrgFile(text: string, file = "org.yaml", knownRoles?: ReadonlySet<string>): OrgLayout {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new OrgFileError(
      file,
      doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        return `${file}:${line}:${col}: YAML: ${e.message.split("\n")[0]}`;
      }),
    );
  }
  const parsed = OrgFileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    throw new OrgFileError(
      file,
      parsed.error.issues.map((i) => `${location(doc, lc, file, i.path as Array<string | number>)}: ${pathText(i.path)}: ${i.message}`),
    );
  }
  const org = parsed.data;
  const problems: string[] = [];
  const at = (path: Array<string | number>, msg: string) => problems.push(`${location(doc, lc, file, path)}: ${pathText(path)}: ${msg}`);

  const groups: FlatGroup[] = [];
  const groupPaths = new Set<string>();
  const walk = (list: OrgGroup[], parentPath: string | undefined, yamlPath: Array<string | number>) => {
    list.forEach((g, i) => {
      const here = [...yamlPath, i];
      const bad = nameProblem(g.name);
      if (bad) at([...here, "name"], `group name ${bad}`);
      const path = parentPath === undefined ? g.name : `${parentPath}/${g.name}`;
      if (groupPaths.has(path)) at([...here, "name"], `duplicate group path "${path}" (paths must be unique to be referenced)`);
      groupPaths.add(path);
      groups.push({ path, parentPath, name: g.name, description: g.description, uid: g.uid });
      if (g.groups) walk(g.groups, path, [...here, "groups"]);
    });
  };
  walk(org.groups, undefined, ["groups"]);

  const known = (paths: Set<string>) => [...paths].slice(0, 20).join(", ") + (paths.size > 20 ? ", ..." : "");
  const identityPaths = new Set<string>();
  const identities = org.identities.map((id, i) => {
    const bad = nameProblem(id.name);
    if (bad) at(["identities", i, "name"], `identity name ${bad}`);
    if (!groupPaths.has(id.group)) at(["identities", i, "group"], `no group at path "${id.group}"; known: ${known(groupPaths)}`);
    if (!/^https:\/\/\S+$/.test(id.claimMatch.issuer)) at(["identities", i, "claimMatch", "issuer"], `issuer must be an https URL, got "${id.claimMatch.issuer}"`);
    if (id.claimMatch.subject === "") at(["identities", i, "claimMatch", "subject"], "subject must not be empty");
    const path = `${id.group}/${id.name}`;
    if (identityPaths.has(path)) at(["identities", i, "name"], `duplicate identity path "${path}"`);
    identityPaths.add(path);
    return { ...id, path };
  });

  org.bindings.forEach((b, i) => {
    if (!identityPaths.has(b.identity)) at(["bindings", i, "identity"], `no identity at path "${b.identity}"; known: ${known(identityPaths)}`);
    if (!groupPaths.has(b.group)) at(["bindings", i, "group"], `no group at path "${b.group}"; known: ${known(groupPaths)}`);
    if (knownRoles && !knownRoles.has(b.role)) at(["bindings", i, "role"], `no role named "${b.role}"; roles: ${[...knownRoles].join(", ")}`);
  });

  if (problems.length > 0) throw new OrgFileError(file, problems);
  return { groups, identities, bindings: org.bindings };
}

/** Reads and checks an org file from disk. @throws OrgFileError; Error when the file cannot be read. */
export function loadOrgFile(file: string, knownRoles?: ReadonlySet<string>): OrgLayout {
  return parseOrgFile(readFileSync(file, "utf8"), file, knownRoles);
}
