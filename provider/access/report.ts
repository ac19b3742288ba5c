/**
 * Effective access as a report: grants in people's terms (dotted capability names, group paths), the difference
 * between two states, `--fail-on` patterns, and the three output formats of `platform-pulumi access` (README
 * "Access review" documents the JSON shape; it is kept stable).
 */
import { RE2JS } from "re2js";
import { dottedName, wireName } from "../capabilities";
import { OrgIndex, type Grant } from "./model";
import type { StackOrg } from "./stack";
import { mdCode, mdText, printable } from "../text";

/** An identity in a report: its name, its path (group path then name), and its uid (null until it exists). */
export interface ReportIdentity {
  name: string;
  path: string;
  uid: string | null;
}

/** Why a grant is held, in a report. */
export interface ReportVia {
  kind: "binding" | "escalation";
  role: string;
  /** Group path the role is (or would be) bound at. */
  boundAt: string;
  /** Each escalation step in words; empty for a binding. */
  steps: string[];
}

/** One grant: `identity` holds `capability` (dotted, e.g. `groups.create`) at `group` (a path) and below. */
export interface ReportGrant {
  identity: ReportIdentity;
  capability: string;
  group: string;
  via: ReportVia[];
}

/** One change between two states. */
export interface ReportChange extends ReportGrant {
  change: "gained" | "lost";
}

/** The grants of `grants` (from {@link effectiveAccess} over `so.org`) in report form, by identity path, capability, group. */
export function reportGrants(so: StackOrg, grants: readonly Grant[]): ReportGrant[] {
  const ix = new OrgIndex(so.org);
  const rows = grants.map((g) => ({
    identity: { name: ix.identityName(g.identityId), path: ix.identityPath(g.identityId), uid: so.identityUid.get(g.identityId) ?? (g.identityId.startsWith("urn:") ? null : g.identityId) },
    capability: dottedName(g.capability),
    group: ix.groupPath(g.groupId),
    via: g.via.map((v) => ({ kind: v.kind, role: v.role, boundAt: ix.groupPath(v.boundAt), steps: v.steps })),
  }));
  return rows.sort((x, y) => x.identity.path.localeCompare(y.identity.path) || x.capability.localeCompare(y.capability) || x.group.localeCompare(y.group));
}

const identityKey = (i: ReportIdentity): string => i.uid ?? `path:${i.path}`;

/** Whether group path `inner` is `outer` or below it. */
export function withinPath(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  return outer === "/" ? inner.startsWith("/") : inner.startsWith(`${outer}/`);
}

/**
 * What changed from `before` to `after`: a grant of `after` not covered in `before` (same identity and capability
 * at its group or an ancestor) is gained; the reverse is lost. Identities match by uid, or by path while a uid is
 * unknown; groups by path. Gains come first, then by identity path, capability and group.
 */
export function diffGrants(before: readonly ReportGrant[], after: readonly ReportGrant[]): ReportChange[] {
  const index = (gs: readonly ReportGrant[]) => {
    const m = new Map<string, ReportGrant[]>();
    for (const g of gs) {
      const k = `${identityKey(g.identity)}\u0000${g.capability}`;
      m.set(k, [...(m.get(k) ?? []), g]);
    }
    return m;
  };
  const b = index(before);
  const a = index(after);
  const covered = (m: Map<string, ReportGrant[]>, g: ReportGrant) => (m.get(`${identityKey(g.identity)}\u0000${g.capability}`) ?? []).some((x) => withinPath(g.group, x.group));
  const out: ReportChange[] = [
    ...after.filter((g) => !covered(b, g)).map((g): ReportChange => ({ identity: g.identity, change: "gained", capability: g.capability, group: g.group, via: g.via })),
    ...before.filter((g) => !covered(a, g)).map((g): ReportChange => ({ identity: g.identity, change: "lost", capability: g.capability, group: g.group, via: g.via })),
  ];
  return out.sort((x, y) => (x.change === y.change ? 0 : x.change === "gained" ? -1 : 1) || x.identity.path.localeCompare(y.identity.path) || x.capability.localeCompare(y.capability) || x.group.localeCompare(y.group));
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
  const res = list.map((p) => RE2JS.compile(`^${p.split("").map((c) => (c === "*" ? ".*" : c === "?" ? "." : RE2JS.quote(c))).join("")}$`));
  return (dotted) => res.some((re) => re.matches(dotted) || re.matches(qualified(dotted)));
}

