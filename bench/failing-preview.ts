/**
 * A failing `pulumi preview` against the same program succeeding: how long a user waits to be told of a mistake,
 * as a ratio to a good preview of the same program, interleaved in the same run (`npm run bench` runs it after the
 * rest; alone: `node dist/bench/failing-preview.js` after `npm run build`). Target: each case's ratio ≤ 1.5. This
 * was a timed assertion of the consumer tier (two interleaved runs each, the smaller); the tier now keeps one
 * failing preview per case and checks only what it tells (once, and what it says), as docs/testing.md asks.
 *
 * Cases, each a small TypeScript program of its own (ts-node, as in a user's project; the consumer tier's programs),
 * whose lookup (`getRoleOutput`) runs inside an `apply`, where an error's stack gets the frame on which Node 20's
 * `util.inspect` looped (docs/configuration.md, "When a program fails"):
 *
 * | case | good | bad | the bad run must say |
 * |---|---|---|---|
 * | wrong_token | the emulator's token | `PLATFORM_TOKEN=not-a-token` | `Unauthenticated: token rejected`, once |
 * | misspelled_key | stack config `platform:orgUid` | `platform:orgUID` instead, read with `orgUid()` | "did you mean `platform:orgUid`?", once |
 * | config_require | (BENCH_FAILING_REQUIRE=1) the same misspelling read with Pulumi's own `Config.require` | | that it failed (not a target: Pulumi's and Node's to fix) |
 *
 * Per toolchain and case: one unmeasured run of each side (the first preview of a program pays ts-node's and the
 * plugin's cold start), then BENCH_FAILING_PAIRS interleaved pairs (default 3; the order alternates each pair).
 * Figures: `ratio`, the median of the pairs' bad / good with min–max (the bench's way), and `ratio_of_fastest`,
 * the fastest bad run over the fastest good one (the consumer tier's old figure), with every run's seconds.
 *
 * The programs live in a new folder under `.pulumi-work/` and resolve `platform-pulumi` and `@pulumi/pulumi` from
 * this repository's node_modules (the package's own build in dist/, and the @pulumi/pulumi of its devDependencies,
 * the low end of the peer range), against the standalone emulator in its own process. Toolchains as `npm run
 * bench`'s: BENCH_TOOLCHAINS (default `default,24.21.0`: the `node` on PATH, then Node 24 fetched by
 * `bash scripts/ensure-node`), first on PATH for the language host. Results go to bench/failing-preview-results.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { emulatorProcess, type EmulatorProcess } from "./emulatorProcess";
import { pairRatios, round, spread, type Spread } from "./stats";

const PAIRS = Number(process.env["BENCH_FAILING_PAIRS"] ?? 3);
const TOOLCHAIN_SPECS = (process.env["BENCH_TOOLCHAINS"] ?? "default,24.21.0").split(",").map((x) => x.trim()).filter(Boolean);
const WITH_REQUIRE = process.env["BENCH_FAILING_REQUIRE"] === "1";
/** The most a failing preview may take, as a multiple of the same program's good preview. */
export const TARGET = 1.5;

const log = (s: string) => process.stderr.write(`bench:failing-preview: ${s}\n`);

/** One case's figures on one toolchain. */
export interface CaseFigures {
  /** Median of the pairs' bad / good, with min–max. */
  ratio: Spread;
  /** The fastest bad run over the fastest good run. */
  ratio_of_fastest: number;
  good_s: number[];
  bad_s: number[];
  /** Whether the figure has a target ({@link TARGET}); `config_require` has none. */
  target: number | null;
}

/** A side of a case: the CLI to run `preview` with, and what its output must hold (the bad side: its message). */
interface Side {
  cli: PulumiCli;
  /** Checks a run's exit and output; @throws Error when the run is not what the case measures. */
  check(code: number, out: string): void;
}

/** The consumer tier's project tsconfig (`pulumi new typescript`'s: strict, CommonJS, node resolution). */
const TSCONFIG = {
  compilerOptions: { strict: true, outDir: "bin", target: "es2020", module: "commonjs", moduleResolution: "node", sourceMap: true, experimentalDecorators: true, pretty: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true, forceConsistentCasingInFileNames: true },
  files: ["index.ts"],
};

