/**
 * The org description file: a YAML layout of groups (nested), workload identities, custom roles, role bindings,
 * image repos and event subscriptions, read and checked completely before any resource is declared, so a
 * malformed file fails with the line and path of every problem and creates nothing.
 *
 * ```yaml
 * groups:        [{ name, description?, uid?, outside?, groups?: [ ...same shape, nested ] }]
 * identities:    [{ name, group: "<group path: names joined by />", description?, uid?,
 *                   claimMatch: { issuer | issuerPattern, subject | subjectPattern, audience? | audiencePattern?, claims?, claimPatterns? } }]
 * roles:         [{ name, group: "<group path>", description?, uid?, capabilities: ["<dotted or CAP_ name>", ...] }]  # optional
 * bindings:      [{ identity: "<group path>/<identity name>", group: "<group path>", role: "<role name>", uid? }]
 * repos:         [{ name, group, description?, uid?, syncConfig?: { source, amazon?, google?, azure? }, readme? }]   # optional
 * subscriptions: [{ group, sink: "<https URL>", uid? }]                                                            # optional
 * ```
 *
 * A binding's role is a built-in role's name or a role of this file, which must be defined at the binding's group
 * or above it. A repo with a `syncConfig` takes its README from the source, so it may not give one.
 *
 * A group with `outside: true` is declared elsewhere (another stack): the file names it only to place what is under
 * it, and the program gives its uid (`OrgArgs.outside.groups`, by path); it holds only `name` and `groups`, and
 * only at the top or under another outside group. Identities and roles declared elsewhere are not in the file:
 * the program names them by path ({@link OrgOutsidePaths}), and bindings may then refer to them.
 *
 * `uid` names an existing object for the program to adopt (`adoptUid`) instead of creating one; `platform-pulumi
 * export --format yaml` writes it for every object (README, "Exporting an existing org").
 *
 * The same checks run on an object already parsed ({@link checkOrgSpec}); its problems are then placed by path
 * only, the text's by `file:line:column` too. The {@link Org} component (./index.ts) declares what this checks.
 */
