/**
 * No process outlives its `pulumi`: SIGKILL of `pulumi up` while slow creates are in flight must take
 * down, within seconds, everything the engine started: the language host (our front and the vendor host behind
 * it), the Node.js program, and the dynamic-provider plugin (its `sh` wrapper and the `node` behind it).
 *
 * The process tree is read from /proc (Linux only): descendants of the `pulumi` process are recorded with their
 * start times just before the kill, so a reused pid is never taken for a survivor. Survivors of a failed run are
 * killed in `afterEach`.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { killableStack } from "./harness/killUp";
import { alive, describeProc, descendants, role, type Proc } from "./harness/procs";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/**
 * Starts `pulumi up <extra>` on 40 groups created with 300 ms latency, SIGKILLs it once creates are in flight and
 * every role in `expected` runs, and returns the descendants still alive 5 s later (none, once all is well).
 */
async function killMidUp(stack: string, extra: string[], expected: string[]): Promise<string[]> {
  const cwd = path.join(REPO_ROOT, "test", "programs", "many");
  const held = await killableStack(cleanups, cwd, stack, "engine-kill-");
  const { emu, cli } = held;
  await cli.ok(["config", "set", "count", "40"]);
  emu.control.set({ latencyMs: 300 });

  const child = spawn(path.join(cli.bin, "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack, ...extra], {
    cwd,
    env: cli.env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  held.engine = child;
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d));
  child.stderr.on("data", (d: Buffer) => (output += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));

  let recorded: Proc[];
  // Wait until the plugin runs and creates are in flight: some answered, most not yet.
  const posts = () => emu.requests.filter((r) => r.method === "POST").length;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no creates in flight after 90 s; output so far:\n${output}`);
    if (child.exitCode !== null) throw new Error(`pulumi exited ${child.exitCode} before the kill:\n${output}`);
    recorded = held.recorded = descendants(child.pid!);
    if (posts() >= 2 && recorded.some((p) => role(p) === "plugin")) break;
    await sleep(50);
  }
  const roles = new Set(recorded.map(role));
  expect(posts()).toBeLessThan(40);
  expect([...roles]).toEqual(expect.arrayContaining(expected));

  child.kill("SIGKILL");
  await exited;
  const killedAt = Date.now();
  let survivors = recorded.filter(alive);
  while (survivors.length > 0 && Date.now() - killedAt < 5_000) {
    await sleep(100);
    survivors = survivors.filter(alive);
  }
  console.log(`after SIGKILL of pulumi (${recorded.length} descendants: ${[...roles].join(", ")}), ` +
    `${survivors.length} alive after ${Date.now() - killedAt} ms`);
  return survivors.map((p) => `${role(p)}: ${describeProc(p)}`);
}

const ROLES = ["front", "plugin", "plugin wrapper", "program", "vendor host"];

describe.runIf(process.platform === "linux")("processes", () => {
  it("SIGKILL of `pulumi up` with creates in flight leaves no language host, program or plugin behind", async () => {
    expect(await killMidUp("kill", [], ROLES)).toEqual([]);
  }, 180_000);

  it("... nor a policy pack started through the front's RunPlugin", async () => {
    expect(await killMidUp("kill-policy", ["--policy-pack", path.join(REPO_ROOT, "policies")], [...ROLES, "policy pack"])).toEqual([]);
  }, 180_000);
});