/** A TypeScript Pulumi program named `name` in `<root>/<name>`; `index.ts` is `lines`. @returns its folder. */
function program(root: string, name: string, lines: string[]): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n`);
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name, private: true, main: "index.ts" }, null, 4)}\n`);
  writeFileSync(path.join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 4)}\n`);
  writeFileSync(path.join(dir, "index.ts"), [...lines, ""].join("\n"));
  return dir;
}

/** The Diagnostics part of a failed run's output (the progress lines above it echo the error). */
const diagnostics = (out: string) => out.slice(Math.max(0, out.indexOf("Diagnostics:")));

/** A bad run: it failed, said `message` once among its diagnostics, and printed no frame of the package's code. */
function failsSaying(message: RegExp | undefined): Side["check"] {
  return (code, out) => {
    if (code === 0) throw new Error(`the failing side succeeded:\n${out.slice(-2000)}`);
    if (message && (diagnostics(out).match(new RegExp(message.source, "g")) ?? []).length !== 1) {
      throw new Error(`the failing side did not say ${message} exactly once:\n${out.slice(-2000)}`);
    }
    if (/platform-pulumi\/(dist\/)?provider\/\S+\.(ts|js):\d+/.test(out)) throw new Error(`the failing side printed a stack into the package:\n${out.slice(-2000)}`);
  };
}

const succeeds: Side["check"] = (code, out) => {
  if (code !== 0) throw new Error(`the good side failed:\n${out.slice(-2000)}`);
};

/** One Node.js: `default` (the `node` on PATH) or an exact version fetched by scripts/ensure-node. */
function toolchain(spec: string): { key: string; version: string; bin: string | undefined } {
  if (spec === "default") {
    const version = execFileSync("node", ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "");
    return { key: `node${version.split(".")[0]}`, version, bin: undefined };
  }
  const out = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-node"), spec], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return { key: `node${spec.split(".")[0]}`, version: spec, bin: out.trim().split("\n").pop()! };
}

/** Runs `preview` of a side, checks it, and returns its seconds. */
async function timed(side: Side): Promise<number> {
  const r = await side.cli.run(["preview"]);
  side.check(r.code, `${r.stdout}\n${r.stderr}`);
  return r.ms / 1000;
}

/** One unmeasured run of each side, then `pairs` interleaved pairs (the order alternates). */
async function measure(name: string, good: Side, bad: Side, target: number | null): Promise<CaseFigures> {
  await timed(good);
  await timed(bad);
  const goodS: number[] = [];
  const badS: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2 === 0) {
      goodS.push(await timed(good));
      badS.push(await timed(bad));
    } else {
      badS.push(await timed(bad));
      goodS.push(await timed(good));
    }
    log(`${name} pair ${i + 1}/${PAIRS}: bad ${badS[i]!.toFixed(2)} s, good ${goodS[i]!.toFixed(2)} s (load ${loadavg()[0]!.toFixed(2)})`);
  }
  return { ratio: pairRatios(badS, goodS), ratio_of_fastest: round(Math.min(...badS) / Math.min(...goodS)), good_s: goodS.map((x) => round(x, 2)), bad_s: badS.map((x) => round(x, 2)), target };
}

/** The cases on one toolchain (`bin` first on PATH), against `emu`, in programs under `root`, stacks in `backend`. */
async function toolchainCases(emu: EmulatorProcess, root: string, backend: string, bin: string | undefined): Promise<Record<string, CaseFigures>> {
  // The token and API address only from the environment, the root group's uid only from stack config.
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: undefined, ...(bin ? { PATH: `${bin}${path.delimiter}${process.env["PATH"] ?? ""}` } : {}) };
  const out: Record<string, CaseFigures> = {};

  const tokenDir = program(root, "wrong-token", [
    'import { Group, getRoleOutput, orgUid } from "platform-pulumi";',
    'const team = new Group("team", { parentUid: orgUid(), name: "err-team", description: "x" });',
    "export const teamUid = team.uid;",
    'export const viewerUid = getRoleOutput({ name: "viewer" }).uid;',
  ]);
  const tokenGood = new PulumiCli({ cwd: tokenDir, backendDir: backend, stack: "good", env });
  await tokenGood.initStack();
  await tokenGood.ok(["config", "set", "platform:orgUid", emu.orgUid]);
  const tokenBad = new PulumiCli({ cwd: tokenDir, backendDir: backend, stack: "good", env: { ...env, PLATFORM_TOKEN: "not-a-token" } });
  out["wrong_token"] = await measure("wrong_token", { cli: tokenGood, check: succeeds }, { cli: tokenBad, check: failsSaying(/Unauthenticated: token rejected/) }, TARGET);

  const keyLines = (read: string) => [
    'import * as pulumi from "@pulumi/pulumi";',
    'import { Group, getRoleOutput, orgUid } from "platform-pulumi";',
    `const root: string = ${read};`,
    'const team = new Group("team", { parentUid: root, name: "key-team", description: "x" });',
    "export const teamUid = team.uid;",
    'export const viewerUid = getRoleOutput({ name: "viewer" }).uid;',
    "export const configured = pulumi.getStack();",
  ];
  const keyCases: Array<[string, string, RegExp | undefined, number | null]> = [
    ["misspelled_key", "orgUid()", /did you mean `platform:orgUid`\?/, TARGET],
    ...(WITH_REQUIRE ? ([["config_require", 'new pulumi.Config("platform").require("orgUid")', undefined, null]] as Array<[string, string, RegExp | undefined, number | null]>) : []),
  ];
  for (const [name, read, message, target] of keyCases) {
    const dir = program(root, name.replace(/_/g, "-"), keyLines(read));
    const good = new PulumiCli({ cwd: dir, backendDir: backend, stack: "good", env });
    const bad = new PulumiCli({ cwd: dir, backendDir: backend, stack: "typo", env });
    await good.initStack();
    await good.ok(["config", "set", "platform:orgUid", emu.orgUid]);
    await bad.initStack();
    await bad.ok(["config", "set", "platform:orgUID", emu.orgUid]);
    out[name] = await measure(name, { cli: good, check: succeeds }, { cli: bad, check: failsSaying(message) }, target);
  }
  return out;
}

/** Every toolchain's cases; writes bench/failing-preview-results.json and prints the table. @returns the results. */
export async function failingPreviewBench(): Promise<Record<string, unknown>> {
  const started = Date.now();
  const loadAtStart = loadavg().map((x) => round(x, 2));
  const toolchains: Record<string, unknown> = {};
  const rows: string[] = [];
  for (const spec of TOOLCHAIN_SPECS) {
    const tc = toolchain(spec);
    const root = mkdtempSync(path.join(REPO_ROOT, ".pulumi-work", "bench-failing-"));
    const backend = mkdtempSync(path.join(tmpdir(), "bench-failing-state-"));
    const emu = await emulatorProcess([]);
    const tcStarted = Date.now();
    const tcLoad = round(loadavg()[0]!, 2);
    try {
      log(`${tc.key}: node ${tc.version}`);
      const cases = await toolchainCases(emu, root, backend, tc.bin);
      toolchains[tc.key] = { node: tc.version, load_average_at_start: tcLoad, seconds: Math.round((Date.now() - tcStarted) / 1000), cases };
      for (const [name, f] of Object.entries(cases)) {
        const verdict = f.target === null ? "—" : f.ratio.median <= f.target ? "met" : "missed";
        rows.push(`| ${tc.key} (node ${tc.version}) | ${name} | ${PAIRS} | **${f.ratio.median}** (${f.ratio.min}–${f.ratio.max}) | ${f.ratio_of_fastest} | ${spread(f.bad_s, 2).median} / ${spread(f.good_s, 2).median} | ${f.target === null ? "—" : `≤ ${f.target}`}: ${verdict} |`);
      }
    } finally {
      await emu.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(backend, { recursive: true, force: true });
    }
  }
  const results = {
    pairs: PAIRS,
    target: TARGET,
    cores: cpus().length,
    load_average_at_start: loadAtStart,
    load_average_at_end: loadavg().map((x) => round(x, 2)),
    total_seconds: Math.round((Date.now() - started) / 1000),
    measured_at: new Date().toISOString(),
    toolchains,
  };
  const file = path.join(REPO_ROOT, "bench", "failing-preview-results.json");
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(
    `\na failing preview against the same program succeeding (load average ${results.load_average_at_start.join(" ")} at start, ${results.load_average_at_end.join(" ")} at end; ${results.total_seconds}s):\n\n` +
      "| toolchain | case | pairs | ratio, bad / good (median, min–max) | fastest bad / fastest good | median s, bad / good | target |\n|---|---|---|---|---|---|---|\n" +
      `${rows.join("\n")}\n\nwritten to ${path.relative(REPO_ROOT, file)}\n`,
  );
  return results;
}

if (require.main === module) {
  failingPreviewBench().catch((err: unknown) => {
    process.stderr.write(`bench:failing-preview: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