import { nearestName } from "../text";
import { readFileSync } from "node:fs";
import { LineCounter, isNode, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { wireName } from "../capabilities";
import { PlatformError } from "../client/errors";
import { ClaimMatchShape } from "../client/schemas";
import type { ClaimMatch } from "../client/types";
import { isTrustworthyIssuer } from "../kinds/identity";
import { repoNameProblem } from "../kinds/repo";
import { sinkProblem } from "../kinds/subscription";
import { nameProblem } from "../validation";

/** A group in the org file, with its nested groups. */
export interface OrgGroup {
  /** The group's name (`^[a-z0-9 ._-]{1,}$`); its path is the names from the top joined by `/`. */
  name: string;
  description?: string | undefined;
  /** An existing group to adopt instead of creating one. */
  uid?: string | undefined;
  /**
   * Declared elsewhere (another stack): the file names the group only to place groups and objects under it; its
   * uid comes from the program (`OrgArgs.outside.groups`, by path). Holds only `name` and `groups`. Default false.
   */
  outside?: boolean | undefined;
  /** Its child groups, same shape. */
  groups?: OrgGroup[] | undefined;
}

/**
 * Objects the org refers to but another stack declares, by path, for the checks: identities
 * (`<group path>/<name>`) bindings may name, and custom roles (`<group path>/<name>`, visible at that group and
 * below) bindings may name like the file's own. Outside groups are marked in the file (`outside: true`).
 */
export interface OrgOutsidePaths {
  identities?: Iterable<string> | undefined;
  roles?: Iterable<string> | undefined;
}

/** A workload identity of the org file: an OIDC issuer and subject, under a group. */
export interface OrgIdentity {
  name: string;
  /** The group path it lives in, e.g. `engineering/platform/ci-cd`. */
  group: string;
  description?: string | undefined;
  /** An existing identity to adopt. */
  uid?: string | undefined;
  /**
   * The token claims it accepts (the Identity resource's `claimMatch`): an https issuer (or http on loopback) or an
   * issuer pattern, an exact subject or a subject pattern, and optionally an audience and other claims.
   */
  claimMatch: ClaimMatch;
}

/** A custom role of the org file, defined at a group and visible at it and below. */
export interface OrgRole {
  name: string;
  /** The group path it is defined at. */
  group: string;
  description?: string | undefined;
  /** An existing role to adopt. */
  uid?: string | undefined;
  /** Capabilities, dotted (`groups.list`) or wire form (`CAP_IAM_GROUPS_LIST`); at least one. */
  capabilities: string[];
}

/** A role binding of the org file: an identity granted a role on a group. */
export interface OrgBinding {
  /** The identity's path: `<group path>/<identity name>`. */
  identity: string;
  /** The group path the role is granted on. */
  group: string;
  /** A built-in role's name, or a custom role of the file defined at `group` or above it. */
  role: string;
  /** An existing binding to adopt. */
  uid?: string | undefined;
}

/** An image repo of the org file. */
export interface OrgRepo {
  name: string;
  /** The group path it lives in. */
  group: string;
  description?: string | undefined;
  /** An existing repo to adopt. */
  uid?: string | undefined;
  /** Mirror another repo (its README then comes from the source: no `readme`). */
  syncConfig?: { source: string; amazon?: string | undefined; google?: string | undefined; azure?: string | undefined } | undefined;
  readme?: string | undefined;
}

/** An events subscription of the org file. */
export interface OrgSubscription {
  /** The group path whose events go to the sink. */
  group: string;
  /** An https URL. */
  sink: string;
  /** An existing subscription to adopt. */
  uid?: string | undefined;
}

/** An org as data: the org file's content, parsed (every list optional). */
export interface OrgSpec {
  /**
   * The uid of the group the file's top-level groups live under (the org's root group, or a group under it):
   * `platform-pulumi export --format yaml` records it. {@link Org} takes it when given no `parentUid`, and refuses a
   * different `parentUid`, which would declare the file's adopted groups somewhere they are not.
   */
  parentUid?: string | undefined;
  groups?: OrgGroup[] | undefined;
  identities?: OrgIdentity[] | undefined;
  roles?: OrgRole[] | undefined;
  bindings?: OrgBinding[] | undefined;
  repos?: OrgRepo[] | undefined;
  subscriptions?: OrgSubscription[] | undefined;
}

const OrgGroupSchema: z.ZodType<OrgGroup> = z.lazy(() =>
  z.strictObject({
    name: z.string(),
    description: z.string().optional(),
    uid: z.string().optional(),
    outside: z.boolean().optional(),
    groups: z.array(OrgGroupSchema).optional(),
  }),
);

/** The fields every named object of the file has: its name, the path of its group, a description and an adopted uid. */
const placedFields = { name: z.string(), group: z.string(), description: z.string().optional(), uid: z.string().optional() };

const OrgFileSchema = z.strictObject({
  parentUid: z.string().optional(),
  groups: z.array(OrgGroupSchema).default([]),
  identities: z
    .array(
      z.strictObject({
        ...placedFields,
        claimMatch: z.strictObject(ClaimMatchShape.shape),
      }),
    )
    .default([]),
  roles: z
    .array(z.strictObject({ ...placedFields, capabilities: z.array(z.string()) }))
    .default([]),
  bindings: z.array(z.strictObject({ identity: z.string(), group: z.string(), role: z.string(), uid: z.string().optional() })).default([]),
  repos: z
    .array(
      z.strictObject({
        ...placedFields,
        syncConfig: z
          .strictObject({ source: z.string(), amazon: z.string().optional(), google: z.string().optional(), azure: z.string().optional() })
          .optional(),
        readme: z.string().optional(),
      }),
    )
    .default([]),
  subscriptions: z.array(z.strictObject({ group: z.string(), sink: z.string(), uid: z.string().optional() })).default([]),
});

/** A group's uid: the root's 40 hex characters, then a segment of 16 per level below it (seed §2, "Common rules"; as `export --under` checks). */
const GROUP_UID = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

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
  /** Present (true) for a group declared elsewhere (`outside: true` in the file): not declared, its uid given. */
  outside?: true;
}

/** The org file, checked and flattened for declaring resources. */
export interface OrgLayout {
  /** The group the top-level groups live under, when the file records it (`parentUid`). */
  parentUid: string | undefined;
  /** Groups, parents before children. */
  groups: FlatGroup[];
  /** Identities, with `path` (`<group path>/<identity name>`). */
  identities: Array<OrgIdentity & { path: string }>;
  /** Custom roles, with `path` (`<group path>/<role name>`) and capabilities in wire form. */
  roles: Array<OrgRole & { path: string }>;
  bindings: OrgBinding[];
  /** Repos, with `path` (`<group path>/<repo name>`). */
  repos: Array<OrgRepo & { path: string }>;
  subscriptions: OrgSubscription[];
}

