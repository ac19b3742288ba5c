/**
 * Effective access as a report: grants in people's terms (dotted capability names, group paths), the difference
 * between two states, `--fail-on` patterns, and the three output formats of `platform-pulumi access` (README
 * "Access review" documents the JSON shape; it is kept stable).
 */
import { RE2JS } from "re2js";
import { CAPABILITY_NAMES, dottedName, wireName } from "../capabilities";
import { BUILTIN_ROLE_CAPABILITIES } from "./builtin";
import { OrgIndex, type Grant } from "./model";
import { capabilitySeverity, compareSeverity, SEVERITIES, type Severity } from "./severity";
import type { StackOrg } from "./stack";
import { mdCode, mdText, printable } from "../text";

/** An identity in a report: its name, its path (group path then name), and its uid (null until it exists). */
export interface ReportIdentity {
  name: string;
  path: string;
  uid: string | null;
  /**
   * Where the identity is managed, when the report was made on the whole org (docs/access.md "The whole org"):
   * `this stack`, `stack <name>` (another stack of the project in the backend) or `unmanaged` (no stack holds it).
   */
  managed?: string;
  /**
   * Set when the row is a class's (docs/access.md "Classes"): the identities that present for each other and hold
   * it alike, listed once per report; `name` and `path` then describe the class by its first member
   * (`ci-bot and 999 more`, that member's path) and `uid` is null.
   */
  members?: readonly ReportIdentity[];
  /** A class's key ({@link Grant.classKey}): equal across two states for the class of the same `claimMatch` values. */
  class?: string;
  /** Members of {@link members} a change row does not hold this way (they held it before, or joined after); absent when none. */
  except?: readonly ReportIdentity[];
}

/** How many identities `i` stands for: 1, or a class's members less its exceptions. */
export function holderCount(i: ReportIdentity): number {
  return i.members ? i.members.length - (i.except?.length ?? 0) : 1;
}

/** The words a class adds to its first member's path: `and 999 more identities that present for each other`. */
export function classWords(i: ReportIdentity): string {
  if (!i.members) return "";
  const n = holderCount(i);
  return `and ${n - 1} more identit${n - 1 === 1 ? "y" : "ies"} that present for each other${i.except?.length ? ` (not ${i.except.map((x) => x.path).join(", ")})` : ""}`;
}

/** An identity as a finding's message names it: its path, and for a class how many more ({@link classWords}). */
export function identityWords(i: ReportIdentity): string {
  return i.members ? `${i.path} ${classWords(i)}` : i.path;
}

/** An identity as a report row shows it: its path, and where it is managed when that is not this stack; a class's first member's path and how many more. */
export function identityLabel(i: ReportIdentity): string {
  const path = i.members ? `${i.path} ${classWords(i)}` : i.path;
  return i.managed && i.managed !== "this stack" ? `${path} (${i.managed})` : path;
}

/** The number of distinct identities that hold `rows` (a class counts its members). */
export function identitiesIn(rows: ReadonlyArray<{ identity: ReportIdentity }>): number {
  const seen = new Set<string>();
  let n = 0;
  for (const r of rows) {
    if (!r.identity.members) {
      const k = identityKey(r.identity);
      if (!seen.has(k)) {
        seen.add(k);
        n++;
      }
      continue;
    }
    const k = identityKey(r.identity);
    if (seen.has(k)) continue;
    seen.add(k);
    const except = new Set((r.identity.except ?? []).map(identityKey));
    for (const m of r.identity.members) {
      const mk = identityKey(m);
      if (!except.has(mk) && !seen.has(mk)) {
        seen.add(mk);
        n++;
      }
    }
  }
  return n;
}

/** Why a grant is held, in a report. */
export interface ReportVia {
  kind: "binding" | "escalation";
  role: string;
  /** Group path the role is (or would be) bound at. */
  boundAt: string;
  /** Each escalation step in words; empty for a binding. */
  steps: string[];
  /** The steps with the capability a step adds left out (one path, every capability it gives); empty for a binding. */
  route?: string[] | undefined;
  /**
   * When the org was read whole: the identities the route's steps act as or on that this stack does not manage,
   * each `<path> (<where>)` (`/ops/xbot (unmanaged)`, `/eng/ci (stack prod)`), so a reviewer sees whom to ask; absent
   * when every one is this stack's, or the stack was judged alone.
   */
  outside?: string[] | undefined;
}

