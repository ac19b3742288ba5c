/**
 * `npm run bench`: every benchmark of the project, each as a ratio against a baseline measured in the same run,
 * with the two interleaved (these machines are shared and noisy); never a timed test assertion.
 *
 * | key | what | baseline | target |
 * |---|---|---|---|
 * | engine_up_ratio, engine_refresh_ratio, engine_destroy_ratio | wall time of `pulumi up` / `refresh --yes` / `destroy` of 50 groups, 50 identities, 50 bindings with this provider against the emulator, median of interleaved pairs | the same program and graph with a no-op dynamic provider, same engine | ≤ 1.15 |
 * | list_10k_requests, list_10k_ratio | listing 10,000 repos through `getRepos`: HTTP requests, and time | a raw undici pagination loop, page_size 200 | ≤ 50 requests, ≤ 1.10 |
 * | request_overhead_ratio | one GET through the client | a raw undici request on a kept-alive connection | ≤ 1.10 |
 * | provider_bytes_max, state_bytes_per_resource | the largest serialized `__provider`, and state bytes per resource, from a real state file | — | ≤ 1024 |
 * | plugin_peak_rss_mb | peak RSS of the dynamic-provider plugin during the real `up` | — | — |
 *
 * Environment: BENCH_ROUNDS (interleaved engine pairs, default 5), BENCH_LIST_PAIRS (default 15),
 * BENCH_GET_BLOCKS (default 40 blocks of 200 GETs per side). Run it on an otherwise idle machine.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import * as path from "node:path";
import { spawn } from "node:child_process";
import { Agent, request } from "undici";
import { startEmulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { getRepos } from "../provider/lookups";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const LIST_PAIRS = Number(process.env["BENCH_LIST_PAIRS"] ?? 15);
const GET_BLOCKS = Number(process.env["BENCH_GET_BLOCKS"] ?? 40);
const GETS_PER_BLOCK = 200;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
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
  up: { real: number[]; noop: number[] };
  refresh: { real: number[]; noop: number[] };
  destroy: { real: number[]; noop: number[] };
  peakRssMb: number;
  providerBytesMax: number;
  stateBytesPerResource: number;
  resources: number;
}

export async function engineBench(): Promise<EngineFigures> {
  const emu = await startEmulator();
  const viewer = (await new PlatformClient({ apiUrl: emu.url, token: emu.token }).roles.list({ name: "viewer" }).collect())[0]!.uid;
  const backend = mkdtempSync(path.join(tmpdir(), "bench-engine-"));
  const cwd = path.join(REPO_ROOT, "bench", "programs", "org150");
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  const f: EngineFigures = { up: { real: [], noop: [] }, refresh: { real: [], noop: [] }, destroy: { real: [], noop: [] }, peakRssMb: 0, providerBytesMax: 0, stateBytesPerResource: 0, resources: 0 };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order: Array<"real" | "noop"> = r % 2 === 0 ? ["real", "noop"] : ["noop", "real"];
      const clis = Object.fromEntries(
        await Promise.all(
          order.map(async (mode) => {
            const cli = new PulumiCli({ cwd, backendDir: backend, stack: `${mode}-${r}`, env });
            await cli.initStack();
            await cli.ok(["config", "set", "mode", mode]);
            await cli.ok(["config", "set", "roleUid", viewer]);
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
          const watcher = op === "up" && mode === "real" ? rssWatcher("dynamic-provider") : undefined;
          const res = await clis[mode].ok([...args]);
          if (watcher) f.peakRssMb = Math.max(f.peakRssMb, watcher.stop());
          f[op][mode].push(res.ms / 1000);
          log(`round ${r + 1}/${ROUNDS} ${op} ${mode}: ${(res.ms / 1000).toFixed(2)}s`);
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
    rmSync(backend, { recursive: true, force: true });
    for (const file of readdirSync(cwd).filter((x) => /^Pulumi\..+\.yaml$/.test(x) && x !== "Pulumi.yaml")) rmSync(path.join(cwd, file));
    await emu.close();
  }
  return f;
}

/** A standalone emulator in its own process (so server work does not share this process's event loop). */
async function emulatorProcess(args: string[]): Promise<{ url: string; token: string; orgUid: string; close: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "emulator", "cli.js"), "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      const lines = out.split("\n");
      if (lines.length > 3) resolve(Object.fromEntries(lines.slice(0, 3).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)])));
    });
    child.on("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
  return {
    url: env["PLATFORM_API_URL"]!,
    token: env["PLATFORM_TOKEN"]!,
    orgUid: env["PLATFORM_ORG_UID"]!,
    close: () => new Promise((resolve) => { child.once("exit", () => resolve()); child.kill("SIGTERM"); }),
  };
}

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

