/**
 * `platform-pulumi gate --stack <name> [--cwd <dir>] [--config <json>] [--pack <dir>] [--format table|json|markdown|sarif]
 * [--fail-severity <list>] [--all] [--json-out <file>] [--max-chars <n>]`: the policy gate of a pull request,
 * judging the change (README "Policy gate").
 *
 * Reads the stack's state before the change (`pulumi stack export`) and gives it to the policy pack as a baseline
 * (`policies/change.ts`), then runs `pulumi preview --policy-pack <pack> [--policy-pack-config <json>]`, by default
 * with the `platform` pack shipped in this package (its `policies/` folder, beside `dist/`), and reads the policy
 * events and error diagnostics from the preview's engine events (./events.ts). Every finding has a severity
 * (provider/access/severity.ts) and a status: `new` (the change introduces or worsens it) or `already present`
 * (the stack had it before). The access the change gives (the pack's `no-new-access`) is reported grouped by
 * identity, scope and route.
 *
 * Exit codes (README "Exit codes"): 0 when no new mandatory finding is at a failing severity (`critical` and
 * `high` by default; `--all` also counts findings already present); 1 when one is; 2 when the preview failed for
 * another reason (the reason on stderr and in the report). The stack's backend and credentials come from the
 * environment, as for any `pulumi` command; the API settings from the stack's `platform:*` config or the
 * environment. The preview writes nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { compactRows, identityWords, markdown as accessMarkdown, textTable as accessText, withMembers, type CompactRow, type JsonClass, type ReportChange } from "../access/report";
import { DEFAULT_FAIL_SEVERITIES, SEVERITIES, type Severity } from "../access/severity";
import { inertLines, jsonText, mdCode, mdText, printable } from "../text";
import { hintsFor } from "./failure";
import { loadPackConfig, readSilencedFiles, silencedLines, type SilencedFinding } from "../access/exclusions";
import { SCOPE_OPTIONS, SCOPE_USAGE, objectsFromState, readOrgOutside, scopeArgs, type AccessScope, type OrgOutside } from "./access";
import type { BaselineFile, OrgFile } from "../access/gateChannel";
import type { PlatformClient } from "../client/client";
import { errors as errorsOf, runEngineEvents, type EngineRun } from "./events";
import { FORMATS, REVIEW_OPTIONS, TIMEOUT_USAGE, mdTable, reviewArgs, type ReportFormat } from "./report";
import { UsageError, runStackFrame } from "./frame";
import { clientFor, exportStack, orgUidOf, stackConfig, table, type StackRef } from "./stack";
import { resolveSettings, type Settings } from "../config";
import { privilegeWarning, writeGrants } from "./privilege";
import { accessFingerprint, locatorFor, type SourceLocator } from "./sarif";
import { INFORMATION_URI, LogBuilder, fingerprint, levelOf, type SarifLog, type SarifRule } from "./sarifLog";
import { kindOfType } from "../typeTokens";
import type { StackObject } from "../access/stack";
import { formatVerify, verifyApplied } from "./gateVerify";
import { BASELINE_ENV, FAIL_SEVERITY_ENV, GATE_INPUTS_POLICY, GATE_OUT_ENV, ORG_ENV, parseGateInputs, ruleOf, sha256, type GateInputs } from "../access/gateChannel";

/** The policy pack shipped in this package: `<package root>/policies` (this file is `dist/provider/commands/gate.js`). */
export const SHIPPED_PACK = path.resolve(__dirname, "..", "..", "..", "policies");


/** A finding's status: the change introduces (or worsens) it, or the stack had it before. */
export type FindingStatus = "new" | "already present";

/** One policy finding reported by the engine. */
export interface Violation {
  /** `mandatory`, `advisory` or `remediate`, as the pack set it. */
  level: string;
  /** What it is worth (provider/access/severity.ts): from what it gives; untagged findings `high` when mandatory, else `low`. */
  severity: Severity;
  /** `new` or `already present` (before the change; only when the stack had a state to compare with). */
  status: FindingStatus;
  /** The rule's name, e.g. `group-name-format` (a finding of its advisory twin `group-name-format.advisory` too). */
  policy: string;
  /** The pack's name, e.g. `platform`. */
  pack: string;
  /** The resource's URN (empty for a stack policy). */
  urn: string;
  /** `<Kind>::<name>` for this package's resources (`Group::team`), `<type>::<name>` for others; empty for a stack policy. */
  resource: string;
  /** The violation's own text (the policy's description and the severity tag left out). */
  message: string;
  /** The policy's description (the engine message's first line), the help of its SARIF rule. */
  description?: string;
}

