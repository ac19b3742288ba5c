/**
 * `npm run bench:split`: the generated org (bench/programs/org: groups nested 4 deep, an identity and a binding per
 * group) converged as one stack against the same org laid out as a set of stacks, the layout `platform-pulumi
 * export --layout split` writes (docs/export.md): a root stack with the top groups, exporting their uids, and child
 * stacks that read them through a StackReference and declare everything under their top groups.
 *
 * Sides, each `up`, `refresh --yes` and `destroy` against the emulator, interleaved per operation (all sides' `up`,
 * then all sides' `refresh`, then all sides' `destroy`):
 *
 * | side | what |
 * |---|---|
 * | split | the set with this provider: `up` the root, then the children, `BENCH_SPLIT_PARALLEL` at a time; `refresh` every stack, that many at a time; `destroy` the children, then the root. Its time is the whole set's wall time |
 * | ours | the org as one stack with this provider |
 * | floor | the org as one stack with the no-op dynamic provider (the single-stack floor) |
 *
 * Figures: seconds per op per side, and `split / floor` and `ours / floor` per op (one round unless
 * BENCH_SPLIT_ROUNDS says more; the ratio of each round's pair, then median and min–max).
 *
 * Environment: BENCH_SPLIT_SIZES (resources, multiples of 15, default 750), BENCH_SPLIT_SIDES (default
 * split,floor,ours), BENCH_SPLIT_CHILDREN (child stacks; top group i goes to child i % n; default 8; `top` for one
 * per top group, what the export writes by default), BENCH_SPLIT_PARALLEL (stacks at a time, default 2, this
 * machine's cores), BENCH_SPLIT_ROUNDS (default 1). Results go to bench/split-results.json (sizes not run keep their
 * earlier figures; each size's `run` says when and how it was measured), with the load average
 * at the start of each size. Target: split ≤ 0.5 × floor at 3,000 resources for every op.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { pairRatios, round, spread } from "./stats";

const SIZES = (process.env["BENCH_SPLIT_SIZES"] ?? "750").split(",").map((x) => Number(x.trim()));
const SIDES = (process.env["BENCH_SPLIT_SIDES"] ?? "split,floor,ours").split(",").map((x) => x.trim()) as Side[];
const CHILDREN = process.env["BENCH_SPLIT_CHILDREN"] ?? "8";
const PARALLEL = Number(process.env["BENCH_SPLIT_PARALLEL"] ?? 2);
const ROUNDS = Number(process.env["BENCH_SPLIT_ROUNDS"] ?? 1);
const OPS = ["up", "refresh", "destroy"] as const;
type Op = (typeof OPS)[number];
type Side = "split" | "ours" | "floor";

const log = (s: string) => process.stderr.write(`bench:split: ${s}\n`);

/** Runs `jobs` with at most `n` at a time; rejects with the first failure once all have settled. */
export async function pool<T>(n: number, jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array<T>(jobs.length);
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      try {
        out[i] = await jobs[i]!();
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, n) }, worker));
  if (errors.length) throw errors[0];
  return out;
}

/** Appends plain config values to a stack's file (after `stack init` wrote its encryption salt). */
function setConfig(cwd: string, stack: string, project: string, values: Record<string, string | number>): void {
  const file = path.join(cwd, `Pulumi.${stack}.yaml`);
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // No file yet: the config section is all of it.
  }
  const lines = Object.entries(values).map(([k, v]) => `  ${project}:${k}: ${JSON.stringify(String(v))}`);
  writeFileSync(file, `${text.replace(/\n?$/, "\n")}config:\n${lines.join("\n")}\n`);
}

interface SizeFigures {
  size: number;
  children: number;
  load_average_at_start: number[];
  seconds: Record<Side, Record<Op, number[]>>;
  /** Per op, the split set's per-stack seconds of the first round (root first). */
  split_stack_seconds: Record<Op, number[]>;
}

