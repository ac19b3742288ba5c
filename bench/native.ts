/**
 * The native provider plugin against the dynamic provider and the no-op floor (`npm run bench` runs it after the
 * size sweep; `npm run bench:native` runs it alone): `pulumi up`, `refresh --yes` and `destroy` of the generated org
 * (bench/programs/org) at each size in three modes of the same program, on the same Node.js language host:
 *
 * - `native`: raw `pulumi.CustomResource("platform:iam:Group", …)` and so on, served by the native provider plugin
 *   (`plugin/pulumi-resource-platform`, `provider/native/`; named in the program's Pulumi.yaml, docs/native.md);
 * - `real`: this package's dynamic resources (the dynamic-provider plugin);
 * - `noop`: the floor, a dynamic provider that does nothing (bench/programs/org/noop.js).
 *
 * The three are interleaved in rotation (ABC, BCA, CAB, …: {@link rotation}) round by round, every op of a round
 * run by each mode before the next op, against one emulator per size in another process (bench/emulatorProcess.ts).
 * Each ratio is taken per round (native/dynamic, native/floor, dynamic/floor), then reported as the median of the
 * rounds with its min–max. While each op runs, the peak RSS (`VmHWM` of /proc/<pid>/status, sampled every 50 ms; the
 * kernel keeps the high-water mark, so a sample misses only growth in the op's last 50 ms) of the provider
 * process under this one (not other users' plugins on a shared machine) is recorded: the native plugin's (`dist/provider/native/main.js` in its command line) and the dynamic
 * provider's (`dynamic-provider`, the floor's plugin too).
 *
 * Environment: BENCH_NATIVE_SIZES (resources, multiples of 15; default BENCH_SIZES, else 150,750),
 * BENCH_NATIVE_ROUNDS (rounds at the smallest size, default 3), BENCH_NATIVE_ROUNDS_LARGE (at the other sizes, default
 * 2), BENCH_NATIVE_OUT (the standalone run's results file, default bench/native-results.json); BENCH_NATIVE=0 leaves
 * it out of `npm run bench`, whose results.json keeps the figures under `native`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { emulatorProcess } from "./emulatorProcess";
import { pairRatios, rotation, round, spread, type Spread } from "./stats";

/** A mode of the org program (config `mode`). */
export type NativeSide = "native" | "real" | "noop";
/** The sides in the order of round 0; each later round rotates it. */
export const NATIVE_SIDES: readonly NativeSide[] = ["native", "real", "noop"];
const OPS = ["up", "refresh", "destroy"] as const;
type Op = (typeof OPS)[number];

/**
 * Command-line fragments of the provider processes, per kind of plugin: the node process and the plugin's shell
 * wrapper (the wrapper's own few MiB never set the peak).
 */
const NEEDLES: Record<"native" | "dynamic", readonly string[]> = {
  native: [path.join("dist", "provider", "native", "main.js"), "pulumi-resource-platform"],
  dynamic: ["dynamic-provider", "pulumi-resource-pulumi-nodejs"],
};

const log = (s: string) => process.stderr.write(`bench native: ${s}\n`);

/** The parent pid of `pid`, from /proc/<pid>/stat (the field after the command, which may hold spaces and parentheses). */
function parentOf(pid: string): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]!;
}

/**
 * Peak `VmHWM` (MiB), sampled every 50 ms until stopped, of this process's descendants (the Pulumi CLI and the
 * plugins it starts; other users' plugins on a shared machine are not counted) whose command line contains one of
 * each key's needles.
 */
