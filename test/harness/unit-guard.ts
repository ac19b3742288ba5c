/**
 * The unit tier's guard (setup file of the unit project in `vitest.config.mts`; docs/testing.md, "Tiers"): a `*.unit.test.ts`
 * file must need neither the build in `dist/` nor the Pulumi CLI. In that tier this module makes the two ways a
 * test reaches them throw, whether or not a build or a CLI is there:
 *
 * - loading a module from `dist/` (a `require` of it, or the package's own name, which resolves into `dist/`);
 *   ES imports of `dist/` are stopped by the config's `unit-tier-guard` plugin, with the same words;
 * - starting a process (`spawn`, `execFile`, `fork`, `exec` and their sync forms) whose command is a Pulumi
 *   binary (`pulumi`, `pulumi-language-nodejs`, …) or whose command or arguments name a file in `dist/`.
 *
 * The error names what was reached and says to drop `.unit` from the file's name (the full tier, `npm test`).
 */
import Module, { createRequire, syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";
import { unitTierError } from "./unit-tier";

export { unitTierError };

const DIST = path.join(REPO_ROOT, "dist") + path.sep;

/** True when `p` (absolute, or relative to the repository) is a file in `dist/`. */
export function inDist(p: string): boolean {
  return path.resolve(REPO_ROOT, p).startsWith(DIST);
}

/** What in a process's command line needs the build or the CLI, or undefined when nothing does. */
function forbiddenIn(command: unknown, args: unknown): string | undefined {
  const words = [command, ...(Array.isArray(args) ? args : [])].filter((w): w is string => typeof w === "string");
  if (typeof command === "string" && /^pulumi(-|$)/.test(path.basename(command.split(/\s+/)[0] ?? ""))) return `the Pulumi CLI (${command})`;
  // An absolute path into dist/ anywhere (a script given with -e too); a shell command line (exec) is one
  // string, so each of its words is looked at as a path relative to the repository.
  if (words.some((w) => w.includes(DIST))) return `${words.find((w) => w.includes(DIST))!.slice(0, 200)} (a file of the build)`;
  const hit = words.flatMap((w) => w.split(/\s+/)).find((w) => w.includes("dist") && inDist(w.replace(/^['"]|['"]$/g, "")));
  return hit === undefined ? undefined : `${hit} (a file of the build)`;
}

/** Installs the guard on `node:child_process` and Node's module resolution; idempotent. */
export function installUnitGuard(): void {
  // The CommonJS exports object (an ES namespace is read-only); syncBuiltinESMExports carries it to ES imports.
  const cp = createRequire(path.join(REPO_ROOT, "package.json"))("node:child_process") as Record<string, (...a: unknown[]) => unknown>;
  if ((cp.spawn as { unitGuard?: true }).unitGuard) return;
  for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"]) {
    const original = cp[name]!;
    const guarded = Object.assign(
      (...a: unknown[]) => {
        // fork(modulePath, args) runs node on modulePath; the others take the command first.
        const what = forbiddenIn(a[0], a[1]);
        if (what !== undefined) throw unitTierError(what);
        return original.apply(cp, a);
      },
      { unitGuard: true as const },
    );
    cp[name] = guarded;
  }
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = mod._resolveFilename;
  mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
    const file = resolve.call(this, request, ...rest);
    if (path.isAbsolute(file) && inDist(file)) throw unitTierError(`${file} (a module of the build, as ${request})`);
    return file;
  };
  // ES imports of node:child_process see the guarded functions too.
  syncBuiltinESMExports();
}

installUnitGuard();
