/**
 * What the `recover` and `unmanaged` commands share: running the user's `pulumi` CLI, reading a stack's state and
 * config through it (`pulumi stack export`, `pulumi config --json`), writing state back (`pulumi stack import`),
 * and explaining a backend that cannot be read. These commands never edit a backend's files: every read and write
 * goes through the CLI, so every backend (file, cloud, self-hosted) works the same.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { PlatformClient } from "../client/client";
import { clientFromSettings } from "../clientFactory";
import { resolveSettings, type ConfigLookup } from "../config";
import { printable } from "../text";
import { kindOfType } from "../typeTokens";
import { stopOnTimeout } from "./failure";
import { configuredBackend, findProject, stackOf } from "./project";

/** One resource of a stack's exported state (only the fields these commands read or write). */
export interface StateResource {
  urn: string;
  custom?: boolean;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  parent?: string;
  provider?: string;
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
  [field: string]: unknown;
}

/** A pending operation of an interrupted update (`deployment.pending_operations[]`). */
export interface PendingOperation {
  resource: StateResource;
  /** `creating`, `updating`, `deleting`, `reading`, `importing`. */
  type: string;
}

/** `pulumi stack export` output (version 3). */
export interface StackExport {
  version: number;
  deployment: {
    manifest?: { time?: string };
    resources?: StateResource[];
    pending_operations?: PendingOperation[];
    [field: string]: unknown;
  };
}

/** Where the commands find the stack: `pulumi` on PATH, run in `cwd` (the Pulumi project folder). */
export interface StackRef {
  /** Stack name, passed as `--stack`. */
  stack: string;
  /** The Pulumi project's folder (holds Pulumi.yaml); default the current directory. */
  cwd: string;
  /** The CLI to run; default `pulumi` from PATH. */
  pulumi?: string;
}

/** A CLI failure, with the command and what it printed; `hint` says what to do when the cause is known. */
export class StackCommandError extends Error {
  constructor(
    message: string,
    /** What the user should do, when known. */
    readonly hint?: string,
    /**
     * Why, when the command's own output says: the error lines of the engine (its diagnostics) for a failed
     * preview, each as the engine gave it. Shown under the message (./failure.ts).
     */
    readonly reasons: readonly string[] = [],
  ) {
    super(hint ? `${message}\n${hint}` : message);
    this.name = "StackCommandError";
  }
}

/**
 * Runs `pulumi <args> --stack <stack>` (without `--stack` when `forStack` is false) with this process's environment
 * plus `env`; resolves with exit code and output whatever the code.
 * @throws StackCommandError when the CLI cannot be started.
 */
