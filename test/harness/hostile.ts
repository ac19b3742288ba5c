/**
 * A hostile Platform API in its own process (test/fixtures/hostile-proxy.mjs): a proxy in front of an API that
 * makes what the server chooses hostile (`rows`, `uid`), rejects every request with hostile messages (`deny`),
 * or never answers (`hang`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";

/** What the proxy does (see the fixture's header). */
export type HostileMode = "rows" | "uid" | "deny" | "hang";

/** A running proxy: its base URL and its process (stop it with `child.kill("SIGTERM")`). */
export interface HostileProxy {
  url: string;
  child: ChildProcess;
}

/** Starts the proxy in front of `upstream` and resolves once it listens. @throws when it exits first. */
export async function startHostileProxy(upstream: string, mode: HostileMode): Promise<HostileProxy> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "test", "fixtures", "hostile-proxy.mjs")], {
    env: { PATH: process.env["PATH"], UPSTREAM: upstream, MODE: mode },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /URL=(\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`hostile proxy exited ${code}`)));
  });
  return { url, child };
}