/** The gate's report: exactly the object `--format json` prints (README, "Policy gate"). */
export interface GateReport {
  stack: string;
  /**
   * What the access review read: `org` (the live org under the root, the change on top, each identity marked where
   * it is managed) or `stack` (the stack's objects alone: `--scope stack`, or a stack with no state yet).
   */
  scope: AccessScope;
  /** True when no finding fails the gate and the preview completed (the exit code is 0). */
  passed: boolean;
  /** The severities that fail the gate (`--fail-severity`). */
  failSeverities: Severity[];
  /** Whether findings already present before the change fail too (`--all`). */
  all: boolean;
  /** Every finding, new and already present, in the engine's order. */
  violations: Violation[];
  /**
   * Policies @pulumi/policy could not run during the preview because they read a value unknown until apply (e.g.
   * the uid of a group not created yet): neither a pass nor a violation. Their `level` is `not evaluated`.
   */
  notEvaluated: Violation[];
  /** The access the change gives and takes (the pack's `no-new-access`, README "Access review"); null when the pack did not say. */
  access: { changes: ReportChange[]; classes?: JsonClass[] } | null;
  /** Why the preview could not run, when it could not: the preview's error lines, or the CLI's own output. */
  errors: string[];
  /** Findings silenced by the config's exclusions (provider/access/exclusions.ts), with each one's reason. */
  silenced?: SilencedFinding[];
  /**
   * The stack's objects before the change that the review judged against (the state's resources of this package),
   * for `gate --verify` after the update (./gateVerify.ts); absent when the stack had no state to read.
   */
  baseline?: { objects: StackObject[] };
}

/** `<Kind>::<name>` from a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`; a parent chain `a$b` keeps its last type). */
function resourceOf(urn: string): string {
  const parts = urn.split("::");
  if (parts.length < 4) return urn;
  const type = parts[2]!.split("$").pop()!;
  return `${kindOfType(type) ?? type}::${parts.slice(3).join("::")}`;
}

const TAG = /^\[(critical|high|low)(?:; (already present))?\] /;

/** The violations, the policies not evaluated, and the error diagnostics of a preview's engine events. */
export function violationsOf(run: Pick<EngineRun, "policies" | "diagnostics">): { violations: Violation[]; notEvaluated: Violation[]; errors: string[] } {
  const violations: Violation[] = [];
  const notEvaluated: Violation[] = [];
  for (const p of run.policies) {
    const message = p.message.trim();
    const skipped = /can't run policy .* during preview/.test(message);
    // The engine's message is the policy's description, then the violation's text (tagged by policies/change.ts).
    let text = skipped ? message : message.split("\n").slice(1).join(" ").trim() || message;
    const description = skipped ? "" : message.split("\n")[0]!.trim();
    const tag = TAG.exec(text);
    if (tag) text = text.slice(tag[0].length);
    const v: Violation = {
      level: skipped ? "not evaluated" : p.enforcementLevel,
      severity: (tag?.[1] as Severity | undefined) ?? (p.enforcementLevel === "mandatory" ? "high" : "low"),
      status: tag?.[2] ? "already present" : "new",
      policy: ruleOf(p.policyName), // a rule's advisory twin reports for the rule (policies/change.ts)
      pack: p.policyPackName,
      urn: p.urn,
      resource: p.urn ? resourceOf(p.urn) : "",
      message: text,
      ...(description && description !== text ? { description } : {}),
    };
    (skipped ? notEvaluated : violations).push(v);
  }
  return { violations, notEvaluated, errors: errorsOf(run) };
}

/** Whether `v` fails the gate: mandatory, at a failing severity, and new (or any status with `all`). */
export function fails(v: Violation, failSeverities: readonly Severity[], all: boolean): boolean {
  return v.level === "mandatory" && failSeverities.includes(v.severity) && (all || v.status === "new");
}

/** Options of {@link runGate}. */
export interface GateOptions {
  /** The policy pack folder (relative to the current folder, not `--cwd`); default {@link SHIPPED_PACK}. */
  pack?: string;
  /** A policy pack config file (JSON, `policies/config.example.json` shows every key; relative to the current folder). */
  config?: string;
  /** The severities that fail the gate. @default ["critical", "high"] */
  failSeverities?: readonly Severity[];
  /** Findings already present before the change fail too (judge the whole stack). @default false */
  all?: boolean;
  /**
   * What the access review reads: the whole org under the root with the change on top (`org`), or the stack's
   * objects alone (`stack`). @default "org"; `stack` when the stack has no state yet (nothing to judge against)
   */
  scope?: AccessScope;
  /** Fully qualified stacks of other projects whose objects are marked as managed there (`--with`). @default [] */
  withStacks?: readonly string[];
}

