/**
 * The provider's promises through the real Pulumi CLI against the emulator (faults injected by its controls):
 * drift after out-of-band edits and deletes, a destroy of children wired by plain strings, an apply that outlives
 * 30-second API tokens, adoption of an existing group, and 1% dropped create responses with no duplicate (then a
 * refresh of those groups through read-ahead).
 *
 * The scenarios are independent and run at once (describe.concurrent): each has its own emulator (its request
 * log, latency and faults are its own), its own file backend and a stack name no other uses (one
 * `Pulumi.<stack>.yaml` each; `strings` and `many` hold two stacks), created with `stack init --no-select`, so no
 * scenario writes a folder's selected stack (every command names its stack: scripts/lib/pulumi.ts adds `--stack`),
 * its own cleanups and its test's `expect`. The longest are declared first, so they start first: the apply that
 * outlives its tokens (mostly waiting on the emulator's latency), then the two tests on one stack of 100 groups,
 * which stay in turn (it.sequential).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, it, type TestContext } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { changes, engineOk, errors, runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";

const LONG = 240_000;

type Cleanups = Array<() => Promise<void> | void>;

/** The cleanups of the test `ctx`, run in reverse when it finishes (whatever the other tests do). */
function cleanupsOf({ onTestFinished }: Pick<TestContext, "onTestFinished">): Cleanups {
  const cleanups: Cleanups = [];
  onTestFinished(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return cleanups;
}

/**
 * A stack `stack` of test/programs/`program` on a file backend of its own, against a fresh emulator, with the
 * environment `env` adds to the emulator's URL and org (default: its owner's token); all of it removed by
 * `cleanups`. As test/harness/steps.ts's startEngineStack, but the stack is created without selecting it.
 */
async function setup(cleanups: Cleanups, program: string, stack: string, env: (emu: Emulator) => NodeJS.ProcessEnv = (emu) => ({ PLATFORM_TOKEN: emu.token })) {
  const emu = await startEmulator();
  const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  const backend = mkdtempSync(path.join(tmpdir(), `engine-${program}-`));
  const cwd = path.join(REPO_ROOT, "test", "programs", program);
  cleanups.push(async () => {
    await client.close();
    await emu.close();
    rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(cwd, `Pulumi.${stack}.yaml`), { force: true });
  });
  const cli = new PulumiCli({ cwd, backendDir: backend, stack, env: { PLATFORM_API_URL: emu.url, PLATFORM_ORG_UID: emu.orgUid, ...env(emu) } });
  await cli.ok(["stack", "init", stack, "--no-select"]);
  return { emu, cli, client };
}

describe.concurrent("credentials", () => {
  it("an apply that outlives a 12-second token lifetime never fails on expiry (workload identity)", async (ctx) => {
    const { expect } = ctx;
    const cleanups = cleanupsOf(ctx);
    const tokenDir = mkdtempSync(path.join(tmpdir(), "oidc-"));
    cleanups.push(() => rmSync(tokenDir, { recursive: true, force: true }));
    const tokenFile = path.join(tokenDir, "token");
    const { emu, cli, client } = await setup(cleanups, "chain", "chain", () => ({ PLATFORM_TOKEN: "", PLATFORM_IDENTITY_TOKEN_FILE: tokenFile }));
    const owner = (await client.roles.list({ name: "owner" }).collect())[0]!;
    const bot = await client.identities.create(emu.orgUid, { name: "deployer", claimMatch: { issuer: emu.issuer.url, subject: "ci-job" } });
    await client.roleBindings.create(emu.orgUid, { identityUid: bot.uid, roleUid: owner.uid });
    writeFileSync(tokenFile, await emu.issuer.mint("ci-job", { ttlSeconds: 3600 }));
    cli.opts.env = { ...cli.opts.env, PLATFORM_IDENTITY: bot.uid };
    // A chain of 8 groups at 1.4 s a request outlives 12-second tokens (the client refreshes a token that short at
    // half its lifetime): the same scenario as 24 groups on 30-second tokens, in a third of the time.
    await cli.ok(["config", "set", "length", "8"]);
    emu.control.set({ tokenTtlSeconds: 12, latencyMs: 1400 });

    const started = Date.now();
    const up = await engineOk(cli, "up", ["--yes", "--skip-preview"]);
    const seconds = (Date.now() - started) / 1000;
    const exchanges = emu.requests.filter((r) => r.path === "/sts/exchange");
    const unauthenticated = emu.requests.filter((r) => r.status === 401);
    console.log(`apply took ${seconds.toFixed(1)}s with 12s tokens; ${exchanges.length} exchanges; ${unauthenticated.length} requests refused as unauthenticated`);
    expect(seconds).toBeGreaterThan(12); // the scenario itself, not a performance target
    expect(up.summary).toMatchObject({ create: 9 });
    expect(unauthenticated).toEqual([]);
    expect(exchanges.length).toBeGreaterThanOrEqual(3); // program + provider, and at least one refresh
  }, LONG);
});

