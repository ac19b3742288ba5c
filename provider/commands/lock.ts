/**
 * The stack's update lock, read the way the Pulumi CLI's self-managed ("diy") backends read it, so a command that
 * writes state (`recover`) can refuse while an update holds the stack.
 *
 * The CLI (pkg/backend/diy, `lock.go`, version 3.248) locks a stack by writing one object per holder at
 * `.pulumi/locks/<stack's fully qualified name>/<uuid>.json` in the backend's bucket, the name being
 * `organization/<project>/<stack>` (`<stack>` in the older layout without projects); the object is the JSON
 * `{"pid", "username", "hostname", "timestamp"}`. `pulumi up`, `refresh`, `destroy`, `import` and `stack import`
 * take it and delete it when they end; a killed update leaves it until `pulumi cancel` deletes every lock of the
 * stack. Any lock object present means the stack is held. The backend, the project and the stack's fully qualified
 * name are found as the CLI finds them from the folder it runs in (`project.ts`: upward to the first `Pulumi.json`,
 * `Pulumi.yaml` or `Pulumi.yml`; `PULUMI_BACKEND_URL`, else the project's `backend.url`, else the stored login), so a
 * command run from a subfolder of the project, or naming the stack fully from elsewhere, reads the same lock as the
 * `pulumi` it runs. Where the objects live:
 *
 * - `file://<dir>`: files under `<dir>/.pulumi/locks/…` (`file://~` is the home folder);
 * - `postgres://…/<database>`: rows of the backend's table (the URL's `table` parameter, default `pulumi_state`)
 *   keyed by the same paths under the URL's path (`<database>/.pulumi/locks/…`: the CLI prefixes every key of a
 *   non-file backend with the URL's path), each row's `data` the JSON `{"data": <base64 of the object>}`
 *   (pkg/backend/diy/postgres);
 * - `s3://<bucket>[/<prefix>]?endpoint=…&region=…&use_path_style=true&profile=…`: objects under the same paths
 *   (after the URL's path as a prefix), read with the AWS SDK (`@aws-sdk/client-s3`, an optional peer dependency:
 *   without it the lock is not read) and its default credential chain, as the CLI's AWS SDK does;
 * - other backends (Azure Blob, Google Cloud Storage, the Pulumi Cloud) are not read here:
 *   {@link readStackLocks} says so (`checked: false`, with why); the caller decides (`recover` plans with a
 *   warning, and applies only when told to go on without the lock: `--assume-unlocked`).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { homedir, hostname } from "node:os";
import * as path from "node:path";
import { printable } from "../text";
import { configuredBackend, stackOf } from "./project";
import { StackCommandError, emptyAttrsFiles, runPulumi, type StackRef } from "./stack";

/** One lock object of the stack: where it is (credentials masked) and what its holder wrote into it. */
export interface StackLock {
  /** The lock's key in the backend, e.g. `.pulumi/locks/organization/my-org/prod/<uuid>.json`. */
  key: string;
  /** Process id of the `pulumi` that holds it; undefined when the object could not be parsed. */
  pid?: number;
  username?: string;
  hostname?: string;
  /** When the lock was taken (RFC 3339, as the CLI wrote it). */
  timestamp?: string;
}

/** What {@link readStackLocks} found: the backend's kind, whether its locks could be read, and the locks. */
export interface LockReading {
  /** `file`, `postgres`, or the URL's scheme for a backend not read here. */
  backend: string;
  /** False for a backend whose locks this package does not read (then `locks` is empty). */
  checked: boolean;
  /** Why `checked` is false, when it is. */
  why?: string;
  locks: StackLock[];
}

/**
 * The backend the CLI uses for this stack, found as the CLI finds it (`project.ts`): `PULUMI_BACKEND_URL`, else the
 * `backend.url` of the project found upward from `ref.cwd`, else the stored login; only when none of them gives a
 * URL, what `pulumi whoami --json` (run in `ref.cwd`) reports.
 * @throws StackCommandError when none gives a URL.
 */