/**
 * The live org outside the stack, for the pack: read with the stack's API settings (or the environment's).
 * @returns `missing` at once (no API settings or no root group uid: the review judges the stack alone and says so),
 *   else `reading`: the read under way, which resolves with the org or with why it `failed` (the API refused or
 *   failed: the gate cannot judge, exit 2).
 */
function orgOutsideFor(ref: StackRef, config: Record<string, string>, objects: readonly StackObject[], withStacks: readonly string[]): { missing: string } | { reading: Promise<{ org: OrgOutside } | { failed: string }> } {
  const root = orgUidOf(config);
  let api: PlatformClient | undefined;
  try {
    api = clientFor(config);
  } catch {
    api = undefined;
  }
  if (!api || !root) {
    void api?.close();
    return { missing: `the access review judged the stack alone: no ${!root ? "root group uid (platform:orgUid or PLATFORM_ORG_UID)" : "API settings"} to read the whole org with (--scope stack says so without this note)` };
  }
  const client = api;
  const reading = (async () => {
    try {
      return { org: await readOrgOutside(ref, client, root, objects, withStacks) };
    } catch (err) {
      return { failed: `the whole org could not be read from the API (docs/access.md "The whole org"; --scope stack judges the stack alone): ${(err as Error).message}` };
    } finally {
      await client.close();
    }
  })();
  return { reading };
}

/** The API settings of the stack's config, as the environment variables the pack reads (no stack config reaches a pack). */
function packSettings(config: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const pairs: Array<[string, string]> = [["platform:apiUrl", "PLATFORM_API_URL"], ["platform:token", "PLATFORM_TOKEN"], ["platform:authUrl", "PLATFORM_AUTH_URL"], ["platform:apiVersion", "PLATFORM_API_VERSION"], ["platform:orgUid", "PLATFORM_ORG_UID"]];
  for (const [key, name] of pairs) if (config[key] && !process.env[name]) env[name] = config[key];
  return env;
}

/** What to do when the pack's process could not load @pulumi/policy (the pack prints it to its own stderr, which the engine does not pass on). */
export const POLICY_PEER_HINT = "the policy pack needs @pulumi/policy (an optional peer dependency of platform-pulumi): run `npm install --save-dev @pulumi/policy` in the Pulumi project";

/** Whether `@pulumi/policy` resolves from any of `from` (the pack's folder, the project's), as the pack's process would resolve it. */
export function canResolvePolicy(from: readonly string[]): boolean {
  try {
    require.resolve("@pulumi/policy", { paths: [...from] });
    return true;
  } catch {
    return false;
  }
}

/**
 * The preview's errors, each once (the engine reports a pack that failed to start for each stage), with the fix in
 * front when the pack failed to start and `@pulumi/policy` does not resolve ({@link POLICY_PEER_HINT}).
 */
export function withPackHints(errors: readonly string[], policyResolves: () => boolean): string[] {
  const once = [...new Set(errors.map((e) => e.trim()))].filter(Boolean);
  const failedToStart = once.some((e) => /policy pack .* failed to start/.test(e));
  return failedToStart && !policyResolves() ? [POLICY_PEER_HINT, ...once] : once;
}

/** Whether the pack's files can be believed ({@link trustPackResults}). */
export interface PackTrust {
  /** True when the pack confirmed, through the engine's events, the baseline it read and every file the gate will read. */
  ok: boolean;
  /** Set when a file was changed by something other than the pack (the program under review): why, for the report. */
  tampered?: string;
}

/**
 * Checks the pack's results against what the pack reported through the engine's events
 * (provider/access/gateChannel.ts): the baseline it judged against must be the one the gate wrote
 * (`baselineDigest`), and the files in `out` exactly those it wrote, byte for byte.
 *
 * - confirmed and equal: `ok`;
 * - a digest differs, a file is missing or extra, or the shipped pack sent no confirmation although the preview
 *   completed: `tampered`, with what differs (the gate then exits 2 without judging);
 * - another pack that sends no confirmation: not `ok` (its "already present" tags and files are not used), not
 *   tampered.
 */
