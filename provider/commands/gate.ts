/**
 * `platform-pulumi gate --stack <name> [--cwd <dir>] [--config <json>] [--pack <dir>] [--format table|json|markdown]`:
 * the policy gate of a pull request (README, "Policy as code").
 *
 * Runs `pulumi preview --policy-pack <pack> [--policy-pack-config <json>]`, by default with the `platform` pack
 * shipped in this package (its `policies/` folder, beside `dist/`), and reads the policy events and error
 * diagnostics from the preview's engine events (./events.ts). Prints every violation (level, policy, resource,
 * message), with the policies @pulumi/policy could not evaluate during the preview (a value unknown until apply)
 * kept apart. Exit codes: 0 when the preview passes (advisory violations are printed), 1 on a mandatory
 * violation, 2 when the preview failed for another reason (its errors on stderr). The stack's backend and
 * credentials come from the environment, as for any `pulumi` command; the preview writes nothing.
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import { errors as errorsOf, runEngineEvents, type EngineRun } from "./events";
import { mdTable, runReportCommand, type ReportFormat } from "./report";
import { TYPE_PREFIX, table, type StackRef } from "./stack";

/** The policy pack shipped in this package: `<package root>/policies` (this file is `dist/provider/commands/gate.js`). */
export const SHIPPED_PACK = path.resolve(__dirname, "..", "..", "..", "policies");

/** One policy violation reported by the engine. */
export interface Violation {
  /** `mandatory`, `advisory` or `remediate`, as the pack set it. */
  level: string;
  /** The policy's name, e.g. `group-name-format`. */
  policy: string;
  /** The pack's name, e.g. `platform`. */
  pack: string;
  /** The resource's URN (empty for a stack policy). */
  urn: string;
  /** `<Kind>::<name>` for this package's resources (`Group::team`), `<type>::<name>` for others; empty for a stack policy. */
  resource: string;
  /** The violation's own text (the policy's description left out). */
  message: string;
}

/** The gate's report: exactly the object `--format json` prints (README, "Policy as code"). */
export interface GateReport {
  stack: string;
  /** True when nothing mandatory was violated and the preview completed (the exit code is 0). */
  passed: boolean;
  /** Mandatory, advisory and remediate violations, in the engine's order. */
  violations: Violation[];
  /**
   * Policies @pulumi/policy could not run during the preview because they read a value unknown until apply (e.g.
   * the uid of a group not created yet): neither a pass nor a violation. Their `level` is `not evaluated`.
   */
  notEvaluated: Violation[];
  /** The preview's error diagnostics that are not policy violations (why it failed, when it did). */
  errors: string[];
}

/** `<Kind>::<name>` from a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`; a parent chain `a$b` keeps its last type). */
function resourceOf(urn: string): string {
  const parts = urn.split("::");
  if (parts.length < 4) return urn;
  const type = parts[2]!.split("$").pop()!;
  return `${type.startsWith(TYPE_PREFIX) ? type.slice(TYPE_PREFIX.length) : type}::${parts.slice(3).join("::")}`;
}

/** The violations, the policies not evaluated, and the error diagnostics of a preview's engine events. */
export function violationsOf(run: Pick<EngineRun, "policies" | "diagnostics">): { violations: Violation[]; notEvaluated: Violation[]; errors: string[] } {
  const violations: Violation[] = [];
  const notEvaluated: Violation[] = [];
  for (const p of run.policies) {
    const message = p.message.trim();
    const skipped = /can't run policy .* during preview/.test(message);
    const v: Violation = {
      level: skipped ? "not evaluated" : p.enforcementLevel,
      policy: p.policyName,
      pack: p.policyPackName,
      urn: p.urn,
      resource: p.urn ? resourceOf(p.urn) : "",
      // The engine's message is the policy's description, then the violation's text.
      message: skipped ? message : message.split("\n").slice(1).join(" ").trim() || message,
    };
    (skipped ? notEvaluated : violations).push(v);
  }
  return { violations, notEvaluated, errors: errorsOf(run) };
}

/** Options of {@link runGate}. */
export interface GateOptions {
  /** The policy pack folder (relative to the current folder, not `--cwd`); default {@link SHIPPED_PACK}. */
  pack?: string;
  /** A policy pack config file (JSON, `policies/config.example.json` shows every key; relative to the current folder). */
  config?: string;
}

/**
 * Previews the stack with the policy pack and reports what it found (nothing is written).
 * @throws StackCommandError when the CLI cannot be started; Error when the pack or config file does not exist.
 */