export async function backendUrl(ref: StackRef): Promise<string> {
  const found = configuredBackend(ref.cwd);
  if (found) return found.url;
  const r = await runPulumi(ref, ["whoami", "--json"], false);
  const url = r.code === 0 ? (JSON.parse(r.stdout || "{}") as { url?: unknown }).url : undefined;
  if (typeof url !== "string" || url === "") throw new StackCommandError("could not tell which state backend the CLI uses (no PULUMI_BACKEND_URL, no backend.url in the project, no stored login, and `pulumi whoami --json` gave no url)", "Log in (`pulumi login`) or set PULUMI_BACKEND_URL, then run this command again.");
  return url;
}

/**
 * The stack's lock folders in the bucket: the project layout's (`organization/<project>/<stack>`, the project from
 * the name or else the project found upward from `ref.cwd`, `project.ts`), then the older one's (`<stack>`).
 */
function lockDirs(ref: StackRef): string[] {
  const { project, stack } = stackOf(ref.stack, ref.cwd);
  return [...(project ? [`.pulumi/locks/organization/${project}/${stack}/`] : []), `.pulumi/locks/${stack}/`];
}

/** A lock object's content as the CLI writes it; fields it cannot read stay undefined. */
function parseLock(key: string, bytes: string): StackLock {
  try {
    const v = JSON.parse(bytes) as Record<string, unknown>;
    return {
      key,
      ...(typeof v["pid"] === "number" ? { pid: v["pid"] } : {}),
      ...(typeof v["username"] === "string" ? { username: v["username"] } : {}),
      ...(typeof v["hostname"] === "string" ? { hostname: v["hostname"] } : {}),
      ...(typeof v["timestamp"] === "string" ? { timestamp: v["timestamp"] } : {}),
    };
  } catch {
    return { key };
  }
}

/** The folder a `file://` backend URL names (`~` is the home folder; a relative path is taken from `cwd`). */
function fileRoot(url: string, cwd: string): string {
  let p = decodeURIComponent(url.slice("file://".length).replace(/\?.*$/, ""));
  if (p === "~" || p.startsWith("~/")) p = path.join(homedir(), p.slice(1));
  return path.resolve(cwd, p);
}

function fileLocks(root: string, dirs: readonly string[]): StackLock[] {
  const out: StackLock[] = [];
  for (const dir of dirs) {
    const abs = path.join(root, dir);
    if (!existsSync(abs)) continue;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      // gocloud's file driver keeps each object's attributes beside it in `<name>.attrs`; those are not objects.
      if (!e.isFile() || e.name.endsWith(".attrs")) continue;
      try {
        out.push(parseLock(dir + e.name, readFileSync(path.join(abs, e.name), "utf8")));
      } catch {
        // deleted between the listing and the read: the lock was released
      }
    }
  }
  return out;
}

