/**
 * `unused-access` (advisory) and the pack's side of exclusions as code (README "Policy as code"; the shapes are
 * provider/access/exclusions.ts and provider/access/unused.ts).
 *
 * `unused-access` reports identities of the stack that hold `high` or `critical` grants (the effective-access
 * model, escalations included) and were not seen (no token exchanged, seed §2 Identity `lastSeenTime`) within
 * `days`, or never since a creation before the window. `lastSeenTime` moves outside Pulumi: the policy reads it from the API
 * when the pack has the API's settings (`PLATFORM_API_URL`, `PLATFORM_TOKEN`, …; the gate passes the stack's), else
 * from the identity's outputs as the preview shows them. Exclusions of `unused-access` silence its findings.
 *
 * Findings silenced by exclusions are written for the gate to `silenced-<policy>.json` in the folder
 * `PLATFORM_GATE_OUT` names (policies/change.ts), and listed in its report.
 */
import type { PolicyResource, ReportViolation, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { parseExclusions, type ExcludablePolicy, type Exclusion, type SilencedFinding } from "../provider/access/exclusions";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, effectiveAccess } from "../provider/access/model";
import { reportGrants } from "../provider/access/report";
import { orgFromStack, type RoleInfo, type StackObject } from "../provider/access/stack";
import { DEFAULT_UNUSED_DAYS, findUnused, parseDays, readActivity, seenWords, holdsWords, uidsToRead, type IdentityActivity } from "../provider/access/unused";
import { tagged, writeGateFile } from "./change";

/** The JSON-schema (Pulumi's config validation) of an `exclusions` list; the pack validates each entry with zod. */
export const EXCLUSIONS_CONFIG_SCHEMA = { type: "array", items: { type: "object" } } as const;

/**
 * A policy config's `exclusions`, validated.
 * @throws ExclusionError naming the field, its value and what is allowed (the preview then fails: the gate exits 2).
 */
export function configExclusions(policy: ExcludablePolicy, cfg: { exclusions?: unknown }): Exclusion[] {
  return parseExclusions(cfg.exclusions, `${policy}.exclusions`);
}

/** Writes findings silenced by exclusions for the gate (one JSON line each), when the gate named a folder. */
export function recordSilenced(policy: ExcludablePolicy, silenced: readonly SilencedFinding[]): void {
  if (silenced.length === 0) return;
  writeGateFile(`silenced-${policy}.jsonl`, silenced.map((s) => `${JSON.stringify(s)}\n`).join(""), true);
}

/** Config of `unused-access`. */
export interface UnusedAccessConfig {
  /** The window, in days. @default 90 */
  days?: number;
  /** Reviewed exceptions (provider/access/exclusions.ts). */
  exclusions?: unknown;
}

/** What `unused-access` reads besides the stack. */
export interface UnusedLookups {
  /** Describes a role the stack binds but does not declare. */
  role: (uid: string) => Promise<RoleInfo | undefined>;
  /** Reads an identity from the API; undefined when the pack has no API settings. */
  identity?: ((uid: string) => Promise<{ lastSeenTime?: string; createTime?: string }>) | undefined;
}

/** The value of `obj[key]`, or undefined when it is not known during the preview. */
function knownValue(obj: unknown, key: string): unknown {
  try {
    return obj && typeof obj === "object" ? (obj as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `unused-access` (advisory) with its lookups: `objects` turns the policy's resources into stack objects (the
 * access policies' `stackObjects`).
 */
export function unusedAccessWith(lookups: () => UnusedLookups, objects: (rs: readonly PolicyResource[]) => StackObject[]): StackValidationPolicy {
  return {
    name: "unused-access",
    description: "No identity holds high or critical access without having been seen (a token exchanged) within the window (days, default 90).",
    enforcementLevel: "advisory",
    configSchema: { properties: { days: { type: "integer", minimum: 1 }, exclusions: EXCLUSIONS_CONFIG_SCHEMA } },
    validateStack: async (args: StackValidationArgs, report: ReportViolation) => {
      const cfg = args.getConfig<UnusedAccessConfig>();
      const days = cfg.days === undefined ? DEFAULT_UNUSED_DAYS : parseDays(cfg.days, "unused-access.days");
      const exclusions = configExclusions("unused-access", cfg);
      const l = lookups();
      const objs = objects(args.resources);
      const declared = new Set(objs.filter((o) => o.kind === "Role").map((o) => o.props["uid"]));
      const roles = new Map<string, RoleInfo>();
      const bound = objs.filter((o) => o.kind === "RoleBinding").map((o) => o.props["roleUid"]).filter((u): u is string => typeof u === "string" && !declared.has(u));
      await Promise.all([...new Set(bound)].map(async (u) => {
        const info = await l.role(u);
        if (info) roles.set(u, info);
      }));
      const so = orgFromStack(objs, { role: (u) => roles.get(u) });
      const grants = reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM }));
      const uids = uidsToRead(grants);
      const urnOf = new Map(args.resources.flatMap((r) => {
        const uid = knownValue(r.props, "uid");
        return typeof uid === "string" && r.type.endsWith(":Identity") ? [[uid, r] as const] : [];
      }));
      let activity: Map<string, IdentityActivity>;
      if (l.identity) activity = await readActivity(uids, l.identity);
      else {
        // No API settings: the outputs the preview shows (as of the last refresh or update).
        activity = new Map(uids.flatMap((u) => {
          const r = urnOf.get(u);
          const seen = knownValue(r?.props, "lastSeenTime");
          const created = knownValue(r?.props, "createTime");
          return r && typeof seen === "string" && seen !== "" ? [[u, { lastSeenTime: seen, createTime: typeof created === "string" ? created : undefined }] as const] : [];
        }));
      }
      const r = findUnused("", grants, activity, { days, exclusions });
      recordSilenced("unused-access", r.silenced);
      for (const u of r.unused) {
        const holds = holdsWords(u);
        const expired = r.expired.filter((e) => e.includes(` for ${u.identity.path} `) || (u.identity.uid !== null && e.includes(` for ${u.identity.uid} `)));
        report(tagged(u.severity, `identity ${u.identity.path} holds ${holds} and was ${seenWords(u)}, outside the ${days}-day window: remove its bindings, or add a reviewed exclusion${expired.length ? ` (${expired.join("; ")})` : ""}`), urnOf.get(u.identity.uid ?? "")?.urn);
      }
      for (const x of r.unreadable) report(tagged("low", `identity ${x.identity.path} could not be read from the API to judge its use: ${x.error}`), urnOf.get(x.identity.uid ?? "")?.urn);
    },
  };
}

let envIdentity: UnusedLookups["identity"] | null | undefined;

/**
 * Reads identities from the API with the provider's settings from the environment (no stack config reaches a
 * pack; the gate passes the stack's as `PLATFORM_*`), made once; undefined without settings.
 */
export function apiIdentityReader(): UnusedLookups["identity"] {
  if (envIdentity === undefined) {
    try {
      const { resolveSettings } = require("../provider/config") as typeof import("../provider/config");
      const { clientFromSettings } = require("../provider/clientFactory") as typeof import("../provider/clientFactory");
      const client = clientFromSettings(resolveSettings(() => undefined));
      envIdentity = (uid) => client.identities.get(uid) as Promise<{ lastSeenTime?: string; createTime?: string }>;
    } catch {
      envIdentity = null;
    }
  }
  return envIdentity ?? undefined;
}
