/**
 * The policy gate: a CI step that previews a stack with the `platform` policy pack and fails on a mandatory
 * violation, printing a short table of every violation.
 *
 *     node dist/examples/policy-gate/gate.js [--cwd <project dir>] [--stack <name>] [--pack <dir>] [--config <json>]
 *
 * Runs `pulumi preview --policy-pack <pack> [--policy-pack-config <json>]` and reads the policy events and error
 * diagnostics from its engine events (scripts/lib/engine.ts). Exit codes: 0 when the preview passes
 * (advisory violations are printed as warnings), 1 on a mandatory violation, 2 when the preview failed for
 * another reason (its diagnostics are printed). The stack's backend and credentials come from the environment,
 * as for any `pulumi` command in CI.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { errors as errorsOf, parseEventLines, readEngineEvents, runEngine, type EngineRun } from "../../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";

/** One policy violation reported by the engine. */
export interface Violation {
  /**
   * `mandatory`, `advisory` or `remediate`; or `not evaluated` when the policy read a value that is unknown until
   * apply (@pulumi/policy reports those as events too; they are neither a pass nor a violation).
   */
  level: string;
  policy: string;
  pack: string;
  /** `<type>::<name>` from the resource URN (empty for stack policies). */
  resource: string;
  message: string;
}

/** What one gate run found. */
export interface GateResult {
  violations: Violation[];
  /** Error diagnostics of the preview that are not policy violations. */
  errors: string[];
  /** 0 pass, 1 mandatory violation, 2 preview failed otherwise. */
  exitCode: number;
}

/** The violations and error diagnostics of a preview's engine events ({@link runEngine}). */
export function violationsOf(run: Pick<EngineRun, "policies" | "diagnostics">): { violations: Violation[]; errors: string[] } {
  const violations = run.policies.map((p): Violation => {
    const parts = p.urn.split("::");
    const message = p.message.trim();
    return {
      level: /can't run policy .* during preview/.test(message) ? "not evaluated" : p.enforcementLevel,
      policy: p.policyName,
      pack: p.policyPackName,
      resource: parts.length >= 4 ? `${parts[2]}::${parts[3]}` : p.urn,
      message: message.split("\n").slice(1).join(" ").trim() || message,
    };
  });
  return { violations, errors: errorsOf(run) };
}

/** Parses engine events given one JSON object per line (an `--event-log` file, or a streamed JSON preview's stdout). */
export function readEvents(lines: string): { violations: Violation[]; errors: string[] } {
  return violationsOf(readEngineEvents(parseEventLines(lines)));
}

/** The violations as a Markdown table (empty string when none). */
export function table(violations: Violation[]): string {
  if (violations.length === 0) return "";
  const rows = violations.map((v) => `| ${v.level} | ${v.policy} | ${v.resource.replace("pulumi-nodejs:dynamic/platform:", "")} | ${v.message.replace(/\|/g, "\\|")} |`);
  return ["| level | policy | resource | message |", "|---|---|---|---|", ...rows].join("\n");
}

/**
 * Runs the gate once.
 * @param cli the project and stack to preview.
 * @param pack the policy pack folder; @param config an optional policy pack config file.
 */
export async function runGate(cli: PulumiCli, pack: string, config?: string): Promise<GateResult> {
  const r = await runEngine(cli, "preview", ["--policy-pack", pack, ...(config ? ["--policy-pack-config", config] : [])], { echo: false });
  const { violations, errors } = violationsOf(r);
  const mandatory = violations.some((v) => v.level === "mandatory");
  const other = errors.filter((e) => !/preview failed/.test(e));
  const exitCode = mandatory ? 1 : r.code !== 0 || other.length > 0 ? 2 : 0;
  return { violations, errors: other.length ? other : r.code !== 0 && !mandatory ? [r.stderr.trim() || "preview failed"] : [], exitCode };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      cwd: { type: "string", default: process.cwd() },
      stack: { type: "string" },
      pack: { type: "string", default: path.join(REPO_ROOT, "policies") },
      config: { type: "string" },
    },
  });
  const stack = values.stack ?? process.env["PULUMI_STACK"];
  if (!stack) throw new Error("give the stack with --stack <name> (or PULUMI_STACK)");
  const cli = new PulumiCli({ cwd: path.resolve(values.cwd), stack });
  const result = await runGate(cli, path.resolve(values.pack), values.config ? path.resolve(values.config) : undefined);
  const t = table(result.violations);
  process.stdout.write(t ? `${t}\n\n` : "no policy violations\n");
  for (const e of result.errors) process.stderr.write(`${e}\n`);
  const count = (level: string) => result.violations.filter((v) => v.level === level).length;
  process.stdout.write(
    result.exitCode === 0
      ? `policy gate: passed (${count("advisory")} advisory warning(s)${count("not evaluated") ? `, ${count("not evaluated")} not evaluated until apply` : ""})\n`
      : result.exitCode === 1
        ? `policy gate: FAILED: ${count("mandatory")} mandatory violation(s)\n`
        : "policy gate: FAILED: the preview did not complete (see above)\n",
  );
  return result.exitCode;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`policy gate: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
