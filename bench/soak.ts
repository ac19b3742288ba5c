/**
 * `npm run soak`: tries hard to make creates duplicate, orphan or take over, and checks after every round, against
 * the API, that they never do. Each round runs the real Pulumi CLI against the standalone emulator
 * started as its own process, with its fault controls:
 *
 * - **two-stacks**: two stacks of one project declare the same names under one root and run `pulumi up` at the
 *   same time through 10% UNAVAILABLE, 5% connection resets and 3% dropped create responses;
 * - **kill**: one `pulumi up` with 150 ms latency is killed with SIGKILL after a random number of creates, then
 *   `pulumi cancel`, `platform-pulumi recover --yes` and `pulumi up`;
 * - **invites**: groups with account associations and group invites, with the next creates' responses dropped.
 *
 * Invariants checked every round: no object is in two states; the objects the round created on the server are
 * exactly the union of the states (an up that exited 0 leaves nothing more and nothing less: a silent duplicate
 * or orphan otherwise); after a safe refusal (an up that failed naming the candidates) every extra object is
 * listed by `platform-pulumi unmanaged`; nothing is left after each round's destroy; no process started by a
 * `pulumi` outlives it. Prints a table and writes `bench/soak-results.json`.
 *
 * Environment: `SOAK_ROUNDS` (rounds in all, taking the scenarios in turn; default 9, about 6 minutes on 2 cores),
 * `SOAK_SCENARIOS` (comma list, default all three), `SOAK_SEED` (default 1), and the program's size: `SOAK_TOPS`,
 * `SOAK_SUBS` (org shape: top-level groups, subgroups each; default 4 and 2), `SOAK_INVITE_GROUPS`, `SOAK_INVITES`
 * (invites shape; default 3 and 3).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { recover } from "../provider/commands/recover";
import { findUnmanaged } from "../provider/commands/unmanaged";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT, cliBinDir, type PulumiResult } from "../scripts/lib/pulumi";

/** The collections a round's objects live in (uid sets are compared per collection). */
const COLLECTIONS = ["groups", "identities", "roleBindings", "accountAssociations", "groupInvites"] as const;
type Coll = (typeof COLLECTIONS)[number];
const KIND_OF: Record<string, Coll> = {
  Group: "groups",
  Identity: "identities",
  RoleBinding: "roleBindings",
  AccountAssociation: "accountAssociations",
  GroupInvite: "groupInvites",
};

/** One scenario's round, as checked. */
export interface RoundResult {
  scenario: string;
  round: number;
  /** `pulumi up` runs that exited 0 / that failed (a failure must be a safe refusal). */
  upsOk: number;
  upsFailed: number;
  /** Failed ups whose error named candidates (the refusal the contract allows). */
  refusals: number;
  /** Objects held by two states. */
  shared: number;
  /** Objects on the server no state holds, after ups that all exited 0. */
  silentExtras: number;
  /** Objects on the server no state holds that `unmanaged` did not list (after a refusal). */
  unreported: number;
  /** State entries whose object is not on the server. */
  missing: number;
  /** Objects the round created still on the server after its destroy. */
  leftAfterDestroy: number;
  /** Processes started under a `pulumi` that were alive 3 s after it exited. */
  survivors: number;
  /** Wall time of the round in seconds. */
  seconds: number;
  /** What went wrong, for the report. */
  notes: string[];
}

/** The standalone emulator in its own process, with its control surface. */
interface Api {
  url: string;
  token: string;
  orgUid: string;
  child: ChildProcess;
  control(settings: Record<string, unknown>): Promise<void>;
  state(): Promise<Record<Coll, Record<string, unknown>>>;
  stop(): Promise<void>;
}

