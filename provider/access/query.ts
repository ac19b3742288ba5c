/**
 * Access queries over the effective-access model (./model.ts): "who can do this here" (`access --who-can <glob>
 * --at <group>`) and "can this identity do this here" (`access --can <identity> <capability> --at <group>`),
 * README "Access review". Pure functions over a {@link StackOrg} and its grants: the command runs them on a stack's
 * state or plan, the conformance tests on an org read from the API.
 *
 * A grant at a group or an ancestor covers the group ({@link holds}); for each identity the query keeps the route
 * with the fewest escalation steps among the covering grants (a binding of its own has none).
 */
import { closest, distance } from "fastest-levenshtein";
import { CAPABILITY_NAMES, dottedName, dottedNames, wireName } from "../capabilities";
import { BUILTIN_ROLE_CAPABILITIES } from "./builtin";
import { ESCALATION_KINDS, OrgIndex, effectiveAccess, type EscalationKind, type Grant, type Via } from "./model";
import { capabilityMatcher, markdown, textTable, type ReportGrant, type ReportIdentity } from "./report";
import { capabilitySeverity } from "./severity";
import type { StackOrg } from "./stack";
import { jsonText, mdCode, mdText, printable } from "../text";

/** Bad input to a query: the message names the flag, its value and what is allowed (exit code 2 in the command). */
export class QueryError extends Error {}

/** An org ready to query: the org, its index, and its effective access (grants closed under escalation). */
export interface AccessQuery {
  so: StackOrg;
  ix: OrgIndex;
  grants: readonly Grant[];
  /** The grants by identity id and capability (`<id>\u0000<capability>`); a class row under each member's id. */
  byHolder: ReadonlyMap<string, readonly Grant[]>;
}

/**
 * Indexes `so` and computes its effective access ({@link effectiveAccess}) for {@link whoCan} and {@link canDo}.
 * @param escalations the escalation steps to close over; default every kind ({@link ESCALATION_KINDS}).
 * @param classRowsFrom {@link AccessOptions.classRowsFrom}: a large class's grants computed once and found under
 *   each member (a hit through one is given as that member's); default unset (member by member).
 */
export function accessQuery(so: StackOrg, escalations: readonly EscalationKind[] = ESCALATION_KINDS, classRowsFrom?: number): AccessQuery {
  const grants = effectiveAccess(so.org, { escalations, ...(classRowsFrom !== undefined ? { classRowsFrom } : {}) });
  const byHolder = new Map<string, Grant[]>();
  const put = (id: string, g: Grant) => {
    const k = `${id}\u0000${g.capability}`;
    const list = byHolder.get(k);
    if (list) list.push(g);
    else byHolder.set(k, [g]);
  };
  for (const g of grants) for (const id of g.members ?? [g.identityId]) put(id, g);
  return { so, ix: new OrgIndex(so.org), grants, byHolder };
}

/** One holder of a capability at the queried group, by its shortest route. */
export interface QueryHolder {
  identity: ReportIdentity;
  /** Dotted capability (`groups.create`). */
  capability: string;
  /** The group path the grant is held at: the queried group or an ancestor. */
  group: string;
  severity: ReportGrant["severity"];
  /** The shortest route ({@link ReportGrant.via}'s shape): the role, the group it is (or would be) bound at, the steps in words. */
  via: { kind: "binding" | "escalation"; role: string; boundAt: string; steps: string[] };
  /** The number of escalation steps (0 for a binding). */
  length: number;
}

/** A holder with the model's data behind it (ids, the route's steps as data), for callers that act on the route. */
export interface QueryHit {
  holder: QueryHolder;
  grant: Grant;
  route: Via;
}

/** `value` as a report's path: with its leading slash (the org file writes paths without one). */
const asPath = (value: string): string => (value.startsWith("/") ? value : `/${value}`);

/**
 * The group id `value` names: a group path as reports show it (`/`, `/engineering/platform`), or as the org file
 * writes it (`engineering/platform`, no leading slash), or a group's uid.
 * @throws QueryError naming `--at`, the value and the nearest known group paths.
 */