/**
 * Every problem in an org file, each as `<file>:<line>:<col>: <path>: <what is wrong>` (for an object given as
 * data: `<source>: <path>: <what is wrong>`).
 */
export class OrgFileError extends PlatformError {
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

/** Where a problem is: `file:line:col` for a YAML path in a parsed document, or the source's name alone. */
type Locate = (path: Array<string | number>) => string;

/**
 * Parses and checks an org file's text.
 * @param knownRoles role names that exist; when given, every binding's role must be one of them.
 * @throws OrgFileError listing every problem (YAML syntax, unknown or missing fields, bad names, duplicate or
 *   unknown group and identity paths, unknown roles), each with its line.
 */
export function parseOrgFile(text: string, file = "org.yaml", knownRoles?: ReadonlySet<string>, outside?: OrgOutsidePaths): OrgLayout {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new OrgFileError(
      file,
      doc.errors.map((e) => {
        const message = e.message.split("\n")[0]!;
        // The parser finds an unclosed `{` or `[` where the next line begins: place it at the bracket instead.
        const opener = /end with an? [}\]]/.test(message) ? unclosedFlowOpener(text, e.pos[0]) : undefined;
        const { line, col } = lc.linePos(opener ?? e.pos[0]);
        return `${file}:${line}:${col}: YAML: ${message}${opener === undefined ? "" : ` (the "${text[opener]}" here is not closed)`}`;
      }),
    );
  }
  return check(doc.toJS() ?? {}, file, (p) => location(doc, lc, file, p), knownRoles, outside);
}

/**
 * The offset of the last `{` or `[` before `end` that no `}` or `]` closes, outside quoted scalars and comments;
 * undefined when there is none (then the parser's own place stands).
 */
function unclosedFlowOpener(text: string, end: number): number | undefined {
  const open: number[] = [];
  for (let i = 0; i < end && i < text.length; i++) {
    const c = text[i]!;
    if ((c === "'" || c === '"') && /(^|[\s:,[{-])$/.test(text.slice(Math.max(0, i - 1), i))) {
      // A quoted scalar (a quote starts one only where a scalar starts): '' escapes a single quote, \ a double one's.
      for (i++; i < end; i++) {
        if (c === '"' && text[i] === "\\") i++;
        else if (text[i] === c && c === "'" && text[i + 1] === "'") i++;
        else if (text[i] === c) break;
      }
    } else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < end && text[i] !== "\n") i++;
    } else if (c === "{" || c === "[") open.push(i);
    else if (c === "}" || c === "]") open.pop();
  }
  return open.at(-1);
}

/**
 * Checks an org given as data (e.g. parsed by the caller, or built in code) with the same rules as
 * {@link parseOrgFile}; problems are placed by path, after `source`.
 * @throws OrgFileError listing every problem.
 */
export function checkOrgSpec(spec: OrgSpec, source = "spec", knownRoles?: ReadonlySet<string>, outside?: OrgOutsidePaths): OrgLayout {
  return check(spec, source, () => source, knownRoles, outside);
}

/**
 * The built-in role names an org refers to, for checking them against the API before anything is declared: the
 * bindings' roles that are not a custom role of the same org (nor one of `outsideRoles`, role paths
 * `<group path>/<name>` another stack declares). Lenient: an org that does not parse gives what it can.
 */
export function builtinRoleNames(spec: unknown, outsideRoles: Iterable<string> = []): string[] {
  const o = (spec ?? {}) as { roles?: unknown; bindings?: unknown };
  const own = new Set(Array.isArray(o.roles) ? o.roles.map((r: { name?: unknown }) => r?.name).filter((n): n is string => typeof n === "string") : []);
  for (const p of outsideRoles) own.add(p.slice(p.lastIndexOf("/") + 1));
  const used = Array.isArray(o.bindings) ? o.bindings.map((b: { role?: unknown }) => b?.role).filter((n): n is string => typeof n === "string") : [];
  return [...new Set(used.filter((r) => !own.has(r)))];
}

/** The YAML text's data, or undefined when it does not parse (then {@link parseOrgFile} reports why). */
export function orgFileData(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  return doc.errors.length > 0 ? undefined : doc.toJS();
}