/** One grant: `identity` holds `capability` (dotted, e.g. `groups.create`) at `group` (a path) and below. */
export interface ReportGrant {
  identity: ReportIdentity;
  capability: string;
  group: string;
  /** What holding the capability is worth (provider/access/severity.ts). */
  severity: Severity;
  /**
   * The routes to it, direct bindings first, then the fewest steps: at most {@link ROUTES_LISTED}, the rest counted
   * in {@link moreRoutes}, so a report grows with its grants, never with the ways to them.
   */
  via: ReportVia[];
  /** How many routes to it are not listed in `via` (past {@link ROUTES_LISTED}); absent when every route is. */
  moreRoutes?: number | undefined;
}

/** The most routes a grant of a report lists ({@link ReportGrant.via}); the rest are counted, not listed. */
export const ROUTES_LISTED = 3;

/** Orders as `String.prototype.localeCompare` does (the default locale), at a fraction of its cost per call. */
const collator = new Intl.Collator();

/** One change between two states. */
export interface ReportChange extends ReportGrant {
  change: "gained" | "lost";
}

/** The grants of `grants` (from {@link effectiveAccess} over `so.org`) in report form, by identity path, capability, group. */
export function reportGrants(so: StackOrg, grants: readonly Grant[]): ReportGrant[] {
  const ix = new OrgIndex(so.org);
  // One identity object per identity, one route object per model route: a report's rows share them.
  const identities = new Map<string, ReportIdentity>();
  const identityOf = (id: string): ReportIdentity => {
    let i = identities.get(id);
    const managed = so.managed?.get(id);
    if (!i) identities.set(id, (i = { name: ix.identityName(id), path: ix.identityPath(id), uid: so.identityUid.get(id) ?? (id.startsWith("urn:") ? null : id), ...(managed ? { managed } : {}) }));
    return i;
  };
  // One object per class: its rows share it (and its member list).
  const classes = new Map<readonly string[], ReportIdentity>();
  const classOf = (g: Grant): ReportIdentity => {
    let c = classes.get(g.members!);
    if (!c) {
      const ms = g.members!.map(identityOf);
      const first = ms[0]!;
      const places = [...new Set(ms.map((m) => m.managed).filter((x): x is string => x !== undefined))];
      classes.set(g.members!, (c = { name: `${first.name} and ${ms.length - 1} more`, path: first.path, uid: null, ...(places.length ? { managed: places.length === 1 ? places[0]! : places.join(", ") } : {}), members: ms, class: g.classKey ?? first.path }));
    }
    return c;
  };
  // The identities a route's steps act as or on (the actor, the identity assumed or presented as) that the stack
  // does not manage.
  const outsideOf = (v: Grant["via"][number]): string[] => {
    const ids = new Set<string>();
    for (const st of v.path) {
      ids.add(st.actorId);
      if (st.kind === "assume" || st.kind === "present") ids.add(st.targetId);
    }
    return [...ids].flatMap((id) => {
      const where = so.managed?.get(id);
      return where && where !== "this stack" ? [`${ix.identityPath(id)} (${where})`] : [];
    });
  };
  const routes = new WeakMap<Grant["via"][number], ReportVia>();
  const routeOf = (v: Grant["via"][number]): ReportVia => {
    let r = routes.get(v);
    if (!r) {
      const outside = so.managed ? outsideOf(v) : [];
      routes.set(v, (r = { kind: v.kind, role: v.role, boundAt: ix.groupPath(v.boundAt), steps: v.steps, ...(v.route ? { route: v.route } : {}), ...(outside.length ? { outside } : {}) }));
    }
    return r;
  };
  const rows = grants.map((g): ReportGrant => {
    // Direct bindings first, then the fewest steps; past ROUTES_LISTED, counted.
    const vias = g.via.length > 1 ? [...g.via].sort((a, b) => Number(b.kind === "binding") - Number(a.kind === "binding") || a.path.length - b.path.length) : g.via;
    return {
      identity: g.members ? classOf(g) : identityOf(g.identityId),
      capability: dottedName(g.capability),
      group: ix.groupPath(g.groupId),
      severity: capabilitySeverity(g.capability),
      via: vias.slice(0, ROUTES_LISTED).map(routeOf),
      ...(vias.length > ROUTES_LISTED ? { moreRoutes: vias.length - ROUTES_LISTED } : {}),
    };
  });
  return rows.sort((x, y) => collator.compare(x.identity.path, y.identity.path) || collator.compare(x.capability, y.capability) || collator.compare(x.group, y.group));
}