function hwmWatcher(needles: Record<string, readonly string[]>): { stop: () => Record<string, number> } {
  const peak: Record<string, number> = Object.fromEntries(Object.keys(needles).map((k) => [k, 0]));
  // pid → needle key, once matched (a plugin's wrapper execs node or forks it, so a match stays one); a pid that
  // matches nothing is read again at the next sample, as it may be a fork that has not yet exec'd its program.
  const kindOf = new Map<string, string>();
  const parent = new Map<string, string>();
  const me = String(process.pid);
  const sample = () => {
    const pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    const children = new Map<string, string[]>();
    for (const pid of pids) {
      try {
        if (!parent.has(pid)) parent.set(pid, parentOf(pid));
        const pp = parent.get(pid)!;
        children.set(pp, [...(children.get(pp) ?? []), pid]);
      } catch {
        // The process ended between the listing and the read.
      }
    }
    const mine: string[] = [];
    for (const queue = [me]; queue.length; ) {
      for (const c of children.get(queue.shift()!) ?? []) {
        mine.push(c);
        queue.push(c);
      }
    }
    for (const pid of mine) {
      try {
        let kind = kindOf.get(pid);
        if (kind === undefined) {
          const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          kind = Object.entries(needles).find(([, ns]) => ns.some((n) => cmd.includes(n)))?.[0];
          if (kind === undefined) continue;
          kindOf.set(pid, kind);
        }
        const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
        peak[kind] = Math.max(peak[kind]!, kb / 1024);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 50);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** What {@link nativeBench} measured at one size. */
export interface NativeFigures {
  size: number;
  /** Each round's order of the sides, e.g. `native,real,noop`. */
  orders: string[];
  /** The 1-minute load average at the start of each round. */
  loadAtRound: number[];
  /** Wall seconds per op and side, one per round. */
  seconds: Record<Op, Record<NativeSide, number[]>>;
  /** Peak VmHWM (MiB) of the side's provider process over the op, per op and side, one per round. */
  hwmMb: Record<Op, Record<NativeSide, number[]>>;
  /** Resources of the org in the first native and dynamic states (both should be `size`). */
  resources: { native: number; real: number };
}

/**
 * `pulumi up`, `refresh --yes` and `destroy` of the org of `size` resources in each of {@link NATIVE_SIDES}, in
 * rotation for `rounds` rounds, against a fresh emulator process; the provider processes' peak RSS per op.
 * @throws Error when a Pulumi command fails or a state does not hold `size` resources of the org.
 */
export async function nativeBench(size: number, rounds: number): Promise<NativeFigures> {
  const emu = await emulatorProcess([]);
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const viewer = (await client.roles.list({ name: "viewer" }).collect())[0]!.uid;
  await client.close();
  const backend = mkdtempSync(path.join(tmpdir(), "bench-native-"));
  const cwd = path.join(REPO_ROOT, "bench", "programs", "org");
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  const per = () => Object.fromEntries(NATIVE_SIDES.map((s) => [s, [] as number[]])) as Record<NativeSide, number[]>;
  const f: NativeFigures = {
    size,
    orders: [],
    loadAtRound: [],
    seconds: { up: per(), refresh: per(), destroy: per() },
    hwmMb: { up: per(), refresh: per(), destroy: per() },
    resources: { native: 0, real: 0 },
  };
  try {
    for (let r = 0; r < rounds; r++) {
      const order = rotation(NATIVE_SIDES, r);
      f.orders.push(order.join(","));
      f.loadAtRound.push(round(loadavg()[0]!, 2));
      const clis = {} as Record<NativeSide, PulumiCli>;
      for (const mode of order) {
        const cli = new PulumiCli({ cwd, backendDir: backend, stack: `${mode}-${size}-${r}`, env });
        await cli.initStack();
        await cli.ok(["config", "set", "mode", mode]);
        await cli.ok(["config", "set", "roleUid", viewer]);
        await cli.ok(["config", "set", "size", String(size)]);
        clis[mode] = cli;
      }
      for (const op of OPS) {
        for (const mode of order) {
          const watcher = hwmWatcher(NEEDLES);
          const res = await clis[mode].ok([op, "--yes", "--skip-preview"]);
          const peak = watcher.stop();
          f.seconds[op][mode].push(res.ms / 1000);
          f.hwmMb[op][mode].push(round(mode === "native" ? peak["native"]! : peak["dynamic"]!, 1));
          log(`size ${size} round ${r + 1}/${rounds} ${op} ${mode}: ${(res.ms / 1000).toFixed(2)}s, provider peak RSS ${f.hwmMb[op][mode].at(-1)} MiB (native plugin ${round(peak["native"]!, 1)}, dynamic ${round(peak["dynamic"]!, 1)})`);
          if (op === "up" && r === 0 && mode !== "noop") {
            const state = JSON.parse((await clis[mode].ok(["stack", "export"], { echo: false })).stdout) as { deployment: { resources?: Array<{ type: string }> } };
            const prefix = mode === "native" ? "platform:iam:" : "pulumi-nodejs:dynamic/platform:";
            const n = (state.deployment.resources ?? []).filter((x) => x.type.startsWith(prefix)).length;
            if (n !== size) throw new Error(`the ${mode} stack holds ${n} resources of the org after up, not ${size}`);
            f.resources[mode] = n;
          }
        }
      }
      for (const mode of order) await clis[mode].ok(["stack", "rm", "--yes", "--force"]);
    }
  } finally {
    await cleanUpBenchRun(backend, cwd, emu);
  }
  return f;
}

/**
 * What every bench run that drives the CLI leaves behind, removed: its file state backend (`backend`), the
 * `Pulumi.<stack>.yaml` files its stacks wrote in `cwd` (the program's `Pulumi.yaml` stays), and its emulator.
 */
export async function cleanUpBenchRun(backend: string, cwd: string, emu: { close(): Promise<void> }): Promise<void> {
  rmSync(backend, { recursive: true, force: true });
  for (const file of readdirSync(cwd).filter((x) => /^Pulumi\..+\.yaml$/.test(x) && x !== "Pulumi.yaml")) rmSync(path.join(cwd, file));
  await emu.close();
}

/** The figures of {@link nativeBench} as the results files keep them, per size (see docs/performance.md). */
export function nativeResults(figs: readonly NativeFigures[]): Record<string, unknown> {
  const maxOf = (xs: number[]) => round(Math.max(...xs), 1);
  return Object.fromEntries(
    figs.map((f) => [
      f.size,
      {
        rounds: f.orders.length,
        orders: f.orders,
        load_average_at_round_start: f.loadAtRound,
        native_over_dynamic: Object.fromEntries(OPS.map((op) => [op, pairRatios(f.seconds[op].native, f.seconds[op].real)])),
        native_over_floor: Object.fromEntries(OPS.map((op) => [op, pairRatios(f.seconds[op].native, f.seconds[op].noop)])),
        dynamic_over_floor: Object.fromEntries(OPS.map((op) => [op, pairRatios(f.seconds[op].real, f.seconds[op].noop)])),
        seconds: Object.fromEntries(OPS.map((op) => [op, Object.fromEntries(NATIVE_SIDES.map((s) => [s, spread(f.seconds[op][s], 2)]))])),
        peak_rss_mb: {
          native_plugin: maxOf(OPS.flatMap((op) => f.hwmMb[op].native)),
          dynamic_plugin: maxOf(OPS.flatMap((op) => f.hwmMb[op].real)),
          floor_plugin: maxOf(OPS.flatMap((op) => f.hwmMb[op].noop)),
          by_op: f.hwmMb,
        },
        resources: f.resources,
        samples: f.seconds,
      },
    ]),
  );
}

/** A Markdown table of {@link nativeResults}: per size, the native/dynamic ratio of each op, and the plugins' peak RSS. */
export function nativeTable(results: Record<string, unknown>): string {
  const fmt = (s: Spread) => `${s.median} (${s.min}–${s.max})`;
  const rows = ["| resources | rounds | up native/dynamic | refresh native/dynamic | destroy native/dynamic | up s native / dynamic / floor | refresh s | destroy s | peak RSS MiB native / dynamic / floor plugin |", "|---|---|---|---|---|---|---|---|---|"];
  for (const [size, v] of Object.entries(results)) {
    const r = v as { rounds: number; native_over_dynamic: Record<Op, Spread>; seconds: Record<Op, Record<NativeSide, Spread>>; peak_rss_mb: Record<string, number> };
    const s = (op: Op) => NATIVE_SIDES.map((side) => r.seconds[op][side].median).join(" / ");
    rows.push(`| ${size} | ${r.rounds} | ${fmt(r.native_over_dynamic.up)} | ${fmt(r.native_over_dynamic.refresh)} | ${fmt(r.native_over_dynamic.destroy)} | ${s("up")} | ${s("refresh")} | ${s("destroy")} | ${r.peak_rss_mb["native_plugin"]} / ${r.peak_rss_mb["dynamic_plugin"]} / ${r.peak_rss_mb["floor_plugin"]} |`);
  }
  return rows.join("\n");
}

/** The sizes and rounds from the environment (see the module comment). */
export function nativeSettings(): { sizes: number[]; roundsFor: (size: number) => number } {
  const sizes = (process.env["BENCH_NATIVE_SIZES"] ?? process.env["BENCH_SIZES"] ?? "150,750").split(",").map((x) => Number(x.trim()));
  const rounds = Number(process.env["BENCH_NATIVE_ROUNDS"] ?? 3);
  const roundsLarge = Number(process.env["BENCH_NATIVE_ROUNDS_LARGE"] ?? 2);
  return { sizes, roundsFor: (size) => (size > Math.min(...sizes) ? roundsLarge : rounds) };
}

/**
 * Every size of {@link nativeSettings}, one after the other; the results as {@link nativeResults} gives them.
 * `onSize`, when given, gets the results so far after each size (so a run cut short keeps its finished sizes).
 */
export async function nativeSweep(onSize?: (partial: Record<string, unknown>) => void): Promise<Record<string, unknown>> {
  const { sizes, roundsFor } = nativeSettings();
  const figs: NativeFigures[] = [];
  for (const size of sizes) {
    log(`size ${size}, ${roundsFor(size)} rounds, load average ${loadavg()[0]!.toFixed(2)}`);
    figs.push(await nativeBench(size, roundsFor(size)));
    onSize?.(nativeResults(figs));
  }
  return nativeResults(figs);
}

async function main(): Promise<void> {
  const started = Date.now();
  const load = loadavg().map((x) => round(x, 2));
  const out = process.env["BENCH_NATIVE_OUT"] ? path.resolve(process.env["BENCH_NATIVE_OUT"]) : path.join(REPO_ROOT, "bench", "native-results.json");
  const write = (native: Record<string, unknown>) =>
    writeFileSync(out, `${JSON.stringify({ native, cores: cpus().length, load_average_at_start: load, total_seconds: Math.round((Date.now() - started) / 1000) }, null, 2)}\n`);
  const native = await nativeSweep(write);
  write(native);
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\nnative plugin against the dynamic provider and the floor on ${cpus().length} cores, load at start ${load.join(" ")}; ratios: median of the rounds (min–max); ${seconds}s in all\n\n${nativeTable(native)}\n\nwritten to ${path.relative(REPO_ROOT, out)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench native: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
