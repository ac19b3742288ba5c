/**
 * Plugin start: wall time and CPU of Pulumi's Node.js dynamic-provider plugin from process start to its first
 * answered `Read`, with this package's provider against the no-op floor's (bench/programs/org/noop.js), as a
 * ratio per interleaved pair. This is the fixed cost every `up`, `refresh` and `destroy` pays once per plugin
 * process, and the part of a short `refresh` that is ours (docs/performance.md, "Plugin start").
 *
 * Method, per sample: spawn `node <@pulumi/pulumi>/cmd/dynamic-provider` (the plugin's own entry, as the engine's
 * `pulumi-resource-pulumi-nodejs` script runs it) from the bench program's folder, so the `__provider` text
 * resolves `platform-pulumi/runtime` as it does in a user's project; wait for the port it prints; send `Configure`
 * then one `Read` over gRPC, as the engine does in a `refresh`; stop the clock when the answer arrives, and read
 * the process's CPU (user + system, `/proc/<pid>/stat`, 10 ms ticks) at that moment. Ours reads a group that
 * exists in an in-process emulator, with the properties the plugin's own `Create` returned (what state holds);
 * the floor reads the same properties with its provider text. Each side runs once unmeasured first (so Node's
 * module compile cache, where the runtime enables it, is as warm as on a user's second run), then the pairs
 * alternate their order.
 *
 * Environment: BENCH_START_PAIRS (default 15), BENCH_START_VARIANTS (a JSON list of `{ "name", "runtime"?,
 * "env"? }`: extra providers whose `__provider` requires `runtime` (an absolute path; default the package's
 * `platform-pulumi/runtime`) with `env` added, each measured in every round against the floor, to compare
 * build options such as a bundle against plain tsc output), BENCH_NODE (the `node` binary; default this one).
 * Run alone: `node dist/bench/plugin-start.js`.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startEmulator } from "../emulator";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { providerSource } from "../provider/engine/shim";
import { pairRatios, spread, type Spread } from "./stats";

// The SDK's generated protobuf and gRPC modules (CommonJS, untyped here).
const provproto = require("@pulumi/pulumi/proto/provider_pb") as Record<string, new () => Record<string, (...a: unknown[]) => unknown>>;
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb") as { ResourceProviderClient: new (addr: string, creds: grpc.ChannelCredentials) => grpc.Client & Record<string, (req: unknown, cb: (err: Error | null, res: Record<string, () => unknown>) => void) => void> };
const structproto = require("google-protobuf/google/protobuf/struct_pb") as { Struct: { fromJavaScript(v: unknown): unknown } };

const PLUGIN = path.join(path.dirname(require.resolve("@pulumi/pulumi/package.json")), "cmd", "dynamic-provider", "index.js");
const PROGRAM = path.join(REPO_ROOT, "bench", "programs", "org");
const FLOOR_SOURCE = (require(path.join(PROGRAM, "noop.js")) as { source: string }).source;
/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** One measured plugin start. */
export interface StartSample {
  /** Milliseconds from spawn to the port on stdout (the plugin's modules loaded, its server listening). */
  readyMs: number;
  /** Milliseconds from spawn to the first `Read` answered. */
  answerMs: number;
  /** CPU milliseconds (user + system) the plugin used up to that answer. */
  cpuMs: number;
  /** Bytes of the `Read` answer (protobuf): its properties and, when the provider returns them, inputs. */
  answerBytes: number;
}

/** A provider to start: its name, its `__provider` text and extra environment. */
interface Variant {
  name: string;
  source: string;
  env: Record<string, string>;
}

/** Per side (`ours`, each extra variant, `floor`): samples and spreads; per non-floor side: the pair ratios. */
export interface PluginStartFigures {
  node: string;
  pairs: number;
  sides: Record<string, { answer_ms: Spread; ready_ms: Spread; cpu_ms: Spread; answer_bytes: number; samples: Array<Omit<StartSample, "answerBytes">> }>;
  /** Per side against the floor: ratios of time-to-answer and of CPU, median of pairs (min–max). */
  ratios: Record<string, { wall: Spread; cpu: Spread }>;
}