async function postgresLocks(url: string, dirs: readonly string[]): Promise<StackLock[]> {
  const u = new URL(url);
  const table = u.searchParams.get("table") || "pulumi_state";
  u.searchParams.delete("table");
  // The CLI puts the table name into its SQL as given; refuse anything that is not a plain (schema-qualified) name.
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table)) {
    throw new StackCommandError(`the PostgreSQL backend's table parameter ${JSON.stringify(printable(table))} is not a plain table name (letters, digits, _; schema.table allowed)`);
  }
  const pg = await import("pg");
  const client = new pg.Client({ connectionString: u.toString() });
  try {
    await client.connect();
    const exists = await client.query<{ t: string | null }>("SELECT to_regclass($1) AS t", [table]);
    if (!exists.rows[0]?.t) return []; // the CLI creates the table at its first use: no table, no lock
    const out: StackLock[] = [];
    for (const dir of dirs) {
      const r = await client.query<{ key: string; data: unknown }>(`SELECT key, data FROM ${table} WHERE left(key, length($1)) = $1 AND position('/' in substr(key, length($1) + 1)) = 0 ORDER BY key`, [dir]);
      for (const row of r.rows) {
        const data = typeof row.data === "string" ? (JSON.parse(row.data) as { data?: unknown }) : (row.data as { data?: unknown });
        out.push(parseLock(row.key, typeof data?.data === "string" ? Buffer.from(data.data, "base64").toString("utf8") : ""));
      }
    }
    return out;
  } catch (err) {
    if (err instanceof StackCommandError) throw err;
    throw new StackCommandError(`could not read the stack's lock from the PostgreSQL backend: ${printable((err as Error).message)}`, "Check that the database in PULUMI_BACKEND_URL is reachable, then run this command again.");
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Reads the locks the CLI's update lock would meet for this stack (see the module comment for where they live).
 * @throws StackCommandError when the backend cannot be read (the database unreachable, the table name unusual).
 */
export async function readStackLocks(ref: StackRef, url?: string): Promise<LockReading> {
  const u = url ?? (await backendUrl(ref));
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(u)?.[1]?.toLowerCase() ?? "file";
  const dirs = lockDirs(ref);
  if (scheme === "file") return { backend: "file", checked: true, locks: fileLocks(fileRoot(u, ref.cwd), dirs) };
  // Every backend but `file://` keeps its objects under the URL's path as a prefix (the CLI's `PrefixedBucket`):
  // for PostgreSQL that is the database's name, e.g. `pulumi/.pulumi/locks/…`.
  const sub = new URL(u).pathname.replace(/^\/+/, "");
  const prefix = sub === "" || sub.endsWith("/") ? sub : `${sub}/`;
  if (scheme === "postgres" || scheme === "postgresql") return { backend: "postgres", checked: true, locks: await postgresLocks(u, dirs.map((d) => decodeURIComponent(prefix) + d)) };
  if (scheme === "s3") {
    const sdk = await loadS3();
    if (!sdk) return { backend: "s3", checked: false, why: "reading an S3 backend's lock needs the AWS SDK: `npm install @aws-sdk/client-s3`", locks: [] };
    return { backend: "s3", checked: true, locks: await s3Locks(sdk, new URL(u), dirs.map((d) => decodeURIComponent(prefix) + d)) };
  }
  return { backend: scheme, checked: false, why: `this command does not read the lock of a ${scheme} backend`, locks: [] };
}

type S3Sdk = typeof import("@aws-sdk/client-s3");

/** The AWS SDK's S3 client module, or undefined when it is not installed (an optional peer dependency). */
async function loadS3(): Promise<S3Sdk | undefined> {
  try {
    return await import("@aws-sdk/client-s3");
  } catch {
    return undefined;
  }
}

async function s3Locks(sdk: S3Sdk, u: URL, dirs: readonly string[]): Promise<StackLock[]> {
  const q = u.searchParams;
  const endpoint = q.get("endpoint");
  const region = q.get("region") ?? undefined;
  const profile = q.get("profile") ?? undefined;
  const pathStyle = ["true", "1"].includes(q.get("use_path_style") ?? q.get("s3ForcePathStyle") ?? "");
  const https = q.get("disable_https") === "true" ? "http" : "https";
  const client = new sdk.S3Client({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint: /^[a-z]+:\/\//i.test(endpoint) ? endpoint : `${https}://${endpoint}` } : {}),
    ...(pathStyle ? { forcePathStyle: true } : {}),
    ...(profile ? { profile } : {}),
  });
  const bucket = u.hostname;
  try {
    const out: StackLock[] = [];
    for (const dir of dirs) {
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: dir, Delimiter: "/", ...(token ? { ContinuationToken: token } : {}) }));
        for (const o of page.Contents ?? []) {
          if (!o.Key) continue;
          try {
            const got = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: o.Key }));
            out.push(parseLock(o.Key, (await got.Body?.transformToString("utf8")) ?? ""));
          } catch (err) {
            if ((err as { name?: string }).name !== "NoSuchKey") throw err; // released between the listing and the read
          }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    }
    return out;
  } catch (err) {
    throw new StackCommandError(`could not read the stack's lock from the S3 backend (bucket ${printable(bucket)}): ${printable((err as Error).message)}`, "Check the bucket, the endpoint and the AWS credentials the CLI uses, then run this command again.");
  } finally {
    client.destroy();
  }
}

/** Whether the lock's holder still runs: true/false when it was taken on this machine (Linux `/proc`), else undefined. */
export function holderRuns(lock: StackLock): boolean | undefined {
  if (lock.pid === undefined || lock.hostname !== hostname() || process.platform !== "linux") return undefined;
  return existsSync(`/proc/${lock.pid}`);
}

