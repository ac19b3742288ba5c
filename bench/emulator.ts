/**
 * `npm run bench:emulator`: the emulator under load, measured with autocannon over loopback.
 *
 * Starts the standalone emulator in its own process, seeded with 100,000 groups (`--seed-groups`), and drives it
 * from this process (2 cores: one each) with autocannon:
 *
 * - GET by uid (rotating over 1,000 seeded uids);
 * - List, one page of 50 (`page_size=50`);
 * - List with `skip` nine tenths into the table (`skip=90000` over the default 100,000 groups).
 *
 * Prints a table and writes `bench/emulator-results.json`. Targets on a 2-core machine: ≥ 5,000 GET/s and List
 * p99 ≤ 20 ms. Environment: BENCH_SECONDS (per run, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_GROUPS (default 100000).
 */
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import * as path from "node:path";
import autocannon from "autocannon";
import { request } from "undici";
import { emulatorProcess } from "./emulatorProcess";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 10);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 10);
const GROUPS = Number(process.env["BENCH_GROUPS"] ?? 100_000);
const ROOT = path.resolve(__dirname, "..", "..");
/** The deep list's skip: nine tenths of the table (90,000 of the default 100,000), so it lands on rows at any BENCH_GROUPS. */
const DEEP_SKIP = Math.floor(GROUPS * 0.9);

interface Row {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  target: string;
  met: boolean;
}

async function run(name: string, url: string, token: string, paths: string[], target: (r: autocannon.Result) => boolean, targetText: string): Promise<Row> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  return {
    name,
    requestsPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    target: targetText,
    met: target(result) && result.non2xx === 0 && result.errors === 0,
  };
}

/**
 * Up to 1,000 real uids to GET, spread over the table: pages of 100 at skips a tenth of the table apart (at least a
 * page apart, so no uid twice), until 1,000 or the table's end (`totalCount`), so a table of fewer than 1,000
 * groups gives all of them instead of asking for empty pages past its end forever.
 * @throws Error when the emulator answers with no groups at all.
 */
async function spreadUids(url: string, token: string): Promise<string[]> {
  const uids: string[] = [];
  const step = Math.max(100, Math.floor(GROUPS / 10));
  for (let skip = 0; uids.length < 1000; skip += step) {
    const res = await request(`${url}/iam/v2beta1/groups?page_size=100&skip=${skip}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.body.json()) as { groups: Array<{ uid: string }>; totalCount: number };
    uids.push(...body.groups.map((g) => g.uid));
    if (skip + step >= body.totalCount) break;
  }
  if (uids.length === 0) throw new Error("the emulator listed no groups to GET");
  return uids.slice(0, 1000);
}

async function main(): Promise<void> {
  const emu = await emulatorProcess(["--seed-groups", String(GROUPS)]);
  try {
    const uids = await spreadUids(emu.url, emu.token);
    const rows = [
      await run("GET group by uid", emu.url, emu.token, uids.map((u) => `/iam/v2beta1/groups/${u}`), (r) => r.requests.average >= 5000, ">= 5000 req/s"),
      await run("List groups, page of 50", emu.url, emu.token, ["/iam/v2beta1/groups?page_size=50"], (r) => r.latency.p99 <= 20, "p99 <= 20 ms"),
      await run(`List groups, skip=${DEEP_SKIP} of ${GROUPS}`, emu.url, emu.token, [`/iam/v2beta1/groups?page_size=50&skip=${DEEP_SKIP}`], (r) => r.latency.p99 <= 20, "p99 <= 20 ms"),
    ];
    const header = `emulator under autocannon: ${CONNECTIONS} connections, ${SECONDS}s per run, ${GROUPS} groups, ${cpus().length} cores (${cpus()[0]?.model ?? "?"})`;
    process.stdout.write(`\n${header}\n\n`);
    process.stdout.write(`| run | req/s | p50 ms | p99 ms | max ms | non-2xx | errors | target | met |\n|---|---|---|---|---|---|---|---|---|\n`);
    for (const r of rows) {
      process.stdout.write(`| ${r.name} | ${r.requestsPerSec} | ${r.p50Ms} | ${r.p99Ms} | ${r.maxMs} | ${r.non2xx} | ${r.errors} | ${r.target} | ${r.met ? "yes" : "NO"} |\n`);
    }
    const file = path.join(ROOT, "bench", "emulator-results.json");
    writeFileSync(file, `${JSON.stringify({ header, connections: CONNECTIONS, seconds: SECONDS, groups: GROUPS, cores: cpus().length, rows }, null, 2)}\n`);
    process.stdout.write(`\nwritten to ${path.relative(process.cwd(), file)}\n`);
  } finally {
    await emu.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:emulator: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
