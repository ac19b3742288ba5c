/**
 * Through the real Pulumi CLI against the emulator (test/programs/fields):
 * - server-set outputs (Group.verified, Group.resourceLimits, Identity.lastSeenTime) are in the stack state and
 *   follow the server on refresh without any diff, changed behind the API by writing the emulator's store;
 * - `Group.get` / `Identity.get` read objects made elsewhere, their outputs exported, and destroy leaves them;
 * - check fails the preview, before any API call, when `platform:apiUrl` or the credentials are missing, and a
 *   failure on a nested field names the field and its real value in the CLI's own output.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { errors, runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";

const PROGRAM = path.join(REPO_ROOT, "test", "programs", "fields");
const STACK = "fields";
const LONG = 240_000;

type Resource = Record<string, unknown> & { type: string; id?: string; external?: boolean; outputs?: Record<string, unknown> };

describe("server fields, X.get and check failures through the real CLI", () => {
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;
  let client: PlatformClient;
  let out: Record<string, unknown>;

  const mutations = (since: number) => emu.requests.slice(since).filter((r) => r.method !== "GET");
  const resources = async (): Promise<Resource[]> => ((await cli.exportState()).deployment.resources ?? []) as Resource[];
  const byId = async (id: string) => (await resources()).find((r) => r.id === id);

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "engine-fields-"));
    cli = new PulumiCli({ cwd: PROGRAM, backendDir: backend, stack: STACK, env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid } });
    await cli.initStack();
    client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  }, LONG);
  afterAll(async () => {
    await client?.close();
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(PROGRAM, `Pulumi.${STACK}.yaml`), { force: true });
  });

  it("up exports verified, resourceLimits and lastSeenTime with their defaults", async () => {
    await cli.ok(["up", "--yes", "--skip-preview"]);
    out = await cli.outputs();
    expect(out).toMatchObject({ verified: false, resourceLimits: {} });
    expect(typeof out["lastSeenTime"]).toBe("string");
    const team = await byId(out["teamUid"] as string);
    expect(team?.outputs).toMatchObject({ verified: false, resourceLimits: {} });
    expect(team?.["inputs"]).not.toHaveProperty("verified");
  }, LONG);

  it("after lastSeenTime and verified change behind the API, refresh takes them into state and nothing shows as a change", async () => {
    const identity = emu.store.identities.get(out["botUid"] as string)!;
    emu.store.identities.put({ ...identity, lastSeenTime: "2026-05-01T10:00:00.000Z" });
    const group = emu.store.groups.get(out["teamUid"] as string)!;
    emu.store.groups.put({ ...group, verified: true, resourceLimits: { repositories: 10 } });

    const refresh = await cli.run(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    const preview = await cli.run(["preview", "--expect-no-changes"]);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);

    expect((await byId(out["botUid"] as string))?.outputs).toMatchObject({ lastSeenTime: "2026-05-01T10:00:00.000Z" });
    expect((await byId(out["teamUid"] as string))?.outputs).toMatchObject({ verified: true, resourceLimits: { repositories: 10 } });
    const bot = await byId(out["botUid"] as string);
    expect(bot?.["inputs"]).not.toHaveProperty("lastSeenTime");
  }, LONG);

  it("Group.get and Identity.get read objects made elsewhere without managing them; destroy leaves them", async () => {
    const made = await client.groups.create(emu.orgUid, { name: "made-elsewhere", description: "by hand" });
    emu.store.groups.put({ ...emu.store.groups.get(made.uid)!, verified: true });
    const ident = await client.identities.create(made.uid, { name: "elsewhere-bot", claimMatch: { issuer: "https://issuer.example", subject: "job" } });
    emu.store.identities.put({ ...emu.store.identities.get(ident.uid)!, lastSeenTime: "2026-04-30T09:00:00.000Z" });
    await cli.ok(["config", "set", "existingGroupUid", made.uid]);
    await cli.ok(["config", "set", "existingIdentityUid", ident.uid]);

    const since = emu.requests.length;
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(mutations(since)).toEqual([]);
    const o = await cli.outputs();
    expect(o["existingGroup"]).toEqual({ uid: made.uid, name: "made-elsewhere", description: "by hand", verified: true, resourceLimits: {} });
    expect(o["existingIsGroup"]).toBe(true);
    expect(o["existingIdentity"]).toEqual({
      name: "elsewhere-bot",
      parentUid: made.uid,
      claimMatch: { issuer: "https://issuer.example", subject: "job" },
      lastSeenTime: "2026-04-30T09:00:00.000Z",
    });
    const read = (await resources()).filter((r) => r.id === made.uid || r.id === ident.uid);
    expect(read.map((r) => [r.type, r.external]).sort()).toEqual([
      ["pulumi-nodejs:dynamic/platform:Group", true],
      ["pulumi-nodejs:dynamic/platform:Identity", true],
    ]);
    expect((await cli.run(["preview", "--expect-no-changes"])).code).toBe(0);

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(await client.groups.get(made.uid)).toMatchObject({ name: "made-elsewhere" });
    expect(await client.identities.get(ident.uid)).toMatchObject({ name: "elsewhere-bot" });
    expect(await client.groups.list({ childrenOf: emu.orgUid, name: "fields-team" }).collect()).toEqual([]);
    await cli.ok(["config", "rm", "existingGroupUid"]);
    await cli.ok(["config", "rm", "existingIdentityUid"]);
  }, LONG);

  it("a nested check failure names the field and its real value in the CLI's output", async () => {
    await cli.ok(["config", "set", "issuer", "http://issuer.example"]);
    const since = emu.requests.length;
    const preview = await runEngine(cli, "preview");
    await cli.ok(["config", "rm", "issuer"]);
    // The error diagnostic's message is the text the CLI prints for it.
    const text = errors(preview).join("\n");
    const line = text.split("\n").find((l) => l.includes("claimMatch.issuer"));
    console.log(`CLI line for a nested check failure: ${line?.trim()}`);
    expect(preview.code).not.toBe(0);
    expect(line).toMatch(/resource 'bot' has a problem: claimMatch\.issuer \(value "http:\/\/issuer\.example"\): must be an https URL/);
    expect(text + preview.stdout + preview.stderr).not.toContain("{<nil>}");
    expect(mutations(since)).toEqual([]);
  }, LONG);

  it("a missing platform:apiUrl or credential fails the preview at check, with no lookup in the program and no API call", async () => {
    const since = emu.requests.length;
    const configured = await cli.run(["preview"]);
    expect(configured.code, configured.stdout + configured.stderr).toBe(0); // configured, the same preview passes

    cli.opts.env = { ...cli.opts.env, PLATFORM_API_URL: "" };
    const missingUrl = await runEngine(cli, "preview");
    expect(missingUrl.code).not.toBe(0);
    expect(errors(missingUrl).join("\n")).toContain("the Platform API URL is not set: set stack config `platform:apiUrl` or the PLATFORM_API_URL environment variable");

    cli.opts.env = { ...cli.opts.env, PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: "" };
    const missingToken = await runEngine(cli, "preview");
    expect(missingToken.code).not.toBe(0);
    expect(errors(missingToken).join("\n")).toContain("no Platform API credentials: set the secret stack config `platform:token`");
    cli.opts.env = { ...cli.opts.env, PLATFORM_TOKEN: emu.token };
    expect(emu.requests.length).toBe(since);
  }, LONG);
});
