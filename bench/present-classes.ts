/**
 * `npm run bench:present`: the memory, time and output of the access review on an org where many identities
 * trust one workload (docs/access.md, "Output"): N identities whose `claimMatch` all accept the same token, so
 * each can `present` for every other, bound at a few groups with a few roles. Measured at each N of
 * `BENCH_PRESENT_SIZES` (default 10,50,100,1000,3000), each in a child process of its own (its peak RSS is its own):
 *
 * | key | what |
 * |---|---|
 * | `<shape>.<N>.access` | `access --current --format json`: the model ({@link effectiveAccess}), {@link reportGrants}, the JSON envelope, and the table ({@link textTable}) |
 * | `<shape>.<N>.gate` | what the policy pack's `no-new-access` computes for `gate`: the grants before and after (the change adds one more identity trusting the same workload), {@link diffGrants}, the rows of its findings ({@link compactRows}) and `access.json` |
 *
 * Each gives `ms` (wall), `rssMb` (the child's peak RSS, `process.resourceUsage().maxRSS`), `bytes` (JSON; for
 * `gate` `access.json` plus the findings' messages), `tableBytes` (access only) and `grants`, and the growth of
 * each against the smallest N in the same run (`<key>.perIdentity`: bytes and ms per identity, divided by the
 * smallest N's; ≈ 1 is linear). Shapes: `subject` (every identity trusts one exact subject: one class of
 * identities that present for each other), `pattern` (every identity trusts one subject pattern, and every tenth
 * is a workload with its own exact subject that matches the pattern: they present into all the others).
 *
 * `BENCH_PRESENT_BEFORE=<dir>`: also runs each size with the `dist` copy in `<dir>` (another build of this file,
 * e.g. of an older commit), interleaved, and reports `<key>.vsBefore` (this build's ms, RSS and bytes over that
 * one's). A child gets `BENCH_PRESENT_TIMEOUT` seconds (default 300) and a 4 GB heap; one that runs out says so
 * (`"outcome": "timeout" | "exit 134"`) instead of figures. Results: `BENCH_OUT` (default
 * bench/present-results.json). Never a timed test assertion: the target (N = 1,000 under 1 GB and a minute,
 * output per identity flat) is read off this file.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { CLASS_ROWS_FROM, ESCALATION_KINDS, effectiveAccess } from "../provider/access/model";
import { classTable, compactRows, identityWords, diffGrants, reportGrants, textTable } from "../provider/access/report";
import { orgFromStack, type StackObject } from "../provider/access/stack";
import { jsonText } from "../provider/text";

const ROOT = "org0000000000000";
const GHA = "https://token.actions.githubusercontent.com";
/** Groups the identities live and are bound in: two levels under the root. */
const GROUPS = ["platform", "platform/ci", "platform/release", "data", "data/etl", "sales", "sales/crm", "security"];
/** Roles, in turn: viewer at the identity's group, registry.pull, a custom deployer role, and editor (every tenth identity). */
const DEPLOYER = { uid: `${ROOT}/r0000000000000000`, name: "deployer", capabilities: ["CAP_REPO_CREATE", "CAP_TAG_CREATE", "CAP_REPO_LIST"] };

export type Shape = "subject" | "pattern";

const seg = (s: string) => s.replace(/[^a-z0-9]/g, "").padEnd(16, "0").slice(0, 16);

/**
 * The stack objects of the org: {@link GROUPS} under a root, `n` identities spread over them, each bound one
 * role at its group (every tenth `editor`, so escalations open), and with `extra` one more identity of the same
 * shape (a pull request adding it).
 */
export function presentOrg(n: number, shape: Shape, extra = 0): StackObject[] {
  const out: StackObject[] = [];
  const uidOf = (g: string) => `${ROOT}/${g.split("/").map(seg).join("/")}`;
  for (const g of GROUPS) {
    const parent = g.includes("/") ? uidOf(g.slice(0, g.lastIndexOf("/"))) : ROOT;
    out.push({ kind: "Group", urn: `urn:g:${g}`, name: g, props: { uid: uidOf(g), parentUid: parent, name: g.slice(g.lastIndexOf("/") + 1) } });
  }
  out.push({ kind: "Role", urn: "urn:r:deployer", name: "deployer", props: { uid: DEPLOYER.uid, parentUid: ROOT, name: DEPLOYER.name, capabilities: DEPLOYER.capabilities } });
  const roles = ["viewer", "registry.pull", "deployer", "viewer", "registry.pull", "deployer", "viewer", "registry.pull", "deployer", "editor"];
  for (let i = 0; i < n + extra; i++) {
    const g = uidOf(GROUPS[i % GROUPS.length]!);
    const uid = `${g}/i${String(i).padStart(15, "0")}`;
    const claimMatch =
      shape === "subject" ? { issuer: GHA, subject: "repo:my-org/app:ref:refs/heads/main" } : i % 10 === 9 ? { issuer: GHA, subject: `repo:my-org/app-${i}:ref:refs/heads/main` } : { issuer: GHA, subjectPattern: "repo:my-org/.*" };
    out.push({ kind: "Identity", urn: `urn:i:${i}`, name: `wl-${i}`, props: { uid, parentUid: g, name: `wl-${i}`, claimMatch } });
    const role = roles[i % roles.length]!;
    const roleUid = role === "deployer" ? DEPLOYER.uid : `builtin-${role}`;
    out.push({ kind: "RoleBinding", urn: `urn:b:${i}`, name: `b-${i}`, props: { uid: `${g}/b${String(i).padStart(15, "0")}`, identityUid: uid, roleUid, groupUid: g, role: { name: role } } });
  }
  return out;
}

