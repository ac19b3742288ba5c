/**
 * `npm run bench:jobs`: the four jobs of the `platform-pulumi` bin at org scale, each against the engine run a
 * user would otherwise wait for, on the generated org (bench/programs/org: groups nested 4 deep, an identity and a
 * binding per group, every identity trusting the same GitHub workload) brought up once per size on an emulator in
 * another process (bench/emulatorProcess.ts), with the file backend in a temporary folder.
 *
 * | key | job (the built bin, `node dist/cli/main.js … --format json`) | baseline (the `pulumi` CLI) |
 * |---|---|---|
 * | gate | `gate --stack <s>` (scope org, the default): `stack export`, `config`, the org read from the API, `stack ls` and the other stacks' exports, then `preview --policy-pack` with the event log, and the report | `pulumi preview --policy-pack <repo>/policies` |
 * | gate_stack | `gate --stack <s> --scope stack`: the same without the org read | `pulumi preview --policy-pack <repo>/policies` |
 * | drift | `drift --stack <s>`: `stack export`, then `preview --refresh` with the event log | `pulumi preview --refresh` |
 * | access_org | `access --stack <s> --current` (scope org, the default): `stack export`, `config`, the org read from the API, `stack ls` and the other stacks' exports, the model | `pulumi preview` |
 * | access_stack | `access --stack <s> --current --scope stack`: the same without the org read | `pulumi preview` |
 * | access_change | `access --stack <s>` (the review of a change, scope org): as access_org plus `preview --json` | `pulumi preview` |
 * | unmanaged | `unmanaged --stack <s>`: `stack export`, `stack ls`, `config`, then a walk of the API under the stack's groups | `pulumi preview --refresh` |
 *
 * `access --current` runs no preview: its baseline is the plain `pulumi preview` a reviewer runs on the same
 * stack (the cheapest engine run that reads the program and the state), not `stack export` alone (about a second,
 * and inside the job already). `unmanaged` is set against `pulumi preview --refresh`, the engine run that reads
 * every object of the stack from the API, which is what a user checks the API with otherwise.
 *
 * Figures, per size and job: the wall time ratio job / baseline of each interleaved pair (the order alternates per
 * round and job), median and min–max (bench/stats.ts); seconds of each side; the bin's own node process's peak
 * RSS (`process.resourceUsage().maxRSS`, written at exit by a `--require`d hook) and CPU seconds; the peak RSS of
 * the job's whole process tree (the sum of the RSS of the bin and every descendant, sampled from /proc every
 * `BENCH_JOBS_POLL_MS`, default 100) and the same of the baseline's tree; the largest sampled RSS per process kind
 * (bin, pulumi, language host, program, dynamic provider, policy pack); the `pulumi` commands the bin ran, with
 * their seconds as sampled (first round), which says what the job's time is spent in; stdout bytes and the length
 * of each top-level array of the JSON report. Targets (docs/performance.md, "The bin's jobs at org scale"): each
 * job ≤ 1.3× its baseline and ≤ 1 GB RSS at 3,000 objects.
 *
 * Environment: BENCH_JOBS_SIZES (objects, multiples of 15, default 150,750; 3,000 is opt-in: `up` alone took
 * 575–680 s here with intermediate checkpoints), BENCH_JOBS_ROUNDS (pairs per job at the smallest size, default 5),
 * BENCH_JOBS_ROUNDS_LARGE (at the others, default 3), BENCH_JOBS_LIST (jobs, default all of the table's keys),
 * BENCH_JOBS_FORMAT (the jobs' `--format`, default json; a run with another format keeps its figures under
 * `<job>@<format>`),
 * BENCH_JOBS_SKIP_CHECKPOINTS (default 1: the one `up` that brings a size's stack up runs with
 * `PULUMI_SKIP_CHECKPOINTS=true`, so the file backend writes the state once instead of after every step; it is
 * not measured). Results go to bench/jobs-results.json (sizes not run keep their earlier figures; each says when
 * and how it was measured). `BENCH_JOBS=1 npm run bench` runs it after the rest. Run it on an otherwise idle
 * machine.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { emulatorProcess } from "./emulatorProcess";
import { cleanUpBenchRun } from "./native";
import { pairRatios, round, spread, type Spread } from "./stats";

const SIZES = (process.env["BENCH_JOBS_SIZES"] ?? "150,750").split(",").map((x) => Number(x.trim()));
const ROUNDS = Number(process.env["BENCH_JOBS_ROUNDS"] ?? 5);
const ROUNDS_LARGE = Number(process.env["BENCH_JOBS_ROUNDS_LARGE"] ?? 3);
const POLL_MS = Number(process.env["BENCH_JOBS_POLL_MS"] ?? 100);
/** The jobs' `--format` (BENCH_JOBS_FORMAT): `json` by default, the largest form; `table` or `markdown` to measure those. */
const FORMAT = process.env["BENCH_JOBS_FORMAT"] ?? "json";
const SKIP_CHECKPOINTS = process.env["BENCH_JOBS_SKIP_CHECKPOINTS"] !== "0";
/**
 * BENCH_JOBS_LAYOUT: `single` (default; the org as one stack) or `split` (the org as a root stack and
 * BENCH_JOBS_CHILDREN child stacks, default 8, as bench/split.ts lays it out: `export --layout split`'s layout). With
 * `split` the jobs run on the first child stack with `--with` naming every other stack of the set, against the same
 * engine run on that child; the figures go under `sizes["<size>/split"]`.
 */