async function startApi(): Promise<Api> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "emulator", "cli.js"), "--port", "0", "--control"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const lines = await new Promise<string[]>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      if (out.split("\n").length > 3) resolve(out.split("\n"));
    });
    child.on("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const env = Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
  const url = env["PLATFORM_API_URL"]!;
  return {
    url,
    token: env["PLATFORM_TOKEN"]!,
    orgUid: env["PLATFORM_ORG_UID"]!,
    child,
    control: async (settings) => {
      const r = await fetch(`${url}/_emulator/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(settings) });
      if (!r.ok) throw new Error(`control: HTTP ${r.status}`);
    },
    state: async () => (await (await fetch(`${url}/_emulator/state`)).json()) as Record<Coll, Record<string, unknown>>,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** uids per collection of the rows under `root` (the root itself excluded). */
function under(state: Record<Coll, Record<string, unknown>>, root: string): Record<Coll, Set<string>> {
  const out = {} as Record<Coll, Set<string>>;
  for (const c of COLLECTIONS) {
    const rows = state[c] ?? {};
    const uids = Array.isArray(rows) ? (rows as Array<{ uid: string }>).map((r) => r.uid) : Object.keys(rows);
    out[c] = new Set(uids.filter((u) => u.startsWith(`${root}/`)));
  }
  return out;
}

/**
 * Tracks the processes started under some `pulumi` processes: samples /proc every 100 ms to learn their
 * descendants while they run, and afterwards counts those still alive (zombies count as dead).
 */
class ProcessTracker {
  private readonly seen = new Map<number, string>();
  private readonly roots = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  constructor() {
    this.timer = setInterval(() => this.sample(), 100);
  }
  watch(pid: number | undefined): void {
    if (pid) this.roots.add(pid);
  }
  private sample(): void {
    if (process.platform !== "linux") return;
    const parent = new Map<number, number>();
    for (const p of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // gone
      }
    }
    for (const [pid] of parent) {
      for (let cur: number | undefined = pid, depth = 0; cur && depth < 8; cur = parent.get(cur), depth++) {
        if (this.roots.has(cur) && cur !== pid) {
          if (!this.seen.has(pid)) this.seen.set(pid, safeCmd(pid));
          break;
        }
      }
    }
  }
  /** Stops sampling; waits up to `graceMs` for descendants to go; returns those still alive (and kills them). */
  async survivors(graceMs = 3000): Promise<string[]> {
    clearInterval(this.timer);
    const alive = () => [...this.seen].filter(([pid, cmd]) => isAlive(pid) && safeCmd(pid) === cmd);
    const deadline = Date.now() + graceMs;
    while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const left = alive();
    for (const [pid] of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    return left.map(([pid, cmd]) => `${pid} ${cmd.slice(0, 120)}`);
  }
}

function safeCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Runs `pulumi` with the tracker watching it; resolves with its result. */
async function tracked(cli: PulumiCli, tracker: ProcessTracker, args: string[], onStart?: (child: ChildProcess) => void): Promise<PulumiResult> {
  const full = [...args, "--stack", cli.opts.stack];
  if (["up", "preview", "refresh", "destroy"].includes(args[0]!)) full.push("--non-interactive");
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(cli.bin, "pulumi"), full, { cwd: cli.opts.cwd, env: cli.env(), stdio: ["ignore", "pipe", "pipe"] });
    tracker.watch(child.pid);
    onStart?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
  });
}

interface StackRun {
  cli: PulumiCli;
  name: string;
}

/** uids per collection held by a stack's state (this package's resources). */
async function stateUids(cli: PulumiCli): Promise<Record<Coll, Set<string>>> {
  const out = Object.fromEntries(COLLECTIONS.map((c) => [c, new Set<string>()])) as Record<Coll, Set<string>>;
  const s = await cli.exportState();
  for (const r of s.deployment.resources ?? []) {
    const type = String(r["type"]);
    const coll = KIND_OF[type.slice(type.lastIndexOf(":") + 1)];
    if (type.startsWith("pulumi-nodejs:dynamic/platform:") && coll && r["id"]) out[coll].add(String(r["id"]));
  }
  return out;
}

interface RoundContext {
  api: Api;
  dir: string;
  backend: string;
  seed: number;
}

function newStack(ctx: RoundContext, name: string, config: Record<string, string>): StackRun & { init: () => Promise<void> } {
  const cli = new PulumiCli({
    cwd: ctx.dir,
    backendDir: ctx.backend,
    stack: name,
    env: { PLATFORM_API_URL: ctx.api.url, PLATFORM_TOKEN: ctx.api.token, PLATFORM_ORG_UID: ctx.api.orgUid },
  });
  return {
    cli,
    name,
    init: async () => {
      await cli.initStack();
      for (const [k, v] of Object.entries(config)) await cli.ok(["config", "set", k, v]);
    },
  };
}

/** Checks the invariants after a round's ups; fills the result's counters. */
async function check(ctx: RoundContext, before: Record<Coll, Set<string>>, stacks: StackRun[], res: RoundResult): Promise<void> {
  const now = under(await ctx.api.state(), ctx.api.orgUid);
  const created = {} as Record<Coll, Set<string>>;
  for (const c of COLLECTIONS) created[c] = new Set([...now[c]].filter((u) => !before[c].has(u)));
  const states = await Promise.all(stacks.map((s) => stateUids(s.cli)));
  const extras: string[] = [];
  for (const c of COLLECTIONS) {
    const count = new Map<string, number>();
    for (const st of states) for (const u of st[c]) count.set(u, (count.get(u) ?? 0) + 1);
    for (const [u, n] of count) {
      if (n > 1) {
        res.shared += 1;
        res.notes.push(`${c} ${u} is in ${n} states`);
      }
      if (!created[c].has(u) && !before[c].has(u)) {
        res.missing += 1;
        res.notes.push(`${c} ${u} is in a state but not on the server`);
      }
    }
    for (const u of created[c]) if (!count.has(u)) extras.push(`${c}:${u}`);
  }
  if (extras.length === 0) return;
  if (res.upsFailed === 0) {
    res.silentExtras += extras.length;
    res.notes.push(`extra objects after ups that all exited 0: ${extras.join(", ")}`);
    return;
  }
  // After a refusal, every extra object must be listed by `unmanaged` for some stack.
  const listed = new Set<string>();
  for (const s of stacks) {
    const client = new PlatformClient({ apiUrl: ctx.api.url, token: ctx.api.token });
    try {
      const rows = await withCliEnvAsync(s.cli, () => findUnmanaged({ stack: s.name, cwd: ctx.dir, pulumi: path.join(s.cli.bin, "pulumi") }, client, ctx.api.orgUid));
      for (const r of rows) listed.add(`${KIND_OF[r.kind] ?? r.kind}:${r.uid}`);
    } finally {
      await client.close();
    }
  }
  for (const e of extras) {
    if (!listed.has(e)) {
      res.unreported += 1;
      res.notes.push(`extra object not listed by unmanaged: ${e}`);
    }
  }
}

/** Runs `fn` with this process's environment set as the CLI's (recover and unmanaged run `pulumi` themselves). */
async function withCliEnvAsync<T>(cli: PulumiCli, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, cli.env());
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/** Destroys every stack with faults off and counts what the round created that is still there. */
async function destroyAll(ctx: RoundContext, before: Record<Coll, Set<string>>, stacks: StackRun[], tracker: ProcessTracker, res: RoundResult): Promise<void> {
  await ctx.api.control({ errorRates: {}, resetRate: 0, dropCreateRate: 0, dropCreateResponses: 0, latencyMs: 0 });
  for (const s of stacks) {
    const r = await tracked(s.cli, tracker, ["destroy", "--yes"]);
    if (r.code !== 0) res.notes.push(`destroy of ${s.name} exited ${r.code}: ${tail(r)}`);
  }
  const now = under(await ctx.api.state(), ctx.api.orgUid);
  for (const c of COLLECTIONS) {
    const left = [...now[c]].filter((u) => !before[c].has(u));
    res.leftAfterDestroy += left.length;
    if (left.length) res.notes.push(`left after destroy: ${c} ${left.join(", ")}`);
  }
}

function tail(r: PulumiResult): string {
  return `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-6).join(" | ").slice(0, 800);
}

function isRefusal(r: PulumiResult): boolean {
  return /none was adopted|none was deleted|did not make|another writer/.test(`${r.stdout}\n${r.stderr}`);
}

function newResult(scenario: string, round: number): RoundResult {
  return { scenario, round, upsOk: 0, upsFailed: 0, refusals: 0, shared: 0, silentExtras: 0, unreported: 0, missing: 0, leftAfterDestroy: 0, survivors: 0, seconds: 0, notes: [] };
}

/** A deterministic pseudo-random sequence (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sizes of one round's program. */
export interface SoakSize {
  /** Top-level groups of the org shape (each with `subs` subgroups, an identity and a binding per group). */
  tops: number;
  subs: number;
  /** Groups of the invites shape, and invites per group. */
  inviteGroups: number;
  invites: number;
}

/** Default sizes: about 36 resources per stack in the org shape, 15 in the invites shape. */
export const DEFAULT_SIZE: SoakSize = { tops: 4, subs: 2, inviteGroups: 3, invites: 3 };

async function round(scenario: string, n: number, seed: number, size: SoakSize): Promise<RoundResult> {
  const res = newResult(scenario, n);
  const started = Date.now();
  const api = await startApi();
  const dir = mkdtempSync(path.join(tmpdir(), `platform-soak-${scenario}-`));
  const backend = path.join(dir, ".state");
  const tracker = new ProcessTracker();
  const ctx: RoundContext = { api, dir, backend, seed };
  try {
    const src = path.join(REPO_ROOT, "bench", "programs", "soak");
    for (const f of ["Pulumi.yaml", "index.js", "package.json"]) writeFileSync(path.join(dir, f), readFileSync(path.join(src, f)));
    // The program resolves platform-pulumi and @pulumi/pulumi from this repository's node_modules.
    const { symlinkSync, mkdirSync } = await import("node:fs");
    symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    mkdirSync(backend);
    const before = under(await api.state(), api.orgUid);
    const orgCfg = { shape: "org", tops: String(size.tops), subs: String(size.subs) };
    if (scenario === "two-stacks") {
      const a = newStack(ctx, "a", orgCfg);
      const b = newStack(ctx, "b", orgCfg);
      await a.init();
      await b.init();
      await api.control({ errorRates: { "14": 0.1 }, resetRate: 0.05, dropCreateRate: 0.03, seed });
      const results = await Promise.all([tracked(a.cli, tracker, ["up", "--yes", "--skip-preview"]), tracked(b.cli, tracker, ["up", "--yes", "--skip-preview"])]);
      for (const r of results) record(res, r);
      await check(ctx, before, [a, b], res);
      await destroyAll(ctx, before, [a, b], tracker, res);
    } else if (scenario === "kill") {
      const s = newStack(ctx, "k", orgCfg);
      await s.init();
      await api.control({ latencyMs: 150 });
      const total = size.tops * (1 + size.subs) * 3;
      const killAt = 2 + Math.floor(rng(seed)() * (total - 4));
      let killed = false;
      const r = await tracked(s.cli, tracker, ["up", "--yes", "--skip-preview"], (child) => {
        const poll = setInterval(() => {
          void api.state().then((st) => {
            const now = under(st, api.orgUid);
            const made = COLLECTIONS.reduce((acc, c) => acc + [...now[c]].filter((u) => !before[c].has(u)).length, 0);
            if (made >= killAt && !killed) {
              killed = true;
              clearInterval(poll);
              child.kill("SIGKILL");
            }
          });
        }, 50);
        child.on("close", () => clearInterval(poll));
      });
      res.notes.push(`killed after ${killAt} objects: ${killed}`);
      if (!killed) record(res, r);
      await api.control({ latencyMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the server completes what was in flight
      await s.cli.run(["cancel", "--yes"]);
      const out: string[] = [];
      const code = await withCliEnvAsync(s.cli, () => recover({ stack: s.name, cwd: dir, yes: true, pulumi: path.join(s.cli.bin, "pulumi"), out: (x) => void out.push(x) }));
      if (code !== 0) res.notes.push(`recover exited ${code}: ${out.join("").slice(-800)}`);
      const adopted = out.join("").match(/^adopted /gm)?.length ?? 0;
      const settled = /(\d+) pending operation\(s\) settled/.exec(out.join(""))?.[1] ?? "0";
      res.notes.push(`recover settled ${settled} pending operation(s), adopting ${adopted}`);
      record(res, await tracked(s.cli, tracker, ["up", "--yes", "--skip-preview"]));
      await check(ctx, before, [s], res);
      await destroyAll(ctx, before, [s], tracker, res);
    } else if (scenario === "invites") {
      const s = newStack(ctx, "i", { shape: "invites", tops: String(size.inviteGroups), invites: String(size.invites) });
      await s.init();
      const total = size.inviteGroups * (2 + size.invites);
      await api.control({ dropCreateResponses: Math.max(1, Math.floor(total / 2)), seed });
      record(res, await tracked(s.cli, tracker, ["up", "--yes", "--skip-preview"]));
      await check(ctx, before, [s], res);
      await destroyAll(ctx, before, [s], tracker, res);
    } else throw new Error(`unknown scenario ${scenario}`);
    const left = await tracker.survivors();
    res.survivors = left.length;
    if (left.length) res.notes.push(`survivors: ${left.join("; ")}`);
  } finally {
    await tracker.survivors(0).catch(() => []);
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
    res.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return res;
}

function record(res: RoundResult, r: PulumiResult): void {
  if (r.code === 0) res.upsOk += 1;
  else {
    res.upsFailed += 1;
    if (isRefusal(r)) res.refusals += 1;
    else res.notes.push(`up failed (not a refusal): ${tail(r)}`);
  }
}

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Rounds in all; they take the scenarios in turn. */
  rounds: number;
  scenarios?: readonly string[];
  seed?: number;
  size?: SoakSize;
  /** Progress lines; default stderr. */
  log?: (line: string) => void;
}

/** Whether a round broke an invariant (an up that failed without being a safe refusal counts too). */
export function violated(r: RoundResult): boolean {
  return r.shared + r.silentExtras + r.unreported + r.missing + r.leftAfterDestroy + r.survivors > 0 || r.upsFailed > r.refusals;
}

/** Runs the soak and returns every round's result. */
export async function runSoak(opts: SoakOptions): Promise<RoundResult[]> {
  cliBinDir(); // fail early with the ensure-pulumi hint
  const scenarios = opts.scenarios ?? ["two-stacks", "kill", "invites"];
  const log = opts.log ?? ((l: string) => void process.stderr.write(`soak: ${l}\n`));
  const out: RoundResult[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    const sc = scenarios[i % scenarios.length]!;
    const r = await round(sc, i + 1, (opts.seed ?? 1) * 1000 + i, opts.size ?? DEFAULT_SIZE);
    out.push(r);
    log(`round ${i + 1}/${opts.rounds} ${sc}: ${violated(r) ? "VIOLATION" : "ok"} in ${r.seconds}s (ups ok ${r.upsOk}, failed ${r.upsFailed}, refusals ${r.refusals})${r.notes.length ? `; ${r.notes.join("; ")}` : ""}`);
  }
  return out;
}

/** The summary table: one row per scenario with the counters summed. */
export function summary(results: readonly RoundResult[]): string {
  const by = new Map<string, RoundResult[]>();
  for (const r of results) by.set(r.scenario, [...(by.get(r.scenario) ?? []), r]);
  const head = "| scenario | rounds | ups ok | safe refusals | other failed ups | shared objects | silent duplicates/orphans | orphans unmanaged missed | state without object | left after destroy | surviving processes | wall s |";
  const rows = [...by].map(([sc, rs]) => {
    const sum = (k: keyof RoundResult) => rs.reduce((a, r) => a + (r[k] as number), 0);
    return `| ${sc} | ${rs.length} | ${sum("upsOk")} | ${sum("refusals")} | ${sum("upsFailed") - sum("refusals")} | ${sum("shared")} | ${sum("silentExtras")} | ${sum("unreported")} | ${sum("missing")} | ${sum("leftAfterDestroy")} | ${sum("survivors")} | ${Math.round(sum("seconds"))} |`;
  });
  return [head, `|${"---|".repeat(12)}`, ...rows].join("\n");
}

async function main(): Promise<void> {
  const rounds = Number(process.env["SOAK_ROUNDS"] ?? 9);
  const scenarios = process.env["SOAK_SCENARIOS"]?.split(",").filter(Boolean);
  const started = Date.now();
  const env = (k: string, d: number) => (process.env[k] === undefined ? d : Number(process.env[k]));
  const size: SoakSize = {
    tops: env("SOAK_TOPS", DEFAULT_SIZE.tops),
    subs: env("SOAK_SUBS", DEFAULT_SIZE.subs),
    inviteGroups: env("SOAK_INVITE_GROUPS", DEFAULT_SIZE.inviteGroups),
    invites: env("SOAK_INVITES", DEFAULT_SIZE.invites),
  };
  const results = await runSoak({ rounds, size, ...(scenarios ? { scenarios } : {}), seed: Number(process.env["SOAK_SEED"] ?? 1) });
  const table = summary(results);
  process.stdout.write(`${table}\n\nwall time: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  const file = path.join(REPO_ROOT, "bench", "soak-results.json");
  writeFileSync(file, `${JSON.stringify({ rounds: results.length, wallSeconds: (Date.now() - started) / 1000, violations: results.filter(violated).length, results }, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  process.exit(results.some(violated) ? 1 : 0);
}

if (require.main === module && existsSync(path.join(REPO_ROOT, "dist"))) void main();
