/**
 * The consumer tier's runs of the native provider plugin from the packed package (docs/native.md "YAML",
 * "Python" and "Go", the Python and Go programs on the SDKs the package carries): each language's program once, in
 * a new folder beside the package installed from the tarball (its `node_modules` linked to an install made once for
 * the toolchain), its Pulumi.yaml loading the plugin by `path: node_modules/platform-pulumi/plugin`, then the
 * language's steps (test/harness/nativeOrg.ts: up of a small org, one masked PATCH, an edit made outside Pulumi
 * seen by `preview --refresh`, `pulumi import`, destroy with nothing left), through the real Pulumi CLI, the
 * language host made by scripts/ensure-language-hosts and the emulator in the test's process (the plugin is
 * another process: the emulator counts the requests it sends). These are the only runs of the languages' steps:
 * the repository has no copy of them.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect } from "vitest";
import { parseDocument } from "yaml";
import { REPO_ROOT, cliBinDir } from "../../scripts/lib/pulumi";
import { ensureHost, languageTest, type LanguageProgram } from "../harness/nativeOrg";
import { PKG, cleanEnv, run, tail, toolchainNodeBin, type Toolchain } from "./toolchain";

/** The plugin's path in a project's Pulumi.yaml, as docs/native.md writes it. */
export const PLUGIN_PATH = `node_modules/${PKG.name}/plugin`;

/** The YAML run's Pulumi home, empty but for the plugin installed from the tarball's archive, inside the project's folder. */
const PULUMI_HOME_DIR = ".pulumi-home";

/** This machine's `<os>-<arch>` as Pulumi names plugin archives (scripts/pack-plugin.js). */
const PLUGIN_PLATFORM = `${{ darwin: "darwin", win32: "windows" }[process.platform as string] ?? process.platform}-${{ x64: "amd64" }[process.arch as string] ?? process.arch}`;

/** Where a Python run installs the tarball's `sdk/python` (`pip install --target`), inside the project's folder. */
const PYTHON_SDK_TARGET = ".platform-sdk";

/**
 * `npm install <tarball>` alone in `dir` (made if missing) with the toolchain's npm, as docs/native.md tells a
 * user of another language (the peer @pulumi/pulumi comes with it).
 * @returns the install's `node_modules` and its time in ms. @throws Error with npm's output when it fails.
 */
export async function installTarball(tc: Toolchain, dir: string, tarball: string, extra: readonly string[] = []): Promise<{ nodeModules: string; ms: number }> {
  mkdirSync(dir, { recursive: true });
  const env = cleanEnv(await toolchainNodeBin(tc));
  const install = await run("npm", ["install", "--loglevel=warn", "--no-audit", "--no-fund", tarball, ...extra], { cwd: dir, env, timeoutMs: 600_000 });
  if (install.code !== 0) throw new Error(`npm install ${tarball} ${extra.join(" ")} failed on ${tc.name}:\n${tail(install)}`);
  const nodeModules = path.join(dir, "node_modules");
  expect(existsSync(path.join(nodeModules, PKG.name, "plugin", "pulumi-resource-platform")), `${tc.name}: the plugin is in the install`).toBe(true);
  return { nodeModules, ms: install.ms };
}

/** What `installTarball` is given besides the tarball for the YAML program: the policy pack's runtime, for `gate` (README "Job 3"). */
export const POLICY_PEER = `@pulumi/policy@${PKG.peerDependencies["@pulumi/policy"]}`;

/**
 * The installed plugin's launcher (`<dir>/node_modules/platform-pulumi/plugin/pulumi-resource-platform`) is
 * executable, and started with `nodeBin` first on PATH it prints its port (one positive integer line), runs as that
 * node (the launcher execs `node`) and writes nothing to stderr.
 */
