/**
 * A SARIF 2.1.0 log (OASIS "Static Analysis Results Interchange Format" 2.1.0) as the report commands print it
 * with `--format sarif` (README "SARIF for code scanning"): its shapes, the level of a finding, stable
 * fingerprints, and the builder each command renders its findings with (`gate.ts`, `drift.ts`, and `sarif.ts` for
 * access). Imports no command, so every command, and the could-not-run output of `failure.ts`, may use it.
 *
 * Server text (names, uids, messages the API sent) is in every command's messages, so the builder, not each
 * command, makes it inert (provider/text.ts): every message string it writes (a result's `message.text`, a rule's
 * descriptions and help, a notification) is {@link sarifText} of what the command gave, and every logical
 * location's names {@link printable}. A message is plain text only: no `message.markdown` is ever written.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import type { SilencedFinding } from "../access/exclusions";
import { SEVERITIES, type Severity } from "../access/severity";
import { jsonText, printable, sarifText } from "../text";

/** The root of this package (this file is `dist/provider/commands/sarifLog.js`). */
export const PACKAGE_ROOT = path.resolve(__dirname, "..", "..", "..");

/** The SARIF schema the log names (`$schema`); the tests validate against the OASIS schema it stands for. */
export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** Where the README documents the findings, for `tool.driver.informationUri` and each rule's `helpUri`. */
export const INFORMATION_URI = "https://www.npmjs.com/package/platform-pulumi";

/** The base every relative `artifactLocation.uri` is relative to: the repository (or project) folder. */
export const SRCROOT = "%SRCROOT%";

/**
 * The most results one log holds. GitHub code scanning accepts up to 25,000 results per run but includes "only the
 * top 5,000 results ..., prioritized by severity" (GitHub Docs, "SARIF support for code scanning", the limits
 * table; "About code scanning limits on SARIF results"): past 5,000 a result is uploaded and never shown. So a log
 * keeps the 5,000 most severe and counts the rest in `run.properties` ({@link LEFT_OUT_KEY}).
 */
export const MAX_SARIF_RESULTS = 5_000;

/**
 * The most bytes one log takes, serialized as the commands print it (UTF-8, the indented JSON of `jsonText` and its
 * closing newline). GitHub code scanning refuses a SARIF file larger than 10 MB (GitHub Docs, "SARIF results file
 * is too large": "Code scanning does not accept files above this size"); 10 MB is taken as 10,000,000 bytes, the
 * smaller reading, so the file fits whichever GitHub means. Results past it are left out most severe kept first,
 * and counted ({@link LEFT_OUT_KEY}).
 */
export const MAX_SARIF_BYTES = 10_000_000;

/**
 * The most bytes the list of silenced findings ({@link SILENCED_KEY}) takes in a log: a tenth of
 * {@link MAX_SARIF_BYTES}, so the findings themselves keep the rest; entries past it are counted, not listed.
 */
export const MAX_SILENCED_BYTES = 1_000_000;

/** The `run.properties` key of what a capped log left out ({@link LeftOut}). */
export const LEFT_OUT_KEY = "platformPulumi/leftOut";

/** The `run.properties` key of the silenced findings ({@link SilencedProperty}). */
export const SILENCED_KEY = "platformPulumi/silenced";

/** What a log left out to stay within {@link MAX_SARIF_RESULTS} and {@link MAX_SARIF_BYTES}, in `run.properties`. */
export interface LeftOut {
  /** Results left out (the least severe). */
  results: number;
  /** Capability grants those results stand for (an access result's `properties.capabilities`; one per other result). */
  grants: number;
  /** The limit that was reached, and where the whole report is. */
  reason: string;
  /** Where the full report is: the JSON output. */
  fullReport: string;
}

/**
 * The silenced findings in `run.properties` (GitHub code scanning ignores SARIF `suppressions`, so a silenced
 * finding is no result; it is listed here instead): each with its identity, capability, group, reason and expiry.
 */