/** An identity's key in a report: its uid, or its path while it has none; a class's by its key and exceptions. */
export function identityKey(i: ReportIdentity): string {
  if (i.members) return `class:${i.class ?? i.path}${i.except?.length ? `\u0000${i.except.map((x) => x.uid ?? x.path).join("\u0000")}` : ""}`;
  return i.uid ?? `path:${i.path}`;
}

/** A class of a JSON report: the id its rows' `identity.class` names, its key ({@link Grant.classKey}), and its members. */
export interface JsonClass {
  id: string;
  key: string;
  members: readonly ReportIdentity[];
}

/**
 * `rows` with each class's members listed once (docs/access.md "Classes"): a class row's `identity` keeps its
 * name and path, names its entry of `classes` (`class`: `c1`, `c2`, …; a class before and after a change are two
 * entries when their members differ), `size` (the identities it stands for) and its exceptions' paths (`except`).
 */
export function classTable<R extends ReportGrant>(rows: readonly R[]): { rows: R[]; classes: JsonClass[] } {
  const classes = new Map<readonly ReportIdentity[], JsonClass>();
  const slim = new Map<ReportIdentity, ReportIdentity>();
  const listed = rows.map((r) => {
    const i = r.identity as ReportIdentity | undefined;
    if (!i?.members) return r;
    let s = slim.get(i);
    if (!s) {
      let c = classes.get(i.members);
      if (!c) classes.set(i.members, (c = { id: `c${classes.size + 1}`, key: i.class ?? i.path, members: i.members }));
      const { members: _m, except, ...rest } = i;
      s = { ...rest, class: c.id, size: holderCount(i), ...(except?.length ? { except: except.map((x) => x.path) } : {}) } as unknown as ReportIdentity;
      slim.set(i, s);
    }
    return { ...r, identity: s };
  });
  return { rows: listed, classes: [...classes.values()] };
}

/**
 * The inverse of {@link classTable}: rows read back from a JSON report (the pack's `access.json`, a gate report),
 * each class row's `identity` given its members and key again (one object per class and exceptions), so the
 * renderers ({@link compactRows}, {@link markdown}) and {@link diffGrants} see what {@link reportGrants} gave. Rows
 * without a class are returned as they are; a class the table does not list stays as read.
 */
export function withMembers<R extends ReportGrant>(rows: readonly R[], classes: readonly JsonClass[] | undefined): R[] {
  if (!classes?.length) return [...rows];
  const byId = new Map(classes.map((c) => [c.id, c]));
  const full = new Map<string, ReportIdentity>();
  return rows.map((r) => {
    const i = r.identity as ReportIdentity & { except?: unknown };
    const c = i.class !== undefined ? byId.get(i.class) : undefined;
    if (!c) return r;
    const exceptPaths = Array.isArray(i.except) ? (i.except as unknown[]).filter((x): x is string => typeof x === "string") : [];
    const k = `${c.id}\u0000${exceptPaths.join("\u0000")}`;
    let f = full.get(k);
    if (!f) {
      const { size: _s, except: _e, ...rest } = i as ReportIdentity & { size?: number };
      const except = c.members.filter((m) => exceptPaths.includes(m.path));
      full.set(k, (f = { ...rest, class: c.key, members: c.members, ...(except.length ? { except } : {}) }));
    }
    return { ...r, identity: f };
  });
}

/** Whether group path `inner` is `outer` or below it. */
export function withinPath(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  return outer === "/" ? inner.startsWith("/") : inner.startsWith(`${outer}/`);
}

/**
 * What changed from `before` to `after`: a grant of `after` not covered in `before` (same identity and capability
 * at its group or an ancestor) is gained; the reverse is lost. Identities match by uid, or by path while a uid is
 * unknown; groups by path. Gains come first, then by identity path, capability and group.
 *
 * Class rows ({@link ReportIdentity.members}) are matched as a class, by their key: a member holds what its own
 * rows and its class's rows give. A class row is a change for the members whose class did not cover it and whose
 * own rows did not either; when that is most of the class it stays one row (the others in
 * {@link ReportIdentity.except}), else it is one row per such member, so a change costs what it changes, not the
 * class's size times its grants.
 */
