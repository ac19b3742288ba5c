/**
 * The packed package, once per build: {@link packedTarball} packs this repository (`npm pack --ignore-scripts`: the
 * engine and consumer projects refuse a dist/ older than its sources, so the build is already current and the
 * prepack's second build is skipped) into `.pulumi-work/pack/<key>/`, where `<key>` is a hash of the content of
 * every file the pack can take (package.json, README, LICENSE, CHANGELOG and everything under the manifest's
 * `files`). A later call, from any test file of this or a later vitest run, finds that tarball and returns it:
 * `npm test` then `npm run test:consumer` pack once between them when the second build writes the same files.
 *
 * The tarball is shared: a caller installs it (`npm install <path>`, `file:<path>`) and never moves or deletes it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";
import { packTarball } from "../consumer/toolchain";

/** Where the packed tarballs are kept, one folder per build key. */
export const PACK_DIR = path.join(REPO_ROOT, ".pulumi-work", "pack");

/** A key folder not used for this long is removed by the next pack of another key (another run may still use a recent one). */
const STALE_MS = 6 * 3600_000;

/** The files `npm pack` can take: the manifest's `files` (walked), package.json, and README/LICENSE/CHANGELOG at the root. */
export function packableFiles(root = REPO_ROOT): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { files?: string[] };
  const out = new Set<string>(["package.json"]);
  for (const f of readdirSync(root)) if (/^(readme|license|licence|changelog)(\..*)?$/i.test(f)) out.add(f);
  const walk = (rel: string): void => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const e of readdirSync(abs)) if (e !== "node_modules" && e !== ".git") walk(path.join(rel, e));
    } else out.add(rel);
  };
  for (const entry of manifest.files ?? []) walk(entry);
  return [...out].sort();
}

/** The build key: a hash of every {@link packableFiles} file's path, mode (the launchers' executable bit) and content. */
export function buildKey(root = REPO_ROOT): string {
  const h = createHash("sha256");
  for (const rel of packableFiles(root)) {
    const abs = path.join(root, rel);
    h.update(`${rel}\0${statSync(abs).mode & 0o777}\0`);
    h.update(readFileSync(abs));
    h.update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * The package packed from the current build, packing it only when no tarball of this build is kept (see the module
 * comment). Safe when two processes call it at once: each packs into a folder of its own and the first rename wins.
 * @returns the tarball's absolute path. @throws Error with npm's output when the pack fails.
 */
export async function packedTarball(): Promise<string> {
  const key = buildKey();
  const dir = path.join(PACK_DIR, key);
  const found = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(".tgz")) : undefined;
  if (found !== undefined) {
    utimesSync(dir, new Date(), new Date()); // in use: not pruned by another key's pack
    return path.join(dir, found);
  }
  mkdirSync(PACK_DIR, { recursive: true });
  const tmp = mkdtempSync(path.join(PACK_DIR, `.${key}-`));
  try {
    const tarball = await packTarball(tmp, { ignoreScripts: true });
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // Another process packed the same build first (its folder is in place): use that one.
      if (!existsSync(dir)) throw err;
    }
    pruneOthers(key);
    return path.join(dir, path.basename(tarball));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Removes the key folders (and abandoned temporary folders) other than `key` not touched for {@link STALE_MS}. */
function pruneOthers(key: string): void {
  for (const e of readdirSync(PACK_DIR)) {
    if (e === key) continue;
    const p = path.join(PACK_DIR, e);
    if (Date.now() - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
  }
}