export async function checkLauncher(dir: string, nodeBin: string): Promise<void> {
  const launcher = path.join(dir, PLUGIN_PATH, "pulumi-resource-platform");
  expect(statSync(launcher).mode & 0o111, `${launcher} is not executable`).toBe(0o111);
  const child = spawn(launcher, [], { cwd: dir, env: cleanEnv(nodeBin), stdio: ["ignore", "pipe", "pipe"] });
  try {
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no port within 30 s; stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`)), 30_000);
      child.stdout.on("data", () => {
        if (out.includes("\n")) {
          clearTimeout(timer);
          resolve(out);
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${launcher} exited ${code}; stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`));
      });
    });
    expect(line).toMatch(/^[1-9]\d*\n$/);
    // The launcher execs node: the process is the toolchain's node.
    expect(realpathSync(`/proc/${child.pid}/exe`)).toBe(realpathSync(path.join(nodeBin, "node")));
    expect(err).toBe("");
  } finally {
    child.kill("SIGTERM");
  }
}

/** Options of {@link describeNativePrograms}. */
export interface NativeProgramsRun {
  tc: Toolchain;
  /** The languages' programs, run one after the other. */
  programs: readonly LanguageProgram[];
  /** The folder under which each program gets its own new folder, `<program>-node<major>`. */
  work: string;
  /** How the package was installed, for the title (e.g. `one npm install <tarball>`). */
  install: string;
  /**
   * The `node_modules` of an install of the tarball on this toolchain, which every program's folder links; called
   * in the run's `beforeAll` (it may install there and then). It throws when there is none (e.g. its install failed).
   */
  nodeModules: () => Promise<{ nodeModules: string; ms: number }>;
  /** Told a program's folder when a test of its run failed (to keep it for inspection). */
  onFail: (dir: string) => void;
}

/**
 * Registers the programs' runs on one toolchain (see the module comment) as a `describe`; each run's time is
 * written to stderr as `consumer tier: <toolchain>: <language> program from the tarball: …`, and the install's as
 * `consumer tier: <toolchain>: <install> for the native programs: … s`.
 */
export function describeNativePrograms(o: NativeProgramsRun): void {
  const { tc } = o;
  describe(`the ${o.programs.map((p) => p.language).join(", ")} programs from the tarball on ${tc.name} (${o.install})`, () => {
    let nodeBin = "";
    let nodeModules = "";
    beforeAll(async () => {
      nodeBin = await toolchainNodeBin(tc);
      const installed = await o.nodeModules();
      nodeModules = installed.nodeModules;
      process.stderr.write(`consumer tier: ${tc.name}: ${o.install} for the native programs: ${(installed.ms / 1000).toFixed(0)} s\n`);
    }, 600_000);
    for (const program of o.programs) {
      describeProgram(tc, program, path.join(o.work, `${program.program}-node${tc.nodeMajor}`), () => nodeBin, () => nodeModules, o.onFail);
    }
  });
}