export interface SilencedProperty {
  /** How many findings exclusions silenced. */
  count: number;
  /** Those listed (all of them, unless past {@link MAX_SILENCED_BYTES}). */
  findings: Array<{ policy: string; identity: string; capability: string; group: string; severity: Severity; reason: string; expires: string }>;
  /** How many are not listed (past {@link MAX_SILENCED_BYTES}); absent when every one is. */
  notListed?: number;
}

/** A SARIF level (SARIF 2.1.0 §3.27.10). */
export type SarifLevel = "error" | "warning" | "note" | "none";

/** A SARIF location (§3.28): a file and line, and/or a logical location (the resource's URN). */
export interface SarifLocation {
  physicalLocation?: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number; startColumn?: number } };
  logicalLocations?: Array<{ fullyQualifiedName: string; name?: string; kind?: string }>;
}

/** A rule (SARIF `reportingDescriptor`, §3.49): its id, short description and help text. */
export interface SarifRule {
  id: string;
  name?: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  help: { text: string };
  helpUri?: string;
  defaultConfiguration?: { level: SarifLevel };
}

/** A result (§3.27): one finding. */
export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations: SarifLocation[];
  partialFingerprints: Record<string, string>;
  baselineState?: "new" | "unchanged";
  properties: Record<string, unknown>;
}

/** A SARIF 2.1.0 log with one run, as the commands print it. */
export interface SarifLog {
  $schema: string;
  version: "2.1.0";
  runs: Array<{
    tool: { driver: { name: string; version: string; semanticVersion: string; informationUri: string; rules: SarifRule[] } };
    automationDetails: { id: string };
    originalUriBaseIds?: Record<string, { uri: string }>;
    /** Present when the command could not run (or not fully): `executionSuccessful` false and why. */
    invocations?: Array<{ executionSuccessful: boolean; toolExecutionNotifications: Array<{ level: SarifLevel; message: { text: string } }> }>;
    results: SarifResult[];
    /** The run's property bag (§3.8): what a capped log left out ({@link LEFT_OUT_KEY}), the silenced findings ({@link SILENCED_KEY}). */
    properties?: Record<string, unknown>;
  }>;
}

/**
 * The SARIF level of a finding (README "SARIF for code scanning"): `critical` and `high` are `error`, `low` is
 * `note`; an advisory finding (the pack's `advisory` level) is at most `warning`.
 */
export function levelOf(severity: Severity, enforcement?: string): SarifLevel {
  const level: SarifLevel = severity === "low" ? "note" : "error";
  return enforcement === "advisory" && level === "error" ? "warning" : level;
}

/** The package's version, from its package.json. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

/** A stable fingerprint of what a finding is about (SARIF `partialFingerprints`, §3.27.17). */
export function fingerprint(...parts: string[]): Record<string, string> {
  return { "platformPulumiFinding/v1": createHash("sha256").update(parts.join("\u0000")).digest("hex") };
}

/** Where a log's relative file locations are relative to (the source locator of ./sarif.ts). */
export interface BaseIds {
  /** `originalUriBaseIds` of the run. */
  baseIds(): Record<string, { uri: string }>;
}

/** `loc` with the names of its logical locations {@link printable} (one line, no control or bidirectional character). */
function inertLocation(loc: SarifLocation): SarifLocation {
  if (!loc.logicalLocations) return loc;
  return { ...loc, logicalLocations: loc.logicalLocations.map((l) => ({ ...l, fullyQualifiedName: printable(l.fullyQualifiedName), ...(l.name !== undefined ? { name: printable(l.name) } : {}) })) };
}

/** The rank of a result for the cap: its `properties.severity` (critical first), else its level (error first). */
function rankOf(r: SarifResult): number {
  const sev = SEVERITIES.indexOf(r.properties["severity"] as Severity);
  if (sev >= 0) return sev;
  return SEVERITIES.length + Math.max(0, (["error", "warning", "note", "none"] as const).indexOf(r.level));
}

