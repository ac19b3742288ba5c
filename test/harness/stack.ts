/**
 * A stack deployed on a file backend by the real CLI, for the built bin's commands to read (drift, gate, access,
 * unmanaged): the steps the tests of those commands share before their first `it` and after their last.
 */
import { mkdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { PulumiCli, cliBinDir } from "../../scripts/lib/pulumi";

/**
 * Makes `backendDir`, inits stack `stack` of the project in `cwd` there with `env`, calls `beforeUp` (the
 * emulator's clock, …), then runs `pulumi up --yes --skip-preview`.
 * @returns the stack's CLI. @throws when the CLI is missing or a command fails (with its output's tail).
 */
export async function upStack(
  o: { cwd: string; backendDir: string; stack: string; env: NodeJS.ProcessEnv },
  beforeUp?: (cli: PulumiCli) => Promise<void>,
): Promise<PulumiCli> {
  mkdirSync(o.backendDir, { recursive: true });
  const cli = new PulumiCli({ cwd: o.cwd, backendDir: o.backendDir, stack: o.stack, env: o.env });
  await cli.initStack();
  await beforeUp?.(cli);
  await cli.ok(["up", "--yes", "--skip-preview"]);
  return cli;
}

/**
 * The environment the bin's commands run with on that stack: `env`, the file backend `backendDir`, the CLI's
 * passphrase, and the CLI's folder first on this process's PATH.
 */
export function stackEnv(backendDir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local",
    PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}`,
  };
}

/** Removes `dirs` (those set) and the `Pulumi.<stack>.yaml` that `initStack` wrote in the project folder `cwd`. */
export function removeStack(cwd: string, stack: string, ...dirs: (string | undefined)[]): void {
  for (const dir of dirs) if (dir) rmSync(dir, { recursive: true, force: true });
  rmSync(path.join(cwd, `Pulumi.${stack}.yaml`), { force: true });
}

/** An org file's text with one more binding: `identity` bound `role` at `group` (paths as the file writes them). */
export function withBinding(orgText: string, b: { identity: string; group: string; role: string }): string {
  return `${orgText.trimEnd()}\n  - identity: ${b.identity}\n    group: ${b.group}\n    role: ${b.role}\n`;
}