async function main(): Promise<void> {
  log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}); ${ROUNDS} interleaved engine rounds`);
  const get = await getBench();
  const list = await listBench();
  const engine = await engineBench();

  const ratio = (a: number[], b: number[]) => round(median(a) / median(b));
  const results = {
    engine_up_ratio: ratio(engine.up.real, engine.up.noop),
    engine_refresh_ratio: ratio(engine.refresh.real, engine.refresh.noop),
    engine_destroy_ratio: ratio(engine.destroy.real, engine.destroy.noop),
    list_10k_requests: list.requests,
    list_10k_ratio: ratio(list.client, list.raw),
    request_overhead_ratio: ratio(get.client, get.raw),
    provider_bytes_max: engine.providerBytesMax,
    state_bytes_per_resource: engine.stateBytesPerResource,
    plugin_peak_rss_mb: round(engine.peakRssMb, 1),
    cores: cpus().length,
    baselines: {
      engine_up_seconds: { provider: round(median(engine.up.real), 2), noop: round(median(engine.up.noop), 2), samples: engine.up },
      engine_refresh_seconds: { provider: round(median(engine.refresh.real), 2), noop: round(median(engine.refresh.noop), 2), samples: engine.refresh },
      engine_destroy_seconds: { provider: round(median(engine.destroy.real), 2), noop: round(median(engine.destroy.noop), 2), samples: engine.destroy },
      list_10k_ms: { getRepos: round(median(list.client), 1), raw_undici: round(median(list.raw), 1), raw_requests: list.rawRequests },
      get_us_per_request: { client: round(median(get.client), 1), raw_undici: round(median(get.raw), 1) },
      engine_resources: engine.resources,
    },
  };
  writeFileSync(path.join(REPO_ROOT, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);

  const b = results.baselines;
  const rows: Array<[string, string, string, string]> = [
    ["engine_up_ratio", String(results.engine_up_ratio), `${b.engine_up_seconds.provider}s vs no-op ${b.engine_up_seconds.noop}s`, "≤ 1.15"],
    ["engine_refresh_ratio", String(results.engine_refresh_ratio), `${b.engine_refresh_seconds.provider}s vs no-op ${b.engine_refresh_seconds.noop}s`, "≤ 1.15"],
    ["engine_destroy_ratio", String(results.engine_destroy_ratio), `${b.engine_destroy_seconds.provider}s vs no-op ${b.engine_destroy_seconds.noop}s`, "≤ 1.15"],
    ["list_10k_requests", String(results.list_10k_requests), `raw loop: ${b.list_10k_ms.raw_requests} requests`, "≤ 50"],
    ["list_10k_ratio", String(results.list_10k_ratio), `${b.list_10k_ms.getRepos} ms vs raw undici ${b.list_10k_ms.raw_undici} ms`, "≤ 1.10"],
    ["request_overhead_ratio", String(results.request_overhead_ratio), `${b.get_us_per_request.client} µs vs raw undici ${b.get_us_per_request.raw_undici} µs`, "≤ 1.10"],
    ["provider_bytes_max", String(results.provider_bytes_max), `over ${b.engine_resources} resources`, "≤ 1024"],
    ["state_bytes_per_resource", String(results.state_bytes_per_resource), "", ""],
    ["plugin_peak_rss_mb", String(results.plugin_peak_rss_mb), "", ""],
  ];
  process.stdout.write(`\nbenchmarks on ${results.cores} cores (${cpus()[0]?.model ?? "?"}); medians of interleaved runs\n\n`);
  process.stdout.write("| figure | value | baseline (absolute) | target |\n|---|---|---|---|\n");
  for (const [k, v, base, target] of rows) process.stdout.write(`| ${k} | ${v} | ${base} | ${target} |\n`);
  process.stdout.write(`\nwritten to bench/results.json\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