const LAYOUT = process.env["BENCH_JOBS_LAYOUT"] ?? "single";
const CHILDREN = Number(process.env["BENCH_JOBS_CHILDREN"] ?? 8);
const TIMEOUT_S = Number(process.env["BENCH_JOBS_TIMEOUT"] ?? 1200);
const POLICIES = path.join(REPO_ROOT, "policies");
const BIN = path.join(REPO_ROOT, "dist", "cli", "main.js");
const PAGE_KB = 4; // /proc/<pid>/stat counts RSS in pages of 4 KiB on x86-64 and arm64 Linux

/** One job of the bin and its baseline engine run. */
interface Job {
  key: string;
  /** The bin's arguments after `--stack <s> --cwd <program>`. */
  bin: string[];
  /** `pulumi` arguments (the bench adds `--stack` and `--non-interactive`). */
  baseline: string[];
}

const ALL_JOBS: readonly Job[] = [
  { key: "gate", bin: ["gate"], baseline: ["preview", "--policy-pack", POLICIES] },
  { key: "gate_stack", bin: ["gate", "--scope", "stack"], baseline: ["preview", "--policy-pack", POLICIES] },
  { key: "drift", bin: ["drift"], baseline: ["preview", "--refresh"] },
  { key: "access_org", bin: ["access", "--current"], baseline: ["preview"] },
  { key: "access_stack", bin: ["access", "--current", "--scope", "stack"], baseline: ["preview"] },
  { key: "access_change", bin: ["access"], baseline: ["preview"] },
  { key: "unmanaged", bin: ["unmanaged"], baseline: ["preview", "--refresh"] },
];
const LIST = (process.env["BENCH_JOBS_LIST"] ?? ALL_JOBS.map((j) => j.key).join(",")).split(",").map((x) => x.trim());
const JOBS = ALL_JOBS.filter((j) => LIST.includes(j.key));

const log = (s: string) => process.stderr.write(`bench:jobs: ${s}\n`);

/** Rounds at `size`: BENCH_JOBS_ROUNDS at the smallest size, BENCH_JOBS_ROUNDS_LARGE at the others. */
const roundsFor = (size: number) => (size > Math.min(...SIZES) ? ROUNDS_LARGE : ROUNDS);

/**
 * The parent pid, RSS (KiB) and command name of a process from the text of its `/proc/<pid>/stat` (proc(5): the
 * name is in parentheses and may hold spaces and parentheses, so fields are counted after the last `)`; `ppid` is
 * field 4, `rss` field 24, in pages of `pageKb` KiB). @throws Error when the text is not a stat line.
 */