function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14, 15)
}

const unary = (client: Record<string, (req: unknown, cb: (err: Error | null, res: Record<string, () => unknown>) => void) => void>, method: string, req: unknown) =>
  new Promise<Record<string, () => unknown>>((resolve, reject) => client[method]!(req, (err, res) => (err ? reject(err) : resolve(res))));

/**
 * Starts the plugin, configures it and calls `calls(client)`; returns the timings at the moment `calls` resolved.
 * @throws Error when the plugin exits early or a call fails (its stderr in the message).
 */
async function withPlugin<T>(node: string, variant: Variant, env: Record<string, string>, calls: (client: InstanceType<typeof provrpc.ResourceProviderClient>) => Promise<T>): Promise<{ sample: Omit<StartSample, "answerBytes">; value: T }> {
  const t0 = performance.now();
  const child = spawn(node, [PLUGIN, "127.0.0.1:1"], { cwd: PROGRAM, env: { ...process.env, ...env, ...variant.env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`plugin exited ${code}: ${stderr}`))));
  try {
    const port = await Promise.race([
      exited,
      new Promise<string>((resolve) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d;
          if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
        });
      }),
    ]);
    const readyMs = performance.now() - t0;
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const conf = new provproto["ConfigureRequest"]!();
      conf["setArgs"]!(structproto.Struct.fromJavaScript({}));
      await Promise.race([exited, unary(client, "configure", conf)]);
      const value = await Promise.race([exited, calls(client)]);
      const answerMs = performance.now() - t0;
      return { sample: { readyMs, answerMs, cpuMs: cpuOf(child.pid!) }, value };
    } finally {
      client.close();
    }
  } finally {
    exited.catch(() => undefined);
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }
}

/** One `Read` of `id` with `props` through the plugin; resolves with the answer's size in bytes. */
async function read(client: InstanceType<typeof provrpc.ResourceProviderClient>, id: string, props: Record<string, unknown>): Promise<number> {
  const req = new provproto["ReadRequest"]!();
  req["setId"]!(id);
  req["setUrn"]!(`urn:pulumi:bench::bench-org::pulumi-nodejs:dynamic/platform:Group::start`);
  req["setProperties"]!(structproto.Struct.fromJavaScript(props));
  const res = await unary(client, "read", req);
  const got = res["getId"]!() as string;
  if (got !== id) throw new Error(`read answered id "${got}", expected "${id}"`);
  return (res["serializeBinary"]!() as Uint8Array).length;
}

/**
 * Measures plugin start for this package's provider (and any extra variants) against the floor, `pairs` rounds,
 * the order rotating each round, with the `node` binary given.
 * @throws Error when a plugin fails to start or a read fails.
 */