/**
 * The error that says which updates hold the stack (holder, pid, when, key) and what to do: wait for a running
 * update; `pulumi cancel` for one that was killed.
 * @param doing what the caller was about to do, for the message (e.g. "recover").
 */
export function lockedError(ref: StackRef, reading: LockReading, doing: string): StackCommandError {
  const runs = reading.locks.map(holderRuns);
  const described = reading.locks.map((l, i) => {
    const who = `${printable(l.username ?? "?")}@${printable(l.hostname ?? "?")}`;
    const state = runs[i] === true ? ", still running" : runs[i] === false ? ", no longer running" : "";
    return `  ${printable(l.key)}: update by ${who} (pid ${l.pid ?? "?"}${state}) since ${printable(l.timestamp ?? "?")}`;
  });
  const allDead = runs.every((r) => r === false);
  // A killed update can also leave the file backend's attributes file empty, and then `pulumi cancel` itself fails
  // to load the stack: say so first, or the two advices would send the user round in a circle.
  const empty = allDead ? emptyAttrsFiles(ref) : [];
  return new StackCommandError(
    `stack ${printable(ref.stack)} is locked by ${reading.locks.length === 1 ? "an update" : `${reading.locks.length} updates`} (${reading.backend} backend); ${doing} reads and writes nothing while an update holds the stack:\n${described.join("\n")}`,
    empty.length > 0
      ? `The update that holds the lock was killed while writing: the file backend's attributes file ${empty.join(", ")} is empty (the checkpoint beside it is intact). Remove it (\`rm ${empty.join(" ")}\`), release the lock with \`pulumi cancel --stack ${ref.stack} --yes\`, then run this command again.`
      : allDead
        ? `The update that holds the lock was killed. Release it with \`pulumi cancel --stack ${ref.stack} --yes\`, then run this command again.`
        : `Wait for that update to end, then run this command again. If it was killed on another machine, release its lock with \`pulumi cancel --stack ${ref.stack} --yes\` first.`,
  );
}

/**
 * Refuses to go on while any update holds the stack ({@link lockedError}).
 * @param doing what the caller was about to do, for the message (e.g. "recover").
 * @returns the reading, when no lock is held; a backend whose locks are not read returns `checked: false`.
 * @throws StackCommandError when a lock is held or the backend cannot be read.
 */
export async function refuseWhileLocked(ref: StackRef, doing: string): Promise<LockReading> {
  const reading = await readStackLocks(ref);
  if (reading.locks.length === 0) return reading;
  throw lockedError(ref, reading, doing);
}

/**
 * What to say when reading or writing the stack through the CLI failed (`err`), given that an update may have
 * started meanwhile: the lock is read again, and
 * - while an update holds it: {@link lockedError} (the failure was the update writing; the CLI's own advice, such
 *   as restoring the checkpoint from its `.bak` copy, would undo what the update writes);
 * - when it cannot be read (a backend whose locks are not read, or the read failing): `err`'s message with a hint
 *   that says an update may be writing the stack and what to do, instead of `err`'s own;
 * - when no update holds it: `err` as it was.
 * @returns the error to throw; `err` itself when it is not a {@link StackCommandError}.
 */
export async function explainUnderLock(ref: StackRef, err: unknown, doing: string): Promise<unknown> {
  if (!(err instanceof StackCommandError)) return err;
  let reading: LockReading;
  try {
    reading = await readStackLocks(ref);
  } catch (readErr) {
    reading = { backend: "?", checked: false, why: printable((readErr as Error).message.split("\n")[0] ?? ""), locks: [] };
  }
  if (reading.locks.length > 0) return lockedError(ref, reading, doing);
  if (reading.checked) return err;
  const bare = err.hint !== undefined && err.message.endsWith(`\n${err.hint}`) ? err.message.slice(0, -err.hint.length - 1) : err.message;
  return new StackCommandError(
    bare,
    `The stack's lock was not read (${printable(reading.why ?? reading.backend)}), so an update of stack ${ref.stack} may be writing it now: ` +
      `restore nothing. Wait for any running update of the stack to end, then run this command again; ` +
      `if an update was killed, release its lock with \`pulumi cancel --stack ${ref.stack} --yes\` first.`,
    err.reasons,
  );
}