export function parseStat(text: string, pageKb = PAGE_KB): { ppid: number; rssKb: number; comm: string } {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${JSON.stringify(text.slice(0, 80))}`);
  const rest = text.slice(close + 2).split(" ");
  // rest[0] is field 3 (state): field n is rest[n - 3].
  const ppid = Number(rest[1]);
  const rss = Number(rest[21]);
  if (!Number.isInteger(ppid) || !Number.isInteger(rss)) throw new Error(`not a /proc stat line: ${JSON.stringify(text.slice(0, 80))}`);
  return { ppid, rssKb: rss * pageKb, comm: text.slice(open + 1, close) };
}

/**
 * `root` and every process below it in `parents` (pid → parent pid), breadth first, plus the pids of `known`
 * still listed in `parents` (a process once found below `root` stays counted after its parent exits and it is
 * handed to another reaper). Pure; pids not in `parents` (ended) are left out, `root` included.
 */
export function treeOf(parents: ReadonlyMap<number, number>, root: number, known: ReadonlySet<number> = new Set()): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, pp] of parents) children.set(pp, [...(children.get(pp) ?? []), pid]);
  const out = parents.has(root) ? [root] : [];
  const seen = new Set(out);
  for (const queue = [root]; queue.length; ) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      queue.push(c);
    }
  }
  for (const k of known) if (parents.has(k) && !seen.has(k)) out.push(k);
  return out;
}

/** What a process of a job's tree is, from its command line (for the peak RSS per kind). */
function kindOf(cmd: string, isRoot: boolean): string {
  if (isRoot) return cmd.includes(BIN) ? "bin" : "pulumi";
  if (cmd.includes("dynamic-provider") || cmd.includes("pulumi-resource-pulumi-nodejs")) return "dynamic_provider";
  if (cmd.includes("pulumi-analyzer-policy") || cmd.includes("policy-pack") || cmd.includes(`${path.sep}policy${path.sep}`)) return "policy_pack";
  if (cmd.includes("pulumi-language-nodejs")) return "language_host";
  if (cmd.includes("@pulumi/pulumi/cmd/run") || cmd.includes(`${path.sep}run${path.sep}index.js`) || cmd.includes("run-plugin")) return "program";
  if (/(^|\/)pulumi(\0|$)/.test(cmd)) return "pulumi";
  return cmd.split("\0")[0]!.split("/").pop() || "other";
}

/** What the tree of one process did: sampled peaks, and the commands its root started, with their sampled seconds. */
interface TreeFigures {
  /** The largest sum of RSS over the tree at one sample, MiB. */
  peakMb: number;
  /** The largest RSS of one process of each kind at a sample, MiB. */
  byKindMb: Record<string, number>;
  /** The root's direct children (first argument and sub-command), with first-to-last-sample seconds, in start order. */
  children: Array<{ cmd: string; s: number }>;
}

/** Samples the process tree under `root` every POLL_MS until stopped. */
function treeWatcher(root: number): { stop: () => TreeFigures } {
  const known = new Set<number>();
  const cmdOf = new Map<number, string>();
  const fig: TreeFigures = { peakMb: 0, byKindMb: {}, children: [] };
  const seenChild = new Map<number, { cmd: string; first: number; last: number }>();
  const sample = () => {
    const now = performance.now();
    const parents = new Map<number, number>();
    const rss = new Map<number, number>();
    for (const p of readdirSync("/proc")) {
      if (!/^\d+$/.test(p)) continue;
      try {
        const s = parseStat(readFileSync(`/proc/${p}/stat`, "utf8"));
        parents.set(Number(p), s.ppid);
        rss.set(Number(p), s.rssKb);
      } catch {
        // The process ended between the listing and the read.
      }
    }
    let sum = 0;
    for (const pid of treeOf(parents, root, known)) {
      known.add(pid);
      const kb = rss.get(pid) ?? 0;
      sum += kb;
      let cmd = cmdOf.get(pid);
      // A fork may not have exec'd yet: read its command line again until it names a program of its own.
      if (cmd === undefined || cmd === cmdOf.get(parents.get(pid) ?? -1)) {
        try {
          cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          cmdOf.set(pid, cmd);
        } catch {
          continue;
        }
      }
      const kind = kindOf(cmd, pid === root);
      fig.byKindMb[kind] = Math.max(fig.byKindMb[kind] ?? 0, kb / 1024);
      if (parents.get(pid) === root) {
        const argv = cmd.split("\0").filter(Boolean);
        // `pulumi stack export`, `pulumi preview`: the program and its sub-command, without flags and their values.
        const words = argv.slice(1).filter((a, i, all) => !a.startsWith("-") && !(all[i - 1] ?? "").startsWith("--") && !a.includes(path.sep));
        const name = `${path.basename(argv[0] ?? "?")} ${words.slice(0, 2).join(" ")}`.trim();
        const c = seenChild.get(pid);
        if (c) {
          c.last = now;
          c.cmd = name;
        } else seenChild.set(pid, { cmd: name, first: now, last: now });
      }
    }
    fig.peakMb = Math.max(fig.peakMb, sum / 1024);
  };
  sample();
  const timer = setInterval(sample, POLL_MS);
  return {
    stop: () => {
      clearInterval(timer);
      fig.byKindMb = Object.fromEntries(Object.entries(fig.byKindMb).map(([k, v]) => [k, round(v, 1)]));
      fig.peakMb = round(fig.peakMb, 1);
      fig.children = [...seenChild.values()].map((c) => ({ cmd: c.cmd, s: round((c.last - c.first) / 1000 + POLL_MS / 1000, 2) }));
      return fig;
    },
  };
}

/** The `--require`d hook: at exit, the bin's own peak RSS (KiB) and CPU (µs), written to BENCH_JOBS_USAGE_OUT. */
const USAGE_HOOK = [
  "const out = process.env.BENCH_JOBS_USAGE_OUT;",
  "if (out) process.on('exit', () => {",
  "  const u = process.resourceUsage();",
  "  require('fs').writeFileSync(out, JSON.stringify({ maxRssKb: u.maxRSS, userUs: u.userCPUTime, systemUs: u.systemCPUTime }));",
  "});",
].join("\n");

/** One timed run of a side. */
interface Run {
  code: number;
  s: number;
  stdoutBytes: number;
  stdout: string;
  stderr: string;
  tree: TreeFigures;
  /** The bin's own figures (the job side only). */
  own?: { maxRssMb: number; cpuS: number };
}

/**
 * Runs `cmd args` in `cwd` with `env` in a process group of its own, timing it from spawn to exit and sampling its
 * process tree; past TIMEOUT_S the whole group is killed (exit code -1).
 */
function timed(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, usageFile?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { cwd, env: usageFile ? { ...env, BENCH_JOBS_USAGE_OUT: usageFile } : env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const watcher = treeWatcher(child.pid!);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // The group has ended already.
      }
    }, TIMEOUT_S * 1000);
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const s = (performance.now() - started) / 1000;
      const tree = watcher.stop();
      const stdout = Buffer.concat(out);
      const run: Run = { code: code ?? -1, s, stdoutBytes: stdout.length, stdout: stdout.toString(), stderr: err, tree };
      if (usageFile) {
        try {
          const u = JSON.parse(readFileSync(usageFile, "utf8")) as { maxRssKb: number; userUs: number; systemUs: number };
          run.own = { maxRssMb: round(u.maxRssKb / 1024, 1), cpuS: round((u.userUs + u.systemUs) / 1e6, 2) };
        } catch {
          // The hook wrote nothing (the process was killed): no figures of its own.
        }
      }
      resolve(run);
    });
  });
}

/** The length of each top-level array of a JSON report (`{ grants: 12386 }`; `{ items: n }` for a report that is one array), or its parse error. */
function shapeOf(stdout: string): Record<string, number | string> {
  try {
    const j = JSON.parse(stdout) as Record<string, unknown>;
    if (Array.isArray(j)) return { items: j.length };
    // A SARIF log: its results, and those left out past its caps (provider/commands/sarifLog.ts).
    const run = Array.isArray(j["runs"]) ? (j["runs"] as Array<{ results?: unknown[]; properties?: Record<string, { results?: number; grants?: number } | undefined> }>)[0] : undefined;
    if (run) {
      const left = run.properties?.["platformPulumi/leftOut"];
      return { sarif_results: run.results?.length ?? 0, ...(left ? { left_out_results: left.results ?? 0, left_out_grants: left.grants ?? 0 } : {}) };
    }
    return Object.fromEntries(Object.entries(j).filter(([, v]) => Array.isArray(v)).map(([k, v]) => [k, (v as unknown[]).length]));
  } catch (err) {
    return { error: (err as Error).message.slice(0, 120) };
  }
}

interface JobSamples {
  order: string[];
  bin_s: number[];
  baseline_s: number[];
  bin_rss_mb: number[];
  bin_cpu_s: number[];
  bin_tree_peak_mb: number[];
  baseline_tree_peak_mb: number[];
  exit: number[];
  stdout_bytes: number[];
  report: Record<string, number | string>;
  bin_by_kind_mb: Record<string, number>;
  baseline_by_kind_mb: Record<string, number>;
  bin_commands: Array<{ cmd: string; s: number }>;
  /** A run of the bin that could not finish (exit 2, a crash, past BENCH_JOBS_TIMEOUT): the job's later rounds are skipped. */
  failure?: { round: number; exit: number; s: number; own_peak_rss_mb: number | null; tree_peak_mb: number; stderr_tail: string };
}

/** One size: the stack brought up once, then every job against its baseline, interleaved, for `rounds` rounds. */
async function sizeBench(size: number, rounds: number, hook: string): Promise<Record<string, unknown>> {
  const load = loadavg().map((x) => round(x, 2));
  const started = new Date().toISOString();
  const emu = await emulatorProcess([]);
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const viewer = (await client.roles.list({ name: "viewer" }).collect())[0]!.uid;
  await client.close();
  const backend = mkdtempSync(path.join(tmpdir(), "bench-jobs-"));
  const cwd = path.join(REPO_ROOT, "bench", "programs", "org");
  const split = LAYOUT === "split";
  const base = `jobs-${size}`;
  const apiEnv = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  const cliOf = (name: string) => new PulumiCli({ cwd, backendDir: backend, stack: name, env: apiEnv });
  // The stacks: one, or a root and CHILDREN children; the jobs run on the first child.
  const names = split ? [`${base}-root`, ...Array.from({ length: CHILDREN }, (_, b) => `${base}-c${b}`)] : [base];
  const stack = split ? `${base}-c0` : base;
  const cli = cliOf(stack);
  const withArgs = split ? names.filter((n) => n !== stack).flatMap((n) => ["--with", `organization/bench-org/${n}`]) : [];
  const samples: Record<string, JobSamples> = {};
  let upS: number;
  let resources: number;
  try {
    const upStarted = Date.now();
    for (const [i, name] of names.entries()) {
      const c = cliOf(name);
      await c.initStack();
      const part = !split ? [] : i === 0 ? ["part=root"] : ["part=child", `bucket=${i - 1}`, `buckets=${CHILDREN}`, `rootStack=organization/bench-org/${base}-root`];
      await c.ok(["config", "set-all", ...["mode=real", `roleUid=${viewer}`, `size=${size}`, ...part].flatMap((kv) => ["--plaintext", kv])]);
      const upCli = SKIP_CHECKPOINTS ? new PulumiCli({ ...c.opts, env: { ...c.opts.env, PULUMI_SKIP_CHECKPOINTS: "true" } }) : c;
      await upCli.ok(["up", "--yes", "--skip-preview"]);
    }
    upS = (Date.now() - upStarted) / 1000;
    resources = ((await cli.exportState()).deployment.resources ?? []).filter((r) => String(r["type"]).startsWith("pulumi-nodejs:dynamic/platform:")).length;
    if (!split && resources !== size) throw new Error(`the stack holds ${resources} objects of this package after up, not ${size}`);
    log(`size ${size}${split ? ` as ${names.length} stacks (jobs on ${stack})` : ""}: up in ${upS.toFixed(1)} s${SKIP_CHECKPOINTS ? " (PULUMI_SKIP_CHECKPOINTS)" : ""}, ${resources} objects in the stack judged; ${rounds} round(s) of ${JOBS.map((j) => j.key).join(", ")}`);
    const env = cli.env();
    const usage = path.join(backend, "usage.json");
    // One untimed run of each side's programs first, so neither side of the first pair pays for cold caches (the
    // CLI's plugins, the program's modules, the bin's modules: `access --help` loads them and reads no stack).
    await timed(path.join(cli.bin, "pulumi"), ["preview", "--stack", stack, "--non-interactive"], cwd, env);
    await timed(process.execPath, [BIN, "access", "--help"], cwd, env);
    for (const job of JOBS) {
      samples[job.key] = { order: [], bin_s: [], baseline_s: [], bin_rss_mb: [], bin_cpu_s: [], bin_tree_peak_mb: [], baseline_tree_peak_mb: [], exit: [], stdout_bytes: [], report: {}, bin_by_kind_mb: {}, baseline_by_kind_mb: {}, bin_commands: [] };
    }
    for (let r = 0; r < rounds; r++) {
      for (const [j, job] of JOBS.entries()) {
        const f = samples[job.key]!;
        if (f.failure) continue;
        const order = (r + j) % 2 === 0 ? (["bin", "baseline"] as const) : (["baseline", "bin"] as const);
        f.order.push(order.join(">"));
        const at = loadavg()[0]!;
        for (const side of order) {
          if (side === "bin") {
            rmSync(usage, { force: true });
            // `--with` where the job reads the org: not `drift` (the stack alone; its `--with` goes with --unmanaged),
            // not `--scope stack`.
            const more = job.bin.includes("--scope") || job.key === "drift" ? [] : withArgs;
            const run = await timed(process.execPath, ["--require", hook, BIN, ...job.bin, "--stack", stack, "--cwd", cwd, "--format", FORMAT, ...more], cwd, env, usage);
            if (run.code !== 0 && run.code !== 1) {
              // Recorded, not thrown: a job that cannot finish at this size is a finding; its pair is dropped.
              f.failure = { round: r + 1, exit: run.code, s: round(run.s, 1), own_peak_rss_mb: run.own?.maxRssMb ?? null, tree_peak_mb: run.tree.peakMb, stderr_tail: run.stderr.trim().split("\n").slice(-6).join("\n").slice(0, 2000) };
              if (f.baseline_s.length > f.bin_s.length) {
                f.baseline_s.pop();
                f.baseline_tree_peak_mb.pop();
              }
              log(`size ${size} round ${r + 1}/${rounds} ${job.key} bin FAILED: exit ${run.code} after ${run.s.toFixed(1)} s, own RSS ${run.own?.maxRssMb ?? "?"} MB, tree ${run.tree.peakMb} MB: ${f.failure.stderr_tail}`);
              break;
            }
            f.bin_s.push(run.s);
            f.bin_rss_mb.push(run.own?.maxRssMb ?? Number.NaN);
            f.bin_cpu_s.push(run.own?.cpuS ?? Number.NaN);
            f.bin_tree_peak_mb.push(run.tree.peakMb);
            f.exit.push(run.code);
            f.stdout_bytes.push(run.stdoutBytes);
            for (const [k, v] of Object.entries(run.tree.byKindMb)) f.bin_by_kind_mb[k] = Math.max(f.bin_by_kind_mb[k] ?? 0, v);
            if (r === 0) {
              f.report = shapeOf(run.stdout);
              f.bin_commands = run.tree.children;
            }
            log(`size ${size} round ${r + 1}/${rounds} ${job.key} bin: ${run.s.toFixed(2)} s, exit ${run.code}, own RSS ${run.own?.maxRssMb ?? "?"} MB, tree ${run.tree.peakMb} MB, ${run.stdoutBytes} bytes; ${run.tree.children.map((c) => `${c.cmd} ${c.s}s`).join(", ")}`);
          } else {
            const run = await timed(path.join(cli.bin, "pulumi"), [...job.baseline, "--stack", stack, "--non-interactive"], cwd, env);
            if (run.code !== 0) throw new Error(`pulumi ${job.baseline.join(" ")} exited ${run.code}: ${`${run.stdout}\n${run.stderr}`.trim().split("\n").slice(-15).join("\n")}`);
            f.baseline_s.push(run.s);
            f.baseline_tree_peak_mb.push(run.tree.peakMb);
            for (const [k, v] of Object.entries(run.tree.byKindMb)) f.baseline_by_kind_mb[k] = Math.max(f.baseline_by_kind_mb[k] ?? 0, v);
            log(`size ${size} round ${r + 1}/${rounds} ${job.key} baseline (pulumi ${job.baseline[0]}${job.baseline.includes("--refresh") ? " --refresh" : ""}${job.baseline.includes("--policy-pack") ? " --policy-pack" : ""}): ${run.s.toFixed(2)} s, tree ${run.tree.peakMb} MB (load ${at.toFixed(2)} at the pair's start)`);
          }
        }
      }
    }
    for (const name of names) await cliOf(name).ok(["stack", "rm", "--yes", "--force"]);
  } finally {
    await cleanUpBenchRun(backend, cwd, emu);
  }
  const max = (xs: number[]) => round(Math.max(...xs), 1);
  return {
    run: `${started}, ${rounds} round(s), load average ${load.join(" ")} at the start`,
    layout: split ? `split: ${names.length} stacks (a root and ${CHILDREN} children); the jobs on ${stack} with --with the others` : "single",
    objects: resources,
    org_objects: size,
    rounds,
    setup_up_s: round(upS, 1),
    setup_skip_checkpoints: SKIP_CHECKPOINTS,
    load_average_at_start: load,
    jobs: Object.fromEntries(
      Object.entries(samples).map(([key, f]) => [
        FORMAT === "json" ? key : `${key}@${FORMAT}`,
        {
          bin: ALL_JOBS.find((j) => j.key === key)!.bin.join(" "),
          baseline: `pulumi ${ALL_JOBS.find((j) => j.key === key)!.baseline.map((a) => (a === POLICIES ? "<repo>/policies" : a)).join(" ")}`,
          pairs: f.bin_s.length,
          ...(f.bin_s.length
            ? {
                time_ratio: pairRatios(f.bin_s, f.baseline_s),
                bin_s: spread(f.bin_s, 2),
                baseline_s: spread(f.baseline_s, 2),
                bin_own_peak_rss_mb: max(f.bin_rss_mb),
                bin_own_cpu_s: spread(f.bin_cpu_s, 2),
                bin_tree_peak_rss_mb: max(f.bin_tree_peak_mb),
                baseline_tree_peak_rss_mb: max(f.baseline_tree_peak_mb),
                stdout_bytes: Math.max(...f.stdout_bytes),
              }
            : {}),
          ...(f.failure ? { failure: f.failure } : {}),
          bin_peak_rss_by_kind_mb: f.bin_by_kind_mb,
          baseline_peak_rss_by_kind_mb: f.baseline_by_kind_mb,
          bin_commands_first_round: f.bin_commands,
          report_first_round: f.report,
          exit: f.exit,
          order: f.order,
          samples: { bin_s: f.bin_s.map((x) => round(x, 3)), baseline_s: f.baseline_s.map((x) => round(x, 3)), bin_rss_mb: f.bin_rss_mb, bin_tree_peak_mb: f.bin_tree_peak_mb, baseline_tree_peak_mb: f.baseline_tree_peak_mb },
        },
      ]),
    ),
  };
}

