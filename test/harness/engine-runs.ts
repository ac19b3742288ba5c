/**
 * The engine-run budget (docs/testing.md, "The engine-run budget"): every `pulumi up|preview|refresh|destroy|
 * import|watch` a test starts is one engine run, 2–7 s of the suite's time on this project's 2-core machines.
 *
 * - {@link installCountingCli} (from the run's globalSetup) writes a folder of its own (one per vitest run) whose `pulumi` is a small shell
 *   wrapper that appends `<test file>\t<command>` to {@link ENGINE_LOG} and then execs the real CLI; every other
 *   file of the CLI's folder is linked beside it. `scripts/lib/pulumi.ts`'s `cliBinDir()` returns that folder while
 *   `PLATFORM_PULUMI_BIN_DIR` names it, so every engine test, and every command of the bin a test runs with that
 *   folder first on PATH, goes through the wrapper.
 * - The setup file `engine-file.ts` names the running test file in `PLATFORM_ENGINE_FILE`, which spawned processes
 *   inherit; a run whose environment lost it is counted as `(unattributed)`.
 * - {@link readEngineRuns} counts the log per file; the summary reporter prints `engine runs: N (budget B)` and the
 *   files with the most, and fails every file over its budget in {@link BUDGET_FILE} (a reviewed file: a file not
 *   listed there has a budget of 0) and the run when the total is over the file's `total`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";

/**
 * The folder of this vitest run's counting wrapper and its log: one per run (by the main process's pid), so two
 * runs at once on one checkout count apart. A run's globalSetup removes the folders of runs whose process is gone.
 */
export const COUNTING_DIR = path.join(REPO_ROOT, ".pulumi-work", `engine-runs-${process.pid}`);
/** The folder of the counting wrapper. */
export const COUNTING_BIN = path.join(COUNTING_DIR, "bin");
/** One line per engine run: `<test file, relative to the repository>\t<command>`. */
export const ENGINE_LOG = path.join(COUNTING_DIR, "runs.log");
/** The environment variable that names this run's log, for the reporter (set by the globalSetup). */
export const LOG_VAR = "PLATFORM_ENGINE_LOG";
/** The reviewed budgets: `{ "total": N, "files": { "<test file>": N } }`. */
export const BUDGET_FILE = path.join(REPO_ROOT, "test", "engine-budget.json");
/** The environment variable that names the test file an engine run belongs to. */
export const FILE_VAR = "PLATFORM_ENGINE_FILE";
/** The Pulumi commands that run the engine (the deployment engine plans or applies a program). */
export const ENGINE_COMMANDS = ["up", "update", "preview", "refresh", "destroy", "import", "watch"] as const;

/**
 * Writes the folder `dir` (default {@link COUNTING_BIN}) in front of the real CLI's folder `realBin` and empties
 * the log `log` (default {@link ENGINE_LOG}) its wrapper appends to.
 * @returns the wrapper's folder. @throws when `realBin` has no `pulumi`.
 */
export function installCountingCli(realBin: string, dir = COUNTING_BIN, log = ENGINE_LOG): string {
  const COUNTING_BIN = dir;
  const ENGINE_LOG = log;
  if (!existsSync(path.join(realBin, "pulumi"))) throw new Error(`no pulumi in ${realBin}: run \`bash scripts/ensure-pulumi\``);
  removeDeadRuns();
  rmSync(COUNTING_BIN, { recursive: true, force: true });
  mkdirSync(COUNTING_BIN, { recursive: true });
  for (const name of readdirSync(realBin)) {
    if (name !== "pulumi") symlinkSync(path.join(realBin, name), path.join(COUNTING_BIN, name));
  }
  // The command is the first word that is not a flag (the CLI's global flags, e.g. --cwd DIR, come first in
  // no call of this repository, but `-C dir` / `--cwd dir` are skipped with their value to be safe).
  const script = `#!/bin/sh
# Written by test/harness/engine-runs.ts: counts engine runs, then runs the real CLI.
cmd=""
skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in
    -C|--cwd|--color|--profiling|--tracing) skip=1 ;;
    -*) ;;
    *) cmd="$a"; break ;;
  esac
done
case "$cmd" in
  ${ENGINE_COMMANDS.join("|")}) printf '%s\\t%s\\n' "\${${FILE_VAR}:-(unattributed)}" "$cmd" >> ${JSON.stringify(ENGINE_LOG)} ;;
esac
exec ${JSON.stringify(path.join(realBin, "pulumi"))} "$@"
`;
  writeFileSync(path.join(COUNTING_BIN, "pulumi"), script);
  chmodSync(path.join(COUNTING_BIN, "pulumi"), 0o755);
  writeFileSync(ENGINE_LOG, "");
  return COUNTING_BIN;
}