export function diffGrants(before: readonly ReportGrant[], after: readonly ReportGrant[]): ReportChange[] {
  const out: ReportChange[] = [...changesOf(after, before, "gained"), ...changesOf(before, after, "lost")];
  return out.sort((x, y) => (x.change === y.change ? 0 : x.change === "gained" ? -1 : 1) || collator.compare(x.identity.path, y.identity.path) || collator.compare(x.capability, y.capability) || collator.compare(x.group, y.group));
}

/** The group paths `path` is within ({@link withinPath}): itself, then each prefix ending before a `/`, then `/` for a path from the root. */
function pathsUp(path: string): string[] {
  const out = [path];
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) out.push(path.slice(0, i));
  if (path.startsWith("/") && path !== "/") out.push("/");
  return out;
}

/** The rows of `now` that `then` does not cover, as `change` ({@link diffGrants}). */
function changesOf(now: readonly ReportGrant[], then: readonly ReportGrant[], change: "gained" | "lost"): ReportChange[] {
  const own = new Map<string, ReportGrant[]>();
  const ownAt = new Map<string, Set<string>>();
  const cls = new Map<string, ReportGrant[]>();
  const classThen = new Map<string, string>();
  const seenClass = new Set<ReportIdentity>();
  for (const g of then) {
    if (g.identity.members) {
      const k = `${g.identity.class}\u0000${g.capability}`;
      const list = cls.get(k);
      if (list) list.push(g);
      else cls.set(k, [g]);
      if (!seenClass.has(g.identity)) {
        seenClass.add(g.identity);
        for (const m of g.identity.members) classThen.set(identityKey(m), g.identity.class!);
      }
      continue;
    }
    const ik = identityKey(g.identity);
    const k = `${ik}\u0000${g.capability}`;
    const list = own.get(k);
    if (list) list.push(g);
    else own.set(k, [g]);
    const at = `${g.capability}\u0000${g.group}`;
    const set = ownAt.get(at);
    if (set) set.add(ik);
    else ownAt.set(at, new Set([ik]));
  }
  const coveredOwn = (ik: string, g: ReportGrant) => (own.get(`${ik}\u0000${g.capability}`) ?? []).some((x) => withinPath(g.group, x.group));
  const coveredClass = (ck: string | undefined, g: ReportGrant) => ck !== undefined && (cls.get(`${ck}\u0000${g.capability}`) ?? []).some((x) => withinPath(g.group, x.group));
  const row = (g: ReportGrant, identity: ReportIdentity): ReportChange => ({ identity, change, capability: g.capability, group: g.group, severity: g.severity, via: g.via, ...(g.moreRoutes ? { moreRoutes: g.moreRoutes } : {}) });
  // A class's members by the class each was in `then` ("" for none), computed once per class.
  const parts = new Map<ReportIdentity, Map<string, ReportIdentity[]>>();
  const partsOf = (c: ReportIdentity) => {
    let p = parts.get(c);
    if (!p) {
      p = new Map();
      for (const m of c.members!) {
        const k = classThen.get(identityKey(m)) ?? "";
        const list = p.get(k);
        if (list) list.push(m);
        else p.set(k, [m]);
      }
      parts.set(c, p);
    }
    return p;
  };
  // One object per class and set of exceptions.
  const excepts = new Map<string, ReportIdentity>();
  const holderOf = (c: ReportIdentity, except: ReportIdentity[]): ReportIdentity => {
    if (except.length === 0) return c;
    const k = `${identityKey(c)}\u0000${except.map(identityKey).join("\u0000")}`;
    let h = excepts.get(k);
    if (!h) excepts.set(k, (h = { ...c, except }));
    return h;
  };
  const out: ReportChange[] = [];
  for (const g of now) {
    const c = g.identity;
    if (!c.members) {
      const ik = identityKey(c);
      if (!coveredOwn(ik, g) && !coveredClass(classThen.get(ik), g)) out.push(row(g, c));
      continue;
    }
    // The members whose own rows held it, at its group or above.
    let heldOwn: Set<string> | undefined;
    for (const p of pathsUp(g.group)) {
      const at = ownAt.get(`${g.capability}\u0000${p}`);
      if (at) for (const ik of at) (heldOwn ??= new Set()).add(ik);
    }
    const holders: ReportIdentity[] = [];
    for (const [ck, ms] of partsOf(c)) {
      if (coveredClass(ck === "" ? undefined : ck, g)) continue;
      for (const m of ms) if (!heldOwn?.has(identityKey(m))) holders.push(m);
    }
    if (holders.length === 0) continue;
    if (holders.length * 2 > c.members.length) {
      const keep = new Set(holders);
      out.push(row(g, holderOf(c, c.members.filter((m) => !keep.has(m)))));
    } else for (const m of holders) out.push(row(g, m));
  }
  return out;
}

