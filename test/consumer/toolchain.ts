/**
 * Helpers of the consumer tier (`consumer.test.ts`): the toolchains it runs on, child processes with a clean
 * environment, the standalone emulator started from an installed package's bin, and README and docs/ blocks as files.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";

/** One Node.js + @pulumi/pulumi combination the package declares and the tier installs. */
export interface Toolchain {
  /** Short name for test titles and logs. */
  name: string;
  /** Node.js major the run must be on. */
  nodeMajor: number;
  /** The exact Node.js release to fetch (scripts/ensure-node) when this machine's node is another major. */
  nodeVersion: string;
  /** Always fetch `nodeVersion`, even when this machine's node has the major. */
  alwaysFetch: boolean;
  /** The version spec written into the consumer's package.json for @pulumi/pulumi and @pulumi/policy. */
  pulumiSpec: string;
  policySpec: string;
  /** What the installed versions must be: "low" = the declared range's low end, "newest" = the registry's latest. */
  expect: "low" | "newest";
}

/** The package's own manifest. */
export const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  engines: { node: string };
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/**
 * The low end of a caret range (`^3.248.0` → `3.248.0`).
 * @throws Error for any other range form: the tier installs the low end, so the range must have one.
 */
export function lowEnd(range: string): string {
  const m = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!m) throw new Error(`peer range "${range}" is not of the form ^x.y.z; the consumer tier installs its low end`);
  return m[1]!;
}

/**
 * The two toolchains: the oldest supported (Node 20 with the low end of every peer range) and the newest
 * (Node 24 with whatever the peer ranges resolve to today, which must be the registry's latest).
 */
export const TOOLCHAINS: readonly Toolchain[] = [
  {
    name: "Node 20 + low end of the peer ranges",
    nodeMajor: 20,
    nodeVersion: "20.20.2",
    alwaysFetch: false,
    pulumiSpec: lowEnd(PKG.peerDependencies["@pulumi/pulumi"]!),
    policySpec: lowEnd(PKG.peerDependencies["@pulumi/policy"]!),
    expect: "low",
  },
  {
    name: "Node 24 + newest",
    nodeMajor: 24,
    nodeVersion: process.env["CONSUMER_NODE_VERSION"] ?? "24.21.0",
    alwaysFetch: true,
    pulumiSpec: PKG.peerDependencies["@pulumi/pulumi"]!,
    policySpec: PKG.peerDependencies["@pulumi/policy"]!,
    expect: "newest",
  },
];

/**
 * The folder of the toolchain's `node` (and its npm): this process's when it has the toolchain's major and the
 * toolchain does not ask for a fetch, else the release `nodeVersion` made by scripts/ensure-node (fetched once,
 * then found).
 * @throws Error with the script's output when it fails.
 */
export async function toolchainNodeBin(tc: Toolchain): Promise<string> {
  const systemMajor = Number(process.versions.node.split(".")[0]);
  if (!tc.alwaysFetch && systemMajor === tc.nodeMajor) return path.dirname(process.execPath);
  const r = await run("bash", [path.join(REPO_ROOT, "scripts", "ensure-node"), tc.nodeVersion], { cwd: REPO_ROOT, env: cleanEnv() });
  if (r.code !== 0) throw new Error(`scripts/ensure-node ${tc.nodeVersion} failed:\n${tail(r)}`);
  return r.stdout.trim().split("\n").pop()!;
}

/** What a child process did. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * This process's environment without what `npm run` adds (`npm_*`, e.g. the repository's loglevel=silent) or a
 * test runner's NODE_OPTIONS, with `binDir` (a toolchain's node) first on PATH when given.
 */
export function cleanEnv(binDir?: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k === "NODE_OPTIONS" || k === "INIT_CWD" || k.startsWith("PLATFORM_")) continue;
    env[k] = v;
  }
  if (binDir) env["PATH"] = `${binDir}${path.delimiter}${process.env["PATH"] ?? ""}`;
  return { ...env, ...extra };
}