export function resolveGroup(q: AccessQuery, value: string): string {
  const v = value.trim();
  const paths = q.so.org.groups.map((g) => [q.ix.groupPath(g.id), g.id] as const);
  const hit = paths.find(([p, id]) => p === v || id === v || (v !== "/" && p === asPath(v).replace(/\/+$/, "")));
  if (hit) return hit[1];
  const known = paths.map(([p]) => p).sort();
  throw new QueryError(`--at: no group "${value}" in the stack${near(v, known)}; give a group path (${listed(known)}) or a group uid`);
}

/**
 * The identity id `value` names: an identity path as reports show it (`/engineering/ci-deployer`), or as the org
 * file writes it (`engineering/ci-deployer`), or its uid.
 * @throws QueryError naming `--can`, the value and the nearest known identity paths.
 */
export function resolveIdentity(q: AccessQuery, value: string): string {
  const v = value.trim();
  const ids = q.so.org.identities.map((i) => [q.ix.identityPath(i.id), i.id, q.so.identityUid.get(i.id)] as const);
  const hit = ids.find(([p, id, uid]) => p === v || id === v || uid === v || p === asPath(v));
  if (hit) return hit[1];
  const known = ids.map(([p]) => p).sort();
  throw new QueryError(`--can: no identity "${value}" in the stack${near(v, known)}; give an identity path (${listed(known)}) or an identity uid`);
}

/**
 * The wire name of a capability given dotted (`groups.create`), qualified (`iam.groups.create`) or in wire form
 * (`CAP_IAM_GROUPS_CREATE`): one of the package's capabilities, or of `universe` (wire names; default the package's).
 * @throws QueryError naming the value and the nearest capability names.
 */
export function resolveCapability(value: string, universe: readonly string[] = CAPABILITY_NAMES): string {
  const v = value.trim();
  const wire = wireName(v) ?? wireName(v.replace(/^iam\./i, "")) ?? wireName(v.toUpperCase());
  if (wire) return wire;
  // Capabilities the package's list does not name but roles hold (built-in roles' events and overlays ones).
  const other = universe.find((c) => c === v || c === v.toUpperCase() || dottedName(c) === v.toLowerCase().replace(/^iam\./, ""));
  if (other) return other;
  const names = [...new Set([...dottedNames(), ...universe.map(dottedName)])].sort();
  const family = v.toLowerCase().replace(/^iam\./, "").split(".")[0] ?? "";
  const same = names.filter((n) => family !== "" && n.startsWith(`${family}.`));
  throw new QueryError(`--can: "${value}" is not a capability${near(v.toLowerCase().replace(/^iam\./, ""), names)}; ${same.length ? `capabilities of ${family}: ${same.join(", ")}` : `capabilities are dotted names such as ${names.slice(0, 6).join(", ")} (all: ${names.length})`}`);
}

/**
 * The capabilities (wire names) a `--who-can` glob matches ({@link capabilityMatcher}: `*` any run, `?` one
 * character, over dotted and `iam.`-qualified names).
 * @throws QueryError naming `--who-can` when the glob is empty or matches no capability.
 */
export function matchCapabilities(glob: string, universe: readonly string[] = CAPABILITY_NAMES): string[] {
  if (glob.split(",").some((p) => p.trim() === "")) throw new QueryError(`--who-can: "${glob}" has an empty capability pattern; give a glob such as groups.*, *.delete or role_bindings.create`);
  const match = capabilityMatcher([glob]);
  const caps = [...new Set(universe)].filter((c) => match(dottedName(c)));
  if (caps.length === 0) throw new QueryError(`--who-can: "${glob}" matches no capability${near(glob, dottedNames())}; globs run over dotted names (groups.create, iam.groups.*, *.delete)`);
  return caps.sort();
}