/** One size: every side's up, refresh and destroy, interleaved per op, for ROUNDS rounds. */
async function sizeBench(size: number): Promise<SizeFigures> {
  const load = loadavg().map((x) => round(x, 2));
  const emu = await startEmulator();
  const viewer = (await new PlatformClient({ apiUrl: emu.url, token: emu.token }).roles.list({ name: "viewer" }).collect())[0]!.uid;
  const backend = mkdtempSync(path.join(tmpdir(), "bench-split-"));
  const cwd = path.join(REPO_ROOT, "bench", "programs", "org");
  const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  const tops = size / 15 / 1;
  const children = CHILDREN === "top" ? tops : Math.min(Number(CHILDREN), tops);
  const f: SizeFigures = {
    size,
    children,
    load_average_at_start: load,
    seconds: Object.fromEntries(SIDES.map((s) => [s, { up: [], refresh: [], destroy: [] }])) as unknown as SizeFigures["seconds"],
    split_stack_seconds: { up: [], refresh: [], destroy: [] },
  };
  const cli = (stack: string) => new PulumiCli({ cwd, backendDir: backend, stack, env });
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const sides = r % 2 === 0 ? SIDES : [...SIDES].reverse();
      const one: Partial<Record<Side, PulumiCli>> = {};
      let root: PulumiCli | undefined;
      let kids: PulumiCli[] = [];
      for (const side of sides) {
        if (side === "split") {
          const base = `split-${size}-${r}`;
          root = cli(`${base}-root`);
          await root.initStack();
          setConfig(cwd, `${base}-root`, "bench-org", { mode: "real", roleUid: viewer, size, part: "root" });
          kids = [];
          for (let b = 0; b < children; b++) {
            const k = cli(`${base}-c${b}`);
            await k.initStack();
            setConfig(cwd, `${base}-c${b}`, "bench-org", { mode: "real", roleUid: viewer, size, part: "child", bucket: b, buckets: children, rootStack: `organization/bench-org/${base}-root` });
            kids.push(k);
          }
        } else {
          const c = cli(`${side}-${size}-${r}`);
          await c.initStack();
          setConfig(cwd, `${side}-${size}-${r}`, "bench-org", { mode: side === "ours" ? "real" : "noop", roleUid: viewer, size });
          one[side] = c;
        }
      }
      for (const op of OPS) {
        const args = [op, "--yes", "--skip-preview"];
        for (const side of sides) {
          const started = Date.now();
          if (side === "split") {
            const timed = async (c: PulumiCli) => (await c.ok(args)).ms / 1000;
            const kidJobs = kids.map((k) => () => timed(k));
            let per: number[];
            if (op === "up") per = [await timed(root!), ...(await pool(PARALLEL, kidJobs))];
            else if (op === "destroy") {
              const k = await pool(PARALLEL, kidJobs);
              per = [await timed(root!), ...k];
            } else per = await pool(PARALLEL, [() => timed(root!), ...kidJobs]);
            if (r === 0) f.split_stack_seconds[op] = per.map((x) => round(x, 2));
          } else await one[side]!.ok(args);
          const s = (Date.now() - started) / 1000;
          f.seconds[side][op].push(s);
          log(`size ${size} round ${r + 1}/${ROUNDS} ${op} ${side}${side === "split" ? ` (1 root + ${children} children, ${PARALLEL} at a time)` : ""}: ${s.toFixed(1)}s, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
        }
      }
      for (const c of [...Object.values(one), ...(root ? [root, ...kids] : [])]) await c.ok(["stack", "rm", "--yes", "--force"]);
    }
  } finally {
    rmSync(backend, { recursive: true, force: true });
    for (const file of readdirSync(cwd).filter((x) => /^Pulumi\..+\.yaml$/.test(x) && x !== "Pulumi.yaml")) rmSync(path.join(cwd, file));
    await emu.close();
  }
  return f;
}

/** Runs every size, prints a table per size and writes bench/split-results.json (also what `BENCH_SPLIT=1 npm run bench` runs). */
export async function splitBench(): Promise<void> {
  const started = Date.now();
  log(`${cpus().length} cores; sizes ${SIZES.join(", ")}; sides ${SIDES.join(", ")}; children ${CHILDREN}; ${PARALLEL} at a time; ${ROUNDS} round(s)`);
  const results: Record<string, unknown> = {
    cores: cpus().length,
    parallel: PARALLEL,
    rounds: ROUNDS,
    sizes: {} as Record<string, unknown>,
  };
  for (const size of SIZES) {
    const f = await sizeBench(size);
    const ratios: Record<string, unknown> = {};
    for (const op of OPS) {
      if (f.seconds.floor) {
        if (f.seconds.split) ratios[`${op}_split_over_floor`] = pairRatios(f.seconds.split[op], f.seconds.floor[op]);
        if (f.seconds.ours) ratios[`${op}_ours_over_floor`] = pairRatios(f.seconds.ours[op], f.seconds.floor[op]);
      }
    }
    (results["sizes"] as Record<string, unknown>)[size] = {
      run: `${new Date(started).toISOString()}, ${ROUNDS} round(s), sides ${SIDES.join(",")}, load average ${f.load_average_at_start.join(" ")} at the start`,
      children: f.children,
      load_average_at_start: f.load_average_at_start,
      ...ratios,
      seconds: Object.fromEntries(Object.entries(f.seconds).map(([side, ops]) => [side, Object.fromEntries(OPS.map((op) => [op, spread(ops[op], 1)]))])),
      samples: f.seconds,
      split_stack_seconds: f.split_stack_seconds,
    };
    // Written after each size, so a long run keeps what it measured.
    results["total_seconds"] = Math.round((Date.now() - started) / 1000);
    // Sizes this run did not measure keep their figures from earlier runs (each size says its own `run`).
    const file = path.join(REPO_ROOT, "bench", "split-results.json");
    let earlier: Record<string, unknown> = {};
    try {
      earlier = ((JSON.parse(readFileSync(file, "utf8")) as { sizes?: Record<string, unknown> }).sizes ?? {});
    } catch {
      // No earlier file, or not JSON: this run's sizes alone.
    }
    const sizes = { ...earlier, ...(results["sizes"] as Record<string, unknown>) };
    writeFileSync(file, `${JSON.stringify({ ...results, sizes }, null, 2)}\n`);
    process.stdout.write(`\nsize ${size}, ${f.children} child stacks, load at start ${f.load_average_at_start.join(" ")}\n| op | ${Object.keys(f.seconds).map((s) => `${s} s`).join(" | ")} | split / floor | ours / floor |\n|---|${Object.keys(f.seconds).map(() => "---|").join("")}---|---|\n`);
    for (const op of OPS) {
      const r = ratios as Record<string, { median: number } | undefined>;
      process.stdout.write(`| ${op} | ${Object.values(f.seconds).map((o) => spread(o[op], 1).median).join(" | ")} | ${r[`${op}_split_over_floor`]?.median ?? "—"} | ${r[`${op}_ours_over_floor`]?.median ?? "—"} |\n`);
    }
  }
  process.stdout.write(`\nwritten to bench/split-results.json in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

if (require.main === module) {
  splitBench().catch((err: unknown) => {
    process.stderr.write(`bench:split: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
