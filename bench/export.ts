/**
 * `npm run bench:export`: the wall time and request count of `platform-pulumi export` on a large org.
 *
 * Starts the emulator in this process, seeds an org of `BENCH_OBJECTS` objects (default 2,000) through the API
 * (five levels of groups, identities, custom roles, role bindings, identity providers, account associations, repos
 * with READMEs, tags, subscriptions),
 * then runs the built bin `export --org <root> --out <tmp>` in its own process, `BENCH_ROUNDS` times (default 3),
 * and reports each run's wall time (process start to exit) and the requests the emulator served for it. Prints
 * one JSON line per run and a summary line.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { subscriptionKind } from "../provider/kinds/subscription";

const OBJECTS = Number(process.env["BENCH_OBJECTS"] ?? 2000);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const BIN = path.resolve(__dirname, "..", "cli", "main.js");

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

async function seed(c: PlatformClient, root: string, total: number): Promise<Record<string, number>> {
  // Proportions of a typical org: 20% groups, 25% identities, 32% bindings, 5% repos, 10% tags, the rest roles,
  // identity providers, account associations and subscriptions.
  const nGroups = Math.round(total * 0.2);
  const nIdentities = Math.round(total * 0.25);
  const nRoles = Math.round(total * 0.025);
  const nIdps = Math.max(1, Math.round(total * 0.005));
  const nAssoc = Math.round(total * 0.02);
  const nRepos = Math.round(total * 0.05);
  const nTags = Math.round(total * 0.1);
  const nSubs = Math.round(total * 0.005);
  const nBindings = total - nGroups - nIdentities - nRoles - nIdps - nAssoc - nRepos - nTags - nSubs;
  const roles = new Map((await c.roles.list({ pageSize: 200 }).collect()).map((r) => [r.name, r.uid]));
  // Five levels: each level's groups spread over the previous level's.
  const levels: string[][] = [[root]];
  const perLevel = [0.05, 0.1, 0.2, 0.3, 0.35].map((f) => Math.max(1, Math.round(nGroups * f)));
  for (const n of perLevel) {
    const parents = levels[levels.length - 1]!;
    levels.push(await pool(Array.from({ length: n }, (_, i) => i), 16, async (i) => (await c.groups.create(parents[i % parents.length]!, { name: `team-${i % 7}`, description: `Team ${i}` })).uid));
  }
  const groups = levels.slice(1).flat();
  const identities = await pool(Array.from({ length: nIdentities }, (_, i) => i), 16, async (i) =>
    (await c.identities.create(groups[i % groups.length]!, { name: `bot-${i % 5}`, claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:org/r${i}:ref:refs/heads/main` } })).uid,
  );
  const custom = await pool(Array.from({ length: nRoles }, (_, i) => i), 16, async (i) =>
    (await c.roles.create(groups[i % 20]!, { name: `role-${i}`, capabilities: ["CAP_IAM_GROUPS_LIST"] } as never)).uid,
  );
  const roleChoices = [roles.get("viewer")!, roles.get("editor")!, ...custom.slice(0, 3)];
  await pool(Array.from({ length: nBindings }, (_, i) => i), 16, async (i) => {
    const id = identities[i % identities.length]!;
    // At the identity's group or one of its ancestors, never twice the same (identity, role, group).
    const at = id.slice(0, id.lastIndexOf("/"));
    await c.roleBindings.create(at, { identityUid: id, roleUid: roleChoices[Math.floor(i / identities.length) % roleChoices.length]! });
  });
  await pool(Array.from({ length: nIdps }, (_, i) => i), 8, (i) =>
    c.identityProviders.create(groups[i]!, { name: `idp-${i}`, oidc: { issuer: "https://example.okta.com", clientId: `client-${i}`, clientSecret: "s" } } as never),
  );
  await pool(Array.from({ length: nAssoc }, (_, i) => i), 8, (i) => c.accountAssociations.create(groups[i]!, { amazon: { account: String(100000000000 + i) } } as never));
  const repos = await pool(Array.from({ length: nRepos }, (_, i) => i), 16, async (i) => {
    const r = await c.repos.create(groups[i % groups.length]!, { name: `image-${i}`, description: `Image ${i}` });
    await c.repos.patchReadme(r.uid, `# image-${i}\n`);
    return r.uid;
  });
  await pool(Array.from({ length: nTags }, (_, i) => i), 16, (i) =>
    c.tags.create(repos[i % repos.length]!, { name: `v${Math.floor(i / repos.length)}`, digest: `sha256:${i.toString(16).padStart(64, "0")}` }),
  );
  await pool(Array.from({ length: nSubs }, (_, i) => i), 8, (i) => subscriptionKind.collection(c).create(groups[i]!, { sink: `https://hooks.example.com/${i}` }));
  return { groups: groups.length, identities: nIdentities, roles: nRoles, roleBindings: nBindings, identityProviders: nIdps, accountAssociations: nAssoc, repos: nRepos, tags: nTags, subscriptions: nSubs };
}

async function main(): Promise<void> {
  const emu = await startEmulator({ seed: {} });
  const c = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const seededAt = Date.now();
  const counts = await seed(c, emu.orgUid, OBJECTS);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stderr.write(`seeded ${total} objects in ${((Date.now() - seededAt) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}\n`);
  const runs: Array<{ ms: number; requests: number }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const out = mkdtempSync(path.join(tmpdir(), "platform-pulumi-bench-export-"));
    const mark = emu.requests.length;
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, "export", "--org", emu.orgUid, "--out", out], {
        env: { ...process.env, PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token },
        stdio: ["ignore", "ignore", "inherit"],
      });
      child.on("close", resolve);
    });
    const ms = Date.now() - started;
    rmSync(out, { recursive: true, force: true });
    if (code !== 0) throw new Error(`export exited ${code}`);
    runs.push({ ms, requests: emu.requests.length - mark });
    process.stdout.write(`${JSON.stringify({ objects: total, round: r + 1, wallMs: ms, requests: emu.requests.length - mark })}\n`);
  }
  const sorted = runs.map((x) => x.ms).sort((a, b) => a - b);
  process.stdout.write(`export of ${total} objects: median ${sorted[Math.floor(sorted.length / 2)]} ms wall (min ${sorted[0]}, max ${sorted[sorted.length - 1]}), ${runs[0]!.requests} requests\n`);
  await c.close();
  await emu.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