/** The way `identityId` holds `capability` at group `groupId` with the fewest steps (direct first), or undefined. */
function shortest(q: AccessQuery, identityId: string, capability: string, groupId: string): QueryHit | undefined {
  const up = q.ix.ancestors(groupId);
  let best: { grant: Grant; route: Via } | undefined;
  for (const g of q.byHolder.get(`${identityId}\u0000${capability}`) ?? []) {
    if (!up.includes(g.groupId)) continue;
    for (const v of g.via) if (!best || v.path.length < best.route.path.length) best = { grant: g, route: v };
  }
  if (!best) return undefined;
  const { route } = best;
  // A class row, as the member's own grant.
  const grant: Grant = best.grant.members ? { identityId, capability, groupId: best.grant.groupId, via: best.grant.via } : best.grant;
  return {
    grant,
    route,
    holder: {
      identity: identityOf(q, identityId),
      capability: dottedName(capability),
      group: q.ix.groupPath(grant.groupId),
      severity: capabilitySeverity(capability),
      via: { kind: route.kind, role: route.role, boundAt: q.ix.groupPath(route.boundAt), steps: route.steps },
      length: route.path.length,
    },
  };
}

/** Every capability the query knows (wire names): the package's, and those the org's roles (built-in included) hold. */
function universeOf(q: AccessQuery): string[] {
  return [...new Set([...CAPABILITY_NAMES, ...Object.values(BUILTIN_ROLE_CAPABILITIES).flat(), ...q.so.org.roles.flatMap((r) => r.capabilities)])];
}

function identityOf(q: AccessQuery, id: string): ReportIdentity {
  const managed = q.so.managed?.get(id);
  return { name: q.ix.identityName(id), path: q.ix.identityPath(id), uid: q.so.identityUid.get(id) ?? (id.startsWith("urn:") ? null : id), ...(managed ? { managed } : {}) };
}

/**
 * Every identity that holds a capability matching `glob` at the group `at` (a path or uid), directly or by
 * escalation, each with its shortest route: one row per identity and capability, sorted by identity path then
 * capability.
 * @throws QueryError for a bad glob or an unknown group.
 */
export function whoCan(q: AccessQuery, glob: string, at: string): QueryHit[] {
  const caps = matchCapabilities(glob, universeOf(q));
  const group = resolveGroup(q, at);
  const out: QueryHit[] = [];
  for (const i of q.so.org.identities) {
    for (const c of caps) {
      const hit = shortest(q, i.id, c, group);
      if (hit) out.push(hit);
    }
  }
  return out.sort((a, b) => a.holder.identity.path.localeCompare(b.holder.identity.path) || a.holder.capability.localeCompare(b.holder.capability));
}

/** The answer of {@link canDo}: `hit` (the shortest route) when `yes`. */
export interface CanAnswer {
  yes: boolean;
  identity: ReportIdentity;
  /** Dotted capability. */
  capability: string;
  /** The queried group's path. */
  at: string;
  hit?: QueryHit | undefined;
}

/**
 * Whether `identity` (a path or uid) holds `capability` (dotted, `iam.`-qualified or wire form) at group `at` (a
 * path or uid), directly or by escalation, with the shortest route when it does.
 * @throws QueryError for an unknown identity, capability or group.
 */
export function canDo(q: AccessQuery, identity: string, capability: string, at: string): CanAnswer {
  const id = resolveIdentity(q, identity);
  const cap = resolveCapability(capability, universeOf(q));
  const group = resolveGroup(q, at);
  const hit = shortest(q, id, cap, group);
  return { yes: hit !== undefined, identity: identityOf(q, id), capability: dottedName(cap), at: q.ix.groupPath(group), hit };
}

/** The JSON of `--who-can` (README "Access review"). */
export interface WhoCanJson {
  stack: string;
  /** `current` (the state) or `plan` (after the change). */
  state: "current" | "plan";
  whoCan: string;
  at: string;
  holders: QueryHolder[];
}

