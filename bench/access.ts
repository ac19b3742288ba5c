/**
 * `npm run --silent build && node dist/bench/access.js`: the wall time of `platform-pulumi access --current`,
 * `access --unused` and one `access --who-can` on a stack of `BENCH_RESOURCES` resources (default 3,000), the
 * last two as ratios against the first, measured in the same run (docs/performance.md, "Access on a large stack").
 *
 * `pulumi up` of the main job's org (examples/org-setup/org.yaml: 13 groups, 4 identities, 5 bindings) on the
 * emulator gives a real state; that state is replicated (each copy under its own top-level groups, with its own
 * uids and URNs) to the requested size and written back with `pulumi stack import`, since an `up` of 3,000
 * resources takes over ten minutes on a small machine and the command only reads the state. Then the built bin's
 * `access --current --format json` runs `BENCH_ROUNDS` times (default 3) in its own process; each run's wall time
 * (process start to exit, `pulumi stack export` and `pulumi config` included) is printed as one JSON line, then a
 * summary line per command. The emulator holds a copy of every replicated object too (written to its store), so
 * `--unused` reads each identity's `lastSeenTime` from the API as it would on a real org.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";

const RESOURCES = Number(process.env["BENCH_RESOURCES"] ?? 3000);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const STACK = "bench-access";
/** The `--who-can` query timed: who holds any IAM capability at the first copy of the org file's `engineering/platform` group, on the state. */
const WHO_CAN = ["--who-can", "iam.*", "--at", "/engineering-0/platform", "--current"];
const PREFIX = "pulumi-nodejs:dynamic/platform:";

type Json = Record<string, unknown>;

/** A deep copy of `v` with every string passed through `f`. */
function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}

/** Gives copy `k` of an identity's property bag its own `claimMatch.subject`. */
function uniqueSubject(bag: Json, k: number): void {
  const cm = bag["claimMatch"] as Json | undefined;
  if (cm && typeof cm["subject"] === "string") bag["claimMatch"] = { ...cm, subject: `${cm["subject"]}-${k}` };
}

