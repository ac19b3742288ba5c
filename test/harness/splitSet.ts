/**
 * A set of exported projects (`platform-pulumi export --layout split`, docs/export.md "One stack per top-level
 * group") installed and applied as a user would: one `npm install` of the packed tarball shared by every project,
 * a stack `dev` of each on one file backend, then `pulumi up` tier by tier (the stacks of a tier at once).
 */
import { mkdirSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { runEngine } from "../../scripts/lib/engine";
import { PulumiCli } from "../../scripts/lib/pulumi";
import { cleanEnv, run, tail } from "../consumer/toolchain";

/**
 * Installs `tarball` in the first project (the others link its node_modules: the same dependencies in every
 * project), makes `<work>/state` the backend and inits stack `dev` of each project with `env`.
 * @returns each project's CLI, by project name. Fails the test when the install fails.
 */
export async function installSet(o: { tarball: string; out: string; projects: readonly string[]; work: string; env: Record<string, string> }): Promise<Map<string, PulumiCli>> {
  const first = path.join(o.out, o.projects[0]!);
  const r = await run("npm", ["install", o.tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"], { cwd: first, env: cleanEnv(), timeoutMs: 600_000 });
  expect(r.code, tail(r)).toBe(0);
  for (const p of o.projects.slice(1)) symlinkSync(path.join(first, "node_modules"), path.join(o.out, p, "node_modules"), "dir");
  mkdirSync(path.join(o.work, "state"));
  const clis = new Map<string, PulumiCli>();
  for (const p of o.projects) {
    const cli = new PulumiCli({ cwd: path.join(o.out, p), backendDir: path.join(o.work, "state"), stack: "dev", env: o.env });
    await cli.initStack();
    clis.set(p, cli);
  }
  return clis;
}

/**
 * `pulumi up --yes` of every stack, tier after tier, and each must succeed updating, deleting and replacing
 * nothing (an exported set adopts). @returns false when an `up` failed (the caller keeps its folder to inspect).
 */
export async function upTiers(tiers: readonly (readonly string[])[], clis: ReadonlyMap<string, PulumiCli>): Promise<boolean> {
  let ok = true;
  for (const tier of tiers) {
    const ups = await Promise.all(tier.map((p) => runEngine(clis.get(p)!, "up", ["--yes"])));
    ups.forEach((up, i) => {
      if (up.code !== 0) ok = false;
      expect(up.code, `${tier[i]}: ${tail(up, 60)}`).toBe(0);
      expect(up.summary, tier[i]).toMatchObject({ update: 0, delete: 0, replace: 0 });
    });
  }
  return ok;
}
