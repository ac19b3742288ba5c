/**
 * Runs the real Pulumi CLI the way every command in this project must: offline (no update check, no plugin
 * downloads), with a file backend in a folder of the caller's choosing, and a fixed passphrase for secrets, so
 * nothing ever reaches the vendor's service (tools/README.md).
 *
 * The CLI's folder comes from `.pulumi-work/cli-bin`, written by `scripts/ensure-pulumi` (run it first; both
 * README commands do).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

/** The repository root: the nearest folder up from this file whose package.json is this package's. */
export const REPO_ROOT = findRepoRoot(__dirname);

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "platform-pulumi") return dir;
    if (path.dirname(dir) === dir) throw new Error(`no platform-pulumi package.json above ${from}`);
  }
}

/**
 * The folder holding `pulumi`, `pulumi-language-nodejs` and `pulumi-resource-pulumi-nodejs`: the one
 * `PLATFORM_PULUMI_BIN_DIR` names when set (the test suite's counting wrapper, test/harness/engine-runs.ts), else
 * the one `scripts/ensure-pulumi` recorded.
 * @throws Error naming `scripts/ensure-pulumi` when it has not run, or the recorded folder has no `pulumi`.
 */
export function cliBinDir(): string {
  const override = process.env["PLATFORM_PULUMI_BIN_DIR"];
  if (override) {
    if (!existsSync(path.join(override, "pulumi"))) throw new Error(`PLATFORM_PULUMI_BIN_DIR (${override}) has no pulumi`);
    return override;
  }
  return recordedCliBinDir();
}

/**
 * The folder `scripts/ensure-pulumi` recorded in `.pulumi-work/cli-bin`, whatever `PLATFORM_PULUMI_BIN_DIR` says.
 * @throws Error naming `scripts/ensure-pulumi` when it has not run, or the recorded folder has no `pulumi`.
 */
export function recordedCliBinDir(): string {
  const marker = path.join(REPO_ROOT, ".pulumi-work", "cli-bin");
  if (!existsSync(marker)) {
    throw new Error(`no Pulumi CLI recorded in ${marker}: run \`bash scripts/ensure-pulumi\` first (npm start and npm test do)`);
  }
  const dir = readFileSync(marker, "utf8").trim();
  if (!existsSync(path.join(dir, "pulumi"))) {
    throw new Error(`the Pulumi CLI recorded in ${marker} (${dir}) is gone: run \`bash scripts/ensure-pulumi\` again`);
  }
  return dir;
}

/** Options of {@link PulumiCli}. */
export interface PulumiCliOptions {
  /** Folder of the Pulumi project (holds Pulumi.yaml). */
  cwd: string;
  /** Folder for the file backend's state (`PULUMI_BACKEND_URL=file://<dir>`); default: the caller's `PULUMI_BACKEND_URL`. */
  backendDir?: string;
  /** Stack name, passed as `--stack` to every command that takes one. */
  stack: string;
  /** Extra environment (e.g. PLATFORM_API_URL, PLATFORM_TOKEN for the provider). */
  env?: NodeJS.ProcessEnv;
  /** Copy the CLI's output to this process's stdout/stderr as it arrives; default false. */
  echo?: boolean;
}

/** What one CLI run produced. */
export interface PulumiResult {
  /** Process exit code. */
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
}

/** Commands that take `--stack`. */
const STACK_COMMANDS = new Set(["up", "preview", "refresh", "destroy", "stack", "config"]);

/** A Pulumi CLI bound to one project, stack and file backend. */
export class PulumiCli {
  readonly bin: string;
  constructor(readonly opts: PulumiCliOptions) {
    this.bin = cliBinDir();
  }

  /**
   * The environment every command runs with: offline settings, file backend, CLI folder first on PATH (before
   * `opts.env.PATH` when given, e.g. another Node.js first, else this process's PATH).
   */
  env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...this.opts.env,
      PATH: `${this.bin}${path.delimiter}${this.opts.env?.["PATH"] ?? process.env["PATH"] ?? ""}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      ...(this.opts.backendDir ? { PULUMI_BACKEND_URL: `file://${this.opts.backendDir}` } : {}),
      PULUMI_CONFIG_PASSPHRASE: process.env["PULUMI_CONFIG_PASSPHRASE"] ?? "platform-pulumi-local",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      NO_COLOR: "1",
    };
  }

  /**
   * Runs `pulumi <args...>` (adding `--stack` and `--non-interactive` where they apply) and resolves with its
   * result, whatever the exit code.
   */
  run(args: readonly string[], opts: { echo?: boolean } = {}): Promise<PulumiResult> {
    const echo = opts.echo ?? this.opts.echo ?? false;
    const full = [...args];
    if (STACK_COMMANDS.has(args[0] ?? "") && !(args[0] === "stack" && ["init", "ls", "select"].includes(args[1] ?? ""))) {
      full.push("--stack", this.opts.stack);
    }
    if (["up", "preview", "refresh", "destroy"].includes(args[0] ?? "")) full.push("--non-interactive");
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(path.join(this.bin, "pulumi"), full, { cwd: this.opts.cwd, env: this.env(), stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d;
        if (echo) process.stdout.write(d);
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d;
        if (echo) process.stderr.write(d);
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    });
  }

  /**
   * Runs a command that must succeed.
   * @throws Error with the command, exit code and the output's tail when it exits non-zero.
   */
  async ok(args: readonly string[], opts: { echo?: boolean } = {}): Promise<PulumiResult> {
    const r = await this.run(args, opts);
    if (r.code !== 0) {
      const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-40).join("\n");
      throw new Error(`pulumi ${args.join(" ")} exited ${r.code}:\n${tail}`);
    }
    return r;
  }

  /** Creates the stack if needed and selects it. */
  async initStack(): Promise<void> {
    await this.ok(["stack", "select", "--create", this.opts.stack], { echo: false });
  }

  /** The stack's outputs as JSON. */
  async outputs(): Promise<Record<string, unknown>> {
    const r = await this.ok(["stack", "output", "--json", "--show-secrets"], { echo: false });
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  /** The stack's exported state (`pulumi stack export`). */
  async exportState(): Promise<{ deployment: { resources?: Array<Record<string, unknown>> } }> {
    const r = await this.ok(["stack", "export"], { echo: false });
    return JSON.parse(r.stdout) as { deployment: { resources?: Array<Record<string, unknown>> } };
  }
}