/** Removes the counting folders of earlier runs whose vitest process is gone. */
function removeDeadRuns(): void {
  const work = path.join(REPO_ROOT, ".pulumi-work");
  if (!existsSync(work)) return;
  for (const name of readdirSync(work)) {
    const pid = /^engine-runs-(\d+)$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch {
      rmSync(path.join(work, name), { recursive: true, force: true });
    }
  }
}

/** Engine runs per test file (relative paths), read from `log` (default: this run's); empty when there is none. */
export function readEngineRuns(log = process.env[LOG_VAR] ?? ENGINE_LOG): Map<string, { total: number; byCommand: Record<string, number> }> {
  const out = new Map<string, { total: number; byCommand: Record<string, number> }>();
  if (!existsSync(log)) return out;
  for (const line of readFileSync(log, "utf8").split("\n")) {
    if (!line) continue;
    const [file = "(unattributed)", cmd = "?"] = line.split("\t");
    const row = out.get(file) ?? { total: 0, byCommand: {} };
    row.total += 1;
    row.byCommand[cmd] = (row.byCommand[cmd] ?? 0) + 1;
    out.set(file, row);
  }
  return out;
}

/** The reviewed budgets. @throws when {@link BUDGET_FILE} is not `{ total: number, files: { [file]: number } }`. */
export function readBudget(file = BUDGET_FILE): { total: number; files: Record<string, number> } {
  const raw = JSON.parse(readFileSync(file, "utf8")) as { total?: unknown; files?: unknown };
  if (typeof raw.total !== "number" || typeof raw.files !== "object" || raw.files === null) {
    throw new Error(`${file}: expected { "total": <number>, "files": { "<test file>": <number> } }`);
  }
  for (const [k, v] of Object.entries(raw.files)) if (typeof v !== "number") throw new Error(`${file}: files["${k}"] is ${JSON.stringify(v)}, expected a number`);
  return { total: raw.total, files: raw.files as Record<string, number> };
}

/** What the reporter prints and fails for: the lines, and the files (or `(total)`) over budget with their counts. */
export interface BudgetVerdict {
  lines: string[];
  over: Array<{ file: string; runs: number; budget: number }>;
}

/**
 * Holds the counted runs `runs` to `budget`: a file over its budget (0 when not listed) and a total over
 * `budget.total` are in `over`. `ran` (files of this run) limits the budget's total line to what ran: a partial
 * run (one file, a tier) prints its own sum of the budgets of the files that ran.
 */
export function judgeEngineRuns(
  runs: Map<string, { total: number; byCommand: Record<string, number> }>,
  budget: { total: number; files: Record<string, number> },
  ran?: readonly string[],
): BudgetVerdict {
  const total = [...runs.values()].reduce((s, r) => s + r.total, 0);
  const whole = ran === undefined || Object.keys(budget.files).every((f) => ran.includes(f));
  const cap = whole ? budget.total : Math.min(budget.total, (ran ?? []).reduce((s, f) => s + (budget.files[f] ?? 0), 0));
  const over: BudgetVerdict["over"] = [];
  for (const [file, r] of runs) {
    const b = budget.files[file] ?? 0;
    if (r.total > b) over.push({ file, runs: r.total, budget: b });
  }
  if (total > cap) over.push({ file: "(total)", runs: total, budget: cap });
  const top = [...runs.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 10);
  const lines = [`engine runs: ${total} (budget ${cap})`];
  for (const [file, r] of top) {
    const cmds = Object.entries(r.byCommand).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(", ");
    lines.push(`  ${String(r.total).padStart(3)} / ${String(budget.files[file] ?? 0).padStart(3)}  ${file} (${cmds})`);
  }
  for (const o of over) lines.push(`engine runs over budget: ${o.file} ran ${o.runs}, budget ${o.budget} (${path.relative(REPO_ROOT, BUDGET_FILE)})`);
  return { lines, over };
}