/** The qualified dotted name (`iam.groups.create` for an IAM capability; else the dotted name). */
function qualified(dotted: string): string {
  return wireName(dotted)?.startsWith("CAP_IAM_") ? `iam.${dotted}` : dotted;
}

/**
 * Compiles `--fail-on` patterns: a comma-separated list of globs over capability names, where `*` matches any run
 * of characters (dots included) and `?` one character. A pattern matches a capability when it matches its dotted
 * name (`groups.delete`) or its qualified one (`iam.groups.delete`), so `iam.*`, `*.delete` and `role_bindings.*`
 * all work. Matching uses RE2 (`re2js`).
 * @throws Error naming the pattern when one is empty.
 */
export function capabilityMatcher(patterns: readonly string[]): (dotted: string) => boolean {
  const list = patterns.flatMap((p) => p.split(",")).map((p) => p.trim());
  const bad = list.find((p) => p === "");
  if (bad !== undefined) throw new Error(`--fail-on: an empty capability pattern in "${patterns.join(",")}"; give globs such as iam.*, *.delete`);
  // Bounded before anything is compiled: a capability name is short, and there are a few hundred of them.
  const long = list.find((p) => p.length > 256);
  if (long !== undefined) throw new Error(`--fail-on: a capability pattern of ${long.length} characters (at most 256), starting "${printable(long.slice(0, 40))}"`);
  if (list.length > 1000) throw new Error(`--fail-on: ${list.length} capability patterns (at most 1000)`);
  const res = list.map((p) => RE2JS.compile(`^${p.split("").map((c) => (c === "*" ? ".*" : c === "?" ? "." : RE2JS.quote(c))).join("")}$`));
  return (dotted) => res.some((re) => re.matches(dotted) || re.matches(qualified(dotted)));
}


/**
 * Rows as a reviewer reads them: one per identity, change, scope and route (the path with the capability each
 * step adds left out), with every capability that route gives there, and the highest severity among them.
 */
export interface CompactRow {
  identity: ReportIdentity;
  change?: "gained" | "lost" | undefined;
  group: string;
  severity: Severity;
  /** Dotted capabilities, sorted. */
  capabilities: string[];
  /** The capabilities said with the fewest roles: `owner`, `owner + 3 more: policy.*, scim.manage`. */
  gives: string;
  /** The route, in words: `owner bound at /`, or the escalation's steps. */
  how: string[];
  /** Whether the route is a binding of the identity's own. */
  direct: boolean;
  /** The most routes to one of its capabilities that the report does not list ({@link ReportGrant.moreRoutes}); absent when none. */
  moreRoutes?: number | undefined;
  /** The route's identities outside this stack ({@link ReportVia.outside}); absent when none. */
  outside?: string[] | undefined;
}

/** The words marking a route through identities this stack does not manage: `through objects outside this stack: …`. */
export function outsideWords(outside: readonly string[]): string {
  return `through objects outside this stack: ${outside.join(", ")}`;
}

/** The closing words of a row whose capabilities have routes not listed: `and 2 more routes not listed`. */
export function moreRoutesWords(n: number): string {
  return `and ${n} more route${n === 1 ? "" : "s"} not listed`;
}

const BUILTIN_ORDER = ["owner", "editor", "viewer", "registry.pull"] as const;
const FAMILIES = (() => {
  const m = new Map<string, string[]>();
  for (const w of CAPABILITY_NAMES) {
    const d = dottedName(w);
    const fam = d.slice(0, d.lastIndexOf("."));
    m.set(fam, [...(m.get(fam) ?? []), d]);
  }
  return m;
})();

/**
 * `capabilities` (dotted) said with the fewest words: the largest built-in roles they hold whole (owner, editor,
 * viewer, registry.pull), then a family held whole as `family.*`, then the rest by name.
 * @returns e.g. `owner`, `owner + 17 more: advisories.approve, policy.*, scim.manage`, `repo.list, tag.list`.
 */
