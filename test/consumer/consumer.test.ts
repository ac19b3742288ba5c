/**
 * The consumer tier (`npm run test:consumer`, run by `.ci/run` after `npm test`): the package as a new user gets
 * it. The tarball (`test/harness/tarball.ts`: packed once per build, scripts off), then, on each toolchain of
 * {@link TOOLCHAINS}, a new Pulumi TypeScript project in a temporary folder, laid out as `pulumi new typescript`
 * writes one (its tsconfig: strict, CommonJS, node resolution, no esModuleInterop, no skipLibCheck), with the
 * tarball, @pulumi/pulumi and @pulumi/policy as its dependencies and `project/index.ts` as its program (every
 * resource kind of the kind registry, `X.get`, both lookup forms).
 *
 * Steps, in order; a step after a failed one is skipped:
 * install (no EBADENGINE or peer warnings; the versions each toolchain must get; no fastify, and the installed bin's
 * `emulator` names the npm command that adds the emulator's server, which is then run), the installed native plugin's
 * launcher started on the toolchain's node, `tsc --noEmit`, every TypeScript block of README.md and docs/ compiled in
 * that project, the standalone emulator started from the installed package's bin, then through the real CLI:
 * a preview failing on a wrong token and one failing on a misspelled `platform:orgUID`, each told once (how long
 * they take against a good preview is bench/failing-preview.ts's, not a test's), `up` (which previews first: every
 * kind of the registry in the state), one `preview --refresh --expect-no-changes` with the policy pack from
 * `node_modules/platform-pulumi/policies` (settled, and the pack passing), the installed bin's `drift` (an
 * out-of-band edit and delete, a hand-made group and an unapplied program edit told apart, then converged by
 * `up --refresh`), destroy, and an API check that nothing is left. What does not depend on the toolchain (the bin's
 * other commands read the stack and the API alike on both) runs on the oldest toolchain only: the bin's `access`,
 * `unmanaged` and `recover`, the CI snippets of README.md and docs/ (`npx platform-pulumi …`) run as written, which
 * also stand for drift's converged run and the gate's passing and already-present cases, the `gate` failing on a
 * configured rule with --all (which also stands for the pack failing that rule). The `Org` component declaring a
 * nested org from a file in a second project and destroying it runs on both (a component of the project's own
 * @pulumi/pulumi). The newest toolchain runs the pack's failing preview itself, and drift's converged run.
 *
 * The native provider plugin from the same tarball, each language's program once, is native.test.ts: a file of its
 * own, which the consumer project's second worker runs beside this one (vitest.config.mts).
 *
 * Needs the npm registry (packages, and a Node 24 binary, made by the project's globalSetup through
 * scripts/ensure-node before this file starts: test/harness/consumer-setup.ts); everything else is
 * loopback. The project folder is removed when every step passed, and kept (its path printed) otherwise.
 */
