/**
 * Makes the dynamic-provider plugin process exit when the Pulumi engine that started it is gone.
 *
 * The engine starts `pulumi-resource-pulumi-nodejs` (a `#!/bin/sh` script from @pulumi/pulumi) which runs
 * `node …/cmd/dynamic-provider` without `exec`, so this process's parent is that `sh` and the engine is its
 * grandparent. The plugin is a gRPC server: when the engine is killed (SIGKILL included) nothing tells it to stop,
 * and both `node` and its `sh` used to live on, re-parented to PID 1. The runtime therefore starts,
 * once per process, an unref'd timer that
 *
 * - on Linux finds the engine: the nearest ancestor, walking up from `process.ppid` through `/proc/<pid>/stat`
 *   for at most {@link MAX_LEVELS} levels, whose command is `pulumi`; every process of that chain is pinned by pid
 *   *and* start time, so a reused pid is never mistaken for the engine. The watcher fires when a process of the
 *   chain is gone (or a zombie), or the chain is re-parented (some link's parent changed, `process.ppid`
 *   included). When no engine is found (no `/proc`, a renamed binary, a program run outside Pulumi such as a
 *   unit test) it falls back to the next rule;
 * - elsewhere, or without an engine ancestor, watches `process.ppid` only and fires when it changes (the direct
 *   parent died and this process was re-parented). While the parent lives, that never happens.
 *
 * - when it knows the engine's address (the plugin's first argument, `127.0.0.1:<port>`, {@link engineAddressArg}:
 *   the plugin's own entry, `plugin.ts`, and the runtime, `runtime.ts`, both give it): while no engine chain was
 *   found, a refused connection to that address means the engine is gone (the engine died before the watch could
 *   see it: while the plugin was still loading, or, in the CLI's bundled plugin, which loads this package only at
 *   its first resource call, while that call was on its way; the `sh` wrapper, re-parented, is then alive and
 *   watching it alone would wait forever).
 *
 * When it fires, the process exits after a short grace ({@link DEFAULT_GRACE_MS}) with code 1, flushing nothing:
 * the engine that would read any answer is gone. Set `PLATFORM_PULUMI_ENGINE_WATCH=off` to never start it.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";

/** The fields of `/proc/<pid>/stat` the watcher uses. */
export interface ProcStat {
  pid: number;
  /** The command (field 2, without its parentheses): the executable's base name, at most 15 bytes. */
  comm: string;
  /** One letter (field 3): R, S, D, Z (zombie), X (dead), … */
  state: string;
  /** Parent pid (field 4). */
  ppid: number;
  /** Start time in clock ticks after boot (field 22): with the pid, it names one process for good. */
  startTime: string;
}

/** Reads one process's stat; undefined when there is no such process (or no /proc). */
export type StatReader = (pid: number) => ProcStat | undefined;

/** How many ancestors the engine search looks at (plugin → sh → pulumi needs 2). */
export const MAX_LEVELS = 4;
/** The engine's command as /proc shows it. */
export const ENGINE_COMM = "pulumi";
/** Poll interval, in milliseconds. */
export const DEFAULT_INTERVAL_MS = 500;
/** Time between noticing the engine is gone and exiting, in milliseconds. */
export const DEFAULT_GRACE_MS = 500;

/**
 * Parses the text of `/proc/<pid>/stat`. The command may hold spaces and parentheses, so it runs from the first
 * `(` to the *last* `)`.
 * @returns undefined when the text does not have that shape.
 */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 1 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const state = rest[0];
  const ppid = Number(rest[1]);
  const startTime = rest[19];
  if (!Number.isInteger(pid) || pid <= 0 || !state || !Number.isInteger(ppid) || !startTime || !/^\d+$/.test(startTime)) return undefined;
  return { pid, comm: text.slice(open + 1, close), state, ppid, startTime };
}

/** Reads `/proc/<pid>/stat`; undefined when it cannot be read or parsed. */
export const readProcStat: StatReader = (pid) => {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
};

/**
 * The ancestors from `ppid` up to and including the nearest one whose command is {@link ENGINE_COMM}, looking
 * at most `maxLevels` processes.
 * @returns the chain, direct parent first and engine last; undefined when no engine is found.
 */
export function findEngine(ppid: number, read: StatReader, maxLevels = MAX_LEVELS): ProcStat[] | undefined {
  const chain: ProcStat[] = [];
  for (let pid = ppid; chain.length < maxLevels && pid > 0; ) {
    const st = read(pid);
    if (!st || st.state === "Z" || st.state === "X") return undefined;
    chain.push(st);
    if (st.comm === ENGINE_COMM) return chain;
    pid = st.ppid;
  }
  return undefined;
}

/** What a watcher watches: the chain up to the engine, or (fallback) only the direct parent's pid. */
export type Watched = { kind: "engine"; chain: ProcStat[] } | { kind: "parent"; ppid: number };

/** Decides what to watch: the engine chain when `read` is given and finds one, else the direct parent. */
export function chooseWatched(ppid: number, read: StatReader | undefined): Watched {
  const chain = read ? findEngine(ppid, read) : undefined;
  return chain ? { kind: "engine", chain } : { kind: "parent", ppid };
}