export function runPulumi(ref: StackRef, args: readonly string[], forStack = true, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ref.pulumi ?? "pulumi", forStack ? [...args, "--stack", ref.stack] : [...args], {
      cwd: ref.cwd,
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // A command's --timeout stops the CLI as Ctrl-C would (it cancels and ends its plugins), then for good.
    const forget = stopOnTimeout(() => {
      child.kill("SIGINT");
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"), 5000).unref();
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", (err) => {
      forget();
      reject(new StackCommandError(`could not run ${ref.pulumi ?? "pulumi"}: ${err.message}`, "Install the Pulumi CLI or put it on PATH."));
    });
    child.on("close", (code) => {
      forget();
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/**
 * Explains a CLI failure whose cause is known: a backend checkpoint that cannot be loaded (the file backend's
 * empty `.attrs` file left by a killed write), or a stack still locked by a killed update.
 */
export function diagnose(ref: StackRef, what: string, output: string, reasons: readonly string[] = []): StackCommandError {
  const first = output.trim().split("\n").slice(-3).join("\n");
  if (/failed to load checkpoint: (unexpected )?EOF/.test(output)) {
    const attrs = emptyAttrsFiles(ref);
    if (attrs.length > 0) {
      return new StackCommandError(
        `${what} failed: ${first}`,
        `The file backend's attributes file ${attrs.join(", ")} is empty: a killed \`pulumi\` was writing it. The checkpoint beside it is intact ` +
          `(it parses as JSON). Remove the empty attributes file (\`rm ${attrs.join(" ")}\`); the backend then reads the checkpoint without it. ` +
          "Then run this command again.",
      );
    }
    return new StackCommandError(`${what} failed: ${first}`, "The backend's checkpoint for this stack could not be read; restore it from its .bak copy or from `pulumi stack history`.");
  }
  if (/currently locked by/.test(output)) {
    const pid = /\(pid (\d+)\)/.exec(output)?.[1];
    const dead = pid !== undefined && process.platform === "linux" && !existsSync(`/proc/${pid}`);
    return new StackCommandError(
      `${what} failed: the stack is locked by an update${pid ? ` (pid ${pid}${dead ? ", no longer running" : ""})` : ""}`,
      dead || pid === undefined
        ? `The update that holds the lock was killed. Release it with \`pulumi cancel --stack ${ref.stack} --yes\`, then run this command again.`
        : "Wait for that update to end, then run this command again.",
    );
  }
  // The engine's own error lines say why (a rejected token, an org file's line); else the output's last lines.
  return reasons.length > 0 ? new StackCommandError(`${what} failed:`, undefined, reasons) : new StackCommandError(`${what} failed: ${first}`);
}

/**
 * For a file backend (the one the CLI uses from `ref.cwd`, found as it finds it: ./project.ts), the stack's
 * checkpoint attribute files that are empty.
 */
export function emptyAttrsFiles(ref: StackRef): string[] {
  const url = configuredBackend(ref.cwd)?.url;
  if (!url?.startsWith("file://")) return [];
  const root = path.join(path.resolve(ref.cwd, url.slice("file://".length).replace(/\?.*$/, "")), ".pulumi", "stacks");
  const out: string[] = [];
  const { project, stack } = stackOf(ref.stack, ref.cwd);
  for (const dir of [project ? path.join(root, project) : undefined, root]) {
    if (!dir) continue;
    const f = path.join(dir, `${stack}.json.attrs`);
    if (existsSync(f) && statSync(f).size === 0) out.push(f);
  }
  return out;
}

/**
 * The stack's state (`pulumi stack export`; secrets stay encrypted).
 * @throws StackCommandError, with what to do when the backend is damaged or the stack locked.
 */
export async function exportStack(ref: StackRef): Promise<StackExport> {
  const r = await runPulumi(ref, ["stack", "export"]);
  if (r.code !== 0) throw diagnose(ref, `pulumi stack export --stack ${ref.stack}`, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as StackExport;
}

/**
 * Writes the stack's state (`pulumi stack import`).
 * @throws StackCommandError, saying to run `pulumi cancel` when a killed update still holds the lock.
 */
export async function importStack(ref: StackRef, state: StackExport): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "platform-pulumi-state-"));
  const file = path.join(dir, "state.json");
  try {
    writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
    const r = await runPulumi(ref, ["stack", "import", "--file", file]);
    if (r.code !== 0) throw diagnose(ref, `pulumi stack import --stack ${ref.stack}`, `${r.stdout}\n${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The stack's config as `key → value` (secrets decrypted in memory, never printed). */
export async function stackConfig(ref: StackRef): Promise<Record<string, string>> {
  const r = await runPulumi(ref, ["config", "--json", "--show-secrets"]);
  if (r.code !== 0) throw diagnose(ref, `pulumi config --stack ${ref.stack}`, `${r.stdout}\n${r.stderr}`);
  const raw = JSON.parse(r.stdout || "{}") as Record<string, { value?: unknown }>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v.value === "string") out[k] = v.value;
  return out;
}

/**
 * An API client from the stack's `platform:*` config, then the environment (the provider's own settings), for a
 * command: every List it reads counts against one byte budget (`platform:maxWalkBytes`), as a report keeps the
 * rows it listed until it prints.
 */
export function clientFor(config: Record<string, string>): PlatformClient {
  const lookup: ConfigLookup = (key) => config[key];
  return clientFromSettings(resolveSettings(lookup), { walkBytesPerCommand: true });
}

/** The root group uid a stack's programs use: `platform:orgUid`, then `PLATFORM_ORG_UID`; undefined when neither. */
export function orgUidOf(config: Record<string, string>): string | undefined {
  return config["platform:orgUid"] || process.env["PLATFORM_ORG_UID"] || undefined;
}

/** The key of an object in {@link referencedUids}: kind and uid (an account association's uid is its group's). */
export function held(kind: string, uid: string): string {
  return `${kind}:${uid}`;
}

/**
 * Every object this package's resources hold in the states of the given stacks (all of the project's stacks in
 * the backend by default), as {@link held} keys.
 */
export async function referencedUids(ref: StackRef, stacks?: readonly string[]): Promise<Set<string>> {
  const names = stacks ?? (await stackNames(ref));
  const out = new Set<string>();
  for (const stack of names) {
    const s = await exportStack({ ...ref, stack });
    for (const r of s.deployment.resources ?? []) {
      const kind = kindOfType(r.type);
      if (kind !== undefined && r.id) out.add(held(kind, r.id));
    }
  }
  return out;
}

/**
 * The stacks of `withStacks` (`--with`, `<org>/<project>/<stack>`) that `names` (this project's stacks, as
 * {@link stackNames} gives them) does not already hold: a stack of this project named in full is the same stack,
 * exported once.
 */
export function beyondProject(ref: StackRef, names: readonly string[], withStacks: readonly string[]): string[] {
  const project = findProject(ref.cwd)?.name;
  return withStacks.filter((w) => {
    const parts = w.split("/");
    return !(names.includes(w) || (parts.length === 3 && parts[1] === project && names.includes(parts[2]!)));
  });
}

/** The project's stacks in the current backend (`pulumi stack ls --json`). */
export async function stackNames(ref: StackRef): Promise<string[]> {
  const r = await runPulumi(ref, ["stack", "ls", "--json"], false);
  if (r.code !== 0) throw diagnose(ref, "pulumi stack ls", `${r.stdout}\n${r.stderr}`);
  return (JSON.parse(r.stdout) as Array<{ name: string }>).map((s) => s.name.split("/").pop()!);
}

/** A fixed-width text table: a header row, a rule, then the rows. */
export function table(header: readonly string[], rawRows: ReadonlyArray<readonly string[]>): string {
  // Cells hold server text (names, descriptions): printed as text, one line each (`text.ts`).
  const rows = rawRows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