import { subscriptionKind } from "../../provider/kinds/subscription";
import { existsSync, readFileSync, writeFileSync, copyFileSync, mkdirSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { PlatformClient } from "../../provider/client/client";
import { engineOk, runEngine } from "../../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";
import { docFiles, MAINTAINER_DOCS, readDoc, readDocs } from "../harness/docs";
import { KIND_NAMES, KINDS } from "../../provider/kinds/registry";
import { checkLauncher } from "./languages";
import { useConsumerWork } from "./work";
import {
  PKG,
  TOOLCHAINS,
  blockFile,
  blockFileName,
  ciSnippetCommands,
  cleanEnv,
  lowEnd,
  mapReadmeDiagnostics,
  run,
  startEmulatorBin,
  tail,
  toolchainNodeBin,
  typescriptBlocks,
  type StartedEmulator,
  type Toolchain,
} from "./toolchain";

const TEMPLATE = path.join(__dirname, "project");
/**
 * What `project/index.ts` declares, by kind: its `new <Kind>(` calls, for every kind of the kind registry (a kind the
 * program does not declare counts 0, which the first test reports by name). `Group.get` of the root group is only read.
 */
const PROGRAM_TEXT = readFileSync(path.join(TEMPLATE, "index.ts"), "utf8");
const DECLARED: Record<string, number> = Object.fromEntries(
  KIND_NAMES.map((kind) => [kind, PROGRAM_TEXT.match(new RegExp(`\\bnew ${kind}\\(`, "g"))?.length ?? 0]),
);

it("the consumer program (project/index.ts) declares every kind of the kind registry (provider/kinds/registry.ts)", () => {
  expect(KIND_NAMES.length).toBeGreaterThan(0);
  expect(KIND_NAMES.filter((kind) => DECLARED[kind] === 0), "kinds of the registry the consumer program does not declare (add one to test/consumer/project/index.ts)").toEqual([]);
});

const { work, tarball, keep } = useConsumerWork("platform-pulumi-consumer-");

/**
 * Registers ordered steps: each is skipped once an earlier gating step failed; `onFail` hears of every failure.
 * A step with `gates: false` (one nothing later depends on) fails alone.
 */
function stepper(onFail: () => void) {
  let broken: string | undefined;
  return (name: string, fn: (ctx: TestContext) => Promise<void>, opts: { timeoutMs?: number; gates?: boolean } = {}) =>
    it(name, async (ctx) => {
      if (broken !== undefined) ctx.skip(`an earlier step failed: ${broken}`);
      try {
        await fn(ctx);
      } catch (err) {
        if (opts.gates !== false) broken = name;
        onFail();
        throw err;
      }
    }, opts.timeoutMs ?? 180_000);
}

/** Resource counts by kind in a stack's state, without the stack, the providers and read-only (`get`) ones. */
function managedKinds(state: { deployment: { resources?: Array<Record<string, unknown>> } }): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of state.deployment.resources ?? []) {
    const kind = /^pulumi-nodejs:dynamic\/platform:(\w+)$/.exec(String(r["type"]))?.[1];
    if (kind && r["external"] !== true) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/** The `Resources:` block of a CLI run, one line, for the log. */
function resourcesSummary(out: string): string {
  const at = out.lastIndexOf("Resources:");
  if (at < 0) return "(no Resources: block)";
  const lines = out.slice(at + "Resources:".length).split("\n").map((l) => l.trim());
  const end = lines.findIndex((l, i) => i > 0 && l === "");
  return lines.slice(0, end < 0 ? undefined : end).filter(Boolean).join("; ");
}

for (const tc of TOOLCHAINS) describeToolchain(tc);

function describeToolchain(tc: Toolchain): void {
  const dir = path.join(work, `node${tc.nodeMajor}`);
  // The checks that do not depend on the toolchain run on the oldest one only (docs/testing.md, "The consumer tier").
  const isOldest = tc === TOOLCHAINS[0];
  describe(`consumer project on ${tc.name}`, () => {
    let allPassed = true;
    const step = stepper(() => (allPassed = false));
    let started = 0;
    let nodeBin = "";
    let emulator: StartedEmulator | undefined;
    let client: PlatformClient | undefined;
    let cli: PulumiCli;
    let baseline: Record<string, string[]> = {};

    beforeAll(() => {
      started = Date.now();
    });
    afterAll(async () => {
      emulator?.child.kill("SIGTERM");
      await client?.close();
      process.stderr.write(`consumer tier: ${tc.name}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
      if (!allPassed) keep(dir);
    });

    /**
     * A program of its own in `<project>/<name>` (its own Pulumi.yaml and package.json: Pulumi runs the `main` of
     * the nearest one), whose modules resolve from the project's node_modules; `index.ts` is `lines`.
     */
    const errProgram = (name: string, lines: string[]): string => {
      const at = path.join(dir, name);
      mkdirSync(at, { recursive: true });
      copyFileSync(path.join(dir, "tsconfig.json"), path.join(at, "tsconfig.json"));
      writeFileSync(path.join(at, "Pulumi.yaml"), `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`);
      writeFileSync(path.join(at, "package.json"), `${JSON.stringify({ name, main: "index.ts" }, null, 4)}\n`);
      writeFileSync(path.join(at, "index.ts"), [...lines, ""].join("\n"));
      return at;
    };

    /** Every object's uid, by kind of the kind registry (each kind's own collection on the client). */
    const uidsByCollection = async (): Promise<Record<string, string[]>> => {
      const out: Record<string, string[]> = {};
      for (const k of KINDS) {
        const rows = (await k.collection(client!).list({}).collect()) as Array<{ uid: string }>;
        out[k.kind] = rows.map((x) => x.uid).sort();
      }
      return out;
    };

    step(`installs the tarball with Node ${tc.nodeMajor}: no EBADENGINE, no peer warnings, the declared versions`, async () => {
      nodeBin = await toolchainNodeBin(tc);
      const env = cleanEnv(nodeBin);
      const v = await run("node", ["-p", "process.version"], { cwd: REPO_ROOT, env });
      expect(v.stdout.trim()).toMatch(new RegExp(`^v${tc.nodeMajor}\\.`));

      mkdirSync(dir);
      for (const f of ["Pulumi.yaml", "tsconfig.json", "index.ts"]) copyFileSync(path.join(TEMPLATE, f), path.join(dir, f));
      // package.json as `pulumi new typescript` writes it, plus the tarball and the pack's @pulumi/policy.
      const manifest = {
        name: "consumer",
        main: "index.ts",
        devDependencies: { "@types/node": "^18", typescript: "^5.0.0", "@pulumi/policy": tc.policySpec },
        dependencies: { "@pulumi/pulumi": tc.pulumiSpec, [PKG.name]: `file:${tarball()}` },
      };
      writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 4)}\n`);
      const install = await run("npm", ["install", "--loglevel=warn", "--no-audit", "--no-fund"], { cwd: dir, env, timeoutMs: 600_000 });
      expect(install.code, tail(install)).toBe(0);
      const npmOut = `${install.stdout}\n${install.stderr}`;
      expect(npmOut).not.toMatch(/EBADENGINE/);
      expect(npmOut).not.toMatch(/ERESOLVE|peer dep|conflicting peer|invalid: /i);
      // npm 11 lists packages whose install scripts would run ("not yet covered by allowScripts"): never this one.
      expect(npmOut).not.toMatch(new RegExp(`${PKG.name}@\\S+ \\((pre|post)?(install|prepare)`));

      // (@pulumi/policy's own package.json says "v1.21.0"; the registry says 1.21.0.)
      const installed = (name: string) =>
        (JSON.parse(readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string }).version.replace(/^v/, "");
      const versions = { "@pulumi/pulumi": installed("@pulumi/pulumi"), "@pulumi/policy": installed("@pulumi/policy") };
      for (const [name, version] of Object.entries(versions)) {
        if (tc.expect === "low") {
          expect(version, `${name} on ${tc.name}`).toBe(lowEnd(PKG.peerDependencies[name]!));
        } else {
          const latest = await run("npm", ["view", name, "version", "--loglevel=error"], { cwd: dir, env });
          expect(version, `${name} on ${tc.name}: the newest release must be inside the declared range`).toBe(latest.stdout.trim());
        }
      }
      process.stderr.write(`consumer tier: ${tc.name}: node ${v.stdout.trim()}, @pulumi/pulumi ${versions["@pulumi/pulumi"]}, @pulumi/policy ${versions["@pulumi/policy"]}\n`);

      const shipped = JSON.parse(readFileSync(path.join(dir, "node_modules", PKG.name, "package.json"), "utf8")) as Record<string, unknown>;
      expect(shipped["private"]).toBeUndefined();
      expect(Object.keys(shipped["scripts"] as object)).not.toContain("prepare");
      expect(shipped["bin"]).toEqual({ "platform-pulumi": "dist/cli/main.js" });
    }, { timeoutMs: 600_000 });

    step(`the installed native plugin's launcher is executable and starts on Node ${tc.nodeMajor}: it prints its port`, async () => {
      await checkLauncher(dir, nodeBin);
    }, { gates: false });

    step("a plain install has no fastify: the emulator names the npm command and exits non-zero; that command installs it", async () => {
      // The emulator's server is an optional peer dependency (README "Libraries"): not installed with the package.
      expect(existsSync(path.join(dir, "node_modules", "fastify"))).toBe(false);
      expect(existsSync(path.join(dir, "node_modules", "light-my-request"))).toBe(false);
      const env = cleanEnv(nodeBin);
      const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
      const hint = /run `(npm install [^`]+)` in your project/;
      const command = `npm install --save-dev fastify@${PKG.peerDependencies["fastify"]} light-my-request@${PKG.devDependencies["light-my-request"]}`;
      const started = await run(bin, ["emulator", "--port", "0"], { cwd: dir, env, timeoutMs: 30_000 });
      expect(started.code, tail(started)).toBe(2); // could not run, as every command (provider/commands/frame.ts)
      expect(started.stdout).toBe("");
      expect(started.stderr).toMatch(/^platform-pulumi emulator: the emulator needs fastify, /);
      expect(hint.exec(started.stderr)?.[1]).toBe(command);
      expect(started.stderr).not.toMatch(/\n\s+at /); // one sentence, no stack trace
      const imported = await run("node", ["-e", 'require("platform-pulumi/emulator")'], { cwd: dir, env, timeoutMs: 30_000 });
      expect(imported.code).not.toBe(0);
      expect(hint.exec(imported.stderr)?.[1]).toBe(command);
      // The provider itself loads without it.
      const provider = await run("node", ["-e", 'require("platform-pulumi"); require("platform-pulumi/runtime")'], { cwd: dir, env, timeoutMs: 30_000 });
      expect(provider.code, tail(provider)).toBe(0);

      const [npm, ...args] = command.split(" ");
      const install = await run(npm!, [...args, "--loglevel=warn", "--no-audit", "--no-fund"], { cwd: dir, env, timeoutMs: 600_000 });
      expect(install.code, tail(install)).toBe(0);
      const npmOut = `${install.stdout}\n${install.stderr}`;
      expect(npmOut).not.toMatch(/EBADENGINE/);
      expect(npmOut).not.toMatch(/ERESOLVE|peer dep|conflicting peer|invalid: /i);
      expect(existsSync(path.join(dir, "node_modules", "fastify"))).toBe(true);
    }, { timeoutMs: 600_000 });

    step("tsc --noEmit compiles the program with the template tsconfig (strict, no esModuleInterop, no skipLibCheck)", async () => {
      const options = (JSON.parse(readFileSync(path.join(dir, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> }).compilerOptions;
      expect(options["strict"]).toBe(true);
      expect(options).not.toHaveProperty("esModuleInterop");
      expect(options).not.toHaveProperty("skipLibCheck");
      const tsc = await run("node", ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "tsconfig.json", "--pretty", "false"], { cwd: dir, env: cleanEnv(nodeBin) });
      expect(tsc.code, tail(tsc, 60)).toBe(0);
    });

    step("every TypeScript block of README.md and docs/ (but the maintainer pages) compiles as written (each its own module, importing what it uses)", async () => {
      const blocks = docFiles().filter((f) => !MAINTAINER_DOCS.includes(f)).flatMap((f) => typescriptBlocks(readDoc(f), f));
      expect(blocks.filter((b) => b.file === "README.md").length).toBeGreaterThanOrEqual(2);
      expect(blocks.length).toBeGreaterThan(3);
      const readmeDir = path.join(dir, "readme");
      mkdirSync(readmeDir, { recursive: true });
      const files = blocks.map((b) => {
        const f = path.join("readme", blockFileName(b));
        writeFileSync(path.join(dir, f), blockFile(b));
        return f;
      });
      writeFileSync(path.join(dir, "tsconfig.readme.json"), `${JSON.stringify({ extends: "./tsconfig.json", files }, null, 4)}\n`);
      const tsc = await run("node", ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "tsconfig.readme.json", "--pretty", "false"], { cwd: dir, env: cleanEnv(nodeBin) });
      expect(tsc.code, mapReadmeDiagnostics(tail(tsc, 60))).toBe(0);
    }, { gates: false });

    step("the installed bin lists its commands and starts the emulator: exactly three KEY=value lines on stdout", async () => {
      const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
      const help = await run(bin, ["--help"], { cwd: dir, env: cleanEnv(nodeBin) });
      expect(help.code, tail(help)).toBe(0);
      expect(help.stdout).toMatch(/^usage: platform-pulumi <command>/);
      expect(help.stdout).toMatch(/^\s+emulator\s/m);
      emulator = await startEmulatorBin(bin, dir, cleanEnv(nodeBin));
      await new Promise((r) => setTimeout(r, 500));
      const lines = emulator.stdout().split("\n");
      expect(lines.map((l) => l.split("=")[0])).toEqual(["PLATFORM_API_URL", "PLATFORM_TOKEN", "PLATFORM_ORG_UID", ""]);
      client = new PlatformClient({ apiUrl: emulator.apiUrl, token: emulator.token });
      baseline = await uidsByCollection();
      cli = new PulumiCli({
        cwd: dir,
        backendDir: path.join(dir, ".state"),
        stack: "prod",
        env: cleanEnv(nodeBin, { PLATFORM_API_URL: emulator.apiUrl, PLATFORM_TOKEN: emulator.token }),
      });
      mkdirSync(path.join(dir, ".state"));
      await cli.initStack();
      await cli.ok(["config", "set", "platform:orgUid", emulator.orgUid]);
      await cli.ok(["config", "set", "--secret", "oktaClientSecret", "consumer-tier-client-secret"]);
    });

    // How long each failing preview takes against the same program succeeding (the 1.5x target) is measured by
    // bench/failing-preview.ts (`npm run bench`), as a ratio against the good preview in the same run, not here.
    step("a preview failing on a wrong token tells it once, with no stack into the package", async () => {
      // A small program of its own whose lookup runs inside an `apply` (as `getRoleOutput` does): that is where an
      // error's stack gets the frame on which Node 20's util.inspect loops (docs/configuration.md, "When a program fails").
      const errDir = errProgram("errprog", [
        `import { Group, getRoleOutput, orgUid } from "${PKG.name}";`,
        'const team = new Group("team", { parentUid: orgUid(), name: "err-team", description: "x" });',
        "export const teamUid = team.uid;",
        'export const viewerUid = getRoleOutput({ name: "viewer" }).uid;',
      ]);
      const bad = new PulumiCli({ cwd: errDir, backendDir: path.join(dir, ".state"), stack: "errprog", env: { ...cli.env(), PLATFORM_TOKEN: "not-a-token" } });
      await bad.initStack();
      await bad.ok(["config", "set", "platform:orgUid", emulator!.orgUid]);
      const r = await bad.run(["preview"]);
      expect(r.code, tail(r)).not.toBe(0);
      const failed = `${r.stdout}\n${r.stderr}`;
      // Told once among the diagnostics (the progress line above them echoes it), with no stack into the package.
      const diagnostics = failed.slice(failed.indexOf("Diagnostics:"));
      expect(diagnostics.match(/Unauthenticated: token rejected/g) ?? [], failed).toHaveLength(1);
      expect(failed).not.toMatch(/platform-pulumi\/(dist\/)?provider\/\S+\.(ts|js):\d+/);
    }, { gates: false });

    step("a preview failing on a misspelled `platform:orgUID` says what to set, once, with did you mean", async () => {
      // The README's way to the root group's uid: `orgUid()` of the package, at the top of the program.
      const keyDir = errProgram("keyprog", [
        'import * as pulumi from "@pulumi/pulumi";',
        `import { Group, getRoleOutput, orgUid } from "${PKG.name}";`,
        "const root: string = orgUid();",
        'const team = new Group("team", { parentUid: root, name: "key-team", description: "x" });',
        "export const teamUid = team.uid;",
        'export const viewerUid = getRoleOutput({ name: "viewer" }).uid;',
        "export const configured = pulumi.getStack();",
      ]);
      const bad = new PulumiCli({ cwd: keyDir, backendDir: path.join(dir, ".state"), stack: "keyprog-typo", env: cli.env() });
      await bad.initStack();
      await bad.ok(["config", "set", "platform:orgUID", emulator!.orgUid]);
      const r = await bad.run(["preview"]);
      expect(r.code, tail(r)).not.toBe(0);
      const failed = `${r.stdout}\n${r.stderr}`;
      const diagnostics = failed.slice(failed.indexOf("Diagnostics:"));
      expect(diagnostics, failed).toContain("the org's root group uid is not set: set stack config `platform:orgUid`");
      expect(diagnostics.match(/did you mean `platform:orgUid`\?/g) ?? [], failed).toHaveLength(1);
      expect(failed).not.toMatch(/platform-pulumi\/(dist\/)?provider\/\S+\.(ts|js):\d+/);
    }, { gates: false });

    // `up` without --skip-preview previews first: a program that cannot preview fails here, and the state holding
    // every kind of the registry is what the preview planned (a kind missing is named by the toEqual's diff).
    step(`pulumi up previews and creates every kind, the program runs on Node ${tc.nodeMajor}, and the env token stays out of state`, async () => {
      const r = await cli.ok(["up", "--yes"]);
      process.stderr.write(`consumer tier: ${tc.name}: up: ${resourcesSummary(r.stdout)} (${(r.ms / 1000).toFixed(1)} s)\n`);
      expect(managedKinds(await cli.exportState())).toEqual(DECLARED);
      const outputs = await cli.outputs();
      expect(String(outputs["nodeVersion"])).toMatch(new RegExp(`^v${tc.nodeMajor}\\.`));
      expect(outputs["rootName"]).toBe((await client!.groups.get(emulator!.orgUid)).name);
      const team = await client!.groups.get(String(outputs["teamUid"]));
      expect(team.name).toBe("consumer-team");
      expect(String(outputs["inviteCode"]).length).toBeGreaterThan(0);
      const secrets = await cli.ok(["stack", "export", "--show-secrets"]);
      expect(secrets.stdout).not.toContain(emulator!.token);
    });

    step(
      isOldest
        ? "settled after up (preview --refresh --expect-no-changes), the policy pack from node_modules/platform-pulumi/policies passing in that run"
        : "settled after up (preview --refresh --expect-no-changes), the policy pack from node_modules/platform-pulumi/policies passing in that run; then it fails a configured rule",
      async () => {
        const pack = path.join("node_modules", PKG.name, "policies");
        // The program binds ci-bot viewer one group above its own, which identity-bound-above-its-group reports at
        // low (reads only). The pack run plainly, as Pulumi documents packs (no config; so in a policy group too),
        // passes on it: a finding below the failing severity comes through the rule's advisory twin
        // (docs/policy.md "One verdict from every door"), as the gate passes it below.
        // One run for what `preview --expect-no-changes`, `refresh --expect-no-changes` and the clean pack run were:
        // --refresh reads every object back (a field edited, set or deleted behind the API, or a read that does not
        // give back what was applied, is a change), --expect-no-changes fails on any step, and the pack's events are read.
        const clean = await engineOk(cli, "preview", ["--refresh", "--expect-no-changes", "--policy-pack", pack]);
        expect(clean.policyPacks.map((p) => p.name)).toEqual(["platform"]);
        expect(clean.policies.filter((p) => p.enforcementLevel === "mandatory")).toEqual([]);
        const low = clean.policies.filter((p) => p.enforcementLevel === "advisory" && p.policyName === "identity-bound-above-its-group.advisory");
        expect(low.map((p) => p.urn)).toEqual([expect.stringMatching(/::pulumi-nodejs:dynamic\/platform:RoleBinding::ci-bot-viewer$/)]);
        expect(low[0]!.message).toContain("[low] role binding");
        // On the oldest toolchain the gate's --all run below is this same preview of the shipped pack with a
        // configured allowed-issuers, through the installed bin: it must fail there on ci-bot's issuer.
        if (isOldest) return;
        writeFileSync(path.join(dir, "policy-config.json"), JSON.stringify({ "allowed-issuers": { issuers: ["https://gitlab.com"] } }));
        const strict = await runEngine(cli, "preview", ["--policy-pack", pack, "--policy-pack-config", "policy-config.json"]);
        expect(strict.code, tail(strict)).not.toBe(0);
        expect(strict.policies.filter((p) => p.enforcementLevel === "mandatory" && p.policyName === "allowed-issuers").map((p) => p.urn)).toContainEqual(
          expect.stringMatching(/::pulumi-nodejs:dynamic\/platform:Identity::ci-bot$/),
        );
      },
    );

    // The bin's commands below read the stack and the API the same way on every toolchain (the bin is the same
    // JavaScript; what differs by toolchain is the program's runtime and its dynamic provider, which drift's
    // preview --refresh and up --refresh exercise on both): they run on the oldest toolchain only.
    if (isOldest) {
      step("the installed bin's access: ci-bot's effective access now, and no access gained or lost by an empty change", async () => {
        const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
        const now = await run(bin, ["access", "--stack", cli.opts.stack, "--current", "--format", "json"], { cwd: dir, env: cli.env() });
        expect(now.code, tail(now)).toBe(0);
        const grants = (JSON.parse(now.stdout) as { grants: Array<{ identity: { path: string }; capability: string; group: string; via: Array<{ kind: string; role: string }> }> }).grants;
        expect(grants.find((g) => g.identity.path === "/consumer-team/ci-cd/ci-bot" && g.capability === "groups.create")).toMatchObject({ group: "/consumer-team/ci-cd", via: [{ kind: "binding", role: "editor" }] });
        const change = await run(bin, ["access", "--stack", cli.opts.stack, "--fail-on", "*"], { cwd: dir, env: cli.env() });
        expect(change.code, tail(change)).toBe(0);
        expect(change.stdout).toContain("no access gained or lost");
      }, { gates: false });

      step("the installed bin's unmanaged finds nothing and recover has nothing to settle on the stack just applied", async () => {
        const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
        const unmanaged = await run(bin, ["unmanaged", "--stack", "prod"], { cwd: dir, env: cli.env() });
        expect(unmanaged.code, tail(unmanaged)).toBe(0);
        expect(unmanaged.stdout).toContain("stack prod: no unmanaged objects");
        const recovered = await run(bin, ["recover", "--stack", "prod"], { cwd: dir, env: cli.env() });
        expect(recovered.code, tail(recovered)).toBe(0);
        expect(recovered.stdout).toContain("stack prod: no pending operations, nothing to recover");
      });
    }

    step(
      isOldest
        ? "the installed bin's drift tells drift, pending and unmanaged apart and changes nothing; up --refresh converges (the CI snippets' drift then finds nothing)"
        : "the installed bin's drift tells drift, pending and unmanaged apart, changes nothing, and exits 0 once converged",
      async () => {
        const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
        const outputs = await cli.outputs();
        const ciUid = String(outputs["ciUid"]);
        const subscription = (await subscriptionKind.collection(client!).list({ childrenOf: String(outputs["teamUid"]) }).collect())[0]!;
        // Outside Pulumi: an edit and a delete, and a group made by hand; in the program: an edit not yet applied.
        await client!.groups.patch(ciUid, { description: "edited in the console" }, ["description"]);
        await subscriptionKind.collection(client!).delete(subscription.uid);
        const handmade = await client!.groups.create(String(outputs["teamUid"]), { name: "handmade", description: "made by hand" });
        await cli.ok(["config", "set", "teamDescription", "The consumer tier's team"]);
        const stateBefore = (await cli.ok(["stack", "export"])).stdout;

        const r = await run(bin, ["drift", "--stack", "prod", "--unmanaged", "--format", "json"], { cwd: dir, env: cli.env() });
        expect(r.code, tail(r)).toBe(1);
        const report = JSON.parse(r.stdout) as {
          stack: string;
          drifted: Array<{ type: string; name: string; uid: string | null; change: string; fields: Array<{ path: string; state: unknown; live: unknown }> }>;
          pending: Array<{ type: string; name: string; op: string; fields: string[] }>;
          unmanaged: Array<{ type: string; uid: string; name: string; parentUid: string }>;
        };
        expect(report.stack).toBe("prod");
        expect(report.drifted.map(({ type, name, uid, change, fields }) => ({ type, name, uid, change, fields }))).toEqual([
          { type: "Group", name: "ci", uid: ciUid, change: "changed", fields: [{ path: "description", state: "CI jobs", live: "edited in the console" }] },
          { type: "Subscription", name: "hooks", uid: subscription.uid, change: "deleted", fields: [] },
        ]);
        expect(report.pending.map(({ type, name, op, fields }) => ({ type, name, op, fields }))).toEqual([
          { type: "Group", name: "ci", op: "update", fields: ["description"] },
          { type: "Group", name: "team", op: "update", fields: ["description"] },
          { type: "Subscription", name: "hooks", op: "create", fields: [] },
        ]);
        expect(report.unmanaged).toEqual([{ type: "Group", uid: handmade.uid, name: "handmade", parentUid: String(outputs["teamUid"]) }]);
        expect((await cli.ok(["stack", "export"])).stdout).toBe(stateBefore);
        expect((await client!.groups.get(ciUid)).description).toBe("edited in the console");

        await cli.ok(["up", "--refresh", "--yes", "--skip-preview"]);
        await client!.groups.delete(handmade.uid);
        // On the oldest toolchain the CI snippets' `drift --unmanaged --format json` is this check (exit 0, nothing
        // drifted, pending or unmanaged), run next on the same stack.
        if (isOldest) return;
        const converged = await run(bin, ["drift", "--stack", "prod", "--unmanaged"], { cwd: dir, env: cli.env() });
        expect(converged.code, tail(converged)).toBe(0);
        expect(converged.stdout).toContain("stack prod: 0 drifted, 0 pending, 0 unmanaged");
      },
    );

    if (isOldest) {
      step("the CI snippets of README.md and docs/ run as written in the project (`npx platform-pulumi …`): drift finds nothing after the converging up, the gate passes", async () => {
        const lines = ciSnippetCommands(readDocs());
        expect(lines.length).toBeGreaterThanOrEqual(2);
        expect(lines.every((l) => l.startsWith("npx platform-pulumi "))).toBe(true);
        const summary = path.join(dir, "step-summary.md");
        writeFileSync(summary, "");
        // The project's own pack config, as a team keeps one: the issuers its identities may trust.
        writeFileSync(path.join(dir, "policy-config.json"), JSON.stringify({ "allowed-issuers": { issuers: ["https://token.actions.githubusercontent.com"] } }));
        for (const line of lines) {
          const r = await run("bash", ["-eo", "pipefail", "-c", line], { cwd: dir, env: { ...cli.env(), GITHUB_STEP_SUMMARY: summary } });
          expect(r.code, `${line}\n${tail(r)}`).toBe(0);
        }
        expect(readFileSync(summary, "utf8")).toContain("### Policy gate of stack `prod`");
        // The drift step's up --refresh converged: exit 0 (above) and nothing drifted, pending or unmanaged.
        const drift = JSON.parse(readFileSync(path.join(dir, "drift.json"), "utf8")) as Record<string, unknown>;
        expect(drift).toEqual({ stack: "prod", drifted: [], pending: [], unmanaged: [] });
        // The gate (gate.json is its --format json report): passed, with ci-bot's low finding listed as advisory,
        // the level the plain pack run gave it above: one verdict from both doors.
        const gate = JSON.parse(readFileSync(path.join(dir, "gate.json"), "utf8")) as { passed: boolean; violations: Array<{ level: string; policy: string; resource: string; severity: string; status: string }> };
        expect(gate.passed).toBe(true);
        expect(gate.violations.map((v) => `${v.severity} ${v.level} ${v.policy} ${v.resource} ${v.status}`)).toEqual(["low advisory identity-bound-above-its-group RoleBinding::ci-bot-viewer already present"]);
        const sarif = JSON.parse(readFileSync(path.join(dir, "gate.sarif"), "utf8")) as { runs: Array<{ results: Array<{ ruleId: string; properties: { severity: string; status: string; enforcementLevel: string; urn?: string } }> }> };
        const present = sarif.runs.flatMap((x) => x.results).filter((x) => x.ruleId === "identity-bound-above-its-group").map((x) => x.properties);
        expect(present).toEqual([
          { severity: "low", status: "already present", enforcementLevel: "advisory", pack: "platform", urn: expect.stringMatching(/::pulumi-nodejs:dynamic\/platform:RoleBinding::ci-bot-viewer$/) },
        ]);
      });

      step("the installed bin's gate, with the pack it ships, fails (exit 1) on a mandatory finding of a configured rule with --all (judging the whole stack)", async () => {
        const bin = path.join(dir, "node_modules", ".bin", "platform-pulumi");
        // The example config the package ships allows GitHub's and GitLab's issuers; one allowing only GitLab's fails.
        expect(existsSync(path.join(dir, "node_modules", PKG.name, "policies", "config.example.json"))).toBe(true);
        writeFileSync(path.join(dir, "gitlab-only.json"), JSON.stringify({ "allowed-issuers": { issuers: ["https://gitlab.com"] } }));
        // The deployed identity already trusts GitHub's issuer: --all judges the stack, so its finding fails the gate.
        const strict = await run(bin, ["gate", "--stack", "prod", "--config", "gitlab-only.json", "--all"], { cwd: dir, env: cli.env() });
        expect(strict.code, tail(strict)).toBe(1);
        expect(strict.stdout).toMatch(/high\s+mandatory\s+allowed-issuers\s+Identity::ci-bot\s+issuer "https:\/\/token\.actions\.githubusercontent\.com" is not one of the allowed issuers/);
        expect(strict.stdout).toContain("policy gate: FAILED: 1 mandatory finding(s) (1 high) at critical or high");
      });
    }

    // On both toolchains: `Org` is a component built on the project's own @pulumi/pulumi, the newest one's too.
    step("Org declares a nested org from a file, and destroys it", async () => {
      const orgDir = path.join(dir, "org");
      mkdirSync(orgDir);
      copyFileSync(path.join(TEMPLATE, "tsconfig.json"), path.join(orgDir, "tsconfig.json"));
      copyFileSync(path.join(REPO_ROOT, "test", "programs", "org", "org.yaml"), path.join(orgDir, "org.yaml"));
      writeFileSync(path.join(orgDir, "Pulumi.yaml"), "name: consumer-org\nruntime: nodejs\nmain: index.ts\n");
      writeFileSync(
        path.join(orgDir, "index.ts"),
        [
          'import * as pulumi from "@pulumi/pulumi";',
          'import { Org } from "platform-pulumi";',
          'const org = new Org("org", { file: "org.yaml" });',
          "export const groupUids = org.groupUids;",
          "export const counts = org.counts;",
          "",
        ].join("\n"),
      );
      const before = await uidsByCollection();
      const orgCli = new PulumiCli({ cwd: orgDir, backendDir: path.join(dir, ".state"), stack: "org", env: cli.opts.env ?? {} });
      await orgCli.initStack();
      await orgCli.ok(["config", "set", "platform:orgUid", emulator!.orgUid]);
      await orgCli.ok(["up", "--yes"]);
      const outputs = await orgCli.outputs();
      expect(outputs["counts"]).toEqual({ groups: 5, identities: 2, roles: 1, bindings: 3, repos: 1, subscriptions: 1 });
      const groupUids = outputs["groupUids"] as Record<string, string>;
      expect((await client!.groups.get(groupUids["engineering/platform/ci-cd"]!)).name).toBe("ci-cd");
      expect(groupUids["engineering/platform/ci-cd"]!.startsWith(`${groupUids["engineering/platform"]}/`)).toBe(true);
      await orgCli.ok(["preview", "--expect-no-changes"]);
      await orgCli.ok(["destroy", "--yes"]);
      expect(await uidsByCollection()).toEqual(before);
    });

    step("pulumi destroy deletes them all, and the API has nothing left", async () => {
      const r = await cli.ok(["destroy", "--yes"]);
      process.stderr.write(`consumer tier: ${tc.name}: destroy: ${resourcesSummary(r.stdout)} (${(r.ms / 1000).toFixed(1)} s)\n`);
      expect(managedKinds(await cli.exportState())).toEqual({});
      expect(await uidsByCollection()).toEqual(baseline);
    });
  });
}