export function rolesFor(capabilities: readonly string[]): string {
  const have = new Set(capabilities);
  const explained = new Set<string>();
  const roles: string[] = [];
  for (const r of BUILTIN_ORDER) {
    const caps = BUILTIN_ROLE_CAPABILITIES[r].map(dottedName);
    if (caps.every((c) => have.has(c)) && caps.some((c) => !explained.has(c))) {
      roles.push(r);
      caps.forEach((c) => explained.add(c));
    }
  }
  const rest = [...have].filter((c) => !explained.has(c)).sort();
  const words: string[] = [];
  const used = new Set<string>();
  for (const c of rest) {
    if (used.has(c)) continue;
    const fam = c.slice(0, c.lastIndexOf("."));
    const all = FAMILIES.get(fam);
    if (all && all.length > 1 && all.every((x) => have.has(x)) && all.some((x) => !explained.has(x))) {
      words.push(`${fam}.*`);
      all.forEach((x) => used.add(x));
    } else {
      words.push(c);
      used.add(c);
    }
  }
  if (roles.length === 0) return words.join(", ");
  const n = rest.length;
  return n === 0 ? roles.join(" + ") : `${roles.join(" + ")} + ${n} more: ${words.join(", ")}`;
}

/**
 * Groups rows by identity, change, scope and route ({@link CompactRow}); most severe first, gains before losses. A
 * row's `moreRoutes` is the most routes any of its capabilities has past those listed.
 */
export function compactRows(rows: ReadonlyArray<ReportGrant | ReportChange>): CompactRow[] {
  const out = new Map<string, CompactRow>();
  for (const r of rows) {
    const change = "change" in r ? r.change : undefined;
    // One row per route: a grant held several ways shows each (direct bindings first).
    for (const v of r.via) {
      const how = v.kind === "binding" ? [`${v.role} bound at ${v.boundAt}`] : (v.route ?? v.steps);
      const key = [identityKey(r.identity), change ?? "", r.group, v.kind, v.kind === "binding" ? v.role : "", ...how].join("\u0000");
      const hit = out.get(key);
      if (hit) {
        if (!hit.capabilities.includes(r.capability)) hit.capabilities.push(r.capability);
        if (compareSeverity(r.severity, hit.severity) < 0) hit.severity = r.severity;
        if (r.moreRoutes && r.moreRoutes > (hit.moreRoutes ?? 0)) hit.moreRoutes = r.moreRoutes;
      } else out.set(key, { identity: r.identity, change, group: r.group, severity: r.severity, capabilities: [r.capability], gives: "", how, direct: v.kind === "binding", ...(r.moreRoutes ? { moreRoutes: r.moreRoutes } : {}), ...(v.outside ? { outside: v.outside } : {}) });
    }
  }
  const list = [...out.values()];
  for (const r of list) {
    r.capabilities.sort();
    r.gives = rolesFor(r.capabilities);
  }
  return list.sort(
    (x, y) =>
      (x.change === y.change ? 0 : x.change === "gained" ? -1 : 1) ||
      compareSeverity(x.severity, y.severity) ||
      x.identity.path.localeCompare(y.identity.path) ||
      x.group.localeCompare(y.group) ||
      Number(y.direct) - Number(x.direct),
  );
}

/** Counts for a report's summary line. */
function summaryLine(rows: ReadonlyArray<ReportGrant | ReportChange>, current: boolean): string {
  const bySev = (rs: ReadonlyArray<ReportGrant | ReportChange>) => SEVERITIES.map((s) => [s, rs.filter((r) => r.severity === s).length] as const).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(", ");
  const ids = identitiesIn;
  if (current) return `${rows.length} grant(s) held by ${ids(rows)} identit${ids(rows) === 1 ? "y" : "ies"} (${bySev(rows)})`;
  const gained = rows.filter((r) => "change" in r && r.change === "gained");
  const lost = rows.filter((r) => "change" in r && r.change === "lost");
  return `${gained.length} capability grant(s) gained by ${ids(gained)} identit${ids(gained) === 1 ? "y" : "ies"}${gained.length ? ` (${bySev(gained)})` : ""}, ${lost.length} lost`;
}

/** Options of {@link markdown}. */
export interface MarkdownOptions {
  /** The most characters the Markdown may take; rows past it are counted in a closing line. @default 60000 (a GitHub comment holds 65,536) */
  maxChars?: number;
  /** Where the full JSON report was written, named in the closing line when rows are left out. */
  jsonFile?: string | undefined;
  /** The heading; default `### Access changes: stack \`…\`` (or `### Effective access: …` with `current`). */
  title?: string;
}