/** One program's run in `dir`, linking `nodeModules()` (see {@link describeNativePrograms}). */
function describeProgram(tc: Toolchain, program: LanguageProgram, dir: string, nodeBin: () => string, nodeModules: () => string, onFail: (dir: string) => void): void {
  describe(`the ${program.language} program`, () => {
    let started = 0;
    let failed = false;
    beforeEach((ctx) => {
      ctx.onTestFailed(() => {
        failed = true;
      });
    });

    beforeAll(async () => {
      started = Date.now();
      mkdirSync(dir, { recursive: true });
      symlinkSync(nodeModules(), path.join(dir, "node_modules"), "dir");
      // The program, its Pulumi.yaml loading the plugin from node_modules (no stack files of an in-repo run).
      const from = path.join(REPO_ROOT, "test", "programs", program.program);
      for (const f of readdirSync(from).filter((f) => !/^Pulumi\..+\.yaml$/.test(f))) copyFileSync(path.join(from, f), path.join(dir, f));
      const project = parseDocument(readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"));
      if (program.language === "YAML") {
        // YAML: the plugin as Pulumi users install providers (docs/native.md "Install the plugin"): the archive the
        // tarball ships, `pulumi plugin install`ed into an empty Pulumi home, and no `plugins:` path in Pulumi.yaml.
        const archives = path.join(dir, "node_modules", PKG.name, "dist", "plugin");
        const archive = readdirSync(archives).find((f) => /^pulumi-resource-platform-v.+\.tar\.gz$/.test(f));
        expect(archive, `the plugin archive in ${archives}`).toBe(`pulumi-resource-platform-v${PKG.version}-${PLUGIN_PLATFORM}.tar.gz`);
        const installed = await run(path.join(cliBinDir(), "pulumi"), ["plugin", "install", "resource", "platform", PKG.version, "--file", path.join(archives, archive!)], { cwd: dir, env: { ...process.env, PULUMI_HOME: path.join(dir, PULUMI_HOME_DIR) }, timeoutMs: 120_000 });
        expect(installed.code, tail(installed)).toBe(0);
        expect(readdirSync(path.join(dir, PULUMI_HOME_DIR, "plugins"))).toContain(`resource-platform-v${PKG.version}`);
        project.delete("plugins");
      } else {
        project.setIn(["plugins", "providers", 0, "path"], PLUGIN_PATH);
        expect(project.toJS().plugins).toEqual({ providers: [{ name: "platform", path: PLUGIN_PATH }] });
      }
      writeFileSync(path.join(dir, "Pulumi.yaml"), project.toString());
      if (program.language === "Go") {
        // The SDK from the tarball, as docs/native.md says: go.mod's `replace` names the installed package's copy.
        const gomod = path.join(dir, "go.mod");
        const text = readFileSync(gomod, "utf8");
        const replaced = text.replace(/^replace (platform-pulumi\/sdk\/go\/platform) => .*$/m, `replace $1 => ./node_modules/${PKG.name}/sdk/go/platform`);
        expect(replaced, "the program's go.mod replaces the SDK's module").not.toBe(text);
        writeFileSync(gomod, replaced);
      }
      if (program.language === "Python") {
        // The SDK from the tarball, as docs/native.md says (`pip install node_modules/platform-pulumi/sdk/python`):
        // into the project's own folder, first on PYTHONPATH, so the program imports it and not the test venv's copy.
        const python = ensureHost(program.script).lines.at(-1) ?? "";
        const sdk = path.join(dir, PYTHON_SDK_TARGET);
        const pip = await run(python, ["-m", "pip", "install", "--quiet", "--no-deps", "--target", sdk, path.join(dir, "node_modules", PKG.name, "sdk", "python")], { cwd: dir, env: { ...process.env }, timeoutMs: 300_000 });
        if (pip.code !== 0) {
          failed = true;
          throw new Error(`pip install of the tarball's sdk/python failed:\n${tail(pip)}`);
        }
        const where = await run(python, ["-c", "import platform_pulumi; print(platform_pulumi.__file__)"], { cwd: dir, env: { ...process.env, PYTHONPATH: sdk }, timeoutMs: 60_000 });
        expect(where.stdout.trim().startsWith(sdk), where.stdout + where.stderr).toBe(true);
      }
    }, 600_000);

    afterAll(() => {
      process.stderr.write(
        `consumer tier: ${tc.name}: ${program.language} program from the tarball: ${((Date.now() - started) / 1000).toFixed(0)} s${failed ? ", FAILED" : ""}\n`,
      );
      if (failed) onFail(dir);
    });

    languageTest({
      ...program,
      // Python: the tarball's SDK, installed above, ahead of the venv's; YAML: the Pulumi home the plugin was installed into.
      host: (lines) => {
        const made = program.host(lines);
        if (program.language === "Python") return { ...made, env: { ...made.env, PYTHONPATH: path.join(dir, PYTHON_SDK_TARGET) } };
        if (program.language === "YAML") return { ...made, env: { ...made.env, PULUMI_HOME: path.join(dir, PULUMI_HOME_DIR) } };
        return made;
      },
      title: `${program.language}: the org's steps through the plugin installed from the tarball`,
      cwd: dir,
      stack: program.program,
      pathDirs: () => [nodeBin()],
      // Go: the host builds the program at each command; the first build with Go's module cache cold (a fresh CI
      // machine) fetches and compiles sdk/v3 and took over 240 s (stepTest's default) here.
      ...(program.language === "Go" ? { timeoutMs: 900_000 } : {}),
    });
  });
}
