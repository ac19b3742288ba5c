/**
 * Runs the package's built bin (`dist/cli/main.js`, what `npx platform-pulumi` runs) as a user's shell would: a
 * separate Node process, its output captured.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";

/** The built bin. */
export const BIN = path.join(REPO_ROOT, "dist", "cli", "main.js");

/** What a run of the bin gave: its exit code (-1 when killed by a signal), its output, and its wall time in ms. */
export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs `platform-pulumi <args>` with exactly `env` (not merged with this process's), in `cwd` (default the
 * repository); resolves when it exits. @throws when the process cannot be started.
 */
export function runBin(args: readonly string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<BinResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
  });
}

/** What {@link runDist} gave: the exit code (-1 when killed by a signal) and stdout and stderr as one stream, in the order written. */
export interface DistResult {
  code: number;
  out: string;
}

/**
 * Runs `node dist/<script> <args>` from the repository with this process's environment plus `env`; resolves when
 * it exits, with stdout and stderr interleaved as the user's terminal would show them.
 */
export function runDist(script: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<DistResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", script), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}