/** The default Markdown budget, in characters. */
export const MARKDOWN_BUDGET = 60_000;

/**
 * A Markdown report for a pull request: a summary line, then one table with a row per identity, scope and route
 * ({@link compactRows}): most severe first, capabilities said with the fewest roles, the route's steps in words.
 * Rows past `opts.maxChars` are left out and counted in a closing line naming the full JSON report.
 */
export function markdown(stack: string, rows: ReadonlyArray<ReportGrant | ReportChange>, current: boolean, opts: MarkdownOptions = {}): string {
  const title = opts.title ?? (current ? `### Effective access: stack \`${stack}\`` : `### Access changes: stack \`${stack}\``);
  if (rows.length === 0) return `${title}\n\n${current ? "No identity holds access through this stack." : "No access gained or lost."}\n`;
  const budget = opts.maxChars ?? MARKDOWN_BUDGET;
  const compact = compactRows(rows);
  const head = [title, "", `**${summaryLine(rows, current)}**`, "", current ? "| severity | identity | holds | at | how |" : "| severity | identity | change | gains or loses | at | how |", current ? "|---|---|---|---|---|" : "|---|---|---|---|---|---|"];
  const lines = [...head];
  let size = lines.join("\n").length;
  let shown = 0;
  let last = "";
  for (const r of compact) {
    // Names and paths are server text: escaped or code, never markup in the pull request (`text.ts`).
    const id = identityKey(r.identity);
    const who = id === last ? "" : `**${mdText(r.identity.members?.[0]?.name ?? r.identity.name)}** ${mdCode(r.identity.path)}${r.identity.members ? ` ${mdText(classWords(r.identity))}` : ""}${r.identity.managed && r.identity.managed !== "this stack" ? ` (${mdText(r.identity.managed)})` : ""}`;
    const how = [...r.how.map((h, i) => (r.how.length > 1 ? `${i + 1}. ${mdText(h)}` : mdText(h))), ...(r.outside ? [`*${mdText(outsideWords(r.outside))}*`] : []), ...(r.moreRoutes ? [`*${moreRoutesWords(r.moreRoutes)}*`] : [])].join("<br>");
    const line = current
      ? `| ${r.severity} | ${who} | ${mdText(r.gives)} | ${mdCode(r.group)} | ${how} |`
      : `| ${r.severity} | ${who} | ${r.change === "gained" ? "+ gained" : "- lost"} | ${mdText(r.gives)} | ${mdCode(r.group)} | ${how} |`;
    if (size + line.length + 200 > budget) break;
    lines.push(line);
    size += line.length + 1;
    shown++;
    last = id;
  }
  if (shown < compact.length) {
    const left = compact.slice(shown);
    lines.push("", `*${left.length} more row(s) not shown (${left.map((r) => r.capabilities.length).reduce((a, b) => a + b, 0)} capability grant(s)) to keep this comment within ${budget} characters; the full report is ${opts.jsonFile ? `in ${mdCode(opts.jsonFile)}` : "in the JSON output (`--format json`, or `--json-out <file>`)"}.*`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A plain-text report for a terminal: a summary line, then per identity, scope and route ({@link compactRows}) one
 * header line (`+` gained, `-` lost; none with `--current`) with its severity and what it gives, the route's
 * steps numbered below it.
 */
export function textTable(rows: ReadonlyArray<ReportGrant | ReportChange>, current: boolean): string {
  if (rows.length === 0) return current ? "no identity holds access through this stack\n" : "no access gained or lost\n";
  const out: string[] = [printable(summaryLine(rows, current))];
  for (const r of compactRows(rows)) {
    const sign = current ? "" : r.change === "gained" ? "+ " : "- ";
    out.push(printable(`${sign}[${r.severity}] ${identityLabel(r.identity)}  at ${r.group}: ${r.gives}`));
    if (r.direct) out.push(`    ${printable(r.how[0]!)}`);
    else r.how.forEach((step, i) => out.push(`    ${i + 1}. ${printable(step)}`));
    if (r.outside) out.push(`    (${printable(outsideWords(r.outside))})`);
    if (r.moreRoutes) out.push(`    (${moreRoutesWords(r.moreRoutes)})`);
  }
  return `${out.join("\n")}\n`;
}