function viaText(v: ReportVia): string {
  return v.kind === "binding" ? `${v.role} bound at ${v.boundAt}` : `escalation (${v.role} at ${v.boundAt}): ${v.steps.join("; then ")}`;
}

/** Rows that differ only by capability merged into one, capabilities joined (for the human formats). */
function merged<T extends ReportGrant>(rows: readonly T[], key: (r: T) => string): Array<T & { capabilities: string[] }> {
  const out = new Map<string, T & { capabilities: string[] }>();
  for (const r of rows) {
    const k = `${key(r)}\u0000${identityKey(r.identity)}\u0000${r.group}\u0000${r.via.map(viaText).join("|")}`;
    const hit = out.get(k);
    if (hit) hit.capabilities.push(r.capability);
    else out.set(k, { ...r, capabilities: [r.capability] });
  }
  return [...out.values()];
}

/**
 * A Markdown report for a pull request: one table, rows grouped by identity (gains first), capabilities that share
 * identity, group and reason on one row. `rows` are changes or (with `--current`) grants.
 */
export function markdown(stack: string, rows: ReadonlyArray<ReportGrant | ReportChange>, current: boolean): string {
  const title = current ? `### Effective access: stack \`${stack}\`` : `### Access changes: stack \`${stack}\``;
  if (rows.length === 0) return `${title}\n\n${current ? "No identity holds access through this stack." : "No access gained or lost."}\n`;
  const m = merged(rows, (r) => ("change" in r ? r.change : ""));
  const byIdentity = new Map<string, typeof m>();
  for (const r of m) byIdentity.set(identityKey(r.identity), [...(byIdentity.get(identityKey(r.identity)) ?? []), r]);
  const lines = [title, "", current ? "| identity | capabilities | group | via |" : "| identity | change | capabilities | group | via |", current ? "|---|---|---|---|" : "|---|---|---|---|---|"];
  for (const group of byIdentity.values()) {
    group.sort((x, y) => ("change" in x && "change" in y && x.change !== y.change ? (x.change === "gained" ? -1 : 1) : 0));
    group.forEach((r, i) => {
      // Names and paths are server text: escaped or code, never markup in the pull request (`text.ts`).
      const who = i === 0 ? `**${mdText(r.identity.name)}** ${mdCode(r.identity.path)}` : "";
      const caps = r.capabilities.map((c) => `\`${c}\``).join(", ");
      const via = r.via.map((v) => mdText(viaText(v))).join("<br>");
      lines.push(current ? `| ${who} | ${caps} | ${mdCode(r.group)} | ${via} |` : `| ${who} | ${"change" in r && r.change === "gained" ? "+ gained" : "- lost"} | ${caps} | ${mdCode(r.group)} | ${via} |`);
    });
  }
  return `${lines.join("\n")}\n`;
}

/** Words joined with ", " and wrapped at `width` characters, each line indented by `indent`. */
function wrap(words: readonly string[], indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "";
  for (const w of words) {
    const next = line ? `${line}, ${w}` : w;
    if (line && indent.length + next.length > width) {
      lines.push(`${indent}${line},`);
      line = w;
    } else line = next;
  }
  if (line) lines.push(`${indent}${line}`);
  return lines;
}

/**
 * A plain-text report for a terminal: per identity, group and reason one header line (`+` gained, `-` lost; none
 * with `--current`), the escalation steps numbered below it, then the capabilities, wrapped.
 */
export function textTable(rows: ReadonlyArray<ReportGrant | ReportChange>, current: boolean): string {
  if (rows.length === 0) return current ? "no identity holds access through this stack\n" : "no access gained or lost\n";
  const m = merged(rows, (r) => ("change" in r ? r.change : ""));
  const out: string[] = [];
  for (const r of m) {
    const sign = current ? "" : "change" in r && r.change === "gained" ? "+ " : "- ";
    const v = r.via[0]!;
    const why = v.kind === "binding" ? `${v.role} bound at ${v.boundAt}` : `escalation to ${v.role} at ${v.boundAt}`;
    out.push(printable(`${sign}${r.identity.path}  at ${r.group}  (${why})`));
    v.steps.forEach((step, i) => out.push(`    ${i + 1}. ${printable(step)}`));
    out.push(...wrap(r.capabilities, "    "));
  }
  return `${out.join("\n")}\n`;
}