function check(data: unknown, file: string, locate: Locate, knownRoles: ReadonlySet<string> | undefined, outside: OrgOutsidePaths | undefined): OrgLayout {
  const parsed = OrgFileSchema.safeParse(data ?? {});
  if (!parsed.success) {
    throw new OrgFileError(
      file,
      parsed.error.issues.map((i) => `${locate(i.path as Array<string | number>)}: ${pathText(i.path)}: ${i.message}`),
    );
  }
  const org = parsed.data;
  const problems: string[] = [];
  const at = (path: Array<string | number>, msg: string) => problems.push(`${locate(path)}: ${pathText(path)}: ${msg}`);
  if (org.parentUid !== undefined && !GROUP_UID.test(org.parentUid)) {
    at(["parentUid"], `"${org.parentUid}" is not a group uid: 40 lowercase hex characters (the root group), then "/" and 16 hex characters per level`);
  }

  const groups: FlatGroup[] = [];
  const groupPaths = new Set<string>();
  const walk = (list: OrgGroup[], parentPath: string | undefined, parentOutside: boolean, yamlPath: Array<string | number>) => {
    list.forEach((g, i) => {
      const here = [...yamlPath, i];
      const bad = nameProblem(g.name);
      if (bad) at([...here, "name"], `group name ${bad}`);
      const path = parentPath === undefined ? g.name : `${parentPath}/${g.name}`;
      if (groupPaths.has(path)) at([...here, "name"], `duplicate group path "${path}" (paths must be unique to be referenced)`);
      groupPaths.add(path);
      if (g.outside) {
        // Declared elsewhere: only placed here, so it carries nothing of its own, and stacks refer one way only.
        for (const k of ["description", "uid"] as const) if (g[k] !== undefined) at([...here, k], `an outside group is declared elsewhere; it holds only name and groups, got ${k} ${JSON.stringify(g[k])}`);
        if (!parentOutside) at([...here, "outside"], `group "${path}" is outside but its parent "${parentPath}" is declared here; an outside group is allowed at the top or under another outside group`);
      }
      groups.push({ path, parentPath, name: g.name, description: g.description, uid: g.uid, ...(g.outside ? { outside: true as const } : {}) });
      if (g.groups) walk(g.groups, path, g.outside === true, [...here, "groups"]);
    });
  };
  walk(org.groups, undefined, true, ["groups"]);

  const known = (paths: Set<string>) => [...paths].slice(0, 20).join(", ") + (paths.size > 20 ? ", ..." : "");
  // The group the top-level groups live under has no path in the file (it is Org's parentUid).
  const noGroup = (g: string) =>
    g === "/" || g === ""
      ? `${JSON.stringify(g)} is not allowed: a path names a group this file declares, and the group its top-level groups live under has none; declare what goes there beside Org (e.g. a RoleBinding with groupUid: orgUid())`
      : `no group at path "${g}"; known: ${known(groupPaths)}`;
  const identityPaths = new Set<string>();
  const identities = org.identities.map((id, i) => {
    const bad = nameProblem(id.name);
    if (bad) at(["identities", i, "name"], `identity name ${bad}`);
    if (!groupPaths.has(id.group)) at(["identities", i, "group"], noGroup(id.group));
    const cm = id.claimMatch;
    for (const [exact, pattern] of [["issuer", "issuerPattern"], ["subject", "subjectPattern"]] as const) {
      if ((cm[exact] === undefined) === (cm[pattern] === undefined)) at(["identities", i, "claimMatch"], `give exactly one of ${exact} and ${pattern}`);
    }
    if (cm.audience !== undefined && cm.audiencePattern !== undefined) at(["identities", i, "claimMatch"], "give at most one of audience and audiencePattern");
    if (cm.issuer !== undefined && !isTrustworthyIssuer(cm.issuer)) at(["identities", i, "claimMatch", "issuer"], `issuer must be an https URL (or http on loopback), got "${cm.issuer}"`);
    if (cm.subject === "") at(["identities", i, "claimMatch", "subject"], "subject must not be empty");
    const path = `${id.group}/${id.name}`;
    if (identityPaths.has(path)) at(["identities", i, "name"], `duplicate identity path "${path}"`);
    identityPaths.add(path);
    return { ...id, path };
  });

  const groupRef = (path: Array<string | number>, g: string) => {
    if (!groupPaths.has(g)) at(path, noGroup(g));
  };
  const rolePaths = new Set<string>();
  const fileRoles = new Map<string, string[]>(); // role name → the group paths it is defined at
  const roles = org.roles.map((r, i) => {
    const bad = nameProblem(r.name);
    if (bad) at(["roles", i, "name"], `role name ${bad}`);
    groupRef(["roles", i, "group"], r.group);
    const wire: string[] = [];
    if (r.capabilities.length === 0) at(["roles", i, "capabilities"], "a role needs at least one capability");
    r.capabilities.forEach((c, j) => {
      const w = wireName(c);
      if (w === undefined) at(["roles", i, "capabilities", j], `"${c}" is not a capability (dotted, e.g. groups.list, or wire form, e.g. CAP_IAM_GROUPS_LIST)`);
      else wire.push(w);
    });
    const path = `${r.group}/${r.name}`;
    if (rolePaths.has(path)) at(["roles", i, "name"], `duplicate role path "${path}"`);
    rolePaths.add(path);
    fileRoles.set(r.name, [...(fileRoles.get(r.name) ?? []), r.group]);
    return { ...r, capabilities: [...new Set(wire)].sort(), path };
  });

  const outsideIdentities = new Set(outside?.identities ?? []);
  for (const p of outside?.roles ?? []) {
    const cut = p.lastIndexOf("/");
    fileRoles.set(p.slice(cut + 1), [...(fileRoles.get(p.slice(cut + 1)) ?? []), p.slice(0, Math.max(cut, 0))]);
  }
  org.bindings.forEach((b, i) => {
    if (!identityPaths.has(b.identity) && !outsideIdentities.has(b.identity)) at(["bindings", i, "identity"], `no identity at path "${b.identity}"; known: ${known(new Set([...identityPaths, ...outsideIdentities]))}`);
    groupRef(["bindings", i, "group"], b.group);
    const definedAt = fileRoles.get(b.role);
    if (definedAt) {
      // A custom role is visible at its own group and below.
      if (!definedAt.some((g) => b.group === g || b.group.startsWith(`${g}/`))) {
        at(["bindings", i, "role"], `role "${b.role}" is defined at ${definedAt.join(", ")}, not at "${b.group}" or above it`);
      }
    } else if (knownRoles && !knownRoles.has(b.role)) {
      // Only the roles this binding could name: built-in ones, and the file's defined at its group or above.
      const visible = [...knownRoles, ...[...fileRoles].filter(([, at]) => at.some((g) => b.group === g || b.group.startsWith(`${g}/`))).map(([n]) => n)];
      at(["bindings", i, "role"], `no role named "${b.role}"${didYouMean(b.role, visible)}; roles at "${b.group}": ${visible.join(", ")}`);
    }
  });

  const repoPaths = new Set<string>();
  const repos = org.repos.map((r, i) => {
    const bad = repoNameProblem(r.name);
    if (bad) at(["repos", i, "name"], `repo name ${bad}`);
    groupRef(["repos", i, "group"], r.group);
    if (r.syncConfig && r.syncConfig.source.trim() === "") at(["repos", i, "syncConfig", "source"], "source must name the repo to sync from (uid, org/repo or host/org/repo)");
    if (r.syncConfig && r.readme !== undefined) at(["repos", i, "readme"], "a repo with a syncConfig has its README synced from the source; remove readme");
    const path = `${r.group}/${r.name}`;
    if (repoPaths.has(path)) at(["repos", i, "name"], `duplicate repo "${path}" (repo names are unique in a group)`);
    repoPaths.add(path);
    return { ...r, path };
  });

  const sinks = new Set<string>();
  org.subscriptions.forEach((s, i) => {
    groupRef(["subscriptions", i, "group"], s.group);
    const bad = sinkProblem(s.sink);
    if (bad) at(["subscriptions", i, "sink"], `sink ${bad}`);
    const key = `${s.group} ${s.sink}`;
    if (sinks.has(key)) at(["subscriptions", i, "sink"], `duplicate subscription of "${s.group}" to ${s.sink}`);
    sinks.add(key);
  });

  if (problems.length > 0) throw new OrgFileError(file, problems);
  return { parentUid: org.parentUid, groups, identities, roles, bindings: org.bindings, repos, subscriptions: org.subscriptions };
}

/**
 * `; did you mean "x"?` for the name of `names` nearest to `name` (Levenshtein, case ignored, from
 * `fastest-levenshtein`) when it is within a third of the name's length (at least 2 edits), else "".
 */
function didYouMean(name: string, names: readonly string[]): string {
  const near = nearestName(name, names);
  return near === undefined ? "" : `; did you mean "${near}"?`;
}

/** Reads and checks an org file from disk. @throws OrgFileError; Error when the file cannot be read. */
export function loadOrgFile(file: string, knownRoles?: ReadonlySet<string>): OrgLayout {
  return parseOrgFile(readFileSync(file, "utf8"), file, knownRoles);
}