export async function runGate(ref: StackRef, opts: GateOptions = {}): Promise<GateReport & { exitCode: 0 | 1 | 2 }> {
  const pack = path.resolve(opts.pack ?? SHIPPED_PACK);
  if (!existsSync(path.join(pack, "PulumiPolicy.yaml"))) throw new Error(`--pack: ${pack} is not a policy pack folder (it has no PulumiPolicy.yaml)`);
  const config = opts.config === undefined ? undefined : path.resolve(opts.config);
  if (config !== undefined && !existsSync(config)) throw new Error(`--config: ${config} does not exist`);
  const r = await runEngineEvents(ref, "preview", ["--policy-pack", pack, ...(config ? ["--policy-pack-config", config] : [])]);
  const { violations, notEvaluated, errors } = violationsOf(r);
  const mandatory = violations.some((v) => v.level === "mandatory");
  // The engine adds "preview failed" (or the like) after mandatory violations: not an error of its own.
  const other = errors.filter((e) => !/preview failed/.test(e));
  const exitCode = mandatory ? 1 : r.code !== 0 || other.length > 0 ? 2 : 0;
  const why = other.length ? other : exitCode === 2 ? [`${r.stderr.trim() || r.stdout.trim().split("\n").slice(-5).join("\n") || "the preview failed"}`] : [];
  return { stack: ref.stack, passed: exitCode === 0, violations, notEvaluated, errors: why, exitCode };
}

/** The gate's report as text: `json` ({@link GateReport}), `markdown` (for a pull request or CI step summary) or `table`. */
export function formatGate(r: GateReport, format: ReportFormat, exitCode: number): string {
  if (format === "json") return `${JSON.stringify(r, null, 2)}\n`;
  const count = (level: string) => r.violations.filter((v) => v.level === level).length;
  const verdict =
    exitCode === 0
      ? `policy gate: passed (${count("advisory")} advisory warning(s)${r.notEvaluated.length ? `, ${r.notEvaluated.length} not evaluated until apply` : ""})`
      : exitCode === 1
        ? `policy gate: FAILED: ${count("mandatory")} mandatory violation(s)`
        : "policy gate: FAILED: the preview did not complete (the reason is on stderr)";
  const rows = r.violations.map((v) => [v.level, v.policy, v.resource, v.message]);
  const skipped = r.notEvaluated.map((v) => [v.policy, v.resource, v.message]);
  const parts: string[] = [];
  if (format === "markdown") {
    parts.push(`### Policy gate of stack \`${r.stack}\``, "");
    parts.push(rows.length ? mdTable(["level", "policy", "resource", "message"], rows) : "No policy violations.", "");
    if (skipped.length) parts.push("Not evaluated until apply (a value the policy reads is unknown during the preview):", "", mdTable(["policy", "resource", "message"], skipped), "");
    parts.push(`**${verdict}**`);
  } else {
    parts.push(rows.length ? table(["level", "policy", "resource", "message"], rows) : "no policy violations", "");
    if (skipped.length) parts.push("not evaluated until apply (a value the policy reads is unknown during the preview):", table(["policy", "resource", "message"], skipped), "");
    parts.push(verdict);
  }
  return `${parts.join("\n")}\n`;
}

/** The `gate` subcommand's usage. */
export const GATE_USAGE = `usage: platform-pulumi gate --stack <name> [--cwd <dir>] [--config <json>] [--pack <dir>] [--format table|json|markdown]
  Previews the stack with the policy pack (by default the one shipped in this package) and prints every violation;
  policies that cannot be evaluated until apply are listed apart. The stack's backend and credentials come from
  the environment. Nothing is written.
  --stack <name>    the stack (required; or PULUMI_STACK)
  --cwd <dir>       the Pulumi project's folder (default: the current one)
  --config <json>   a policy pack config file (node_modules/platform-pulumi/policies/config.example.json shows every key)
  --pack <dir>      another policy pack folder (default: the shipped platform pack)
  --format <f>      table (default), json (one object; shape in the README) or markdown (for a PR or a CI summary)
  Exit code: 0 passed (advisories only), 1 a mandatory violation, 2 the preview failed otherwise.`;

/**
 * `platform-pulumi gate …`: parses `argv` (the arguments after `gate`) and runs {@link runGate}; the report on
 * stdout, the preview's errors on stderr.
 * @returns the exit code (0, 1 or 2 as {@link GATE_USAGE} says).
 */
export function gateCommand(argv: readonly string[]): Promise<number> {
  return runReportCommand("gate", argv, GATE_USAGE, { config: { type: "string" }, pack: { type: "string" } }, async ({ ref, format, values }) => {
    const r = await runGate(ref, {
      ...(typeof values["pack"] === "string" ? { pack: values["pack"] } : {}),
      ...(typeof values["config"] === "string" ? { config: values["config"] } : {}),
    });
    const { exitCode, ...report } = r;
    process.stdout.write(formatGate(report, format, exitCode));
    for (const e of report.errors) process.stderr.write(`${e}\n`);
    return exitCode;
  });
}