export async function pluginStartBench(options: { pairs?: number; node?: string; variants?: Array<{ name: string; runtime?: string; env?: Record<string, string> }> } = {}): Promise<PluginStartFigures> {
  const pairs = options.pairs ?? Number(process.env["BENCH_START_PAIRS"] ?? 15);
  const node = options.node ?? process.env["BENCH_NODE"] ?? process.execPath;
  const extra = options.variants ?? (JSON.parse(process.env["BENCH_START_VARIANTS"] ?? "[]") as Array<{ name: string; runtime?: string; env?: Record<string, string> }>);
  const ours = providerSource("Group");
  const variants: Variant[] = [
    { name: "ours", source: ours, env: {} },
    ...extra.map((v) => ({ name: v.name, source: v.runtime ? ours.replace('"platform-pulumi/runtime"', JSON.stringify(v.runtime)) : ours, env: v.env ?? {} })),
    { name: "floor", source: FLOOR_SOURCE, env: {} },
  ];
  const emu = await startEmulator();
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  try {
    // The properties state would hold: what the plugin's own Check and Create return for a new group.
    const created = await withPlugin(node, variants[0]!, env, async (client) => {
      const news = { parentUid: emu.orgUid, name: "plugin-start", description: "bench", __provider: ours };
      const check = new provproto["CheckRequest"]!();
      check["setUrn"]!("urn:pulumi:bench::bench-org::pulumi-nodejs:dynamic/platform:Group::start");
      check["setOlds"]!(structproto.Struct.fromJavaScript({}));
      check["setNews"]!(structproto.Struct.fromJavaScript(news));
      const checked = await unary(client, "check", check);
      const create = new provproto["CreateRequest"]!();
      create["setUrn"]!("urn:pulumi:bench::bench-org::pulumi-nodejs:dynamic/platform:Group::start");
      create["setProperties"]!(checked["getInputs"]!());
      const res = await unary(client, "create", create);
      return { id: res["getId"]!() as string, outs: (res["getProperties"]!() as { toJavaScript(): Record<string, unknown> }).toJavaScript() };
    });
    const samples: Record<string, StartSample[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
    const once = async (v: Variant) => {
      const { sample, value } = await withPlugin(node, v, env, (client) => read(client, created.value.id, { ...created.value.outs, __provider: v.source }));
      return { ...sample, answerBytes: value };
    };
    for (const v of variants) await once(v); // unmeasured: warms the OS file cache and any compile cache
    for (let r = 0; r < pairs; r++) {
      const order = variants.map((_, i) => variants[(i + r) % variants.length]!);
      for (const v of order) samples[v.name]!.push(await once(v));
    }
    const floor = samples["floor"]!;
    return {
      node,
      pairs,
      sides: Object.fromEntries(
        variants.map((v) => {
          const s = samples[v.name]!;
          return [v.name, { answer_ms: spread(s.map((x) => x.answerMs), 1), ready_ms: spread(s.map((x) => x.readyMs), 1), cpu_ms: spread(s.map((x) => x.cpuMs), 0), answer_bytes: s[0]!.answerBytes, samples: s.map((x) => ({ readyMs: Math.round(x.readyMs), answerMs: Math.round(x.answerMs), cpuMs: x.cpuMs })) }];
        }),
      ),
      ratios: Object.fromEntries(
        variants
          .filter((v) => v.name !== "floor")
          .map((v) => {
            const s = samples[v.name]!;
            return [v.name, { wall: pairRatios(s.map((x) => x.answerMs), floor.map((x) => x.answerMs)), cpu: pairRatios(s.map((x) => x.cpuMs), floor.map((x) => x.cpuMs)) }];
          }),
      ),
    };
  } finally {
    await emu.close();
  }
}

/** What loading the runtime costs inside a process that has loaded what the plugin loads (µs-resolution CPU). */
export interface LoadFigures {
  node: string;
  rounds: number;
  /** Per variant: wall and CPU milliseconds of `require(<runtime>)`, and the modules it added. */
  sides: Record<string, { wall_ms: Spread; cpu_ms: Spread; modules: number }>;
}

/**
 * The runtime's own load, per variant, `rounds` rounds in rotating order: a fresh `node` loads the modules the
 * dynamic-provider plugin loads before any provider (`@pulumi/pulumi`'s runtime, gRPC, the provider protobufs),
 * then times `require` of the variant's runtime (wall, and CPU from `process.cpuUsage`, in µs). Finer than
 * {@link pluginStartBench}, whose CPU is read in 10 ms ticks; it has no floor (the floor loads nothing).
 */
export async function runtimeLoadBench(options: { rounds?: number; node?: string; variants: Array<{ name: string; runtime: string; env?: Record<string, string> }> }): Promise<LoadFigures> {
  const rounds = options.rounds ?? 15;
  const node = options.node ?? process.execPath;
  const script = [
    'require("@pulumi/pulumi/runtime"); require("@grpc/grpc-js"); require("@pulumi/pulumi/proto/provider_pb"); require("@pulumi/pulumi/proto/provider_grpc_pb");',
    "const before = Object.keys(require.cache).length; const c = process.cpuUsage(); const t = performance.now();",
    "require(process.argv[1]);",
    "const w = performance.now() - t; const u = process.cpuUsage(c);",
    "process.stdout.write(JSON.stringify({ wall: w, cpu: (u.user + u.system) / 1000, modules: Object.keys(require.cache).length - before }));",
  ].join("\n");
  const once = (v: { runtime: string; env?: Record<string, string> }) =>
    new Promise<{ wall: number; cpu: number; modules: number }>((resolve, reject) => {
      const child = spawn(node, ["-e", script, v.runtime], { cwd: PROGRAM, env: { ...process.env, ...(v.env ?? {}) }, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d));
      child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as { wall: number; cpu: number; modules: number }) : reject(new Error(`runtime load of ${v.runtime} exited ${code}`))));
    });
  const samples: Record<string, Array<{ wall: number; cpu: number; modules: number }>> = Object.fromEntries(options.variants.map((v) => [v.name, []]));
  for (const v of options.variants) await once(v); // unmeasured warm-up (file cache, compile cache)
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < options.variants.length; i++) {
      const v = options.variants[(i + r) % options.variants.length]!;
      samples[v.name]!.push(await once(v));
    }
  }
  return {
    node,
    rounds,
    sides: Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, { wall_ms: spread(s.map((x) => x.wall), 1), cpu_ms: spread(s.map((x) => x.cpu), 1), modules: s[0]!.modules }])),
  };
}