/** One measurement in this process: what `access --current --format json` or the pack's `no-new-access` computes. */
function child(mode: "access" | "gate", n: number, shape: Shape): Record<string, number> {
  const t0 = performance.now();
  const grantsOf = (objs: readonly StackObject[]) => {
    const so = orgFromStack(objs);
    return reportGrants(so, effectiveAccess(so.org, { escalations: ESCALATION_KINDS, classRowsFrom: CLASS_ROWS_FROM }));
  };
  if (mode === "access") {
    const rows = grantsOf(presentOrg(n, shape));
    // As `access --format json` writes it (provider/commands/access.ts jsonReport): a class's members once.
    const { rows: listed, classes } = classTable(rows);
    const json = `${jsonText({ stack: "bench", ...(classes.length ? { classes } : {}), grants: listed })}\n`;
    const table = textTable(rows, true);
    return { ms: performance.now() - t0, bytes: Buffer.byteLength(json), tableBytes: Buffer.byteLength(table), grants: rows.length };
  }
  const changes = diffGrants(grantsOf(presentOrg(n, shape)), grantsOf(presentOrg(n, shape, 1)));
  const gained = changes.filter((c) => c.change === "gained");
  const { rows: listed, classes } = classTable(changes);
  const file = JSON.stringify({ changes: listed, ...(classes.length ? { classes } : {}) });
  let messages = 0;
  for (const r of compactRows(gained)) messages += `identity ${identityWords(r.identity)} gains ${r.gives} at ${r.group} (${r.direct ? r.how[0]! : r.how.join(" ")})`.length;
  return { ms: performance.now() - t0, bytes: Buffer.byteLength(file) + messages, grants: gained.length };
}

interface Outcome {
  outcome: string;
  ms?: number;
  rssMb?: number;
  bytes?: number;
  tableBytes?: number;
  grants?: number;
}

function runChild(script: string, mode: string, n: number, shape: Shape, timeoutS: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--max-old-space-size=4096", script, "--child", mode, String(n), shape], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutS * 1000);
    p.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ outcome: "ok", ...(JSON.parse(out.trim().split("\n").pop()!) as object) });
      else resolve({ outcome: signal === "SIGKILL" ? `timeout (${timeoutS} s)` : `exit ${code ?? signal}`, ...(err ? { error: err.trim().split("\n").slice(-2).join(" ") } : {}) });
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--child") {
    const r = child(argv[1] as "access" | "gate", Number(argv[2]), argv[3] as Shape);
    process.stdout.write(`${JSON.stringify({ ...r, rssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
    return;
  }
  const sizes = (process.env["BENCH_PRESENT_SIZES"] ?? "10,50,100,1000,3000").split(",").map(Number);
  const shapes = (process.env["BENCH_PRESENT_SHAPES"] ?? "subject,pattern").split(",") as Shape[];
  const timeoutS = Number(process.env["BENCH_PRESENT_TIMEOUT"] ?? 300);
  const before = process.env["BENCH_PRESENT_BEFORE"];
  const self = path.join(__dirname, "present-classes.js");
  const results: Record<string, unknown> = {};
  for (const shape of shapes) {
    for (const mode of ["access", "gate"]) {
      let first: { n: number; bytes: number; ms: number } | undefined;
      for (const n of sizes) {
        const key = `${shape}.${n}.${mode}`;
        const ours = await runChild(self, mode, n, shape, timeoutS);
        const row: Record<string, unknown> = { ...ours };
        if (before) {
          const old = await runChild(path.join(before, "bench", "present-classes.js"), mode, n, shape, timeoutS);
          row["before"] = old;
          if (old.outcome === "ok" && ours.outcome === "ok") row["vsBefore"] = { ms: ours.ms! / old.ms!, rss: ours.rssMb! / old.rssMb!, bytes: ours.bytes! / old.bytes! };
        }
        if (ours.outcome === "ok") {
          if (!first) first = { n, bytes: ours.bytes!, ms: ours.ms! };
          else row["perIdentity"] = { bytes: ours.bytes! / n / (first.bytes / first.n), ms: ours.ms! / n / (first.ms / first.n) };
        }
        results[key] = row;
        process.stdout.write(`${JSON.stringify({ key, ...row })}\n`);
      }
    }
  }
  const file = process.env["BENCH_OUT"] ?? path.join(__dirname, "..", "..", "bench", "present-results.json");
  writeFileSync(file, `${JSON.stringify({ when: new Date().toISOString(), node: process.version, sizes, results }, null, 2)}\n`);
  process.stdout.write(`written ${file}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
