/**
 * `npm run --silent build && node dist/bench/access.js`: the wall time of `platform-pulumi access --current` on a
 * stack of `BENCH_RESOURCES` resources (default 3,000).
 *
 * `pulumi up` of the main job's org (examples/org-setup/org.yaml: 13 groups, 4 identities, 5 bindings) on the
 * emulator gives a real state; that state is replicated (each copy under its own top-level groups, with its own
 * uids and URNs) to the requested size and written back with `pulumi stack import`, since an `up` of 3,000
 * resources takes over ten minutes on a small machine and the command only reads the state. Then the built bin's
 * `access --current --format json` runs `BENCH_ROUNDS` times (default 3) in its own process; each run's wall time
 * (process start to exit, `pulumi stack export` and `pulumi config` included) is printed as one JSON line, then a
 * summary line.
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
const PREFIX = "pulumi-nodejs:dynamic/platform:";

type Json = Record<string, unknown>;

/** A deep copy of `v` with every string passed through `f`. */
function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
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
    for (let k = 0; k < copies; k++) {
      const urns = new Set(base.map((r) => r["urn"] as string));
      const seg = (s: string) => createHash("sha1").update(`${s}:${k}`).digest("hex").slice(0, 16);
      const f = (s: string): string => {
        if (urns.has(s)) return `${s}-${k}`;
        const m = uidRe.exec(s);
        return m ? `${root}${m[1]!.split("/").slice(1).map((x) => `/${seg(x)}`).join("")}` : s;
      };
      for (const r of base) {
        const c = mapStrings(r, f) as Json;
        // Top-level groups get their own names, so each copy has its own paths.
        for (const bag of ["inputs", "outputs"]) {
          const b = c[bag] as Json | undefined;
          if (b && r["type"] === `${PREFIX}Group` && b["parentUid"] === root && typeof b["name"] === "string") b["name"] = `${b["name"]}-${k}`;
        }
        out.push(c);
      }
    }
    const file = path.join(backend, "state.json");
    writeFileSync(file, JSON.stringify({ ...state, deployment: { ...state.deployment, resources: out } }));
    await cli.ok(["stack", "import", "--file", file]);
    const count = out.filter((r) => String(r["type"]).startsWith(PREFIX)).length;
    const env = { ...process.env, ...platform, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const started = Date.now();
      const r = await new Promise<{ code: number; out: string }>((resolve) => {
        const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "access", "--stack", STACK, "--cwd", REPO_ROOT, "--current", "--format", "json"], { env, stdio: ["ignore", "pipe", "inherit"] });
        let o = "";
        child.stdout.on("data", (d: Buffer) => (o += d));
        child.on("close", (code) => resolve({ code: code ?? -1, out: o }));
      });
      const ms = Date.now() - started;
      if (r.code !== 0) throw new Error(`access exited ${r.code}`);
      const grants = (JSON.parse(r.out) as { grants: unknown[] }).grants.length;
      times.push(ms);
      process.stdout.write(`${JSON.stringify({ run: i + 1, resources: count, grants, ms })}\n`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    process.stdout.write(`access --current on ${count} resources: median ${sorted[Math.floor(sorted.length / 2)]} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms over ${ROUNDS} runs\n`);
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
