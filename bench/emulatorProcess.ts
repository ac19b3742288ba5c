/**
 * A standalone emulator in its own process for the benchmarks (so server work does not share the measuring
 * process's event loop): `dist/emulator/cli.js` on a free port, its connection read from the first three lines it
 * prints (`PLATFORM_API_URL=…`, `PLATFORM_TOKEN=…`, `PLATFORM_ORG_UID=…`). Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../scripts/lib/pulumi";

/** A running emulator process: where it answers, its token and root group, and how to stop it. */
export interface EmulatorProcess {
  url: string;
  token: string;
  orgUid: string;
  /** SIGTERMs the process; resolves when it has exited. */
  close: () => Promise<void>;
}

/**
 * Starts the emulator with the CLI flags `args` (e.g. `["--seed-repos", "10000"]`); stderr goes to this process's.
 * @throws Error (a rejection) when the process exits before printing its connection.
 */
export async function emulatorProcess(args: string[]): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "emulator", "cli.js"), "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      const lines = out.split("\n");
      if (lines.length > 3) resolve(Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)])));
    });
    child.on("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
  return {
    url: env["PLATFORM_API_URL"]!,
    token: env["PLATFORM_TOKEN"]!,
    orgUid: env["PLATFORM_ORG_UID"]!,
    close: () => new Promise((resolve) => { child.once("exit", () => resolve()); child.kill("SIGTERM"); }),
  };
}
