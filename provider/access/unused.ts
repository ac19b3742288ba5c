/**
 * Unused access (README "Access review"): identities that hold `high` or `critical` grants (./severity.ts) but
 * were not seen within a window, or never since they were created, as IAM Access Analyzer's unused access does.
 *
 * "Seen" is the identity's `lastSeenTime` (seed §2 Identity: set by the server when the identity last exchanged
 * a token; it equals `createTime` until the first exchange). It moves outside Pulumi, so the command reads it
 * fresh from the API; the policy (`unused-access`) reads it from the API when the pack has the API's settings,
 * else from the resource's outputs in the state.
 */
import { applyExclusions, expiredLines, silencedLines, type Exclusion, type SilencedFinding } from "./exclusions";
import { compactRows, rolesFor, type CompactRow, type ReportGrant, type ReportIdentity } from "./report";
import { compareSeverity, type Severity } from "./severity";
import { jsonText, mdCode, mdText, printable } from "../text";

/** The default window, in days. */
export const DEFAULT_UNUSED_DAYS = 90;

/** Milliseconds in a day. */
const DAY_MS = 86_400_000;

/**
 * Parses a window in days (`--days`, `unused-access`'s `days`): a positive whole number.
 * @throws Error naming `flag`, the value and what is allowed.
 */