export function trustPackResults(out: string, baselineDigest: string | null, inputs: GateInputs | undefined, opts: { shipped: boolean; completed: boolean; orgDigest?: string }): PackTrust {
  const present = readdirSync(out).sort();
  const refuse = (what: string): PackTrust => ({
    ok: false,
    tampered: `the gate's files were changed during the preview (${what}): something other than the policy pack wrote them, most likely the program under review; the change was not judged (docs/policy.md "What the gate trusts")`,
  });
  if (!inputs) {
    if (opts.shipped && opts.completed) return refuse("the pack did not confirm what it read and wrote");
    return present.length ? refuse(`unconfirmed files ${present.join(", ")}`) : { ok: false };
  }
  if (inputs.baseline !== baselineDigest) return refuse(`the baseline the pack judged against is not the one the gate wrote`);
  // The org file: a pack that read one read the gate's (one that did not, e.g. no-new-access turned off, judged nothing with it).
  if (inputs.org != null && inputs.org !== opts.orgDigest) return refuse(`the org the pack judged with is not the one the gate wrote`);
  for (const name of present) {
    const want = inputs.files[name];
    if (want === undefined) return refuse(`${printable(name)} was not written by the pack`);
    if (sha256(readFileSync(path.join(out, name), "utf8")) !== want) return refuse(`${printable(name)} differs from what the pack wrote`);
  }
  const missing = Object.keys(inputs.files).filter((n) => !present.includes(n));
  if (missing.length) return refuse(`${missing.map(printable).join(", ")} removed`);
  return { ok: true };
}

/**
 * Previews the stack with the policy pack, the stack's state before the change as the baseline, and reports what
 * it found (nothing is written).
 * @throws StackCommandError when the CLI cannot be started or the state cannot be read; Error when the pack or
 *   config file does not exist.
 */
