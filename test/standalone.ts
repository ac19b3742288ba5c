/**
 * The standalone emulator as its own process, the way a user points the package at an API in another process:
 * `node dist/emulator/cli.js <args>` (what `npm run emulator` runs), its three `KEY=value` lines parsed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { expect } from "vitest";
import { REPO_ROOT } from "../scripts/lib/pulumi";

/** A running standalone emulator process. */
export interface StandaloneEmulator {
  /** `PLATFORM_API_URL`, `PLATFORM_TOKEN` and `PLATFORM_ORG_UID` as it printed them. */
  env: { PLATFORM_API_URL: string; PLATFORM_TOKEN: string; PLATFORM_ORG_UID: string };
  child: ChildProcess;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the process to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `node dist/emulator/cli.js --port 0 ...args` and resolves once it printed its three lines.
 * @throws Error when it exits first or prints nothing within `timeoutMs` (default 20 s).
 */
export async function startStandalone(args: readonly string[] = [], timeoutMs = 20_000): Promise<StandaloneEmulator> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "emulator", "cli.js"), "--port", "0", ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const lines = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no three lines within ${timeoutMs}ms; stdout ${JSON.stringify(out)}, stderr ${err}`)), timeoutMs);
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      if (out.split("\n").length > 3) {
        clearTimeout(timer);
        resolve(out.split("\n"));
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited ${code}; stdout ${JSON.stringify(out)}, stderr ${err}`));
    });
  });
  const env = Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)])) as StandaloneEmulator["env"];
  return {
    env,
    child,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * An API call to `emu` with its owner token (JSON body when given): the answer's body.
 * @throws Error (an assertion) naming the method and URL when the status is not 200.
 */
export async function apiCall(emu: StandaloneEmulator, method: string, url: string, body?: unknown): Promise<Record<string, string>> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}${url}`, { method, headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect(r.status, `${method} ${url}`).toBe(200);
  return (await r.json()) as Record<string, string>;
}