async function main(): Promise<void> {
  const emu = await startEmulator();
  const backend = mkdtempSync(path.join(tmpdir(), "bench-access-"));
  const platform = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  const cli = new PulumiCli({ cwd: REPO_ROOT, backendDir: backend, stack: STACK, env: { ...platform, ORG_FILE: path.join(REPO_ROOT, "examples", "org-setup", "org.yaml") } });
  try {
    await cli.initStack();
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const state = (await cli.exportState()) as unknown as { deployment: { resources: Json[] } };
    const base = state.deployment.resources.filter((r) => String(r["type"]).startsWith(PREFIX));
    const others = state.deployment.resources.filter((r) => !String(r["type"]).startsWith(PREFIX));
    const copies = Math.max(1, Math.round(RESOURCES / base.length));
    const out: Json[] = [...others];
    const root = emu.orgUid;
    const uidRe = new RegExp(`^${root}((?:/[0-9a-f]{16})+)$`);
    const urns = new Set(base.map((r) => r["urn"] as string));
    /** Copy `k` of a string: URNs get a suffix, uids under the root new segments. */
    const copyOf = (k: number) => {
      const seg = (s: string) => createHash("sha1").update(`${s}:${k}`).digest("hex").slice(0, 16);
      return (s: string): string => {
        if (urns.has(s)) return `${s}-${k}`;
        const m = uidRe.exec(s);
        return m ? `${root}${m[1]!.split("/").slice(1).map((x) => `/${seg(x)}`).join("")}` : s;
      };
    };
    for (let k = 0; k < copies; k++) {
      const f = copyOf(k);
      for (const r of base) {
        const c = mapStrings(r, f) as Json;
        // Top-level groups get their own names, so each copy has its own paths.
        for (const bag of ["inputs", "outputs"]) {
          const b = c[bag] as Json | undefined;
          if (b && r["type"] === `${PREFIX}Group` && b["parentUid"] === root && typeof b["name"] === "string") b["name"] = `${b["name"]}-${k}`;
          // Each copy's workloads are its own: one subject trusted by a hundred identities is another org's shape.
          if (b && r["type"] === `${PREFIX}Identity`) uniqueSubject(b, k);
        }
        out.push(c);
      }
    }
    // The API holds every copy as well: --unused reads lastSeenTime from it.
    const rows = emu.dump();
    for (const [name, list] of Object.entries(rows)) {
      const table = emu.store.table(name);
      for (const row of list) {
        if (typeof row["uid"] !== "string" || !uidRe.test(row["uid"])) continue;
        for (let k = 0; k < copies; k++) {
          const c = mapStrings(row, copyOf(k)) as typeof row;
          // A top-level group is renamed in the state's copy; the API's copy follows.
          if (name === "groups" && /^\/[0-9a-f]{16}$/.test(row["uid"].slice(root.length)) && typeof c["name"] === "string") c["name"] = `${c["name"]}-${k}`;
          if (name === "identities") uniqueSubject(c, k);
          table.put(c);
        }
      }
    }
    const file = path.join(backend, "state.json");
    writeFileSync(file, JSON.stringify({ ...state, deployment: { ...state.deployment, resources: out } }));
    await cli.ok(["stack", "import", "--file", file]);
    const count = out.filter((r) => String(r["type"]).startsWith(PREFIX)).length;
    const env = { ...process.env, ...platform, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
    /** One run of the built bin's `access` with `args`, in its own process: exit code, stdout and wall time (ms). */
    const run = (args: readonly string[]) =>
      new Promise<{ code: number; out: string; ms: number }>((resolve) => {
        const started = Date.now();
        const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "access", "--stack", STACK, "--cwd", REPO_ROOT, ...args, "--format", "json"], { env, stdio: ["ignore", "pipe", "inherit"] });
        let o = "";
        child.stdout.on("data", (d: Buffer) => (o += d));
        child.on("close", (code) => resolve({ code: code ?? -1, out: o, ms: Date.now() - started }));
      });
    const commands: Array<{ name: string; args: string[]; ok: number[]; rows: (json: Json) => number }> = [
      { name: "--current", args: ["--current"], ok: [0], rows: (j) => (j["grants"] as unknown[]).length },
      { name: "--unused", args: ["--unused", "--days", "90"], ok: [0, 1], rows: (j) => (j["unused"] as unknown[]).length },
      { name: "--who-can", args: WHO_CAN, ok: [0], rows: (j) => (j["holders"] as unknown[]).length },
    ];
    const medians = new Map<string, number>();
    // Interleaved rounds, so a slower moment of the machine falls on every command alike.
    const times = new Map<string, number[]>(commands.map((c) => [c.name, []]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of commands) {
        const r = await run(c.args);
        if (!c.ok.includes(r.code)) throw new Error(`access ${c.args.join(" ")} exited ${r.code}: ${r.out.slice(0, 500)}`);
        times.get(c.name)!.push(r.ms);
        process.stdout.write(`${JSON.stringify({ command: `access ${c.args.join(" ")}`, run: i + 1, resources: count, rows: c.rows(JSON.parse(r.out) as Json), exit: r.code, ms: r.ms })}\n`);
      }
    }
    for (const c of commands) {
      const sorted = [...times.get(c.name)!].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      medians.set(c.name, median);
      const ratio = median / medians.get("--current")!;
      process.stdout.write(`access ${c.args.join(" ")} on ${count} resources: median ${median} ms (min ${sorted[0]}, max ${sorted.at(-1)}) over ${ROUNDS} runs; ${ratio.toFixed(2)}x access --current\n`);
    }
  } finally {
    await cli.ok(["stack", "rm", "--yes", "--force"]).catch(() => undefined);
    await emu.close();
    rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(REPO_ROOT, `Pulumi.${STACK}.yaml`), { force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
