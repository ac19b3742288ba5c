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
import type { Severity } from "../access/severity";
import { printable, sarifText } from "../text";

/** The root of this package (this file is `dist/provider/commands/sarifLog.js`). */
export const PACKAGE_ROOT = path.resolve(__dirname, "..", "..", "..");

/** The SARIF schema the log names (`$schema`); the tests validate against the OASIS schema it stands for. */
export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** Where the README documents the findings, for `tool.driver.informationUri` and each rule's `helpUri`. */
export const INFORMATION_URI = "https://www.npmjs.com/package/platform-pulumi";

/** The base every relative `artifactLocation.uri` is relative to: the repository (or project) folder. */
export const SRCROOT = "%SRCROOT%";

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

/** Builds the log: rules in first-use order, results pointing at them. */
export class LogBuilder {
  private readonly rules = new Map<string, { rule: SarifRule; index: number }>();
  readonly results: SarifResult[] = [];
  /** Set by {@link LogBuilder.failed}: why the command did not complete. */
  private failure: string[] | undefined;

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

  /** The SARIF 2.1.0 log: one run, its tool with the rules used, the results. */
  log(): SarifLog {
    return {
      $schema: SARIF_SCHEMA,
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "platform-pulumi", version: packageVersion(), semanticVersion: packageVersion(), informationUri: INFORMATION_URI, rules: [...this.rules.values()].map((r) => r.rule) } },
          automationDetails: { id: `platform-pulumi/${this.command}/${this.stack}/` },
          ...(this.locator ? { originalUriBaseIds: this.locator.baseIds() } : {}),
          ...(this.failure ? { invocations: [{ executionSuccessful: false, toolExecutionNotifications: this.failure.map((text) => ({ level: "error" as const, message: { text } })) }] } : {}),
          results: this.results,
        },
      ],
    };
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