/** Runs a command to its end; resolves whatever the exit code. */
export function run(cmd: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGTERM"), opts.timeoutMs ?? 300_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * Packs the package (`npm pack`) into `dest` and returns the tarball's path. Its prepack builds first, unless
 * `ignoreScripts` (for a caller that runs after `npm run build`, as `npm test` does, and wants the time back).
 * A test wants `packedTarball()` of test/harness/tarball.ts instead: the same pack (scripts off), once per build.
 * @throws Error with npm's output when the pack fails.
 */
export async function packTarball(dest: string, opts: { ignoreScripts?: boolean } = {}): Promise<string> {
  const args = ["pack", "--pack-destination", dest, "--loglevel=warn", ...(opts.ignoreScripts ? ["--ignore-scripts"] : [])];
  const packed = await run("npm", args, { cwd: REPO_ROOT, env: cleanEnv(), timeoutMs: 300_000 });
  const tarball = path.join(dest, `${PKG.name}-${PKG.version}.tgz`);
  if (packed.code !== 0 || !readdirSync(dest).includes(path.basename(tarball))) throw new Error(`npm pack failed:\n${tail(packed)}`);
  return tarball;
}

/** The output's last lines, for assertion messages. */
export function tail(r: { stdout: string; stderr: string }, lines = 40): string {
  return `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-lines).join("\n");
}

/** A standalone emulator process and the three settings it printed. */
export interface StartedEmulator {
  child: ChildProcess;
  apiUrl: string;
  token: string;
  orgUid: string;
  /** Everything it wrote to stdout (must be exactly the three lines). */
  stdout(): string;
}

/**
 * Starts `<bin> emulator --port 0` (the installed package's bin, on the toolchain's node through its shebang)
 * and resolves once it has printed its three `KEY=value` lines.
 * @throws Error when it exits or prints something else first, or after 30 s.
 */
export function startEmulatorBin(bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<StartedEmulator> {
  const child = spawn(bin, ["emulator", "--port", "0"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d));
  child.stderr.on("data", (d: Buffer) => (err += d));
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll);
      child.kill("SIGTERM");
      reject(new Error(`${bin} emulator: ${why}; stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`));
    };
    const timer = setTimeout(() => fail("no three lines within 30 s"), 30_000);
    const poll = setInterval(() => {
      const lines = out.split("\n");
      if (lines.length < 4) return;
      clearInterval(poll);
      clearTimeout(timer);
      const kv = Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      const apiUrl = kv["PLATFORM_API_URL"];
      const token = kv["PLATFORM_TOKEN"];
      const orgUid = kv["PLATFORM_ORG_UID"];
      if (!apiUrl || !token || !orgUid) return fail("the first three lines are not PLATFORM_API_URL, PLATFORM_TOKEN, PLATFORM_ORG_UID");
      resolve({ child, apiUrl, token, orgUid, stdout: () => out });
    }, 50);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(`exited with ${code}`);
    });
  });
}

/** A fenced TypeScript block of README.md or of a docs/ page. */
export interface ReadmeBlock {
  /** The Markdown file the block is in, relative to the repository root (`README.md`, `docs/org.md`). */
  file: string;
  /** 1-based line number of the block's first code line in that file. */
  line: number;
  code: string;
}

/** Every ```ts / ```typescript block of a Markdown text, as written; `file` names the text (default README.md). */
export function typescriptBlocks(markdown: string, file = "README.md"): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    blocks.push({ file, line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

/**
 * The documentation convention: each TypeScript block compiles on its own, as a CommonJS module of a new Pulumi
 * TypeScript project that installed platform-pulumi (the template tsconfig), with only this comment before it.
 * A block imports what it uses, the root group's uid included (`orgUid()` of the package).
 */
export const README_PREAMBLE = ["// A README block as written (see test/consumer/toolchain.ts)."];

/**
 * The block as a module file: the preamble, then the block as written. A block without a top-level import or
 * export gets `export {}` after it, so blocks never share a global scope.
 */
export function blockFile(block: ReadmeBlock): string {
  const isModule = /^(import|export)\b/m.test(block.code);
  return [...README_PREAMBLE, block.code, ...(isModule ? [] : ["export {};"]), ""].join("\n");
}

/**
 * The file name a block is compiled as: its Markdown file's path with `/` as `__`, then `-L<line>.ts`
 * (`README.md-L12.ts`, `docs__org.md-L7.ts`), so {@link mapReadmeDiagnostics} can name the place it came from.
 */
export function blockFileName(block: ReadmeBlock): string {
  return `${block.file.replace(/\//g, "__")}-L${block.line}.ts`;
}

/**
 * Maps tsc diagnostics in block files (`<file>-L<line>.ts(<l>,<c>)`, see {@link blockFileName}) back to
 * `<file>:<line>:<c>` in the Markdown (`README.md:12:5`, `docs/org.md:9:3`).
 */
export function mapReadmeDiagnostics(output: string): string {
  return output.replace(/(?:readme[\\/])?([\w.-]+\.md)-L(\d+)\.ts\((\d+),(\d+)\)/g, (_m, file: string, start: string, l: string, c: string) => {
    const at = Number(start) + Number(l) - 1 - README_PREAMBLE.length;
    return `${file.replace(/__/g, "/")}:${at}:${c}`;
  });
}

/**
 * The commands of the documented CI snippets that run this package's bin: every `run: npx platform-pulumi …` line of
 * the Markdown's ```yaml blocks, as written (a `- run:` list item or a `run:` key).
 */
export function ciSnippetCommands(markdown: string): string[] {
  const out: string[] = [];
  let inYaml = false;
  for (const line of markdown.split("\n")) {
    if (/^```yaml\s*$/.test(line)) inYaml = true;
    else if (/^```/.test(line)) inYaml = false;
    else if (inYaml) {
      const m = /^\s*(?:-\s+)?run:\s+(npx platform-pulumi .*)$/.exec(line);
      if (m) out.push(m[1]!.trim());
    }
  }
  return out;
}