/** How many capability grants a result stands for: its `properties.capabilities` (an access result), else one. */
function grantsOf(r: SarifResult): number {
  const caps = r.properties["capabilities"];
  return Array.isArray(caps) ? caps.length : 1;
}

/** The UTF-8 size of `value` as the commands print it (`jsonText`, two-space indent). */
function bytesOf(value: unknown): number {
  return Buffer.byteLength(jsonText(value), "utf8");
}

/**
 * The silenced findings as {@link SilencedProperty}: each entry's names made {@link printable}, listed until they
 * take {@link MAX_SILENCED_BYTES}, the rest counted.
 */
export function silencedProperty(silenced: readonly SilencedFinding[]): SilencedProperty {
  const findings: SilencedProperty["findings"] = [];
  let size = 0;
  for (const s of silenced) {
    const entry = { policy: s.policy, identity: printable(s.identity.path), capability: printable(s.capability), group: printable(s.group), severity: s.severity, reason: printable(s.reason), expires: printable(s.expires) };
    size += bytesOf(entry) + 16;
    if (size > MAX_SILENCED_BYTES) break;
    findings.push(entry);
  }
  return { count: silenced.length, findings, ...(findings.length < silenced.length ? { notListed: silenced.length - findings.length } : {}) };
}

/** Builds the log: rules in first-use order, results pointing at them. */
export class LogBuilder {
  private readonly rules = new Map<string, { rule: SarifRule; index: number }>();
  readonly results: SarifResult[] = [];
  /** Set by {@link LogBuilder.failed}: why the command did not complete. */
  private failure: string[] | undefined;
  /** Set by {@link LogBuilder.silenced}. */
  private silencedFindings: readonly SilencedFinding[] | undefined;
  /** Set by {@link LogBuilder.fullReportAt}: the `--json-out` file, named where results are left out. */
  private jsonFile: string | undefined;

  constructor(
    private readonly command: string,
    private readonly stack: string,
    private readonly locator: BaseIds | undefined,
  ) {}

  /**
   * Declares `rule` (once) and returns its index. Its texts are written as {@link sarifText} (plain text, no
   * placeholder, no embedded link), whatever they quote.
   */
  rule(rule: SarifRule): number {
    const known = this.rules.get(rule.id);
    if (known) return known.index;
    const index = this.rules.size;
    const { shortDescription, fullDescription, help, ...rest } = rule;
    this.rules.set(rule.id, {
      rule: { ...rest, shortDescription: { text: sarifText(shortDescription.text) }, ...(fullDescription ? { fullDescription: { text: sarifText(fullDescription.text) } } : {}), help: { text: sarifText(help.text) } },
      index,
    });
    return index;
  }

  /**
   * Adds a result of `rule`. `r.message.text` is the raw message (server text as the server sent it): it is
   * written as {@link sarifText}, and only `text` is kept (no `markdown`, no `arguments`); the names of its logical
   * locations are written {@link printable}.
   */
  result(rule: SarifRule, r: Omit<SarifResult, "ruleId" | "ruleIndex">): void {
    this.results.push({ ruleId: rule.id, ruleIndex: this.rule(rule), ...r, message: { text: sarifText(r.message.text) }, locations: r.locations.map(inertLocation) });
  }

  /** Records that the command did not complete, and why (each line a notification, written {@link sarifText}). */
  failed(why: readonly string[]): void {
    this.failure = why.map(sarifText);
  }

  /**
   * Lists the findings exclusions silenced in `run.properties` ({@link SILENCED_KEY}, {@link silencedProperty}):
   * code scanning ignores SARIF `suppressions`, so they are no results. An empty list is listed too (the config was
   * read, nothing was silenced); undefined lists nothing.
   */
  silenced(findings: readonly SilencedFinding[] | undefined): void {
    this.silencedFindings = findings;
  }

  /** Names `file` (`--json-out`) as where the full report is, when results are left out. */
  fullReportAt(file: string | undefined): void {
    this.jsonFile = file;
  }