/** The JSON of `--can` (README "Access review"). */
export interface CanJson {
  stack: string;
  state: "current" | "plan";
  identity: ReportIdentity;
  capability: string;
  at: string;
  can: boolean;
  /** The shortest route, when `can`. */
  holder?: QueryHolder | undefined;
}

/** What a query prints, in the command's formats (`table`, `json`, `markdown`). */
export type QueryFormat = "table" | "json" | "markdown";

function asGrant(h: QueryHolder): ReportGrant {
  return { identity: h.identity, capability: h.capability, group: h.group, severity: h.severity, via: [h.via] };
}

/** `--who-can`'s output: a title line, then the report's grouped rows ({@link textTable} / {@link markdown}), or {@link WhoCanJson}. */
export function formatWhoCan(stack: string, current: boolean, glob: string, at: string, hits: readonly QueryHit[], format: QueryFormat): string {
  const q = hits.map((h) => h.holder);
  const when = current ? "now" : "after the change";
  if (format === "json") return `${jsonText({ stack, state: current ? "current" : "plan", whoCan: glob, at, holders: q } satisfies WhoCanJson)}\n`;
  const ids = new Set(q.map((h) => h.identity.uid ?? h.identity.path)).size;
  const head = `who can ${glob} at ${at} (${when}): ${ids} identit${ids === 1 ? "y" : "ies"}`;
  if (format === "markdown") {
    const title = `### Who can ${mdCode(glob)} at ${mdCode(at)} (${when}): stack ${mdCode(stack)}`;
    return q.length ? markdown(stack, q.map(asGrant), true, { title }) : `${title}\n\nNo identity holds it there.\n`;
  }
  return q.length ? `${printable(head)}\n${textTable(q.map(asGrant), true)}` : `${printable(head)}\n`;
}

/** `--can`'s output: `yes`/`no` with the identity, capability and group, then the route, or {@link CanJson}. */
export function formatCan(stack: string, current: boolean, a: CanAnswer, format: QueryFormat): string {
  const h = a.hit?.holder;
  if (format === "json") return `${jsonText({ stack, state: current ? "current" : "plan", identity: a.identity, capability: a.capability, at: a.at, can: a.yes, ...(h ? { holder: h } : {}) } satisfies CanJson)}\n`;
  const when = current ? "now" : "after the change";
  const line = `${a.yes ? "yes" : "no"}: ${a.identity.path} ${a.yes ? "can" : "cannot"} ${a.capability} at ${a.at} (${when})`;
  const how = !h ? [] : h.via.kind === "binding" ? [`${h.via.role} bound at ${h.via.boundAt}`] : h.via.steps.map((s, i) => `${i + 1}. ${s}`);
  if (format === "markdown") {
    // A binding as one bullet, escalation steps as a numbered list; names and paths are server text (mdText).
    const items = !h ? [] : h.via.kind === "binding" ? [`- ${mdText(how[0]!)}`] : h.via.steps.map((s, i) => `${i + 1}. ${mdText(s)}`);
    return `${[`**${mdText(line)}**`, ...(h ? ["", `held at ${mdCode(h.group)}, ${h.severity}:`, "", ...items] : [])].join("\n")}\n`;
  }
  return `${[printable(line), ...(h ? [`  held at ${printable(h.group)} [${h.severity}]`, ...how.map((s) => `    ${printable(s)}`)] : [])].join("\n")}\n`;
}

/** Close names to `value` among `names` (Levenshtein, `fastest-levenshtein`): `; did you mean "x"?` or "". */
function near(value: string, names: readonly string[]): string {
  if (names.length === 0) return "";
  const c = closest(value, [...names]);
  return distance(value, c) <= Math.max(2, Math.floor(value.length / 3)) ? `; did you mean "${c}"?` : "";
}

/** Up to 12 names, then a count of the rest. */
function listed(names: readonly string[]): string {
  return names.length <= 12 ? names.join(", ") : `${names.slice(0, 12).join(", ")}, … ${names.length - 12} more`;
}