/** Runs every size of BENCH_JOBS_SIZES, writing bench/jobs-results.json after each, and prints a table (also what `BENCH_JOBS=1 npm run bench` runs). */
export async function jobsBench(): Promise<void> {
  const started = Date.now();
  log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}; sizes ${SIZES.join(", ")}; rounds ${SIZES.map(roundsFor).join(", ")}; jobs ${JOBS.map((j) => j.key).join(", ")}`);
  const hookDir = mkdtempSync(path.join(tmpdir(), "bench-jobs-hook-"));
  const hook = path.join(hookDir, "usage.js");
  writeFileSync(hook, `${USAGE_HOOK}\n`);
  const file = path.join(REPO_ROOT, "bench", "jobs-results.json");
  const fresh: Record<string, Record<string, unknown>> = {};
  try {
    for (const size of SIZES) {
      fresh[LAYOUT === "split" ? `${size}/split` : size] = await sizeBench(size, roundsFor(size), hook);
      let earlier: Record<string, unknown> = {};
      try {
        earlier = (JSON.parse(readFileSync(file, "utf8")) as { sizes?: Record<string, unknown> }).sizes ?? {};
      } catch {
        // No earlier file: this run's sizes alone.
      }
      // A run of some jobs (BENCH_JOBS_LIST) keeps the other jobs' earlier figures at that size.
      const merged: Record<string, unknown> = { ...earlier };
      for (const [k, v] of Object.entries(fresh)) {
        const was = (earlier[k] ?? {}) as Record<string, unknown>;
        merged[k] = { ...was, ...v, jobs: { ...((was["jobs"] as Record<string, unknown> | undefined) ?? {}), ...((v["jobs"] as Record<string, unknown> | undefined) ?? {}) } };
      }
      writeFileSync(file, `${JSON.stringify({ cores: cpus().length, node: process.version, poll_ms: POLL_MS, targets: { time_ratio: 1.3, rss_mb_at_3000: 1024 }, sizes: merged }, null, 2)}\n`);
    }
  } finally {
    rmSync(hookDir, { recursive: true, force: true });
  }
  process.stdout.write(`\n| objects | job | pairs | time ratio, median (min–max) | bin s / baseline s | bin's node peak RSS MB | job tree peak RSS MB | baseline tree peak RSS MB |\n|---|---|---|---|---|---|---|---|\n`);
  for (const [size, s] of Object.entries(fresh)) {
    for (const [key, j] of Object.entries(s["jobs"] as Record<string, { pairs: number; time_ratio?: Spread; bin_s?: Spread; baseline_s?: Spread; bin_own_peak_rss_mb?: number; bin_tree_peak_rss_mb?: number; baseline_tree_peak_rss_mb?: number; failure?: { round: number; exit: number; s: number; own_peak_rss_mb: number | null } }>)) {
      const t = j.time_ratio;
      const failed = j.failure ? `; round ${j.failure.round} failed: exit ${j.failure.exit} after ${j.failure.s} s, own RSS ${j.failure.own_peak_rss_mb ?? "?"} MB` : "";
      process.stdout.write(`| ${size} | ${key} | ${j.pairs} | ${t ? `${t.median} (${t.min}–${t.max})` : "—"}${failed} | ${j.bin_s?.median ?? "—"} / ${j.baseline_s?.median ?? "—"} | ${j.bin_own_peak_rss_mb ?? "—"} | ${j.bin_tree_peak_rss_mb ?? "—"} | ${j.baseline_tree_peak_rss_mb ?? "—"} |\n`);
    }
  }
  process.stdout.write(`\nwritten to bench/jobs-results.json in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

if (require.main === module) {
  jobsBench().catch((err: unknown) => {
    process.stderr.write(`bench:jobs: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
