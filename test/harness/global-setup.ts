/**
 * The suite's globalSetup (vitest.config.mts), run once per `vitest run` before any file:
 *
 * - installs the counting `pulumi` wrapper (test/harness/engine-runs.ts) and points `PLATFORM_PULUMI_BIN_DIR` at
 *   it, so every engine run of every file is counted against test/engine-budget.json;
 * - for a run with engine or consumer files, refuses a stale build: when a source file of the package is newer
 *   than the build in dist/, it throws `dist/ is older than <file>: run npm run build` before any test runs
 *   (engine tests load dist/; a stale one tested the old code silently).
 *
 * The build check is `buildSetup`, the globalSetup of the engine and consumer projects, which vitest runs only
 * when that project has files in the run: a run of only the unit project needs no build (and, with no CLI
 * recorded, gets no wrapper).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { REPO_ROOT, recordedCliBinDir } from "../../scripts/lib/pulumi";
import { ENGINE_LOG, LOG_VAR, installCountingCli } from "./engine-runs";

/**
 * The folders whose TypeScript `npm run build` compiles into dist/: tsconfig.json's `include`, read with the
 * compiler's own reader (the file may hold comments), so a folder added to the build is checked here too.
 * @throws Error when tsconfig.json cannot be read or has no `include` list.
 */
export function buildSources(root = REPO_ROOT): string[] {
  const read = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  const include = (read.config as { include?: unknown } | undefined)?.include;
  if (read.error || !Array.isArray(include) || !include.every((x): x is string => typeof x === "string")) {
    throw new Error(`tsconfig.json: no "include" list of folders to check the build against${read.error ? ` (${ts.flattenDiagnosticMessageText(read.error.messageText, " ")})` : ""}`);
  }
  return include;
}
/** The build's last output (`npm run build` writes it after tsc). */
const BUILD_MARK = path.join(REPO_ROOT, "dist", "provider", "index.bundle.js");

/** The newest `.ts` source under {@link buildSources} (not in node_modules), with its mtime in ms. */
export function newestSource(root = REPO_ROOT): { file: string; mtimeMs: number } | undefined {
  let best: { file: string; mtimeMs: number } | undefined;
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) {
        const m = statSync(p).mtimeMs;
        if (!best || m > best.mtimeMs) best = { file: path.relative(root, p), mtimeMs: m };
      }
    }
  };
  for (const d of buildSources(root)) if (existsSync(path.join(root, d))) walk(path.join(root, d));
  return best;
}

/**
 * Why the build cannot be tested, or undefined when dist/ is at least as new as every source.
 * The message names the newer source and the command that fixes it.
 */
export function staleBuild(root = REPO_ROOT, mark = BUILD_MARK): string | undefined {
  if (!existsSync(mark)) return `no build in dist/ (${path.relative(root, mark)} is missing): run npm run build`;
  const src = newestSource(root);
  const built = statSync(mark).mtimeMs;
  if (src && src.mtimeMs > built) {
    return `dist/ is older than ${src.file} (changed ${new Date(src.mtimeMs).toISOString()}, built ${new Date(built).toISOString()}): run npm run build`;
  }
  return undefined;
}

/** Root globalSetup: installs the counting wrapper whenever a CLI is recorded (a unit-only run may have none). */
export default function setup(): void {
  let real: string | undefined;
  try {
    real = recordedCliBinDir();
  } catch {
    real = undefined; // engine files then fail with ensure-pulumi's hint from cliBinDir()
  }
  if (real === undefined) return;
  process.env["PLATFORM_PULUMI_BIN_DIR"] = installCountingCli(real);
  process.env[LOG_VAR] = ENGINE_LOG;
}

/** The engine and consumer projects' globalSetup. @throws Error from {@link staleBuild} before any file runs. */
export function buildSetup(): void {
  const stale = staleBuild();
  if (stale !== undefined) throw new Error(stale);
}
