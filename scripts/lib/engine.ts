/**
 * Structured results of `pulumi up|preview|refresh|destroy`: the engine's own events instead of its human output.
 *
 * How: the CLI writes every engine event, one JSON object per line, to the file given with `--event-log <file>`.
 * The CLI registers that flag only when `PULUMI_DEBUG_COMMANDS` is true (pkg/v3 cmd/pulumi/operations/preview.go,
 * up.go, refresh.go, destroy.go: `if env.DebugCommands.Value() {…}`; without it: `unknown flag: --event-log`), so
 * {@link runEngine} sets that variable, runs the command through {@link PulumiCli} (offline settings, file backend,
 * `--stack`, `--non-interactive`) with `--event-log` in a fresh temporary folder, and parses the file once the
 * command has exited. The events have the shape of the Automation API's `EngineEvent` (the same file is what it
 * tails), whose types this module reuses.
 *
 * Why not the Automation API (`@pulumi/pulumi/automation`, which also sets `PULUMI_DEBUG_COMMANDS` and works with
 * this CLI): it throws on a non-zero exit where the policy gate and several tests need the failed run's events,
 * it would need the offline environment and the CLI folder passed again in its own form, and it adds a tail of the
 * file while the command runs, which nothing here needs. Spawning the CLI keeps one way of running it
 * (`PulumiCli`), and the human output stays available in `stdout` for echoing.
 *
 * Commands that need no events (config, stack, outputs, export) stay on `PulumiCli.run`/`ok`.
 *
 * The event parsing is the package's own (`provider/commands/events.ts`, shipped for the `drift` and `gate`
 * commands); this module adds running the CLI through {@link PulumiCli}.
 */
import { withEventLog, type EngineCommand, type EngineRun } from "../../provider/commands/events";
import { PulumiCli, type PulumiResult } from "./pulumi";

export {
  changeCounts,
  changes,
  errors,
  nameOf,
  parseEventLines,
  readEngineEvents,
  type ChangeCounts,
  type EngineCommand,
  type EngineDiagnostic,
  type EngineEvent,
  type EnginePolicyEvent,
  type EngineRun,
  type EngineStep,
  type OpType,
  type PropertyDiff,
} from "../../provider/commands/events";

/** An {@link EngineRun} with the process result of the CLI run that produced it. */
export interface EngineResult extends EngineRun, PulumiResult {}

/** Options of {@link runEngine}. */
export interface RunEngineOptions {
  /** Copy the CLI's human output to this process as it arrives; default: the CLI object's `echo`. */
  echo?: boolean;
}

/**
 * Runs `pulumi <command> <args...>` through `cli` (which adds `--stack` and `--non-interactive`) with
 * `PULUMI_DEBUG_COMMANDS=true` and `--event-log` in a temporary folder (removed afterwards), and resolves with the
 * process result and the parsed events, whatever the exit code. Give `--yes`, `--skip-preview`, `--diff`,
 * `--policy-pack …` etc. in `args` as for the CLI.
 * @throws Error when the CLI cannot be started (as `PulumiCli.run`).
 */
export async function runEngine(cli: PulumiCli, command: EngineCommand, args: readonly string[] = [], opts: RunEngineOptions = {}): Promise<EngineResult> {
  // A copy of the caller's CLI object, so the caller's is left as it was (and concurrent runs do not share it).
  const withLog = new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, PULUMI_DEBUG_COMMANDS: "true" } });
  return withEventLog((file) => withLog.run([command, ...args, "--event-log", file], opts.echo === undefined ? {} : { echo: opts.echo }));
}

/**
 * {@link runEngine} for a command that must succeed.
 * @throws Error with the command, exit code, and the output's tail (as `PulumiCli.ok`).
 */
export async function engineOk(cli: PulumiCli, command: EngineCommand, args: readonly string[] = [], opts: RunEngineOptions = {}): Promise<EngineResult> {
  const r = await runEngine(cli, command, args, opts);
  if (r.code !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`pulumi ${[command, ...args].join(" ")} exited ${r.code}:\n${tail}`);
  }
  return r;
}
