/**
 * Exclusions as code: a reviewed exception that silences one access finding until it expires (README "Access
 * review", "Policy as code"), as Cloudsplaining's exclusions file and IAM Access Analyzer's archive rules do.
 *
 * An exclusion lives in the policy pack config, in the config of the policy whose findings it silences
 * (`no-new-access`, `unused-access`): Pulumi keys that config by policy name and passes a policy's unknown keys
 * through, so the same file works with `pulumi preview --policy-pack-config`, `platform-pulumi gate --config` and
 * `platform-pulumi access --config`:
 *
 * ```json
 * { "no-new-access": { "exclusions": [
 *     { "identity": "/platform/ci-cd/gha-deployer", "capability": "groups.*", "group": "/platform",
 *       "reason": "deploys group changes; reviewed by security", "expires": "2026-12-31" } ] } }
 * ```
 *
 * An exclusion covers a finding (one grant: identity, capability, group) when the identity is its path or uid,
 * the capability matches its glob (as `--fail-on`: `*` any run, `?` one character, dotted or `iam.`-qualified
 * name) and the finding's group is its group or below. It is live through its `expires` day (UTC); from the next
 * day it silences nothing, and the finding it covers fails again, reported with the exclusion's expiry.
 */
import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { capabilityMatcher, withinPath, type ReportIdentity } from "./report";
import type { Severity } from "./severity";

/** The policies whose config may hold `exclusions`. */
export const EXCLUDABLE_POLICIES = ["no-new-access", "unused-access"] as const;

/** A policy whose findings exclusions may silence. */
export type ExcludablePolicy = (typeof EXCLUDABLE_POLICIES)[number];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The zod schema of one exclusion: every field required, no others. */
export const ExclusionSchema = z
  .object({
    identity: z.string().min(1, "must be an identity path (/group/name) or uid"),
    capability: z.string().min(1, "must be a capability glob such as groups.* or role_bindings.create").refine((c) => c.split(",").every((p) => p.trim() !== ""), "must be a capability glob such as groups.* or role_bindings.create (no empty pattern)"),
    group: z.string().regex(/^\//, "must be a group path starting with / (/ is the root group)"),
    reason: z.string().trim().min(1, "must say why the finding is accepted (who reviewed it)"),
    expires: z.string().refine((d) => DATE.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), "must be a date YYYY-MM-DD (the last day the exclusion holds)"),
  })
  .strict();

/** One reviewed exception (see the module comment). */
export type Exclusion = z.infer<typeof ExclusionSchema>;

/** A policy config's `exclusions` key. */
const ExclusionsSchema = z.array(ExclusionSchema);

/** Thrown for a malformed exclusion: names the field, its value and what is allowed. */
export class ExclusionError extends Error {
  override name = "ExclusionError";
}

/**
 * The longest each field of an exclusion may be, in UTF-16 code units, checked before anything else reads the
 * value (the capability glob is compiled to a regular expression to match findings: a glob of a megabyte took
 * the process to a gigabyte before the regex engine refused it). Capability names are tens of characters, a
 * comma-separated list of globs a few hundred; paths and uids are as long as a group's chain of names.
 */
export const EXCLUSION_FIELD_LIMITS = { identity: 1024, capability: 1024, group: 1024, reason: 2000, expires: 32 } as const;

/** The most exclusions one policy's config may hold. */
export const MAX_EXCLUSIONS = 1000;

/** The largest policy pack config file {@link loadPackConfig} reads, in bytes. */
export const MAX_PACK_CONFIG_BYTES = 4 * 1024 * 1024;
/** The largest `silenced-<policy>.jsonl` (written by the pack's policies during a gate) {@link readSilencedFiles} reads, in bytes. */
export const MAX_SILENCED_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Checks the sizes of an `exclusions` value before it is parsed: the number of exclusions ({@link MAX_EXCLUSIONS})
 * and each string field's length ({@link EXCLUSION_FIELD_LIMITS}); other shapes are left to the schema.
 * @throws ExclusionError naming the field (`no-new-access.exclusions[0].capability`), its length and the limit.
 */
function checkSizes(value: unknown, where: string): void {
  if (!Array.isArray(value)) return;
  if (value.length > MAX_EXCLUSIONS) throw new ExclusionError(`bad exclusion: ${where}: ${value.length} exclusions, more than the limit of ${MAX_EXCLUSIONS}`);
  value.forEach((e, i) => {
    if (!e || typeof e !== "object") return;
    for (const [field, max] of Object.entries(EXCLUSION_FIELD_LIMITS)) {
      const v = (e as Record<string, unknown>)[field];
      if (typeof v === "string" && v.length > max) throw new ExclusionError(`bad exclusion: ${where}[${i}].${field}: ${v.length} characters, more than the limit of ${max} (${shownValue(v)})`);
    }
  });
}