/** The figures as Markdown table rows: side, pairs, ms to the first answer, CPU ms, ratios against the floor. */
export function startTable(f: PluginStartFigures): string {
  const fmt = (s: Spread) => `${s.median} (${s.min}–${s.max})`;
  const rows = Object.entries(f.sides).map(([name, s]) => {
    const r = f.ratios[name];
    return `| ${name} | ${f.pairs} | ${fmt(s.ready_ms)} | ${fmt(s.answer_ms)} | ${fmt(s.cpu_ms)} | ${r ? fmt(r.wall) : "—"} | ${r ? fmt(r.cpu) : "—"} | ${s.answer_bytes} |`;
  });
  return ["| provider | pairs | ms to listening | ms to first read answered | CPU ms | wall ratio | CPU ratio | read answer bytes |", "|---|---|---|---|---|---|---|---|", ...rows].join("\n");
}

if (require.main === module && process.env["BENCH_LOAD_VARIANTS"]) {
  // Ad hoc: `BENCH_LOAD_VARIANTS='[{"name":"a","runtime":"/abs/file.js"}]' node dist/bench/plugin-start.js`.
  runtimeLoadBench({ variants: JSON.parse(process.env["BENCH_LOAD_VARIANTS"]) as Array<{ name: string; runtime: string }>, rounds: Number(process.env["BENCH_START_PAIRS"] ?? 15), ...(process.env["BENCH_NODE"] ? { node: process.env["BENCH_NODE"] } : {}) })
    .then((f) => process.stdout.write(`runtime load on ${f.node} (${f.rounds} rounds; median (min–max))\n\n| runtime | modules | wall ms | CPU ms |\n|---|---|---|---|\n${Object.entries(f.sides).map(([k, s]) => `| ${k} | ${s.modules} | ${s.wall_ms.median} (${s.wall_ms.min}–${s.wall_ms.max}) | ${s.cpu_ms.median} (${s.cpu_ms.min}–${s.cpu_ms.max}) |`).join("\n")}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
} else if (require.main === module) {
  pluginStartBench()
    .then((f) => {
      process.stdout.write(`plugin start on ${f.node} (${f.pairs} pairs; median (min–max))\n\n${startTable(f)}\n`);
      if (process.env["BENCH_START_JSON"]) process.stdout.write(`${JSON.stringify(f)}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
