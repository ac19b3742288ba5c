/**
 * The process tree as Linux's /proc shows it, for tests that check no process outlives its `pulumi`: each process
 * with its start time (with the pid, it names one process for good), and what it is by command line.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import * as path from "node:path";

/** One process as /proc shows it. */
export interface Proc {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid, names one process. */
  start: string;
  state: string;
  cmdline: string[];
  cwd: string;
}

/** One process now; undefined when it is gone. */
export function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // after "pid (comm) "
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((s) => s !== "");
    let cwd = "";
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // gone, or a zombie
    }
    return { pid, state: rest[0]!, ppid: Number(rest[1]), start: rest[19]!, cmdline, cwd };
  } catch {
    return undefined;
  }
}

/** Every process /proc lists now. */
export function allProcs(): Proc[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is Proc => p !== undefined);
}

/** Every process below `root` in the current process tree. */
export function descendants(root: number): Proc[] {
  const procs = allProcs();
  const below: Proc[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        below.push(p);
        grew = true;
      }
    }
  }
  return below;
}

/** The same process (pid and start time) still running; a zombie counts as gone. */
export function alive(p: Proc): boolean {
  const now = readProc(p.pid);
  return now !== undefined && now.start === p.start && now.state !== "Z";
}

/** A process for a failure message: pid, parent now, folder, command line. */
export function describeProc(p: Proc): string {
  return `${p.pid} (ppid ${readProc(p.pid)?.ppid ?? "?"}, cwd ${p.cwd}): ${p.cmdline.join(" ")}`;
}

/** What a process is, by command line. */
export function role(p: Proc): string {
  const exe = path.basename(p.cmdline[0] ?? "");
  if (exe === "pulumi-language-nodejs") return "front";
  if (exe === "pulumi-language-nodejs-vendor") return "vendor host";
  if (p.cmdline.some((a) => a.includes("cmd/dynamic-provider") || a.endsWith("dist/provider/plugin.js"))) return "plugin";
  if (p.cmdline.some((a) => a.endsWith("pulumi-resource-pulumi-nodejs"))) return "plugin wrapper";
  if (p.cmdline.some((a) => a.includes("cmd/run-policy-pack"))) return "policy pack";
  if (p.cmdline.some((a) => /@pulumi[/]pulumi[/]cmd[/]run([/]|$)/.test(a))) return "program";
  return "other";
}