export async function runGate(ref: StackRef, opts: GateOptions = {}): Promise<GateReport & { exitCode: 0 | 1 | 2 }> {
  const pack = path.resolve(opts.pack ?? SHIPPED_PACK);
  if (!existsSync(path.join(pack, "PulumiPolicy.yaml"))) throw new Error(`--pack: ${pack} is not a policy pack folder (it has no PulumiPolicy.yaml)`);
  const config = opts.config === undefined ? undefined : path.resolve(opts.config);
  if (config !== undefined && !existsSync(config)) throw new Error(`--config: ${config} does not exist`);
  // A malformed exclusion stops the gate before the preview, naming the field (the pack would stop too).
  if (config !== undefined) loadPackConfig(config);
  const failSeverities = [...(opts.failSeverities ?? DEFAULT_FAIL_SEVERITIES)];
  const all = opts.all === true;
  const scope = opts.scope ?? "org";
  let scopeUsed: AccessScope = "stack";
  let orgFailure: string | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), "platform-pulumi-gate-"));
  try {
    // The state before the change, for the pack to compare with. A stack that cannot be exported (it does not
    // exist, the backend is unreachable) is left to the preview, which says why.
    // The pack's results land in a folder of their own, apart from the baseline, so the folder lists only them.
    const out = path.join(dir, "out");
    mkdirSync(out, { mode: 0o700 });
    // The pack splits each rule's findings by the same failing severities (policies/change.ts), so the engine's
    // own verdict is the gate's.
    let env: NodeJS.ProcessEnv = { [GATE_OUT_ENV]: out, [FAIL_SEVERITY_ENV]: failSeverities.length ? failSeverities.join(",") : "none" };
    let baselineDigest: string | null = null;
    let orgDigest: string | undefined;
    let orgWritten: Promise<void> = Promise.resolve();
    let baselineObjects: StackObject[] | undefined;
    let state: Awaited<ReturnType<typeof exportStack>> | undefined;
    try {
      state = await exportStack(ref);
    } catch {
      // no baseline: every finding is judged as new
    }
    if (state) {
      const baseline = path.join(dir, "baseline.json");
      baselineObjects = objectsFromState(state.deployment.resources ?? []);
      const config: Record<string, string> = await stackConfig(ref).catch(() => ({}));
      // The whole org (docs/access.md "The whole org"): what the API holds under the root that the stack does not,
      // read once, while the preview runs, and handed to the pack in a file of its own (ORG_ENV) renamed into place
      // when the read is done; the pack's no-new-access waits for it, and confirms its digest as it does the baseline's.
      const read = scope === "org" ? orgOutsideFor(ref, config, baselineObjects, opts.withStacks ?? []) : undefined;
      if (read && "missing" in read) process.stderr.write(`note: ${read.missing}\n`);
      if (read && "reading" in read) {
        const orgPath = path.join(dir, "org.json");
        env = { ...env, [ORG_ENV]: orgPath };
        orgWritten = read.reading.then((got) => {
          const file: OrgFile = "org" in got ? { outside: got.org.outside, managed: Object.fromEntries(got.org.managed) } : { outside: [], managed: {}, failed: true };
          const text = JSON.stringify(file);
          const tmp = path.join(dir, "org.json.part");
          writeFileSync(tmp, text, { mode: 0o600 });
          renameSync(tmp, orgPath);
          orgDigest = sha256(text);
          if ("org" in got) scopeUsed = "org";
          else orgFailure = got.failed;
        });
      }
      const file: BaselineFile = { objects: baselineObjects };
      const text = JSON.stringify(file);
      writeFileSync(baseline, text, { mode: 0o600 });
      baselineDigest = sha256(text);
      env = { ...env, [BASELINE_ENV]: baseline };
      env = { ...env, ...packSettings(config) };
    }
    // Both finished before either is judged (a preview that failed before its stack policies never waited for the org).
    const [previewed, written] = await Promise.allSettled([runEngineEvents(ref, "preview", ["--policy-pack", pack, ...(config ? ["--policy-pack-config", config] : [])], env), orgWritten]);
    if (previewed.status === "rejected") throw previewed.reason;
    if (written.status === "rejected") throw written.reason;
    const r = previewed.value;
    // What the pack says it read and wrote (policies/change.ts `gate-inputs`), from the engine's events.
    const inputsEvent = r.policies.find((p) => p.policyName === GATE_INPUTS_POLICY);
    const inputs = inputsEvent ? parseGateInputs(inputsEvent.message) : undefined;
    const found = violationsOf({ ...r, policies: r.policies.filter((p) => p.policyName !== GATE_INPUTS_POLICY) });
    const { violations: judged, notEvaluated } = found;
    // An org that could not be read leaves the access review unjudged: an error of its own, after the preview's.
    const errors = [...new Set([...found.errors, ...(orgFailure ? [orgFailure] : [])])];
    // Stack policies (gate-inputs among them) run only once the program has run: a preview that failed before
    // (the program's own error, an error diagnostic) cannot have confirmed anything, and is reported as such.
    const completed = r.summary !== undefined && !found.errors.some((e) => !/preview failed/.test(e)) && (r.code === 0 || judged.some((v) => v.level === "mandatory"));
    const trust = trustPackResults(out, baselineDigest, inputs, { shipped: pack === SHIPPED_PACK, completed, ...(orgDigest !== undefined ? { orgDigest } : {}) });
    let violations = judged;
    let access: GateReport["access"] = null;
    let silenced: SilencedFinding[] = [];
    if (trust.ok) {
      try {
        // As the pack wrote it: a class's members once in `classes` (../access/report.ts `classTable`).
        access = JSON.parse(readFileSync(path.join(out, "access.json"), "utf8")) as { changes: ReportChange[]; classes?: JsonClass[] };
      } catch {
        // the pack did not compare access (another pack, or no baseline)
      }
      silenced = readSilencedFiles(out);
    } else {
      // Nothing the pack judged against the baseline is trusted: every finding is new, and no access list is shown.
      violations = judged.map((v) => (v.status === "new" ? v : { ...v, status: "new" }));
    }
    const failing = violations.filter((v) => fails(v, failSeverities, all));
    const mandatory = violations.some((v) => v.level === "mandatory");
    // The engine adds "preview failed" (or the like) after mandatory violations: not an error of its own.
    const other = errors.filter((e) => !/preview failed/.test(e));
    const broken = other.length > 0 || (r.code !== 0 && !mandatory);
    // Tampering decides before anything else: the change is not judged at all. Then a failing finding decides
    // (the preview's own errors are still reported); otherwise a broken preview is 2.
    const exitCode = trust.tampered ? 2 : failing.length > 0 ? 1 : broken ? 2 : 0;
    const why = trust.tampered
      ? [trust.tampered, ...other]
      : other.length
        ? other
        : broken && failing.length === 0
          ? [`${r.stderr.trim() || r.stdout.trim().split("\n").slice(-5).join("\n") || "the preview failed"}`]
          : [];
    return { stack: ref.stack, scope: scopeUsed, passed: exitCode === 0, failSeverities, all, violations, notEvaluated, access, errors: withPackHints(why, () => canResolvePolicy([pack, ref.cwd])), ...(silenced.length ? { silenced } : {}), ...(baselineObjects ? { baseline: { objects: baselineObjects } } : {}), exitCode };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Options of {@link formatGate}. */
export interface GateFormatOptions {
  /** The most characters the Markdown may take. @default 60000 */
  maxChars?: number;
  /** Where the full JSON report was written (`--json-out`), named where rows are left out. */
  jsonFile?: string | undefined;
}

/** What the access review read, in words: `the whole org` or `this stack alone`. */
function scopeWords(scope: AccessScope | undefined): string {
  return scope === "stack" ? "this stack alone" : "the whole org";
}

/**
 * The gate's report as text: `json` ({@link GateReport}), `markdown` (for a pull request or CI step summary: the
 * verdict first, new findings, the access the change gives grouped by identity, scope and route, then findings
 * already present, folded) or `table`.
 */
export function formatGate(r: GateReport, format: ReportFormat, exitCode: number, opts: GateFormatOptions = {}): string {
  if (format === "json") return `${jsonText(r)}\n`;
  const sev = r.failSeverities.length ? r.failSeverities.join(" or ") : "no severity";
  const failing = r.violations.filter((v) => fails(v, r.failSeverities, r.all));
  const count = (rows: readonly Violation[]) => SEVERITIES.map((s) => [s, rows.filter((v) => v.severity === s).length] as const).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(", ");
  // The access findings are shown as the access section; the rest as findings.
  const shownAccess = r.access !== null;
  const findings = r.violations.filter((v) => !(shownAccess && v.policy === "no-new-access"));
  const fresh = findings.filter((v) => v.status === "new");
  const present = findings.filter((v) => v.status === "already present");
  const failingAccessRows = failing.filter((v) => shownAccess && v.policy === "no-new-access");
  const failingPolicyRows = failing.filter((v) => !failingAccessRows.includes(v));
  const failingAccess = failingAccessRows.length;
  const failingPolicy = failingPolicyRows.length;
  const verdict =
    exitCode === 0
      ? `policy gate: passed (nothing new at ${sev}${fresh.length ? `; ${fresh.length} new finding(s) below it or advisory` : ""}${present.length ? `; ${present.length} already present before this change` : ""}${r.notEvaluated.length ? `; ${r.notEvaluated.length} not evaluated until apply` : ""})`
      : exitCode === 1
        ? // Each count with its own severities, so every number adds up as printed.
          `policy gate: FAILED: ${[failingPolicy ? `${failingPolicy} ${r.all ? "" : "new "}mandatory finding(s) (${count(failingPolicyRows)})` : "", failingAccess ? `${failingAccess} access gain(s) (${count(failingAccessRows)})` : ""].filter(Boolean).join(" and ")} at ${sev}`
        : `policy gate: FAILED: the preview did not complete: ${printable(r.errors.join(" ").split("\n")[0] ?? "")}`;
  const header = ["severity", "level", "policy", "resource", "message"];
  const row = (v: Violation) => [v.severity, v.level, v.policy, v.resource, v.message];
  const skipped = r.notEvaluated.map((v) => [v.policy, v.resource, v.message]);
  // The rows with each class's members again, for the renderers (the report itself keeps them once, in `classes`).
  const changes = r.access ? withMembers(r.access.changes, r.access.classes) : [];
  const gains = changes.filter((c) => c.change === "gained");
  const parts: string[] = [];
  if (format === "markdown") {
    parts.push(`### Policy gate of stack ${mdCode(r.stack)}`, "", `**${verdict}**`, "");
    if (r.errors.length) {
      parts.push(exitCode === 2 ? "The preview could not run:" : "The preview also reported errors:", "", "```", ...r.errors.map((e) => inertLines(e).replace(/```/g, "ˋˋˋ")), "```", "");
      const hints = hintsFor(r.errors.join("\n"));
      if (hints.length) parts.push(`What to do: ${hints.map(mdText).join(" ")}`, "");
    }
    if (fresh.length || exitCode !== 2) parts.push(fresh.length ? mdTable(header, fresh.map(row)) : "No new policy findings.", "");
    if (r.access) {
      parts.push(
        accessMarkdown(r.stack, changes, false, {
          title: `#### Access this change gives and takes (${scopeWords(r.scope)})`,
          maxChars: Math.max(2_000, (opts.maxChars ?? 60_000) - parts.join("\n").length - 4_000),
          jsonFile: opts.jsonFile,
        }).trimEnd(),
        "",
      );
    }
    if (r.silenced?.length) parts.push("Silenced by exclusions (until they expire):", "", ...silencedLines(r.silenced).map((l) => `- ${mdText(l)}`), "");
    if (present.length) parts.push(`<details><summary>${present.length} finding(s) already present before this change${r.all ? "" : " (they do not fail the gate; --all judges the whole stack)"}</summary>`, "", mdTable(header, present.map(row)), "", "</details>", "");
    if (skipped.length) parts.push("Not evaluated until apply (a value the policy reads is unknown during the preview):", "", mdTable(["policy", "resource", "message"], skipped), "");
  } else {
    if (r.errors.length) parts.push(exitCode === 2 ? "the preview could not run:" : "the preview also reported errors:", ...r.errors.map((e) => `  ${inertLines(e).replace(/\n/g, "\n  ")}`), ...hintsFor(r.errors.join("\n")).map((h) => `  what to do: ${printable(h)}`), "");
    if (fresh.length || exitCode !== 2) parts.push(fresh.length ? table(header, fresh.map(row)) : "no new policy findings", "");
    if (r.access) parts.push(`access this change gives and takes (${scopeWords(r.scope)}):`, gains.length || changes.length ? accessText(changes, false).trimEnd() : "no access gained or lost", "");
    if (r.silenced?.length) parts.push("silenced by exclusions (until they expire):", ...silencedLines(r.silenced).map((l) => `  ${printable(l)}`), "");
    if (present.length) parts.push(`already present before this change${r.all ? "" : " (not failing; --all judges the whole stack)"}:`, table(header, present.map(row)), "");
    if (skipped.length) parts.push("not evaluated until apply (a value the policy reads is unknown during the preview):", table(["policy", "resource", "message"], skipped), "");
    parts.push(verdict);
  }
  return `${parts.join("\n")}\n`;
}

/**
 * Writes {@link privilegeWarning} to stderr when the stack's API credentials (its `platform:*` config or the
 * environment) can do more than read (./privilege.ts). Without API settings it says nothing: the preview will.
 */
export async function warnIfWriter(ref: StackRef, command = "gate"): Promise<void> {
  const config = await stackConfig(ref).catch(() => ({}) as Record<string, string>);
  let settings: Settings;
  let client;
  try {
    settings = resolveSettings((k) => config[k]);
    client = clientFor(config);
  } catch {
    return; // no API settings: the preview says what is missing
  }
  const line = privilegeWarning(command, await writeGrants(client, settings));
  if (line) process.stderr.write(`${printable(line)}\n`);
}

/** The `gate` subcommand's usage. */
export const GATE_USAGE = `usage: platform-pulumi gate --stack <name> [--cwd <dir>] [--config <json>] [--pack <dir>] [--format table|json|markdown|sarif]
                          [--fail-severity <list>] [--all] [--scope org|stack] [--with <stack>]... [--json-out <file>]
                          [--max-chars <n>] [--verify <gate JSON>]
  Previews the stack with the policy pack (by default the one shipped in this package) and judges the change: each
  finding has a severity (critical, high, low) and is new or already present before the change; the access the
  change gives is listed by identity, scope and route. The stack's backend and credentials come from the
  environment. Nothing is written.
  --stack <name>          the stack (required; or PULUMI_STACK)
  --cwd <dir>             the Pulumi project's folder (default: the current one)
  --config <json>         a policy pack config file (node_modules/platform-pulumi/policies/config.example.json shows every key)
  --pack <dir>            another policy pack folder (default: the shipped platform pack)
  --format <f>            table (default), json (one object; shape in the README), markdown (for a PR or a CI summary)
                          or sarif (SARIF 2.1.0, for GitHub code scanning)
  --fail-severity <list>  the severities a new mandatory finding fails at (default: critical,high; none: never)
  --all                   findings already present before the change fail too (judge the whole stack)
${SCOPE_USAGE}
  --json-out <file>       also write the full JSON report to <file> (a CI artifact)
  --max-chars <n>         the most characters of Markdown (default 60000; a GitHub comment holds 65536)
  --verify <gate JSON>    after \`pulumi up\`: no preview; compare the access the stack now gives with the report a
                          review approved (its --json-out file) and exit 1 on any gain the review did not show
${TIMEOUT_USAGE}`;

/**
 * `platform-pulumi gate …`: parses `argv` (the arguments after `gate`) and runs {@link runGate}; the report on
 * stdout, the preview's errors on stderr.
 * @returns the exit code (./frame.ts: 0 passed, 1 a new mandatory finding at a failing severity, 2 could not run).
 */
export function gateCommand(argv: readonly string[]): Promise<number> {
  const options = { config: { type: "string" }, pack: { type: "string" }, all: { type: "boolean" }, verify: { type: "string" }, ...SCOPE_OPTIONS, ...REVIEW_OPTIONS } as const;
  const frame = { name: "gate", usage: GATE_USAGE, found: "a new mandatory finding at a failing severity (--fail-severity)", formats: FORMATS, options };
  return runStackFrame(frame, argv, async ({ ref, format, values }) => {
    let review;
    try {
      review = reviewArgs(values);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { failSeverities, maxChars, jsonFile } = review;
    if (typeof values["verify"] === "string") {
      const v = await verifyApplied(ref, values["verify"]);
      if (jsonFile) writeFileSync(jsonFile, `${jsonText(v)}\n`);
      process.stdout.write(formatVerify(v, format));
      return v.passed ? 0 : 1;
    }
    const { scope, withStacks } = scopeArgs(values);
    await warnIfWriter(ref);
    const r = await runGate(ref, {
      scope,
      withStacks,
      ...(typeof values["pack"] === "string" ? { pack: values["pack"] } : {}),
      ...(typeof values["config"] === "string" ? { config: values["config"] } : {}),
      ...(failSeverities ? { failSeverities } : {}),
      all: values["all"] === true,
    });
    const { exitCode, ...report } = r;
    if (jsonFile) writeFileSync(jsonFile, `${jsonText(report)}\n`);
    if (format === "sarif") process.stdout.write(`${jsonText(gateSarif(report, await locatorFor(ref, report.violations.map((v) => v.urn)), jsonFile))}\n`);
    else process.stdout.write(formatGate(report, format, exitCode, { ...(maxChars ? { maxChars } : {}), jsonFile }));
    for (const e of report.errors) process.stderr.write(`${inertLines(e)}\n`);
    for (const h of hintsFor(report.errors.join("\n"))) process.stderr.write(`what to do: ${printable(h)}\n`);
    return exitCode;
  });
}

/** The rule of a gate policy: its id is the policy's name, its help the policy's description. */
function policyRule(v: Violation): SarifRule {
  const text = v.description || `Policy ${v.policy} of pack ${v.pack}.`;
  return {
    id: v.policy,
    name: v.policy,
    shortDescription: { text },
    help: { text: `${text} Reported by policy pack ${v.pack} during \`platform-pulumi gate\` (README "Policy as code").` },
    helpUri: INFORMATION_URI,
  };
}

/**
 * The access row (../access/report.ts `compactRows` of the report's gains) a `no-new-access` finding reports: the
 * policy reports one finding per identity, scope and route (policies/access.ts), its message starting
 * `identity <path> gains <gives> at <group> (` and naming the route's steps. Each row matches one finding at most
 * (`used`); undefined when none matches (another pack, or a policy config that narrows what is reported).
 */
function accessRowOf(v: Violation, rows: readonly CompactRow[], used: Set<CompactRow>): CompactRow | undefined {
  if (v.policy !== "no-new-access") return undefined;
  const hit = rows.find((x) => !used.has(x) && v.message.startsWith(`identity ${identityWords(x.identity)} gains ${x.gives} at ${x.group} (`) && x.how.every((h) => v.message.includes(h)));
  if (hit) used.add(hit);
  return hit;
}

/**
 * The gate's report as SARIF: one result per violation (policies not evaluated until apply left out), its level
 * from severity and enforcement level ({@link levelOf}), `baselineState` `new` or `unchanged` (already present),
 * located at its resource ({@link SourceLocator}); a stack policy's finding at the stack. A `no-new-access` finding
 * is one identity, scope and route (as `access --format sarif`): its `properties` list the capabilities it gives
 * and its fingerprint is the identity, scope and route (./sarif.ts `accessFingerprint`). The findings exclusions
 * silenced are listed in `run.properties`, and the log is capped, as ./sarifLog.ts `LogBuilder.log` says; `jsonFile`
 * (`--json-out`) is named there as where the full report is.
 */
export function gateSarif(r: GateReport, locator?: SourceLocator, jsonFile?: string): SarifLog {
  const b = new LogBuilder("gate", r.stack, locator);
  b.silenced(r.silenced);
  b.fullReportAt(jsonFile);
  const accessRows = r.access ? compactRows(withMembers(r.access.changes, r.access.classes).filter((c) => c.change === "gained")) : [];
  const used = new Set<CompactRow>();
  for (const v of r.violations) {
    const loc = v.urn ? (locator ? locator.locate(v.urn) : { logicalLocations: [{ fullyQualifiedName: v.urn, kind: "resource" }] }) : { logicalLocations: [{ fullyQualifiedName: `stack ${r.stack}`, kind: "module" }] };
    const row = accessRowOf(v, accessRows, used);
    b.result(policyRule(v), {
      level: levelOf(v.severity, v.level),
      message: { text: `${v.resource ? `${v.resource}: ` : ""}${v.message}` },
      locations: [loc],
      // An access finding by identity, scope and route; a resource's by policy and URN (its message may name the
      // resource's uid once it exists); another stack policy's by its message too.
      partialFingerprints: row ? accessFingerprint(row) : v.urn && !v.urn.includes("::pulumi:pulumi:Stack::") ? fingerprint("gate", v.pack, v.policy, v.urn) : fingerprint("gate", v.pack, v.policy, v.urn, v.message),
      baselineState: v.status === "new" ? "new" : "unchanged",
      properties: {
        severity: v.severity,
        status: v.status,
        enforcementLevel: v.level,
        pack: v.pack,
        ...(v.urn ? { urn: v.urn } : {}),
        ...(row ? { identity: row.identity.path, group: row.group, gives: row.gives, capabilities: row.capabilities, route: row.how } : {}),
      },
    });
  }
  if (!r.passed && r.errors.length && r.violations.every((v) => !(v.level === "mandatory" && r.failSeverities.includes(v.severity)))) b.failed(r.errors);
  return b.log();
}