export function parseDays(value: unknown, flag = "--days"): number {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag}: ${JSON.stringify(value)} is not a positive whole number of days (e.g. 90)`);
  return n;
}

/** What the API (or the state) says about an identity's use; `error` when it could not be read. */
export interface IdentityActivity {
  /** RFC 3339; absent when unknown. */
  lastSeenTime?: string | undefined;
  createTime?: string | undefined;
  /** Why it could not be read (server text, shown inert). */
  error?: string | undefined;
}

/** One identity reported as unused. */
export interface UnusedIdentity {
  identity: ReportIdentity;
  /** The highest severity of what it holds. */
  severity: Severity;
  lastSeenTime: string | null;
  createTime: string | null;
  /** Whether it never exchanged a token since it was created (`lastSeenTime` equals `createTime`). */
  neverSeen: boolean;
  /** Whole days since it was last seen (or created, when never seen), as of the report. */
  idleDays: number | null;
  /** What it holds at `high` or `critical`, one row per scope and route ({@link compactRows}). */
  holds: Array<Pick<CompactRow, "group" | "severity" | "gives" | "capabilities" | "how">>;
}

/** The `--unused` report (its JSON is documented in README "Access review"). */
export interface UnusedReport {
  stack: string;
  days: number;
  /** The time the window ends (now), RFC 3339. */
  asOf: string;
  unused: UnusedIdentity[];
  /** Identities holding high or critical grants whose activity could not be read: not judged. */
  unreadable: Array<{ identity: ReportIdentity; error: string }>;
  /** Grants a live exclusion of `unused-access` silenced, with its reason. */
  silenced: SilencedFinding[];
  /** Exclusions that expired while still covering a finding (the finding is reported). */
  expired: string[];
}

/** Options of {@link findUnused}. */
export interface UnusedOptions {
  days: number;
  /** @default the current time */
  now?: Date;
  /** `unused-access`'s exclusions. */
  exclusions?: readonly Exclusion[];
}

/**
 * Judges `grants` (effective access now, report form): identities holding `high` or `critical` grants whose
 * `activity` says they were last seen before `now - days`, or never seen since a creation before then. `activity` is keyed by the
 * identity's uid; an identity without a uid or an entry is not judged. Exclusions are applied per grant: an
 * identity whose every such grant is silenced is not reported.
 */
export function findUnused(stack: string, grants: readonly ReportGrant[], activity: ReadonlyMap<string, IdentityActivity>, opts: UnusedOptions): UnusedReport {
  const now = opts.now ?? new Date();
  const cutoff = now.getTime() - opts.days * DAY_MS;
  const severe = grants.filter((g) => g.severity === "critical" || g.severity === "high");
  const verdict = applyExclusions("unused-access", severe, opts.exclusions ?? []);
  const kept = new Set(verdict.kept);
  // Each identity's rows: its own, and its class's (a class row stands for each member, ./report.ts `members`),
  // the class's read under the member's name only for an identity judged.
  const ownOf = new Map<string, ReportGrant[]>();
  const classRowsOf = new Map<ReportIdentity, ReportGrant[]>();
  const memberOf = new Map<string, ReportIdentity[]>();
  for (const g of grants) {
    if (g.identity.members) {
      let list = classRowsOf.get(g.identity);
      if (!list) {
        classRowsOf.set(g.identity, (list = []));
        for (const m of g.identity.members) if (m.uid !== null) pushTo(memberOf, m.uid, g.identity);
      }
      list.push(g);
    } else if (g.identity.uid !== null) pushTo(ownOf, g.identity.uid, g);
  }
  const byUid = new Map<string, ReportIdentity>();
  for (const g of verdict.kept) {
    if (g.identity.members) {
      for (const m of g.identity.members) if (m.uid !== null && !byUid.has(m.uid)) byUid.set(m.uid, m);
    } else if (g.identity.uid !== null && !byUid.has(g.identity.uid)) byUid.set(g.identity.uid, g.identity);
  }
  const unused: UnusedIdentity[] = [];
  const unreadable: UnusedReport["unreadable"] = [];
  const judged = new Set<string>();
  for (const [uid, identity] of byUid) {
    const a = activity.get(uid);
    if (!a) continue;
    if (a.error !== undefined) {
      unreadable.push({ identity, error: a.error });
      continue;
    }
    const seen = a.lastSeenTime ? Date.parse(a.lastSeenTime) : Number.NaN;
    const created = a.createTime ? Date.parse(a.createTime) : Number.NaN;
    const neverSeen = !Number.isNaN(seen) && !Number.isNaN(created) && seen <= created;
    // No lastSeenTime at all: never seen, idle since its creation.
    const since = Number.isNaN(seen) ? created : seen;
    // Idle for longer than the window: last seen before it, or never seen and created before it. An identity made
    // inside the window has not had the window to be used yet (a pull request adding one is not "unused access").
    if (!(Number.isNaN(since) || since < cutoff)) continue;
    judged.add(uid);
    // What it holds, said whole (a route's reads included, so editor reads "editor"), at high or critical.
    // Its own rows less those an exclusion silenced; its classes' rows, which no one identity's exclusion silences.
    const own = (ownOf.get(uid) ?? []).filter((g) => g.severity === "low" || kept.has(g));
    const shared = (memberOf.get(uid) ?? []).flatMap((c) => classRowsOf.get(c)!.map((g) => ({ ...g, identity })));
    const rows = compactRows([...own, ...shared]).filter((r) => r.severity !== "low");
    unused.push({
      identity,
      severity: rows.map((r) => r.severity).sort(compareSeverity)[0] ?? "high",
      lastSeenTime: a.lastSeenTime || null,
      createTime: a.createTime || null,
      neverSeen: neverSeen || Number.isNaN(seen),
      idleDays: Number.isNaN(since) ? null : Math.floor((now.getTime() - since) / DAY_MS),
      holds: rows.map((r) => ({ group: r.group, severity: r.severity, gives: r.gives, capabilities: r.capabilities, how: r.how })),
    });
  }
  unused.sort((x, y) => compareSeverity(x.severity, y.severity) || x.identity.path.localeCompare(y.identity.path));
  unreadable.sort((x, y) => x.identity.path.localeCompare(y.identity.path));
  // Expired exclusions matter only for the identities reported.
  const expired = expiredLines(verdict.expired.filter((x) => x.finding.identity.uid !== null && judged.has(x.finding.identity.uid)));
  return { stack, days: opts.days, asOf: now.toISOString(), unused, unreadable, silenced: verdict.silenced, expired };
}

/** Appends `v` to `m`'s list at `k`, making the list on first use. */
function pushTo<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The uids {@link findUnused} needs activity for: identities holding a `high` or `critical` grant. */
export function uidsToRead(grants: readonly ReportGrant[]): string[] {
  const out = new Set<string>();
  const classes = new Set<ReportIdentity>();
  for (const g of grants) {
    if (g.severity === "low") continue;
    if (g.identity.members) {
      if (classes.has(g.identity)) continue;
      classes.add(g.identity);
      for (const m of g.identity.members) if (m.uid !== null) out.add(m.uid);
    } else if (g.identity.uid !== null) out.add(g.identity.uid);
  }
  return [...out];
}

/** Reads each uid's activity with `get` (concurrently); a failed read gives `error` (its message). */
export async function readActivity(uids: readonly string[], get: (uid: string) => Promise<{ lastSeenTime?: string; createTime?: string }>): Promise<Map<string, IdentityActivity>> {
  const out = new Map<string, IdentityActivity>();
  await Promise.all(
    uids.map(async (uid) => {
      try {
        const i = await get(uid);
        out.set(uid, { lastSeenTime: i.lastSeenTime || undefined, createTime: i.createTime || undefined });
      } catch (err) {
        out.set(uid, { error: (err as Error).message });
      }
    }),
  );
  return out;
}

/** How an unused identity was last seen, in words: `never seen since its creation on 2026-08-18 (100 days ago)`. */
export function seenWords(u: UnusedIdentity): string {
  const ago = u.idleDays === null ? "" : ` (${u.idleDays} day${u.idleDays === 1 ? "" : "s"} ago)`;
  return u.neverSeen ? `never seen since its creation${u.createTime ? ` on ${u.createTime.slice(0, 10)}` : ""}${ago}` : `last seen ${u.lastSeenTime!.slice(0, 10)}${ago}`;
}

function summary(r: UnusedReport): string {
  const n = r.unused.length;
  return n
    ? `${n} identit${n === 1 ? "y holds" : "ies hold"} high or critical access and ${n === 1 ? "was" : "were"} not seen in the last ${r.days} days (as of ${r.asOf.slice(0, 10)})`
    : `no identity holding high or critical access went unseen in the last ${r.days} days (as of ${r.asOf.slice(0, 10)})`;
}

/** The report as `table` (a terminal), `json` ({@link UnusedReport}) or `markdown` (a pull request, a CI summary). */
export function formatUnused(r: UnusedReport, format: "table" | "json" | "markdown"): string {
  if (format === "json") return `${jsonText(r)}\n`;
  const out: string[] = [];
  if (format === "markdown") {
    out.push(`### Unused access: stack ${mdCode(r.stack)}`, "", `**${mdText(summary(r))}**`, "");
    if (r.unused.length) {
      out.push("| severity | identity | last seen | holds | at |", "|---|---|---|---|---|");
      for (const u of r.unused) for (const [i, h] of u.holds.entries()) out.push(`| ${h.severity} | ${i ? "" : `${mdCode(u.identity.path)}`} | ${i ? "" : mdText(seenWords(u))} | ${mdText(h.gives)} | ${mdCode(h.group)} |`);
      out.push("");
    }
    for (const x of r.unreadable) out.push(`- could not read ${mdCode(x.identity.path)} from the API: ${mdText(x.error)}`);
    for (const l of r.expired) out.push(`- ${mdText(l)}`);
    if (r.silenced.length) out.push("", "Silenced by exclusions:", "", ...silencedLines(r.silenced).map((l) => `- ${mdText(l)}`));
    return `${out.join("\n").trimEnd()}\n`;
  }
  out.push(printable(summary(r)));
  for (const u of r.unused) {
    out.push(printable(`[${u.severity}] ${u.identity.path}  ${seenWords(u)}`));
    for (const h of u.holds) out.push(printable(`    at ${h.group}: ${h.gives} (${h.how.join("; ")})`));
  }
  for (const x of r.unreadable) out.push(printable(`could not read ${x.identity.path} (${x.identity.uid}) from the API: ${x.error}`));
  for (const l of r.expired) out.push(printable(l));
  if (r.silenced.length) out.push("silenced by exclusions:", ...silencedLines(r.silenced).map((l) => `  ${printable(l)}`));
  return `${out.join("\n")}\n`;
}

/** What an unused identity holds, one phrase per group (every route's capabilities together, said with roles): `owner + 13 more: … at /platform`. */
export function holdsWords(u: UnusedIdentity): string {
  const by = new Map<string, Set<string>>();
  for (const h of u.holds) for (const c of h.capabilities) by.set(h.group, (by.get(h.group) ?? new Set<string>()).add(c));
  return [...by].map(([g, caps]) => `${rolesFor([...caps])} at ${g}`).join("; ");
}