/**
 * Whether the engine is lost.
 * @param ppid this process's parent pid now.
 * @param read reads a process's stat now (only used for an engine chain).
 * @returns why the engine is considered gone, or undefined while it (and the chain to it) lives.
 */
export function engineLost(watched: Watched, ppid: number, read: StatReader): string | undefined {
  if (watched.kind === "parent") return ppid === watched.ppid ? undefined : `parent ${watched.ppid} is gone (now ${ppid})`;
  const { chain } = watched;
  if (ppid !== chain[0]!.pid) return `re-parented from ${chain[0]!.pid} to ${ppid}`;
  for (let i = 0; i < chain.length; i++) {
    const was = chain[i]!;
    const now = read(was.pid);
    if (!now || now.startTime !== was.startTime || now.state === "Z" || now.state === "X") return `${was.comm} (${was.pid}) is gone`;
    const next = chain[i + 1];
    if (next && now.ppid !== next.pid) return `${was.comm} (${was.pid}) re-parented from ${next.pid} to ${now.ppid}`;
  }
  return undefined;
}

/** Options of {@link startEngineWatch}; the defaults are the real process's. */
export interface EngineWatchOptions {
  intervalMs?: number;
  graceMs?: number;
  platform?: NodeJS.Platform;
  /** This process's parent pid now. */
  ppid?: () => number;
  read?: StatReader;
  /** Called once, `graceMs` after the engine is found gone. */
  exit?: (reason: string) => void;
  env?: NodeJS.ProcessEnv;
  /**
   * The engine's gRPC address (`host:port`, the plugin's first argument). Used only when no engine chain is found:
   * each tick then tries a TCP connection, and a refused one means the engine is gone.
   */
  engineAddress?: string;
}

/** A started watcher. */
export interface EngineWatch {
  watched: Watched;
  stop(): void;
}

/**
 * The process's watcher, kept on `globalThis`: the plugin's entry (`plugin.ts`, loaded from `dist/provider`) and
 * the runtime (`runtime.ts`, loaded from its bundle) each have their own copy of this module, and must share one.
 */
const STARTED = Symbol.for("platform-pulumi.engineWatch");
const holder = globalThis as { [STARTED]?: EngineWatch };

/**
 * Starts the watcher once per process (later calls return the first one, whichever copy of this module started
 * it); its timers are unref'd, so it never keeps the process alive.
 * @returns the watcher, or undefined when `PLATFORM_PULUMI_ENGINE_WATCH=off`.
 */
export function startEngineWatch(opts: EngineWatchOptions = {}): EngineWatch | undefined {
  const started = holder[STARTED];
  if (started) return started;
  const env = opts.env ?? process.env;
  if (env["PLATFORM_PULUMI_ENGINE_WATCH"] === "off") return undefined;
  return (holder[STARTED] = watchEngine(opts));
}

/** Starts a watcher (not shared; {@link startEngineWatch} is the once-per-process entry). */
export function watchEngine(opts: EngineWatchOptions = {}): EngineWatch {
  const ppid = opts.ppid ?? (() => process.ppid);
  const read = opts.read ?? readProcStat;
  const linux = (opts.platform ?? process.platform) === "linux";
  const exit = opts.exit ?? (() => process.exit(1));
  const watched = chooseWatched(ppid(), linux ? read : undefined);
  let grace: NodeJS.Timeout | undefined;
  const lost = (reason: string) => {
    if (grace) return;
    clearInterval(timer);
    grace = setTimeout(() => exit(reason), opts.graceMs ?? DEFAULT_GRACE_MS).unref();
  };
  const address = watched.kind === "parent" ? parseAddress(opts.engineAddress) : undefined;
  const timer = setInterval(() => {
    const reason = engineLost(watched, ppid(), read);
    if (reason !== undefined) return lost(reason);
    if (address) probe(address, () => lost(`the engine at ${address.host}:${address.port} refuses connections`));
  }, opts.intervalMs ?? DEFAULT_INTERVAL_MS).unref();
  return {
    watched,
    stop: () => {
      clearInterval(timer);
      clearTimeout(grace);
    },
  };
}

/**
 * The engine's address as a dynamic-provider plugin was given it: its first argument (`process.argv[2]`, e.g.
 * `127.0.0.1:41234`; both the package's entry, `plugin.ts`, and @pulumi/pulumi's `cmd/dynamic-provider` are run as
 * `node <script> <engine address>`); undefined when that argument is not a `host:port`.
 */
export function engineAddressArg(argv: readonly string[] = process.argv): string | undefined {
  const a = argv[2];
  return a !== undefined && parseAddress(a) ? a : undefined;
}

/** `host:port` of an engine address; undefined when it is not one. */
function parseAddress(a: string | undefined): { host: string; port: number } | undefined {
  const m = a ? /^(.+):(\d{1,5})$/.exec(a) : null;
  return m ? { host: m[1]!, port: Number(m[2]) } : undefined;
}

/** Tries one TCP connection (closed at once); calls `refused` when the address refuses it. Never keeps the process alive. */
function probe(a: { host: string; port: number }, refused: () => void): void {
  const s = connect(a.port, a.host);
  s.unref();
  s.setTimeout(2000, () => s.destroy());
  s.once("connect", () => s.destroy());
  s.once("error", (err: NodeJS.ErrnoException) => {
    s.destroy();
    if (err.code === "ECONNREFUSED") refused();
  });
}