  /**
   * The SARIF 2.1.0 log: one run, its tool with the rules used, the results. When the results pass
   * {@link MAX_SARIF_RESULTS}, or the printed log would pass {@link MAX_SARIF_BYTES}, the most severe are kept
   * (critical, high, low; then error, warning, note; in their order within a rank), in that order, and
   * `run.properties` counts the rest ({@link LeftOut}).
   */
  log(): SarifLog {
    const properties: Record<string, unknown> = this.silencedFindings ? { [SILENCED_KEY]: silencedProperty(this.silencedFindings) } : {};
    const build = (results: SarifResult[], props: Record<string, unknown>): SarifLog => ({
      $schema: SARIF_SCHEMA,
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "platform-pulumi", version: packageVersion(), semanticVersion: packageVersion(), informationUri: INFORMATION_URI, rules: [...this.rules.values()].map((r) => r.rule) } },
          automationDetails: { id: `platform-pulumi/${this.command}/${this.stack}/` },
          ...(this.locator ? { originalUriBaseIds: this.locator.baseIds() } : {}),
          ...(this.failure ? { invocations: [{ executionSuccessful: false, toolExecutionNotifications: this.failure.map((text) => ({ level: "error" as const, message: { text } })) }] } : {}),
          results,
          ...(Object.keys(props).length ? { properties: props } : {}),
        },
      ],
    });
    const whole = build(this.results, properties);
    if (this.results.length <= MAX_SARIF_RESULTS && bytesOf(whole) + 1 <= MAX_SARIF_BYTES) return whole;
    // Most severe first (a stable sort keeps each rank's order), then as many as both limits allow.
    const ranked = this.results.map((r, i) => ({ r, i, rank: rankOf(r) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map((x) => x.r);
    const leftOut = (kept: number): LeftOut => {
      const rest = ranked.slice(kept);
      const byCount = ranked.length > MAX_SARIF_RESULTS && kept === MAX_SARIF_RESULTS;
      const where = this.jsonFile ? `in ${printable(this.jsonFile)} (--json-out)` : "in the JSON output (--format json, or --json-out <file>)";
      return {
        results: rest.length,
        grants: rest.reduce((n, r) => n + grantsOf(r), 0),
        reason: byCount
          ? `GitHub code scanning shows at most ${MAX_SARIF_RESULTS} results of a run: the ${rest.length} least severe are left out`
          : `GitHub code scanning accepts a SARIF file of at most ${MAX_SARIF_BYTES} bytes: the ${rest.length} least severe results are left out`,
        fullReport: `the full report is ${where}`,
      };
    };
    // Each result's share of the printed log: its own JSON indented four levels deeper (8 spaces a line), a comma
    // and a line break. The frame is the log with no result and the largest remainder it can name.
    const sizes = ranked.map((r) => {
      const text = jsonText(r);
      return Buffer.byteLength(text, "utf8") + 8 * (text.split("\n").length) + 2;
    });
    const frame = bytesOf(build([], { ...properties, [LEFT_OUT_KEY]: leftOut(0) })) + 64;
    let kept = 0;
    for (let size = frame; kept < Math.min(ranked.length, MAX_SARIF_RESULTS) && size + sizes[kept]! <= MAX_SARIF_BYTES; kept++) size += sizes[kept]!;
    // The estimate is checked on the printed log; a result more comes off while it would not fit.
    for (;;) {
      const log = build(ranked.slice(0, kept), { ...properties, [LEFT_OUT_KEY]: leftOut(kept) });
      if (kept === 0 || bytesOf(log) + 1 <= MAX_SARIF_BYTES) return log;
      kept--;
    }
  }
}

/**
 * The SARIF a report command prints when it could not run (exit code 2, ./failure.ts): no results, one invocation
 * with `executionSuccessful` false and the reason and hints as error notifications, so an upload step shows why.
 */
export function couldNotRunSarif(name: string, stack: string | undefined, lines: readonly string[]): SarifLog {
  const b = new LogBuilder(name, stack ?? "", undefined);
  b.failed(lines.length ? lines : [`platform-pulumi ${name} could not run`]);
  return b.log();
}