/**
 * The size of `file` in bytes, checked against `max` before it is read.
 * @throws Error naming `what`, the file, its size and the limit when it is larger (and as `statSync` when it cannot be read).
 */
function checkFileSize(file: string, max: number, what: string): void {
  const size = statSync(file).size;
  if (size > max) throw new Error(`${what}: ${file} is ${size} bytes, more than the limit of ${max}`);
}

/** `value` as a short JSON for a message. */
function shownValue(value: unknown): string {
  const s = value === undefined ? "(missing)" : JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Validates a policy config's `exclusions` value (`where` names it in messages, e.g. `no-new-access.exclusions`).
 * Sizes are checked first (`checkSizes`: at most {@link MAX_EXCLUSIONS} exclusions, each field within
 * {@link EXCLUSION_FIELD_LIMITS}), so no oversized glob is parsed or compiled.
 * @returns the exclusions; an empty list when `value` is undefined.
 * @throws ExclusionError naming each bad field (`no-new-access.exclusions[0].expires`), its value and what is
 * allowed; for an oversized one, the field, its length and the limit.
 */
export function parseExclusions(value: unknown, where: string): Exclusion[] {
  if (value === undefined) return [];
  checkSizes(value, where);
  const r = ExclusionsSchema.safeParse(value);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => {
    const field = `${where}${i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;
    if (i.code === "unrecognized_keys") return `${field}: unknown field(s) ${i.keys.join(", ")}; allowed: identity, capability, group, reason, expires`;
    let v: unknown = value;
    for (const p of i.path) v = v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined;
    const what = i.code === "invalid_type" ? `must be ${i.expected === "array" ? "a list of exclusions" : i.expected === "object" ? "an object {identity, capability, group, reason, expires}" : `a ${i.expected}`}` : i.message;
    return `${field}: ${shownValue(v)} ${what}`;
  });
  throw new ExclusionError(`bad exclusion: ${lines.join("; ")}`);
}

/**
 * The exclusions of every excludable policy in a pack config object (`{ "no-new-access": { "exclusions": [...] } }`).
 * @throws ExclusionError for a malformed one.
 */
export function exclusionsOfConfig(config: unknown): Record<ExcludablePolicy, Exclusion[]> {
  const out = {} as Record<ExcludablePolicy, Exclusion[]>;
  const root = config && typeof config === "object" ? (config as Record<string, unknown>) : {};
  for (const p of EXCLUDABLE_POLICIES) {
    const cfg = root[p];
    out[p] = parseExclusions(cfg && typeof cfg === "object" ? (cfg as Record<string, unknown>)["exclusions"] : undefined, `${p}.exclusions`);
  }
  return out;
}

/**
 * Reads a policy pack config file (JSON) for its exclusions and, when set, `unused-access`'s `days`. A file larger
 * than {@link MAX_PACK_CONFIG_BYTES} is refused before it is read.
 * @throws ExclusionError for a malformed exclusion; Error naming the file when it cannot be read as JSON, or its
 * size and the limit when it is larger.
 */
export function loadPackConfig(file: string): { exclusions: Record<ExcludablePolicy, Exclusion[]>; unusedDays?: unknown } {
  let json: unknown;
  try {
    checkFileSize(file, MAX_PACK_CONFIG_BYTES, "--config");
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("--config: ")) throw err;
  }
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`--config: ${file} is not a readable JSON policy pack config (${(err as Error).message})`, { cause: err });
  }
  const days = (json as Record<string, Record<string, unknown> | undefined> | null)?.["unused-access"]?.["days"];
  return { exclusions: exclusionsOfConfig(json), ...(days === undefined ? {} : { unusedDays: days }) };
}

/** Whether `e` still holds on `today` (YYYY-MM-DD, UTC): through its `expires` day. */
export function isLive(e: Exclusion, today: string = new Date().toISOString().slice(0, 10)): boolean {
  return today <= e.expires;
}

/** A finding silenced by an exclusion, as the reports list it (the access JSON's `silenced`). */
export interface SilencedFinding {
  /** The policy whose finding it is (`no-new-access`, `unused-access`). */
  policy: ExcludablePolicy;
  identity: ReportIdentity;
  capability: string;
  group: string;
  severity: Severity;
  /** The exclusion's reason and its last day. */
  reason: string;
  expires: string;
}

/** What applying exclusions to findings gave. */
export interface ExclusionVerdict<T> {
  /** The findings no live exclusion covers (expired ones included). */
  kept: T[];
  /** The findings a live exclusion covers. */
  silenced: SilencedFinding[];
  /** Findings kept because the exclusion that covered them expired: the message says so. */
  expired: Array<{ finding: T; exclusion: Exclusion }>;
}

/** The finding's part that exclusions match. */
export interface Excludable {
  identity: ReportIdentity;
  capability: string;
  group: string;
  severity: Severity;
}

/** Whether exclusion `e` covers grant `f` (see the module comment). */
export function covers(e: Exclusion, f: Excludable): boolean {
  // A class row (./report.ts `members`) is every member's: one identity's exclusion does not silence it.
  if (f.identity.members) return false;
  const who = e.identity === f.identity.path || (f.identity.uid !== null && e.identity === f.identity.uid);
  return who && withinPath(f.group, e.group) && capabilityMatcher([e.capability])(f.capability);
}

/**
 * Splits `findings` by `exclusions` of `policy`: silenced by a live exclusion, or kept (and, when only an expired
 * exclusion covers it, listed in `expired`).
 */
export function applyExclusions<T extends Excludable>(policy: ExcludablePolicy, findings: readonly T[], exclusions: readonly Exclusion[], today?: string): ExclusionVerdict<T> {
  const out: ExclusionVerdict<T> = { kept: [], silenced: [], expired: [] };
  if (exclusions.length === 0) return { ...out, kept: [...findings] };
  for (const f of findings) {
    const hits = exclusions.filter((e) => covers(e, f));
    const live = hits.find((e) => isLive(e, today));
    if (live) out.silenced.push({ policy, identity: f.identity, capability: f.capability, group: f.group, severity: f.severity, reason: live.reason, expires: live.expires });
    else {
      out.kept.push(f);
      if (hits[0]) out.expired.push({ finding: f, exclusion: hits[0] });
    }
  }
  return out;
}

/** One line per expired exclusion that covered a kept finding: "exclusion … expired on …: its findings count again". */
export function expiredLines(expired: ReadonlyArray<{ exclusion: Exclusion }>): string[] {
  const seen = new Map<Exclusion, number>();
  for (const x of expired) seen.set(x.exclusion, (seen.get(x.exclusion) ?? 0) + 1);
  return [...seen].map(([e, n]) => `exclusion of ${e.capability} for ${e.identity} at ${e.group} expired on ${e.expires} ("${e.reason}"): its ${n} finding(s) count again`);
}

/** One line per exclusion that silenced findings: who, what, where, why, until when. */
export function silencedLines(silenced: readonly SilencedFinding[]): string[] {
  const by = new Map<string, { s: SilencedFinding; caps: Set<string> }>();
  for (const s of silenced) {
    const k = [s.policy, s.identity.path, s.group, s.reason, s.expires].join("\u0000");
    const hit = by.get(k) ?? { s, caps: new Set<string>() };
    hit.caps.add(s.capability);
    by.set(k, hit);
  }
  return [...by.values()].map(({ s, caps }) => `${s.policy}: ${s.identity.path} at ${s.group}: ${caps.size} grant(s) (${[...caps].sort().slice(0, 4).join(", ")}${caps.size > 4 ? ", …" : ""}) silenced until ${s.expires}: ${s.reason}`);
}

/**
 * The findings the pack's policies silenced in a gate run: the `silenced-<policy>.jsonl` files they leave in the
 * gate's folder (policies/unused.ts), in policy order; empty when there are none.
 * @throws Error naming the file, its size and the limit when one is larger than {@link MAX_SILENCED_FILE_BYTES}.
 */
export function readSilencedFiles(dir: string): SilencedFinding[] {
  const out: SilencedFinding[] = [];
  for (const p of EXCLUDABLE_POLICIES) {
    let text: string;
    const file = `${dir}/silenced-${p}.jsonl`;
    try {
      checkFileSize(file, MAX_SILENCED_FILE_BYTES, "silenced findings");
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("silenced findings: ")) throw err;
      continue; // no such file: the policy silenced nothing
    }
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) if (line.trim()) out.push(JSON.parse(line) as SilencedFinding);
  }
  return out;
}
