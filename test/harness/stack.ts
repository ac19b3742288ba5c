/**
 * A stack deployed on a file backend by the real CLI, for the built bin's commands to read (drift, gate, access,
 * unmanaged): the steps the tests of those commands share before their first `it` and after their last.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../../scripts/lib/pulumi";
import { runBin } from "./bin";

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

/** What a {@link binOnStack} runner gives: the exit code (-1 when killed), stdout (`out`) and stderr (`err`). */
export interface StackRun {
  code: number;
  out: string;
  err: string;
}

/**
 * A runner of `platform-pulumi <command> --stack <stack> --cwd <cwd> <args>` from the built bin, with `env()`
 * (read at each call: the stack's environment, set in `beforeAll`) over this process's environment, and the
 * call's `extra` over both.
 */
export function binOnStack(command: string, o: { stack: string; cwd: string; env: () => NodeJS.ProcessEnv }): (args: string[], extra?: NodeJS.ProcessEnv) => Promise<StackRun> {
  return async (args, extra = {}) => {
    const r = await runBin([command, "--stack", o.stack, "--cwd", o.cwd, ...args], { ...process.env, ...o.env(), ...extra });
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
}

/** What {@link useReviewStack} sets up; the fields are set once its `beforeAll` has run. */
export interface ReviewStack {
  /** The emulator the stack was deployed to. */
  emu: Emulator;
  /** A fresh temporary folder: the file backend, and `org-changed.yaml`. */
  backend: string;
  /** The stack's CLI (ORG_FILE the main job's org). */
  cli: PulumiCli;
  /** The org file with the pull request's binding. */
  changed: string;
  /** The bin's environment on the stack ({@link stackEnv}), the `PLATFORM_*` settings and ORG_FILE {@link changed}. */
  env: NodeJS.ProcessEnv;
}

/**
 * Registers `beforeAll` (within `timeoutMs`): an emulator; the main job's org (examples/org-setup/org.yaml) as
 * stack `stack` of the repository's program, up; and the pull request the access tests review, gitlab-release
 * (a CI identity in engineering/platform/ci-cd) bound editor at engineering/platform, the mid-level group above
 * it; and `afterAll`: closes the emulator, removes the folder and the stack's file.
 */
export function useReviewStack(stack: string, timeoutMs: number): ReviewStack {
  const rs = {} as ReviewStack;
  afterAll(async () => {
    await rs.emu?.close();
    removeStack(REPO_ROOT, stack, rs.backend);
  });
  beforeAll(async () => {
    rs.emu = await startEmulator();
    rs.backend = mkdtempSync(path.join(tmpdir(), `${stack}-`));
    const orgFile = path.join(REPO_ROOT, "examples", "org-setup", "org.yaml");
    rs.changed = path.join(rs.backend, "org-changed.yaml");
    writeFileSync(rs.changed, withBinding(readFileSync(orgFile, "utf8"), { identity: "engineering/platform/ci-cd/gitlab-release", group: "engineering/platform", role: "editor" }));
    const platform = { PLATFORM_API_URL: rs.emu.url, PLATFORM_TOKEN: rs.emu.token, PLATFORM_ORG_UID: rs.emu.orgUid };
    rs.cli = await upStack({ cwd: REPO_ROOT, backendDir: rs.backend, stack, env: { ...platform, ORG_FILE: orgFile } });
    rs.env = stackEnv(rs.backend, { ...platform, ORG_FILE: rs.changed });
  }, timeoutMs);
  return rs;
}
