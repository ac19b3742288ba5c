/**
 * A stack on the emulator whose `pulumi up` a test kills with SIGKILL, for the tests that check no process outlives
 * its `pulumi` (docs/resources-guide.md "No process outlives its `pulumi`"): the emulator, a file backend in a
 * temporary folder and the stack, all undone by the cleanup it registers, which also kills the engine and any
 * process the test recorded that is still alive.
 */
import { type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { PulumiCli } from "../../scripts/lib/pulumi";
import { alive, type Proc } from "./procs";

/** The stack {@link killableStack} set up, and where the test tells its cleanup what to kill. */
export interface KillableStack {
  emu: Emulator;
  cli: PulumiCli;
  /** The temporary folder of the file backend (removed by the cleanup). */
  work: string;
  /** The `pulumi` process the cleanup kills when it is still running. */
  engine?: ChildProcess;
  /** The engine's descendants the cleanup kills when they are still alive. */
  recorded: Proc[];
}

/**
 * Starts an emulator and initialises `stack` of the program in `cwd` on a file backend in a new temporary folder
 * named from `prefix`; pushes onto `cleanups` the undoing of all of it (the engine and recorded processes killed,
 * the emulator closed, the folder and the stack's `Pulumi.<stack>.yaml` removed).
 */
export async function killableStack(cleanups: Array<() => Promise<void> | void>, cwd: string, stack: string, prefix: string): Promise<KillableStack> {
  const emu = await startEmulator();
  const work = mkdtempSync(path.join(tmpdir(), prefix));
  const cli = new PulumiCli({ cwd, backendDir: work, stack, env: { PLATFORM_API_URL: emu.url, PLATFORM_ORG_UID: emu.orgUid, PLATFORM_TOKEN: emu.token } });
  const held: KillableStack = { emu, cli, work, recorded: [] };
  cleanups.push(async () => {
    held.engine?.kill("SIGKILL");
    for (const p of held.recorded) if (alive(p)) process.kill(p.pid, "SIGKILL");
    await emu.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(path.join(cwd, `Pulumi.${stack}.yaml`), { force: true });
  });
  await cli.initStack();
  return held;
}
