/**
 * `npm run bench`: every benchmark of the project, each as a ratio against a baseline measured in the same run,
 * with the two interleaved (these machines are shared and noisy); never a timed test assertion. Each ratio is
 * taken per interleaved pair, then reported as the median with its min–max.
 *
 * | key | what | baseline | target |
 * |---|---|---|---|
 * | scale.<size>.up_ratio, refresh_ratio, destroy_ratio | wall time of `pulumi up` / `refresh --yes` / `destroy` of the generated org of <size> resources (bench/programs/org: groups nested 4 deep, an identity and a binding per group) with this provider against the emulator | the same program and graph with a no-op dynamic provider, same engine | ≤ 1.15 |
 * | scale.<size>.requests_per_resource.{up,refresh,destroy} | API requests the emulator served per resource, per op (by route in requests_by_route) | — | up ≤ 1.1, refresh ≤ 0.2 at 3,000 |
 * | scale.<size>.plugin_peak_rss_mb | peak RSS of the dynamic-provider plugin during the real ops | — | < 300 at 3,000 |
 * | growth_up.{ours,floor} | (up seconds per resource at the largest size) / (at the smallest) | ours against the floor's | ours ≤ floor |
 * | engine_*_ratio | the smallest size's ratios (kept for older readers) | | |
 * | list_10k_requests, list_10k_ratio | listing 10,000 repos through `getRepos`: HTTP requests, and time | a raw undici pagination loop, page_size 200 | ≤ 50 requests, ≤ 1.10 |
 * | request_overhead_ratio | one GET through the client | a raw undici request on a kept-alive connection | ≤ 1.10 |
 * | provider_bytes_max, state_bytes_per_resource | the largest serialized `__provider`, and state bytes per resource, from a real state file | — | ≤ 1024 |
 * | toolchains.<nodeN>.plugin_start | the dynamic-provider plugin from process start to its first answered `Read` (bench/plugin-start.ts): wall and CPU, this package's runtime (and its plain tsc output, `tsc_output`) | the no-op floor's provider text in the same plugin | ≤ 1.10 |
 * | toolchains.<nodeN>.program_load | wall and CPU of `require("platform-pulumi")` (the package's main, one bundle) and of tsc's output of the same entry, after `@pulumi/pulumi`'s runtime | — | — |
 * | toolchains.<nodeN>.runtime_load | wall and CPU of loading `platform-pulumi/runtime` (the bundle with the compile cache), the bundle alone and the tsc output, in a process that has loaded what the plugin loads | — | — |
 * | toolchains.<nodeN>.{scale, growth_*, engine_*} | the engine figures above on that Node.js (the `node` first on PATH for the language host and the plugin), with the load average at each pair's start | | |
 * | (bench/jobs-results.json) sizes.<size>.jobs.<job>.time_ratio, bin_own_peak_rss_mb, bin_tree_peak_rss_mb | the bin's jobs (`gate`, `drift`, `access --current` at org and stack scope, `access`, `unmanaged`) on the generated org brought up once, wall time and peak RSS (bench/jobs.ts, `npm run bench:jobs`; here only with BENCH_JOBS=1) | each job's engine run: `pulumi preview --policy-pack`, `preview --refresh`, `preview` | ≤ 1.3, ≤ 1 GB at 3,000 |
 *
 * The engine figures run once per toolchain (BENCH_TOOLCHAINS, default `default,24.21.0`: the `node` on PATH, then
 * Node 24 fetched by `bash scripts/ensure-node` as the consumer tier fetches it); the top-level engine keys are the
 * first toolchain's, as before. Also draws the first toolchain's median seconds against size, ours and the floor per
 * op, as bench/scale.svg (vega-lite).
 *
 * Environment: BENCH_SIZES (resources, multiples of 15, default 150,750: one round at 3,000 took 40 minutes on 2
 * idle cores, `up` alone 680 s, so 3,000 is opt-in, `BENCH_SIZES=150,3000 BENCH_ROUNDS_LARGE=1`), BENCH_ROUNDS (interleaved engine
 * pairs at the smallest size, default 5), BENCH_ROUNDS_LARGE (at the other sizes, default 2), BENCH_LIST_PAIRS (default 15),
 * BENCH_GET_BLOCKS (default 40 blocks of 200 GETs per side), BENCH_ENGINE_PROFILE (a folder: every engine op also
 * writes the `pulumi` engine's Go CPU and memory profiles there with `--profiling`, named `<mode>-<op>-<size>-<round>`;
 * read them with `go tool pprof -top`; profiling slows the engine, so ratios from such a run are not comparable),
 * BENCH_START_PAIRS (plugin-start pairs and runtime-load rounds per toolchain, default 15), BENCH_OUT (the results
 * file, default bench/results.json; another name keeps an opt-in run, such as 3,000 resources, beside the default
 * run's, e.g. bench/results-3000.json, its chart beside it as .svg).
 * The native provider plugin against this provider and the floor (bench/native.ts: the same org by type token, the
 * three interleaved in rotation, on an emulator in another process), after the toolchains, on the `node` on PATH:
 * `native.<size>` in the results, its own BENCH_NATIVE_* variables; BENCH_NATIVE=0 leaves it out.
 * A failing `pulumi preview` (a wrong token, a misspelled `platform:orgUID`) against the same program succeeding
 * (bench/failing-preview.ts, target ≤ 1.5), after the native plugin, on the same toolchains: its own BENCH_FAILING_*
 * variables, results in bench/failing-preview-results.json; BENCH_FAILING=0 leaves it out.
 * BENCH_SPLIT=1 also runs bench/split.ts (the org as a set of stacks against one stack; its own BENCH_SPLIT_*
 * variables) after the rest, into bench/split-results.json.
 * BENCH_JOBS=1 also runs bench/jobs.ts (the bin's jobs against their engine runs; its own BENCH_JOBS_* variables)
 * after that, into bench/jobs-results.json.
 * Run it on an otherwise idle machine.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { Agent, request } from "undici";
import { startEmulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { getRepos } from "../provider/lookups";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { emulatorProcess } from "./emulatorProcess";
import { cleanUpBenchRun, nativeSweep, nativeTable } from "./native";
import { growth, median, pairRatios, round, spread, type Spread } from "./stats";
import { pluginStartBench, runtimeLoadBench, startTable, type LoadFigures, type PluginStartFigures } from "./plugin-start";

const SIZES = (process.env["BENCH_SIZES"] ?? "150,750").split(",").map((x) => Number(x.trim()));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const ROUNDS_LARGE = Number(process.env["BENCH_ROUNDS_LARGE"] ?? 2);
/** Interleaved rounds at `size`: BENCH_ROUNDS at the smallest size, BENCH_ROUNDS_LARGE at the others. */
const roundsFor = (size: number) => (size > Math.min(...SIZES) ? ROUNDS_LARGE : ROUNDS);
const loadAtStart = loadavg();
const LIST_PAIRS = Number(process.env["BENCH_LIST_PAIRS"] ?? 15);
const GET_BLOCKS = Number(process.env["BENCH_GET_BLOCKS"] ?? 40);
const GETS_PER_BLOCK = 200;
const TOOLCHAIN_SPECS = (process.env["BENCH_TOOLCHAINS"] ?? "default,24.21.0").split(",").map((x) => x.trim()).filter(Boolean);
const START_PAIRS = Number(process.env["BENCH_START_PAIRS"] ?? 15);

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/** Peak RSS (MiB) of processes whose command line contains `needle`, sampled every 50 ms until stopped. */
function rssWatcher(needle: string): { stop: () => number } {
  let peak = 0;
  const sample = () => {
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(needle)) continue;
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
        peak = Math.max(peak, kb / 1024);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

interface EngineFigures {
  size: number;
  up: { real: number[]; noop: number[] };
  refresh: { real: number[]; noop: number[] };
  destroy: { real: number[]; noop: number[] };
  /** API requests of each real op, per round. */
  requests: { up: number[]; refresh: number[]; destroy: number[] };
  /** Requests per `METHOD path` (uids replaced by `{uid}`) of the first round's real ops. */
  requestPaths: { up: Record<string, number>; refresh: Record<string, number>; destroy: Record<string, number> };
  peakRssMb: number;
  /** The 1-minute load average at the start of each round. */
  loadAtRound: number[];
  providerBytesMax: number;
  stateBytesPerResource: number;
  resources: number;
}

type Op = "up" | "refresh" | "destroy";

/** `METHOD path` with each run of uid segments (a uid path such as `<org>/<group>/<child>`) replaced by `{uid}`, for counting requests per route. */
function route(method: string, p: string): string {
  return `${method} ${p.replace(/(\/[0-9a-f]{16,}(?=\/|$))+/g, "/{uid}")}`;
}

/**
 * `pulumi up`, `refresh --yes` and `destroy` of the generated org of `size` resources (bench/programs/org) with this
 * provider and with the no-op floor, interleaved for `rounds` rounds (the order alternates each round), against a
 * fresh emulator; counts the API requests of each real op at the emulator and samples the plugin's peak RSS.
 */
export async function engineBench(size: number, rounds: number, nodeBin?: string): Promise<EngineFigures> {
  const emu = await startEmulator();
  const viewer = (await new PlatformClient({ apiUrl: emu.url, token: emu.token }).roles.list({ name: "viewer" }).collect())[0]!.uid;
  const backend = mkdtempSync(path.join(tmpdir(), "bench-engine-"));
  const cwd = path.join(REPO_ROOT, "bench", "programs", "org");
  // The language host and the dynamic-provider plugin run the `node` first on PATH.
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid, ...(nodeBin ? { PATH: `${nodeBin}${path.delimiter}${process.env["PATH"] ?? ""}` } : {}) };
  const f: EngineFigures = {
    size,
    up: { real: [], noop: [] },
    refresh: { real: [], noop: [] },
    destroy: { real: [], noop: [] },
    requests: { up: [], refresh: [], destroy: [] },
    requestPaths: { up: {}, refresh: {}, destroy: {} },
    peakRssMb: 0,
    loadAtRound: [],
    providerBytesMax: 0,
    stateBytesPerResource: 0,
    resources: 0,
  };
  try {
    for (let r = 0; r < rounds; r++) {
      f.loadAtRound.push(round(loadavg()[0]!, 2));
      const order: Array<"real" | "noop"> = r % 2 === 0 ? ["real", "noop"] : ["noop", "real"];
      const clis = Object.fromEntries(
        await Promise.all(
          order.map(async (mode) => {
            const cli = new PulumiCli({ cwd, backendDir: backend, stack: `${mode}-${size}-${r}`, env });
            await cli.initStack();
            await cli.ok(["config", "set", "mode", mode]);
            await cli.ok(["config", "set", "roleUid", viewer]);
            await cli.ok(["config", "set", "size", String(size)]);
            return [mode, cli] as const;
          }),
        ),
      ) as Record<"real" | "noop", PulumiCli>;
      for (const [op, args] of [
        ["up", ["up", "--yes", "--skip-preview"]],
        ["refresh", ["refresh", "--yes", "--skip-preview"]],
        ["destroy", ["destroy", "--yes", "--skip-preview"]],
      ] as const) {
        for (const mode of order) {
          const watcher = mode === "real" ? rssWatcher("dynamic-provider") : undefined;
          emu.requests.length = 0; // the log keeps 10,000; emptied per op so it counts this op alone
          const profile = process.env["BENCH_ENGINE_PROFILE"];
          const res = await clis[mode].ok([...args, ...(profile ? ["--profiling", path.join(profile, `${mode}-${op}-${size}-${r}`)] : [])]);
          if (watcher) f.peakRssMb = Math.max(f.peakRssMb, watcher.stop());
          if (mode === "real") {
            f.requests[op as Op].push(emu.requests.length);
            if (r === 0) for (const q of emu.requests) f.requestPaths[op as Op][route(q.method, q.path)] = (f.requestPaths[op as Op][route(q.method, q.path)] ?? 0) + 1;
          }
          f[op][mode].push(res.ms / 1000);
          log(`size ${size} round ${r + 1}/${rounds} ${op} ${mode}: ${(res.ms / 1000).toFixed(2)}s${mode === "real" ? `, ${emu.requests.length} requests` : ""}`);
          if (op === "up" && mode === "real" && r === 0) {
            const exported = await clis.real.ok(["stack", "export"], { echo: false });
            const state = JSON.parse(exported.stdout) as { deployment: { resources?: Array<Record<string, unknown>> } };
            const resources = (state.deployment.resources ?? []).filter((x) => String(x["type"]).startsWith("pulumi-nodejs:dynamic/platform:"));
            f.resources = resources.length;
            f.providerBytesMax = Math.max(...resources.map((x) => String((x["outputs"] as Record<string, unknown>)["__provider"] ?? "").length));
            f.stateBytesPerResource = Math.round(Buffer.byteLength(exported.stdout) / Math.max(1, resources.length));
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

/** Lists 10,000 repos through `getRepos` and through a raw undici pagination loop, interleaved; counts the client's requests. */
export async function listBench(): Promise<{ requests: number; client: number[]; raw: number[]; rawRequests: number }> {
  const emu = await emulatorProcess(["--seed-repos", "10000"]);
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
  const headers = { authorization: `Bearer ${emu.token}`, accept: "application/json" };
  const out = { requests: 0, client: [] as number[], raw: [] as number[], rawRequests: 0 };
  const rawLoop = async () => {
    let token: string | undefined;
    let n = 0;
    let pages = 0;
    do {
      const res = await request(`${emu.url}/registry/v2beta1/repos?page_size=200${token ? `&page_token=${token}` : ""}`, { headers, dispatcher: agent });
      const body = (await res.body.json()) as { repos: unknown[]; nextPageToken?: string };
      n += body.repos.length;
      token = body.nextPageToken || undefined;
      pages++;
    } while (token);
    return { n, pages };
  };
  try {
    await rawLoop(); // warm both paths once
    await getRepos({}, client);
    // Requests one getRepos makes, counted at the transport.
    let requests = 0;
    const send = client.transport.send.bind(client.transport);
    client.transport.send = ((...a: Parameters<typeof send>) => {
      requests++;
      return send(...a);
    }) as typeof send;
    await getRepos({}, client);
    out.requests = requests;
    client.transport.send = send;
    for (let i = 0; i < LIST_PAIRS; i++) {
      for (const side of i % 2 === 0 ? ["client", "raw"] : ["raw", "client"]) {
        const t = performance.now();
        if (side === "client") {
          const repos = await getRepos({}, client);
          if (repos.length !== 10_000) throw new Error(`getRepos returned ${repos.length} repos`);
          out.client.push(performance.now() - t);
        } else {
          const { n, pages } = await rawLoop();
          if (n !== 10_000) throw new Error(`raw loop read ${n} repos`);
          out.raw.push(performance.now() - t);
          out.rawRequests = pages;
        }
      }
    }
  } finally {
    await client.close();
    await agent.close();
    await emu.close();
  }
  return out;
}

/** One GET through the client against a raw undici GET on a kept-alive connection, in interleaved blocks (µs per request). */
export async function getBench(): Promise<{ client: number[]; raw: number[] }> {
  const emu = await emulatorProcess([]);
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
  const headers = { authorization: `Bearer ${emu.token}`, accept: "application/json", "user-agent": "bench" };
  const url = `${emu.url}/iam/v2beta1/groups/${emu.orgUid}`;
  const out = { client: [] as number[], raw: [] as number[] };
  const raw = async () => {
    const res = await request(url, { headers, dispatcher: agent });
    const body = (await res.body.json()) as { uid: string };
    if (body.uid !== emu.orgUid) throw new Error("raw GET returned another group");
  };
  try {
    for (let i = 0; i < 300; i++) {
      await raw();
      await client.groups.get(emu.orgUid);
    }
    for (let b = 0; b < GET_BLOCKS; b++) {
      for (const side of b % 2 === 0 ? ["client", "raw"] : ["raw", "client"]) {
        const t = performance.now();
        for (let i = 0; i < GETS_PER_BLOCK; i++) {
          if (side === "client") await client.groups.get(emu.orgUid);
          else await raw();
        }
        out[side as "client" | "raw"].push(((performance.now() - t) / GETS_PER_BLOCK) * 1000);
      }
    }
  } finally {
    await client.close();
    await agent.close();
    await emu.close();
  }
  return out;
}

/** Renders time against size for ours and the floor, per op, as SVG with vega-lite (ESM-only, so imported at run time). */
async function drawScale(points: Array<{ size: number; op: string; side: string; seconds: number }>): Promise<string> {
  const load = new Function("m", "return import(m)") as (m: string) => Promise<unknown>;
  const vega = (await load("vega")) as typeof import("vega");
  const vl = (await load("vega-lite")) as { compile: (spec: object) => { spec: import("vega").Spec } };
  const spec = vl.compile({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "pulumi wall time against stack size (median of interleaved rounds)",
    width: 520,
    height: 320,
    data: { values: points },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "size", type: "quantitative", title: "resources", scale: { type: "log" }, axis: { values: [...new Set(points.map((p) => p.size))] } },
      y: { field: "seconds", type: "quantitative", title: "seconds", scale: { type: "log" } },
      color: { field: "op", type: "nominal", title: "operation" },
      strokeDash: { field: "side", type: "nominal", title: "provider" },
    },
  }).spec;
  return new vega.View(vega.parse(spec), { renderer: "none" }).toSVG();
}

/** A Node.js the engine figures run on: the `node` on PATH, or a release fetched by scripts/ensure-node. */
interface Toolchain {
  /** Key in results.json: `node<major>`. */
  key: string;
  /** The release, e.g. `20.20.2`. */
  version: string;
  /** Its `node` binary. */
  node: string;
  /** The folder put first on PATH for the engine's runs; undefined for the `node` on PATH. */
  bin: string | undefined;
}

/** `default` (the `node` on PATH) or an exact version fetched as the consumer tier fetches it (`bash scripts/ensure-node <version>`). */
function toolchain(spec: string): Toolchain {
  if (spec === "default") {
    const version = execFileSync("node", ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "");
    return { key: `node${version.split(".")[0]}`, version, node: "node", bin: undefined };
  }
  const out = execFileSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-node"), spec], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const bin = out.trim().split("\n").pop()!;
  return { key: `node${spec.split(".")[0]}`, version: spec, node: path.join(bin, "node"), bin };
}

const ops = ["up", "refresh", "destroy"] as const;

/** The engine figures of one toolchain, as results.json keeps them (see the module comment). */
function engineResults(engines: EngineFigures[]) {
  const perResource = (xs: number[], size: number) => round(median(xs) / size, 3);
  const scale = Object.fromEntries(
    engines.map((e) => [
      e.size,
      {
        rounds: e.up.real.length,
        pairs: e.up.real.length,
        load_average_at_round_start: e.loadAtRound,
        up_ratio: pairRatios(e.up.real, e.up.noop),
        refresh_ratio: pairRatios(e.refresh.real, e.refresh.noop),
        destroy_ratio: pairRatios(e.destroy.real, e.destroy.noop),
        requests_per_resource: Object.fromEntries(ops.map((op) => [op, perResource(e.requests[op], e.size)])),
        requests_by_route: e.requestPaths,
        plugin_peak_rss_mb: round(e.peakRssMb, 1),
        up_s: spread(e.up.real, 2),
        noop_up_s: spread(e.up.noop, 2),
        refresh_s: spread(e.refresh.real, 2),
        noop_refresh_s: spread(e.refresh.noop, 2),
        destroy_s: spread(e.destroy.real, 2),
        noop_destroy_s: spread(e.destroy.noop, 2),
        samples: { up: e.up, refresh: e.refresh, destroy: e.destroy },
      },
    ]),
  );
  const growthOf = (op: Op, side: "real" | "noop") => growth(new Map(engines.map((e) => [e.size, median(e[op][side])])));
  const engine = engines[0]!;
  return {
    scale,
    growth_up: { ours: growthOf("up", "real"), floor: growthOf("up", "noop") },
    growth_refresh: { ours: growthOf("refresh", "real"), floor: growthOf("refresh", "noop") },
    growth_destroy: { ours: growthOf("destroy", "real"), floor: growthOf("destroy", "noop") },
    engine_up_ratio: pairRatios(engine.up.real, engine.up.noop),
    engine_refresh_ratio: pairRatios(engine.refresh.real, engine.refresh.noop),
    engine_destroy_ratio: pairRatios(engine.destroy.real, engine.destroy.noop),
    engine_size: engine.size,
    plugin_peak_rss_mb: round(Math.max(...engines.map((e) => e.peakRssMb)), 1),
  };
}

/** Plugin start, the runtime's own load, and the engine figures at every size, on one toolchain. */
async function toolchainBench(tc: Toolchain): Promise<{ results: Record<string, unknown>; engines: EngineFigures[]; start: PluginStartFigures; load: LoadFigures }> {
  const started = Date.now();
  const loadAtStart = loadavg().map((x) => round(x, 2));
  log(`${tc.key} (node ${tc.version}): plugin start, ${START_PAIRS} pairs`);
  const dist = path.join(REPO_ROOT, "dist", "provider");
  const start = await pluginStartBench({ pairs: START_PAIRS, node: tc.node, variants: [{ name: "tsc_output", runtime: path.join(dist, "runtime.js") }] });
  const load = await runtimeLoadBench({
    node: tc.node,
    rounds: START_PAIRS,
    variants: [
      { name: "package_runtime", runtime: "platform-pulumi/runtime" },
      { name: "bundle_without_compile_cache", runtime: path.join(dist, "runtime.bundle.js") },
      { name: "tsc_output", runtime: path.join(dist, "runtime.js") },
    ],
  });
  // What a program pays to load the package's main entry (every `preview` and `up` runs the program): the
  // bundle the package's `main` names against tsc's output of the same sources.
  const programLoad = await runtimeLoadBench({
    node: tc.node,
    rounds: START_PAIRS,
    variants: [
      { name: "package_main", runtime: "platform-pulumi" },
      { name: "tsc_output", runtime: path.join(dist, "index.js") },
    ],
  });
  const engines: EngineFigures[] = [];
  for (const size of SIZES) {
    log(`${tc.key}: size ${size}, load average ${loadavg()[0]!.toFixed(2)}`);
    engines.push(await engineBench(size, roundsFor(size), tc.bin));
  }
  return {
    results: { node: tc.version, load_average_at_start: loadAtStart, plugin_start: start, runtime_load: load, program_load: programLoad, ...engineResults(engines), seconds: Math.round((Date.now() - started) / 1000) },
    engines,
    start,
    load,
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const toolchains = TOOLCHAIN_SPECS.map(toolchain);
  log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}); toolchains ${toolchains.map((t) => `${t.key} (${t.version})`).join(", ")}; sizes ${SIZES.join(", ")}; rounds ${SIZES.map(roundsFor).join(", ")}`);
  const get = await getBench();
  const list = await listBench();
  const runs: Array<{ tc: Toolchain; out: Awaited<ReturnType<typeof toolchainBench>> }> = [];
  for (const tc of toolchains) runs.push({ tc, out: await toolchainBench(tc) });
  const first = runs[0]!;
  const engine = first.out.engines[0]!;
  // The native plugin, the dynamic provider and the floor, interleaved, on the `node` on PATH.
  const native = process.env["BENCH_NATIVE"] === "0" ? undefined : await nativeSweep();

  const results = {
    // The first toolchain's engine figures at the top level, as older readers expect; every toolchain under `toolchains`.
    ...engineResults(first.out.engines),
    toolchains: Object.fromEntries(runs.map((r) => [r.tc.key, r.out.results])),
    ...(native ? { native } : {}),
    list_10k_requests: list.requests,
    list_10k_ratio: pairRatios(list.client, list.raw),
    list_10k_pairs: list.client.length,
    request_overhead_ratio: pairRatios(get.client, get.raw),
    request_overhead_pairs: get.client.length,
    provider_bytes_max: engine.providerBytesMax,
    state_bytes_per_resource: engine.stateBytesPerResource,
    cores: cpus().length,
    load_average_at_start: loadAtStart.map((x) => round(x, 2)),
    total_seconds: 0,
    baselines: {
      list_10k_ms: { getRepos: spread(list.client, 1), raw_undici: spread(list.raw, 1), raw_requests: list.rawRequests },
      get_us_per_request: { client: spread(get.client, 1), raw_undici: spread(get.raw, 1) },
      engine_resources: engine.resources,
    },
  };

  const svg = await drawScale(
    first.out.engines.flatMap((e) => ops.flatMap((op) => (["real", "noop"] as const).map((side) => ({ size: e.size, op, side: side === "real" ? "platform-pulumi" : "no-op floor", seconds: median(e[op][side]) })))),
  );
  // BENCH_OUT: another results file (an opt-in run, e.g. 3,000 resources, kept beside the default run's); its
  // chart goes next to it with the extension .svg.
  const resultsFile = process.env["BENCH_OUT"] ? path.resolve(process.env["BENCH_OUT"]) : path.join(REPO_ROOT, "bench", "results.json");
  const svgOut = process.env["BENCH_OUT"] ? resultsFile.replace(/(\.json)?$/, ".svg") : path.join(REPO_ROOT, "bench", "scale.svg");
  writeFileSync(svgOut, svg);
  results.total_seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

  const fmt = (s: Spread) => `${s.median} (${s.min}–${s.max})`;
  process.stdout.write(`\nbenchmarks on ${results.cores} cores (${cpus()[0]?.model ?? "?"}), load at start ${results.load_average_at_start.join(" ")}; ratios: median of interleaved pairs (min–max); ${results.total_seconds}s in all\n`);
  for (const { tc, out } of runs) {
    const r = out.results as ReturnType<typeof engineResults> & { load_average_at_start: number[]; seconds: number };
    process.stdout.write(`\n## ${tc.key}: node ${tc.version} (load average at start ${r.load_average_at_start.join(" ")}; ${r.seconds}s)\n\n`);
    process.stdout.write(`plugin start, process start to the first Read answered:\n\n${startTable(out.start)}\n\n`);
    process.stdout.write(`the runtime's own load (${out.load.rounds} rounds):\n\n| runtime | modules | wall ms | CPU ms |\n|---|---|---|---|\n`);
    for (const [k, s] of Object.entries(out.load.sides)) process.stdout.write(`| ${k} | ${s.modules} | ${fmt(s.wall_ms)} | ${fmt(s.cpu_ms)} |\n`);
    const program = (out.results as { program_load: LoadFigures }).program_load;
    process.stdout.write(`\nthe main entry's load in a program (${program.rounds} rounds):\n\n| main | modules | wall ms | CPU ms |\n|---|---|---|---|\n`);
    for (const [k, s] of Object.entries(program.sides)) process.stdout.write(`| ${k} | ${s.modules} | ${fmt(s.wall_ms)} | ${fmt(s.cpu_ms)} |\n`);
    process.stdout.write("\n| resources | pairs | load average at each pair | up ratio | refresh ratio | destroy ratio | up s (ours / floor) | requests per resource (up / refresh / destroy) | plugin peak RSS MB |\n|---|---|---|---|---|---|---|---|---|\n");
    for (const [size, s] of Object.entries(r.scale)) {
      const q = s.requests_per_resource as Record<Op, number>;
      process.stdout.write(`| ${size} | ${s.pairs} | ${s.load_average_at_round_start.join(", ")} | ${fmt(s.up_ratio)} | ${fmt(s.refresh_ratio)} | ${fmt(s.destroy_ratio)} | ${s.up_s.median} / ${s.noop_up_s.median} | ${q.up} / ${q.refresh} / ${q.destroy} | ${s.plugin_peak_rss_mb} |\n`);
    }
    process.stdout.write(`\nper-resource growth of up from ${SIZES[0]} to ${SIZES[SIZES.length - 1]}: ours ${r.growth_up.ours ?? "—"}, floor ${r.growth_up.floor ?? "—"}\n`);
  }
  const b = results.baselines;
  const rows: Array<[string, string, string, string]> = [
    ["list_10k_requests", String(results.list_10k_requests), `raw loop: ${b.list_10k_ms.raw_requests} requests`, "≤ 50"],
    ["list_10k_ratio", `${fmt(results.list_10k_ratio)}, ${results.list_10k_pairs} pairs`, `${b.list_10k_ms.getRepos.median} ms vs raw undici ${b.list_10k_ms.raw_undici.median} ms`, "≤ 1.10"],
    ["request_overhead_ratio", `${fmt(results.request_overhead_ratio)}, ${results.request_overhead_pairs} pairs`, `${b.get_us_per_request.client.median} µs vs raw undici ${b.get_us_per_request.raw_undici.median} µs`, "≤ 1.10"],
    ["provider_bytes_max", String(results.provider_bytes_max), `over ${b.engine_resources} resources`, "≤ 1024"],
    ["state_bytes_per_resource", String(results.state_bytes_per_resource), "", ""],
    ["plugin_peak_rss_mb", String(results.plugin_peak_rss_mb), "largest size", "< 300"],
  ];
  process.stdout.write("\n| figure | value | baseline (absolute) | target |\n|---|---|---|---|\n");
  for (const [k, v, base, target] of rows) process.stdout.write(`| ${k} | ${v} | ${base} | ${target} |\n`);
  if (native) process.stdout.write(`\nthe native provider plugin against this provider's dynamic resources and the floor (median of the rounds, min–max):\n\n${nativeTable(native)}\n`);
  process.stdout.write(`\nwritten to ${path.relative(REPO_ROOT, resultsFile)} and ${path.relative(REPO_ROOT, svgOut)}\n`);
  // A failing preview against a good one (bench/failing-preview.ts): a few minutes; BENCH_FAILING=0 leaves it out.
  if (process.env["BENCH_FAILING"] !== "0") await (await import("./failing-preview")).failingPreviewBench();
  // The split layout (bench/split.ts) takes tens of minutes at 750 resources and more: only when asked.
  if (process.env["BENCH_SPLIT"] === "1") await (await import("./split")).splitBench();
  // The bin's jobs at org scale (bench/jobs.ts): about 15 minutes at the default sizes; only when asked.
  if (process.env["BENCH_JOBS"] === "1") await (await import("./jobs")).jobsBench();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
