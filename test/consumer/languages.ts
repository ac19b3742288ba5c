/**
 * The consumer tier's runs of the native provider plugin from the packed package (docs/native.md "YAML",
 * "Python" and "Go", the Python and Go programs on the SDKs the package carries), as a new user makes them: `npm install <tarball>` in a new folder on the toolchain's node and npm, the
 * program beside it whose Pulumi.yaml loads the plugin by `path: node_modules/platform-pulumi/plugin`, then the same
 * steps as the in-repo tests (test/harness/nativeOrg.ts: up of a small org, one masked PATCH, an edit made outside
 * Pulumi seen by `preview --refresh`, `pulumi import`, destroy with nothing left), through the real Pulumi CLI,
 * the language host made by scripts/ensure-language-hosts and the emulator in the test's process (the plugin is
 * another process: the emulator counts the requests it sends).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { REPO_ROOT } from "../../scripts/lib/pulumi";
import { ensureHost, languageTest, type LanguageProgram } from "../harness/nativeOrg";
import { PKG, cleanEnv, run, tail, toolchainNodeBin, type Toolchain } from "./toolchain";

/** The plugin's path in a project's Pulumi.yaml, as docs/native.md writes it. */
export const PLUGIN_PATH = `node_modules/${PKG.name}/plugin`;

/** Where a Python run installs the tarball's `sdk/python` (`pip install --target`), inside the project's folder. */
const PYTHON_SDK_TARGET = ".platform-sdk";

/** Options of {@link describeNativeProgram}. */
export interface NativeProgramRun {
  tc: Toolchain;
  program: LanguageProgram;
  /** The new project's folder (it must not exist yet; made by the run's `beforeAll`). */
  dir: string;
  /** The packed package's path (known once the file's `beforeAll` has packed it). */
  tarball: () => string;
  /** Also check that the installed launcher is executable and starts on the toolchain's node. */
  checkLauncher: boolean;
  /** Told the project's folder when a test of the run failed (to keep it for inspection). */
  onFail: (dir: string) => void;
}

/**
 * Registers one language's run from the tarball (see the module comment) as a `describe`; its time (the install,
 * then the steps) is written to stderr as `consumer tier: <toolchain>: <language> program from the tarball: …`.
 */
export function describeNativeProgram(o: NativeProgramRun): void {
  const { tc, program, dir } = o;
  describe(`the ${program.language} program from the tarball on ${tc.name}`, () => {
    let nodeBin = "";
    let started = 0;
    let installMs = 0;
    let failed = false;
    beforeEach((ctx) => {
      ctx.onTestFailed(() => {
        failed = true;
      });
    });

    beforeAll(async () => {
      started = Date.now();
      nodeBin = await toolchainNodeBin(tc);
      mkdirSync(dir, { recursive: true });
      const env = cleanEnv(nodeBin);
      const install = await run("npm", ["install", "--loglevel=warn", "--no-audit", "--no-fund", o.tarball()], { cwd: dir, env, timeoutMs: 600_000 });
      installMs = install.ms;
      if (install.code !== 0) {
        failed = true;
        throw new Error(`npm install ${o.tarball()} failed on ${tc.name}:\n${tail(install)}`);
      }
      // The program, its Pulumi.yaml loading the plugin from node_modules (no stack files of an in-repo run).
      const from = path.join(REPO_ROOT, "test", "programs", program.program);
      for (const f of readdirSync(from).filter((f) => !/^Pulumi\..+\.yaml$/.test(f))) copyFileSync(path.join(from, f), path.join(dir, f));
      const project = parseDocument(readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"));
      project.setIn(["plugins", "providers", 0, "path"], PLUGIN_PATH);
      writeFileSync(path.join(dir, "Pulumi.yaml"), project.toString());
      expect(project.toJS().plugins).toEqual({ providers: [{ name: "platform", path: PLUGIN_PATH }] });
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
      const total = Date.now() - started;
      process.stderr.write(
        `consumer tier: ${tc.name}: ${program.language} program from the tarball: ${(total / 1000).toFixed(0)} s ` +
          `(npm install ${(installMs / 1000).toFixed(0)} s, the steps ${((total - installMs) / 1000).toFixed(0)} s)${failed ? ", FAILED" : ""}\n`,
      );
      if (failed) o.onFail(dir);
    });

    if (o.checkLauncher) {
      it(`the installed plugin launcher is executable and starts on Node ${tc.nodeMajor}: it prints its port`, async () => {
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
      });
    }

    languageTest({
      ...program,
      // Python: the tarball's SDK, installed above, ahead of the venv's.
      host: (lines) => {
        const made = program.host(lines);
        return program.language === "Python" ? { ...made, env: { ...made.env, PYTHONPATH: path.join(dir, PYTHON_SDK_TARGET) } } : made;
      },
      title: `${program.language}: the org's steps through the plugin installed from the tarball`,
      cwd: dir,
      stack: program.program,
      pathDirs: () => [nodeBin],
    });
  });
}