/**
 * One stack of 100 groups for both: the first test makes it with 1% of create responses dropped, the second edits
 * and deletes two of its groups behind the API and refreshes (one `up` of 100 groups instead of two stacks' ups).
 * The block runs beside the others; its two tests in turn (it.sequential), and its stack goes in afterAll.
 */
describe.concurrent("lost responses, then drift through read-ahead on the same 100 groups", () => {
  let shared: Awaited<ReturnType<typeof setup>> | undefined;
  const cleanups: Cleanups = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it.sequential("1% of create responses dropped leaves no duplicate and no orphan", async ({ expect }) => {
    shared = await setup(cleanups, "many", "lossy");
    const { emu, cli, client } = shared;
    await cli.ok(["config", "set", "count", "100"]);
    // Seed 2 at 1% drops the 24th and 38th create responses (committed on the server, never answered).
    emu.control.set({ dropCreateRate: 0.01, seed: 2 });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const dropped = emu.requests.filter((r) => r.method === "POST" && r.status === 0);
    expect(dropped).toHaveLength(2);
    const groups = await client.groups.list({ childrenOf: emu.orgUid, pageSize: 200 }).collect();
    const names = groups.map((g) => g.name).filter((n) => n.startsWith("many-"));
    expect(names).toHaveLength(100);
    expect(new Set(names).size).toBe(100);
    const state = await cli.exportState();
    const managed = (state.deployment.resources ?? []).filter((r) => r["type"] === "pulumi-nodejs:dynamic/platform:Group").map((r) => r["id"]);
    expect(new Set(managed)).toEqual(new Set(groups.filter((g) => g.name.startsWith("many-")).map((g) => g.uid)));
  }, LONG);

  it.sequential("a refresh of 100 groups, mostly answered by read-ahead Lists, still reports exactly the edit and the delete", async (ctx) => {
    const { expect } = ctx;
    if (!shared) return ctx.skip("the stack of the test before was not made");
    const { emu, cli, client } = shared;
    emu.control.set({ dropCreateRate: 0 });
    const groups = (await client.groups.list({ childrenOf: emu.orgUid, pageSize: 200 }).collect()).filter((g) => g.name.startsWith("many-"));
    expect(groups).toHaveLength(100);
    const edited = groups.find((g) => g.name === "many-070")!;
    const deleted = groups.find((g) => g.name === "many-075")!;
    await client.groups.patch(edited.uid, { description: "edited outside" }, ["description"]);
    await client.groups.delete(deleted.uid);

    const since = emu.requests.length;
    const refresh = await engineOk(cli, "refresh", ["--yes", "--skip-preview"]);
    expect(refresh.summary).toMatchObject({ update: 1, delete: 1, create: 0, same: 99 }); // 98 groups and the stack
    expect(refresh.steps.filter((s) => s.outcome === "update").map((s) => [s.name, s.newOutputs?.["description"]])).toEqual([["g-70", "edited outside"]]);
    expect(refresh.steps.filter((s) => s.outcome === "delete").map((s) => s.name)).toEqual(["g-75"]);
    const sent = emu.requests.slice(since);
    const readAhead = sent.filter((r) => r.query["uidp.descendants_of"] === emu.orgUid);
    expect(readAhead.length).toBeGreaterThanOrEqual(1);
    // 100 reads in at most 0.25 requests each (for 80 groups: 5 were sent when this was written; 12 with read-ahead
    // switched off, when only the batching of reads in flight together helps; bench/ measures the ratio at scale).
    expect(sent.length, sent.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`).join("\n")).toBeLessThanOrEqual(0.25 * 100);
    // The deleted group was confirmed gone by its own GET, never inferred from a List.
    expect(sent.filter((r) => r.path.endsWith(deleted.uid)).map((r) => r.status)).toEqual([404]);

    // Stack config platform:readAhead false reaches the provider process: no read-ahead List at all. A refresh runs
    // the provider with the configuration recorded by the last `up` (as for any Pulumi provider), so up first.
    await cli.ok(["config", "set", "platform:readAhead", "false"]);
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const sinceOff = emu.requests.length;
    const off = await engineOk(cli, "refresh", ["--yes", "--skip-preview"]);
    expect(off.summary).toMatchObject({ update: 0, delete: 0, create: 0 });
    const sentOff = emu.requests.slice(sinceOff);
    expect(sentOff.filter((r) => r.query["uidp.descendants_of"] !== undefined)).toEqual([]);
    expect(sentOff.length).toBeGreaterThan(0);
  }, LONG);
});

describe.concurrent("drift", () => {
  it("refresh picks up an out-of-band edit and delete; the next up restores both", async (ctx) => {
    const { expect } = ctx;
    const { emu, cli, client } = await setup(cleanupsOf(ctx), "basic", "drift");
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const out = (await cli.outputs()) as Record<string, string>;
    await client.groups.patch(out["teamUid"]!, { description: "edited outside" }, ["description"]);
    await client.identities.delete(out["botUid"]!);

    const refresh = await engineOk(cli, "refresh", ["--yes", "--skip-preview"]);
    // The edited group; the deleted identity, and its binding (deleted with it).
    expect(refresh.summary).toMatchObject({ update: 1, delete: 2, create: 0 });
    const team = refresh.steps.find((s) => s.name === "team");
    expect([team?.op, team?.outcome, team?.newOutputs?.["description"]]).toEqual(["refresh", "update", "edited outside"]);
    expect(refresh.steps.filter((s) => s.outcome === "delete").map((s) => `${s.type} ${s.name}`).sort()).toEqual([
      "pulumi-nodejs:dynamic/platform:Identity bot",
      "pulumi-nodejs:dynamic/platform:RoleBinding bot-viewer",
    ]);
    // The up's own steps are its plan (a scalar edit and two creates: no unknown for a preview to differ on).
    const up = await engineOk(cli, "up", ["--yes", "--skip-preview"]);
    const update = changes(up).find((s) => s.name === "team");
    expect([update?.op, update?.diffs, update?.oldInputs?.["description"], update?.newInputs?.["description"]]).toEqual(["update", ["description"], "edited outside", "first"]);
    expect(up.summary).toMatchObject({ create: 2, update: 1 }); // the identity, and its binding (deleted with it)
    expect(changes(up).filter((s) => s.op === "create").map((s) => s.name).sort()).toEqual(["bot", "bot-viewer"]);
    expect((await client.groups.get(out["teamUid"]!)).description).toBe("first");
    expect((await client.identities.list({ descendantsOf: emu.orgUid, name: "bot" }).collect())).toHaveLength(1);
    expect((await cli.run(["preview", "--expect-no-changes"])).code).toBe(0);
  }, LONG);
});

describe.concurrent("destroy", () => {
  it("succeeds when children are wired by plain strings and deleted in parallel with their group", async (ctx) => {
    const { expect } = ctx;
    const { emu, cli, client } = await setup(cleanupsOf(ctx), "strings", "strings");
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const teamUid = ((await cli.outputs()) as Record<string, string>)["teamUid"]!;
    await cli.ok(["config", "set", "teamUid", teamUid]);
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(await client.groups.list({ childrenOf: teamUid }).collect()).toHaveLength(1);

    const destroy = await engineOk(cli, "destroy", ["--yes", "--skip-preview"]);
    expect(destroy.summary).toMatchObject({ delete: 4 }); // bot, sub, team and the stack
    const refused = emu.requests.filter((r) => r.method === "DELETE" && r.path.endsWith(teamUid) && r.status === 400);
    console.log(`group delete refused ${refused.length} time(s) while its children were deleted in parallel`);
    expect(await client.groups.list({ descendantsOf: emu.orgUid }).collect()).toEqual([]);
  }, LONG);

  it("gives up at the group's customTimeouts.delete, naming the children left by kind and uid", async (ctx) => {
    const { expect } = ctx;
    const { emu, cli, client } = await setup(cleanupsOf(ctx), "strings", "stuck");
    await cli.ok(["config", "set", "deleteTimeout", "3s"]);
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const teamUid = ((await cli.outputs()) as Record<string, string>)["teamUid"]!;
    const stray = await client.groups.create(teamUid, { name: "made-by-hand" });
    const destroy = await runEngine(cli, "destroy", ["--yes", "--skip-preview"]);
    expect(destroy.code).not.toBe(0);
    const said = errors(destroy).join("\n");
    expect(said).toMatch(/could not be deleted within 3s because it is not empty; children left: Group "made-by-hand" \(\/[^,]*\/made-by-hand, uid /);
    expect(said).toContain(`uid ${stray.uid})`);
    expect(said).toContain("adoptUid");
    expect(emu.requests.filter((r) => r.method === "DELETE" && r.path.endsWith(teamUid)).length).toBeGreaterThan(1);
  }, LONG);
});

describe.concurrent("adoption", () => {
  it("takes an existing group under management without creating one, then manages it", async (ctx) => {
    const { expect } = ctx;
    const { emu, cli, client } = await setup(cleanupsOf(ctx), "many", "adopt");
    const legacy = await client.groups.create(emu.orgUid, { name: "legacy-group", description: "made by hand" });
    await cli.ok(["config", "set", "count", "0"]);
    await cli.ok(["config", "set", "adoptUid", legacy.uid]);
    // The engine shows the adoption as `+ create`; the step's output says it creates nothing, in the preview that
    // `up` runs first (one engine run: the preview's output is what `up` prints before `Updating (adopt):`).
    const since = emu.requests.length;
    const up = await cli.ok(["up", "--yes"]);
    const [previewed, applied] = up.stdout.split(/^Updating \(adopt\):$/m);
    expect(applied, up.stdout).toBeDefined();
    expect(previewed).toContain(`adopts the existing object ${legacy.uid}: no create request`);
    expect(emu.requests.slice(since).filter((r) => r.method === "POST")).toEqual([]);
    expect(await client.groups.get(legacy.uid)).toMatchObject({ name: "adopted-by-pulumi", description: "now managed" });
    expect((await cli.run(["preview", "--expect-no-changes"])).code).toBe(0);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    await expect(client.groups.get(legacy.uid)).rejects.toThrow(/code 5/);
  }, LONG);
});
