/**
 * The native plugin's launchers start from wherever they are reached (docs/native.md "Install the plugin"): the
 * repository's `plugin/pulumi-resource-platform` through a linked folder and a linked file, and the plugin archive
 * the build writes (scripts/pack-plugin.js) unpacked into a folder of its own, with nothing of the repository's
 * node_modules reachable, reached through a link. Each prints its port, as Pulumi's plugin protocol asks. No engine
 * run: the plugin is started as the engine starts it and stopped.
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, it } from "vitest";
import { REPO_ROOT } from "../scripts/lib/pulumi";

const dir = mkdtempSync(path.join(tmpdir(), "plugin-launcher-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `launcher` (with an engine address nothing listens on: the plugin serves until it is stopped) and resolves with its first stdout line. */
function firstLine(launcher: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(launcher, [], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${launcher}: no port within 20 s; stderr ${err}`));
    }, 20_000);
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("\n")) {
        clearTimeout(timer);
        child.kill("SIGKILL");
        resolve(out.split("\n")[0]!);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!out.includes("\n")) reject(new Error(`${launcher} exited ${code}: ${err}`));
    });
  });
}

describe.concurrent("the plugin's launcher", () => {
  it("in the repository, through a linked folder and a linked file", async ({ expect }) => {
    symlinkSync(path.join(REPO_ROOT, "plugin"), path.join(dir, "linked-folder"), "dir");
    mkdirSync(path.join(dir, "bin"));
    symlinkSync(path.join(REPO_ROOT, "plugin", "pulumi-resource-platform"), path.join(dir, "bin", "pulumi-resource-platform"));
    expect(await firstLine(path.join(dir, "linked-folder", "pulumi-resource-platform"))).toMatch(/^\d+$/);
    expect(await firstLine(path.join(dir, "bin", "pulumi-resource-platform"))).toMatch(/^\d+$/);
  }, 60_000);

  it("from the plugin archive, unpacked apart from the repository and reached through a link", async ({ expect }) => {
    const archives = path.join(REPO_ROOT, "dist", "plugin");
    const archive = readdirSync(archives).find((f) => f.endsWith(".tar.gz"));
    expect(archive).toMatch(/^pulumi-resource-platform-v\d+\.\d+\.\d+.*-(linux|darwin|windows)-(amd64|arm64)\.tar\.gz$/);
    const unpacked = path.join(dir, "unpacked");
    mkdirSync(unpacked);
    execFileSync("tar", ["-xzf", path.join(archives, archive!), "-C", unpacked]);
    expect(readdirSync(unpacked).sort()).toEqual(["dist", "package.json", "pulumi-resource-platform", "schema.json"]);
    symlinkSync(unpacked, path.join(dir, "linked-unpacked"), "dir");
    expect(await firstLine(path.join(dir, "linked-unpacked", "pulumi-resource-platform"))).toMatch(/^\d+$/);
  }, 60_000);
});
