/**
 * No plugin process outlives a `pulumi up` killed while the dynamic-provider plugin starts (docs/resources-guide.md "No process
 * outlives its `pulumi`"): with the package's plugin entry declared (`test/programs/plugin-entry`, Pulumi.yaml
 * `plugins.providers`), SIGKILL of `pulumi up` with the plugin held (a test-only preload,
 * `test/fixtures/plugin-hold.cjs`) before its entry runs, inside Configure, and after Configure at the first
 * resource call, before the provider is loaded, leaves neither the plugin nor its `sh` wrapper running 10 s later.
 * And with no plugin declared (`test/programs/plugin-default`, as the examples and every exported project: the
 * CLI's bundled plugin, which runs nothing of this package before its first resource call), SIGKILL of `pulumi up`
 * at that first call, before the provider is loaded: the runtime then starts the watch with the engine already
 * gone, and the plugin and its wrapper are gone too.
 * The four scenarios are independent (an emulator, a file backend and a stack each) and run at once.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "vitest";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { killableStack } from "./harness/killUp";
import { alive, describeProc, descendants, role } from "./harness/procs";

const PROGRAM = path.join(REPO_ROOT, "test", "programs", "plugin-entry");
/** The same groups with no plugin declared: the CLI's bundled `pulumi-resource-pulumi-nodejs` runs them. */
const DEFAULT_PROGRAM = path.join(REPO_ROOT, "test", "programs", "plugin-default");
const HOLD = path.join(REPO_ROOT, "test", "fixtures", "plugin-hold.cjs");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Cleanups = Array<() => Promise<void> | void>;

/**
 * Starts `pulumi up` with the plugin held at `at`, SIGKILLs it there, and returns the plugin processes alive 10 s
 * later. Each scenario has its own `cleanups` (they run at once).
 */
async function killAt(at: "start" | "configure" | "check", cleanups: Cleanups, program = PROGRAM): Promise<{ seen: string[]; survivors: string[] }> {
  const stack = `hold-${at}${program === PROGRAM ? "" : "-default"}`;
  const held = await killableStack(cleanups, program, stack, "plugin-start-");
  const { cli } = held;
  const mark = path.join(held.work, "held");
  const env = { ...cli.env(), NODE_OPTIONS: `--require ${HOLD}`, PLUGIN_HOLD_AT: at, PLUGIN_HOLD_MARK: mark, PLUGIN_HOLD_MS: "4000" };
  const child = spawn(path.join(cli.bin, "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack], { cwd: program, env, stdio: ["ignore", "pipe", "pipe"] });
  held.engine = child;
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d));
  child.stderr.on("data", (d: Buffer) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const deadline = Date.now() + 90_000;
  while (!existsSync(mark)) {
    if (Date.now() > deadline) throw new Error(`the plugin did not reach ${at} in 90 s; output so far:\n${output}`);
    if (child.exitCode !== null) throw new Error(`pulumi exited ${child.exitCode} before the plugin reached ${at}:\n${output}`);
    await sleep(20);
  }
  const recorded = (held.recorded = descendants(child.pid!).filter((p) => role(p) === "plugin" || role(p) === "plugin wrapper"));
  child.kill("SIGKILL");
  await exited;
  // Alive 10 s after the kill. The wait ends early once none of them is alive: a process is named by its pid and
  // start time (procs.ts), so one that is gone stays gone, and the answer at 10 s is already known.
  const until = Date.now() + 10_000;
  while (recorded.some(alive) && Date.now() < until) await sleep(100);
  return { seen: recorded.map(role).sort(), survivors: recorded.filter(alive).map((p) => `${role(p)}: ${describeProc(p)}`) };
}

describe.runIf(process.platform === "linux")("SIGKILL of pulumi up while the plugin starts", () => {
  for (const at of ["start", "configure", "check"] as const) {
    it.concurrent(`held ${at === "start" ? "before its entry runs" : at === "configure" ? "inside Configure" : "after Configure, before the first resource call"}: no plugin process after 10 s`, async ({ expect, onTestFinished }) => {
      const cleanups: Cleanups = [];
      onTestFinished(async () => {
        while (cleanups.length) await cleanups.pop()!();
      });
      const { seen, survivors } = await killAt(at, cleanups);
      expect(seen).toEqual(["plugin", "plugin wrapper"]);
      expect(survivors).toEqual([]);
    }, 180_000);
  }

  it.concurrent("no plugin declared (the CLI's bundled plugin), held at the first resource call, before the provider is loaded: no plugin process after 10 s", async ({ expect, onTestFinished }) => {
    const cleanups: Cleanups = [];
    onTestFinished(async () => {
      while (cleanups.length) await cleanups.pop()!();
    });
    const { seen, survivors } = await killAt("check", cleanups, DEFAULT_PROGRAM);
    expect(seen).toEqual(["plugin", "plugin wrapper"]);
    expect(survivors).toEqual([]);
  }, 180_000);
});
