/**
 * Team state backends for tests: an S3-compatible bucket (moto's server) and a PostgreSQL cluster, each on a free
 * loopback port in its own process, installed by `scripts/ensure-backends` ({@link ensureBackends}).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { cliBinDir, REPO_ROOT } from "../../scripts/lib/pulumi";

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A running state backend: the `PULUMI_BACKEND_URL` and the environment it needs, and how to stop it. */
export interface Backend {
  url: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Polls `probe` every 200 ms until it resolves true; a throw counts as false. @throws Error naming `what` after `ms` (default 30 s). */
export async function waitFor(what: string, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start within ${ms / 1000} s`);
}

/** moto's S3 server on a free port, with one bucket; the CLI reaches it through the `s3://` URL's query. */
export async function startS3(motoServer: string): Promise<Backend> {
  const port = await freePort();
  const child: ChildProcess = spawn(motoServer, ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitFor("moto_server", async () => (await fetch(endpoint)).status < 500);
  const made = await fetch(`${endpoint}/platform-state`, { method: "PUT" });
  if (!made.ok) throw new Error(`creating the bucket failed: HTTP ${made.status}`);
  return {
    url: `s3://platform-state?endpoint=${endpoint}&use_path_style=true&region=us-east-1`,
    env: { AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test", AWS_REGION: "us-east-1" },
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("close", r));
    },
  };
}

/**
 * A PostgreSQL cluster in a temporary folder on a free port (as the `postgres` user when this runs as root), already
 * opened once by the CLI (`pulumi stack ls --all`), so the CLI's own `pulumi_state` table exists before any test uses it:
 * two CLI processes opening a fresh database at once race on that `CREATE TABLE` and one fails with
 * `duplicate key value violates unique constraint "pg_type_typname_nsp_index"` (seen in a fresh-clone CI when two
 * concurrent tests each made a stack).
 */
export async function startPostgres(bin: string): Promise<Backend> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "platform-pg-"));
  const asRoot = process.getuid?.() === 0;
  const sh = (script: string) => {
    const r = asRoot ? spawnSync("su", ["postgres", "-s", "/bin/sh", "-c", script], { encoding: "utf8" }) : spawnSync("/bin/sh", ["-c", script], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${script}: ${r.stdout}${r.stderr}`);
  };
  if (asRoot) {
    const pw = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  sh(`"${bin}/initdb" -D "${dir}/data" -U pulumi --auth=trust -E UTF8 > "${dir}/initdb.log" 2>&1`);
  sh(`"${bin}/pg_ctl" -D "${dir}/data" -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1" -l "${dir}/pg.log" -w start > /dev/null`);
  sh(`"${bin}/createdb" -h 127.0.0.1 -p ${port} -U pulumi pulumi`);
  const url = `postgres://pulumi@127.0.0.1:${port}/pulumi?sslmode=disable`;
  const opened = spawnSync(path.join(cliBinDir(), "pulumi"), ["stack", "ls", "--all", "--non-interactive"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PULUMI_BACKEND_URL: url, PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local" },
  });
  if (opened.status !== 0) throw new Error(`pulumi stack ls --all on the new PostgreSQL backend exited ${opened.status}: ${opened.stdout}${opened.stderr}`);
  return {
    url,
    env: {},
    stop: async () => {
      sh(`"${bin}/pg_ctl" -D "${dir}/data" -m fast -w stop > /dev/null`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `scripts/ensure-backends` and returns what it printed: `MOTO_SERVER`, `PG_BIN`, or a `SKIP_S3` / `SKIP_PG`
 * reason for a backend that cannot be installed here.
 */
export function ensureBackends(): Record<string, string> {
  const r = spawnSync("bash", [path.join(REPO_ROOT, "scripts", "ensure-backends")], { cwd: REPO_ROOT, encoding: "utf8" });
  return Object.fromEntries(
    (r.stdout ?? "")
      .split("\n")
      .map((l) => /^([A-Z_0-9]+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}
