/**
 * `platform-pulumi export` round trip, through the real CLI on the emulator: an org of more than 200
 * objects seeded through the API (5 levels of groups with names repeated under different parents and one
 * same-named pair of siblings, identities of every relationship kind, custom roles, bindings, an identity
 * provider, account associations), exported by the built bin, the generated project installed against the packed
 * tarball, then:
 * - a second export writes byte-identical files;
 * - `pulumi up` adopts everything: no POST and no DELETE reach the API, no object's `updateTime` moves, and the
 *   only PATCH is the identity provider's write-only secret (the same value, so no change);
 * - nothing is left to do: the next `up`, of a one-line edit of the program (a group's description), is exactly
 *   one PATCH with `updateMask=description` and its only change;
 * - `platform-pulumi unmanaged` on the stack reports nothing.
 * Also the YAML format: the org file written for this org parses and declares what it says it does.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { changes, engineOk, runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { BIN, runBin as bin } from "./harness/bin";
import { parseOrgFile } from "../provider/org/file";
import { cleanEnv, run, tail } from "./consumer/toolchain";
import { packedTarball } from "./harness/tarball";
import { subscriptionKind } from "../provider/kinds/subscription";

const IDP_SECRET = "round-trip-client-secret";
const JWKS = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] });

let emu: Emulator;
let client: PlatformClient;
let work: string;
let tarball: Promise<string>;
let seeded = 0;
let keep = false;

/** Seeds the org through the API; returns how many objects it made. */
async function seed(c: PlatformClient, root: string): Promise<number> {
  let n = 0;
  const group = async (parent: string, name: string, description = "") => (n++, c.groups.create(parent, { name, description }));
  const roles = new Map((await c.roles.list({ pageSize: 200 }).collect()).map((r) => [r.name, r.uid]));
  const viewer = roles.get("viewer")!;
  const editor = roles.get("editor")!;

  // Five levels; names repeat under different parents.
  const top = await Promise.all([group(root, "engineering", "Engineering department"), group(root, "security", "Security team"), group(root, "operations")]);
  const l2 = (await Promise.all(top.flatMap((g) => [group(g.uid, "apps", "Application teams"), group(g.uid, "infra")]))).flat();
  n++;
  const twin = await c.groups.create(top[0]!.uid, { name: "apps", description: "A second team called apps" }); // same-named siblings
  const l3 = await Promise.all([...l2, twin].flatMap((g) => [group(g.uid, "dev"), group(g.uid, "prod", "Production")]));
  const l4 = await Promise.all(l3.flatMap((g) => [group(g.uid, "blue"), group(g.uid, "green")]));
  const l5 = await Promise.all(l4.map((g) => group(g.uid, "ci-runners", "CI runners")));

  const ident = async (parent: string, body: Record<string, unknown>) => (n++, c.identities.create(parent, body as never));
  const deployers = await Promise.all(
    l4.map((g, i) => ident(g.uid, { name: "deployer", description: `Deploys slot ${i}`, claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:my-org/app-${i}:ref:refs/heads/main` } })),
  );
  const runners = await Promise.all(
    l5.map((g, i) => ident(g.uid, { name: "runner", claimMatch: { issuerPattern: "https://gitlab\\.example\\.com", subjectPattern: `project_path:team-${i}/.+`, audience: "platform" } })),
  );
  const special = await Promise.all([
    ident(top[0]!.uid, { name: "release-bot", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/release:ref:refs/tags/v1", claims: { repository_owner: "my-org" }, claimPatterns: { workflow: "release-.+" } } }),
    ident(top[1]!.uid, { name: "scanner-keys", description: "Scanner with static keys", staticKeys: { issuer: "https://scanner.example.com", subject: "scanner", issuerKeys: JWKS, expirationTime: "2030-01-01T00:00:00.000Z", audiences: ["platform"] } }),
    ident(top[2]!.uid, { name: "aws-deployer", awsIdentity: { awsAccount: "123456789012", arn: "arn:aws:iam::123456789012:role/deployer" } }),
    ident(top[2]!.uid, { name: "cosigned", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }),
  ]);

  n += 3;
  const auditor = await c.roles.create(root, { name: "auditor", description: "Reads IAM", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST", "CAP_IAM_ROLE_BINDINGS_LIST"] } as never);
  const releaser = await c.roles.create(top[0]!.uid, { name: "releaser", capabilities: ["CAP_REPO_LIST", "CAP_TAG_CREATE", "CAP_TAG_LIST"] } as never);
  await c.roles.create(top[1]!.uid, { name: "auditor", description: "Same name, another group", capabilities: ["CAP_IAM_GROUPS_LIST"] } as never);

  const bind = async (group: string, identityUid: string, roleUid: string) => (n++, c.roleBindings.create(group, { identityUid, roleUid }));
  await Promise.all([
    ...deployers.map((d) => bind(d.uid.slice(0, d.uid.lastIndexOf("/")), d.uid, editor)),
    ...runners.map((r) => bind(r.uid.slice(0, r.uid.lastIndexOf("/")), r.uid, viewer)),
    bind(top[0]!.uid, special[0]!.uid, releaser.uid),
    bind(root, special[1]!.uid, auditor.uid),
    bind(top[2]!.uid, special[2]!.uid, editor),
  ]);

  n += 4;
  await c.identityProviders.create(root, { name: "okta", description: "Staff sign-in", oidc: { issuer: "https://example.okta.com", clientId: "0oa1b2c3", clientSecret: IDP_SECRET, additionalScopes: ["groups"], groupsClaim: "groups" }, defaultRole: viewer } as never);
  await c.accountAssociations.create(top[0]!.uid, { name: "eng-aws", amazon: { account: "123456789012" } } as never);
  await c.accountAssociations.create(top[1]!.uid, { google: { projectId: "security-prod", projectNumber: "1234567890" } } as never);
  await c.accountAssociations.create(top[2]!.uid, { description: "Ops tenant", azure: { tenantId: "0b3c8f4e-1111-2222-3333-444455556666", clientIds: { deployer: "8d2f-0001" } } } as never);

  // Registry: repos (one syncing from another of the org), READMEs, tags, an overlay bound to tags, subscriptions.
  n += 4;
  const app = await c.repos.create(top[0]!.uid, { name: "app", description: "The product", catalogTier: "CATALOG_TIER_APPLICATION", aliases: ["product"], bundles: ["core"] });
  const api = await c.repos.create(top[0]!.uid, { name: "api" });
  const scanner = await c.repos.create(top[1]!.uid, { name: "tools/scanner", description: "Scanner image" });
  await c.repos.create(top[2]!.uid, { name: "app-mirror", sync_config: { source: app.uid } });
  await c.repos.patchReadme(app.uid, "# app\n\nThe product image.\n");
  await c.repos.patchReadme(scanner.uid, "# scanner\n");
  const digest = (i: number) => `sha256:${i.toString(16).padStart(64, "0")}`;
  n += 5;
  await c.tags.create(app.uid, { name: "latest", digest: digest(1) });
  await c.tags.create(app.uid, { name: "1.0", digest: digest(1), bundles: ["core"] });
  await c.tags.create(app.uid, { name: "0.9", digest: digest(2), deprecated: true });
  await c.tags.create(api.uid, { name: "latest", digest: digest(3) });
  await c.tags.create(scanner.uid, { name: "latest", digest: digest(4) });
  n += 2;
  const debug = await c.overlays.create(top[0]!.uid, { name: "debug-tools", config: { contents: { packages: ["bash", "curl"] } } });
  await c.overlayBindings.create(app.uid, { overlay: debug.uid, tags: ["latest", "1.0"] });
  n += 2;
  await subscriptionKind.collection(c).create(top[0]!.uid, { sink: "https://hooks.example.com/engineering" });
  await subscriptionKind.collection(c).create(root, { sink: "https://hooks.example.com/all" });
  return n;
}


/** Every object's `updateTime` (or `createTime` for kinds without one), by collection and uid. */
function times(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [collection, rows] of Object.entries(emu.dump())) {
    for (const r of rows as Array<Record<string, unknown>>) out[`${collection}:${String(r["uid"])}`] = String(r["updateTime"] ?? r["createTime"] ?? "");
  }
  return out;
}

function requestsSince(mark: number) {
  return emu.requests.slice(mark);
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "platform-pulumi-export-"));
  // `npm test` builds first; the pack only needs the files (its prepack would build again).
  tarball = packedTarball();
  tarball.catch(() => undefined);
  emu = await startEmulator({ seed: {} });
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  seeded = await seed(client, emu.orgUid);
}, 300_000);

afterAll(async () => {
  await client?.close();
  await emu?.close();
  if (keep) process.stderr.write(`export round trip: kept ${work} for inspection\n`);
  else rmSync(work, { recursive: true, force: true });
});

describe("platform-pulumi export round trip", () => {
  let dir = "";
  let cli: PulumiCli;
  let apiEnv: NodeJS.ProcessEnv;
  const exported: Record<string, number> = {};

  it("exports more than 200 seeded objects, twice, to byte-identical files", async () => {
    expect(seeded).toBeGreaterThanOrEqual(200);
    apiEnv = cleanEnv(undefined, { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token });
    dir = path.join(work, "org");
    const mark = emu.requests.length;
    const first = await bin(["export", "--org", emu.orgUid, "--out", dir, "--stack", "dev"], apiEnv);
    expect(first.code, tail(first)).toBe(0);
    const reqs = requestsSince(mark);
    process.stderr.write(`export round trip: ${seeded} objects seeded; export took ${first.ms} ms wall (process included), ${reqs.length} requests\n`);
    expect(reqs.every((r) => r.method === "GET")).toBe(true);
    expect(first.stderr).toMatch(/^export: groups: \d+$/m); // plain progress lines: stderr is not a terminal
    expect(first.stdout).toMatch(/^total\s+\d+$/m);
    for (const m of first.stdout.matchAll(/^([A-Za-z]+)\s+(\d+)$/gm)) if (m[1] !== "total") exported[m[1]!] = Number(m[2]);
    expect(exported).toEqual({
      Group: 80, Identity: 60, Role: 3, RoleBinding: 60, IdentityProvider: 1, AccountAssociation: 3,
      Repo: 4, Tag: 5, Overlay: 1, OverlayBinding: 1, Subscription: 2,
    });

    const again = path.join(work, "org-again");
    const second = await bin(["export", "--org", emu.orgUid, "--out", again, "--stack", "dev", "--project", "org"], apiEnv);
    expect(second.code, tail(second)).toBe(0);
    const files = readdirSync(dir).sort();
    expect(readdirSync(again).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(path.join(again, f), "utf8"), f).toBe(readFileSync(path.join(dir, f), "utf8"));

    const index = readFileSync(path.join(dir, "index.ts"), "utf8");
    expect(index).toContain('getRoleOutput({ name: "editor" })');
    expect(index).toMatch(/identityUid: \w+Deployer\.uid,/);
    expect(index).toContain('clientSecret: config.requireSecret("oktaClientSecret")');
    expect(index).toContain('new Group("engineering/apps-'); // the same-named sibling, told apart by its uid
    expect(index).toMatch(/syncConfig: \{\n\s+source: app\.uid,/); // the synced repo refers to its source's variable
    expect(index).toContain('readme: "# app\\n\\nThe product image.\\n",');
    expect(index).toMatch(/overlay: debugTools\.uid,/);
    // No pasted uid where a declared resource exists: uids appear only as adoptUid, or for the owner outside the org.
    const pasted = [...index.matchAll(/^\s+(\w+): "([0-9a-f]{40}[^"]*)"/gm)].filter((m) => m[1] !== "adoptUid");
    expect(pasted.map((m) => m[1])).toEqual(["identityUid"]);
    // That one binding (the org owner's, whose identity is outside the export) is protected from a destroy.
    expect(index.match(/\{ protect: true \}/g)).toHaveLength(1);
    expect(index).toMatch(/outside this export \*\/,\n\s+roleUid: ownerRole\.uid,\n\s+adoptUid: "[^"]+",\n\}, \{ protect: true \}\);/);
  }, 120_000);

  it("installs the generated project against the packed tarball", async () => {
    const r = await run("npm", ["install", await tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"], { cwd: dir, env: cleanEnv(), timeoutMs: 600_000 });
    expect(r.code, tail(r)).toBe(0);
    cli = new PulumiCli({ cwd: dir, backendDir: path.join(work, "state"), stack: "dev", env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token } });
    mkdirSync(path.join(work, "state"));
    await cli.initStack();
    await cli.ok(["config", "set", "--secret", "oktaClientSecret", IDP_SECRET]);
  }, 600_000);

  it("the first pulumi up adopts every object: no POST, no DELETE, no updateTime moved", async () => {
    const before = times();
    const mark = emu.requests.length;
    const up = await runEngine(cli, "up", ["--yes"]);
    if (up.code !== 0) keep = true;
    expect(up.code, tail(up, 60)).toBe(0);
    const reqs = requestsSince(mark);
    const total = Object.values(exported).reduce((a, b) => a + b, 0);
    process.stderr.write(`export round trip: adoption up: ${JSON.stringify(up.summary)} in ${(up.ms / 1000).toFixed(1)} s; ${reqs.length} requests (${["GET", "POST", "PATCH", "DELETE"].map((m) => `${m} ${reqs.filter((r) => r.method === m).length}`).join(", ")})\n`);
    // The engine counts an adoption as a create of the resource in the stack (and the stack itself); the API sees none.
    expect(up.summary).toMatchObject({ create: total + 1, update: 0, delete: 0, replace: 0 });
    expect(reqs.filter((r) => r.method === "POST" || r.method === "DELETE")).toEqual([]);
    // The identity provider's secret is write-only: adoption sends the declared one (the same here), nothing else.
    const patches = reqs.filter((r) => r.method === "PATCH");
    expect(patches.map((p) => p.path.split("/")[3])).toEqual(["identityProviders"]);
    expect(times()).toEqual(before);
  }, 300_000);

  // Nothing is left to do after the adoption: the next up, of a one-line edit, takes that one step and no other
  // (its changes are exactly the edit's, its summary one update), where a step left over would show too.
  it("then nothing is left to do: a one-line edit of the program is exactly one PATCH with that field's mask, and the up's only change", async () => {
    const file = path.join(dir, "index.ts");
    const text = readFileSync(file, "utf8");
    const line = '    description: "Security team",';
    expect(text.split(line).length).toBe(2);
    writeFileSync(file, text.replace(line, '    description: "Security and compliance",'));
    const mark = emu.requests.length;
    const up = await engineOk(cli, "up", ["--yes"]);
    const writes = requestsSince(mark).filter((r) => r.method !== "GET");
    expect(up.summary?.update).toBe(1);
    expect(up.summary).toMatchObject({ create: 0, delete: 0, replace: 0 });
    expect(changes(up).map((s) => `${s.op} ${s.diffs.join(",")}`)).toEqual(["update description"]);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ method: "PATCH", query: { updateMask: "description" } });
    expect(writes[0]!.path).toMatch(/\/iam\/v2beta1\/groups\/[0-9a-f]{40}\/[0-9a-f]{16}$/);
  }, 300_000);

  it("platform-pulumi unmanaged on the stack reports nothing", async () => {
    const r = await bin(["unmanaged", "--stack", "dev", "--cwd", dir], cli.env());
    expect(r.code, tail(r)).toBe(0);
    expect(r.stdout).toMatch(/no unmanaged objects/);
  }, 180_000);

  it("unmanaged lists registry and events objects made behind the stack's back; recover proves a lost create of each", async () => {
    const eng = (await client.groups.list({ childrenOf: emu.orgUid, name: "engineering" }).collect())[0]!.uid;
    const app = (await client.repos.list({ childrenOf: eng, name: "app" }).collect())[0]!.uid;
    const repo = await client.repos.create(eng, { name: "stray" });
    const tag = await client.tags.create(app, { name: "stray", digest: `sha256:${"e".repeat(64)}` });
    const overlay = await client.overlays.create(eng, { name: "stray-tools", config: { contents: { packages: ["jq"] } } });
    const binding = await client.overlayBindings.create(app, { overlay: overlay.uid, tags: ["stray"] });
    const sub = await subscriptionKind.collection(client).create(eng, { sink: "https://hooks.example.com/stray" });
    const original = await cli.ok(["stack", "export"], { echo: false });
    try {
      const r = await bin(["unmanaged", "--stack", "dev", "--cwd", dir, "--json"], cli.env());
      expect(r.code, tail(r)).toBe(1);
      const found = (JSON.parse(r.stdout) as { unmanaged: Array<{ kind: string; uid: string }> }).unmanaged.map((o) => `${o.kind} ${o.uid}`).sort();
      expect(found).toEqual([`OverlayBinding ${binding.uid}`, `Overlay ${overlay.uid}`, `Repo ${repo.uid}`, `Subscription ${sub.uid}`, `Tag ${tag.uid}`].sort());

      // The same objects as the lost creates of a killed up: pending `creating` operations in the state.
      const state = JSON.parse(original.stdout) as { deployment: { resources: Array<{ urn: string }>; pending_operations?: unknown[] } };
      const prefix = state.deployment.resources[0]!.urn.split("::").slice(0, 2).join("::");
      const lost = (kind: string, name: string, inputs: Record<string, unknown>) => ({
        type: "creating",
        resource: { urn: `${prefix}::pulumi-nodejs:dynamic/platform:${kind}::${name}`, custom: true, type: `pulumi-nodejs:dynamic/platform:${kind}`, inputs },
      });
      state.deployment.pending_operations = [
        lost("Repo", "lost-repo", { parentUid: eng, name: "stray" }),
        lost("Tag", "lost-tag", { repoUid: app, name: "stray", digest: `sha256:${"e".repeat(64)}` }),
        lost("Overlay", "lost-overlay", { parentUid: eng, name: "stray-tools", config: { contents: { packages: ["jq"] } } }),
        lost("OverlayBinding", "lost-binding", { repoUid: app, overlay: "stray-tools", tags: ["stray"] }),
        lost("Subscription", "lost-sub", { parentUid: eng, sink: "https://hooks.example.com/stray" }),
      ];
      // `pulumi stack import` drops pending operations, so they go into the file backend's checkpoint directly.
      const project = prefix.split("::")[1]!;
      const file = path.join(work, "state", ".pulumi", "stacks", project, "dev.json");
      const checkpoint = JSON.parse(readFileSync(file, "utf8")) as { checkpoint: { latest: { pending_operations?: unknown[] } } };
      checkpoint.checkpoint.latest.pending_operations = state.deployment.pending_operations;
      writeFileSync(file, JSON.stringify(checkpoint));
      const plan = await bin(["recover", "--stack", "dev", "--cwd", dir], cli.env());
      expect(plan.code, tail(plan)).toBe(0);
      for (const [name, uid] of [["lost-repo", repo.uid], ["lost-tag", tag.uid], ["lost-overlay", overlay.uid], ["lost-binding", binding.uid], ["lost-sub", sub.uid]] as const) {
        const row = plan.stdout.split("\n").find((l) => l.startsWith(`${name} `));
        expect(row, plan.stdout).toContain(uid);
        expect(row, plan.stdout).toMatch(/\badopt\b/);
      }
    } finally {
      writeFileSync(path.join(work, "original.json"), original.stdout);
      await cli.ok(["stack", "import", "--file", path.join(work, "original.json")], { echo: false });
      await client.overlayBindings.delete(binding.uid);
      await client.overlays.delete(overlay.uid);
      await client.tags.delete(tag.uid);
      await client.repos.delete(repo.uid);
      await subscriptionKind.collection(client).delete(sub.uid);
    }
  }, 180_000);

  it("--format yaml writes an org file the org-setup program reads, with a uid on each object", async () => {
    const out = path.join(work, "yaml");
    const r = await bin(["export", "--org", emu.orgUid, "--out", out, "--format", "yaml"], apiEnv);
    expect(r.code, tail(r)).toBe(0);
    const layout = parseOrgFile(readFileSync(path.join(out, "org.yaml"), "utf8"), "org.yaml", new Set(["viewer", "editor", "owner", "registry.pull"]));
    // The two same-named siblings and their subtrees (2 × (1 + 2 + 4 + 4) groups) cannot be told apart by path.
    expect(layout.groups).toHaveLength(exported["Group"]! - 22);
    expect(layout.groups.every((g) => g.uid !== undefined)).toBe(true);
    expect(layout.identities.length).toBeGreaterThan(0);
    expect(layout.bindings.every((b) => b.uid !== undefined)).toBe(true);
    expect(layout.roles.map((x) => `${x.group}/${x.name}`).sort()).toEqual(["engineering/releaser", "security/auditor"]);
    expect(layout.roles.every((x) => x.uid !== undefined)).toBe(true);
    // app has a catalog tier, aliases and bundles, which the file cannot hold: adopting it from the file would change it.
    expect(layout.repos.map((x) => x.path).sort()).toEqual(["engineering/api", "operations/app-mirror", "security/tools/scanner"]);
    expect(layout.repos.find((x) => x.name === "tools/scanner")?.readme).toBe("# scanner\n");
    expect(layout.subscriptions.map((x) => x.sink)).toEqual(["https://hooks.example.com/engineering"]);
    expect(r.stdout).toMatch(/^Repo\s+1\s+aliases, active tags/m);
    expect(r.stdout).toMatch(/^Tag\s+5\s+the org file has no tags/m);
  }, 60_000);

  it("--under exports one subtree: its group is read, not managed, and nothing outside it is written", async () => {
    const security = (await client.groups.list({ childrenOf: emu.orgUid, name: "security" }).collect())[0]!.uid;
    const out = path.join(work, "under");
    const r = await bin(["export", "--org", emu.orgUid, "--under", security, "--out", out], apiEnv);
    expect(r.code, tail(r)).toBe(0);
    const index = readFileSync(path.join(out, "index.ts"), "utf8");
    expect(index).toContain(`const underUid = orgUid + "${security.slice(emu.orgUid.length)}";`);
    expect(index).not.toContain('name: "security"'); // the anchor itself is not declared
    expect(index).not.toContain('name: "engineering"');
    expect(index).toContain('name: "scanner-keys"'); // security's own identity
    const adopted = [...index.matchAll(/adoptUid: "([^"]+)"/g)].map((m) => m[1]!);
    expect(adopted.length).toBeGreaterThan(10);
    expect(adopted.filter((u) => !u.startsWith(`${security}/`))).toEqual([]);
  }, 60_000);

  it("--format yaml --under names each object living directly in that group, which the org file cannot hold", async () => {
    const security = (await client.groups.list({ childrenOf: emu.orgUid, name: "security" }).collect())[0]!.uid;
    const own = (await client.identities.list({ childrenOf: security }).collect()).filter((i) => i.uid.split("/").length === security.split("/").length + 1);
    expect(own.length).toBeGreaterThan(0);
    const out = path.join(work, "under-yaml");
    const r = await bin(["export", "--org", emu.orgUid, "--under", security, "--out", out, "--format", "yaml"], apiEnv);
    expect(r.code, tail(r)).toBe(0);
    expect(readFileSync(path.join(out, "org.yaml"), "utf8")).not.toContain(own[0]!.uid);
    expect(r.stdout).toContain("left out, and managed by no stack this export makes");
    for (const i of own) expect(r.stdout).toContain(`Identity ${i.name} (uid ${i.uid})`);
  }, 60_000);

  it("draws a progress bar when stderr is a terminal (under a pseudo-terminal from script(1))", async () => {
    const out = path.join(work, "tty");
    const cmd = [process.execPath, BIN, "export", "--org", emu.orgUid, "--out", out].map((a) => `'${a}'`).join(" ");
    const r = await run("script", ["-qefc", cmd, "/dev/null"], { cwd: REPO_ROOT, env: apiEnv, timeoutMs: 60_000 });
    expect(r.code, tail(r)).toBe(0);
    const total = Object.values(exported).reduce((a, b) => a + b, 0);
    // cli-progress's bar, redrawn in place; the last frame counts every object read (invites included: none here).
    expect(r.stdout).toMatch(/export \|[█░]+\| \d+\/\d+ objects \| groups/);
    expect(r.stdout).toContain(`${total}/${total} objects`);
    expect(r.stdout).not.toMatch(/^export: groups: /m);
  }, 60_000);

  it("names the flag, its value and what is allowed on a bad argument", async () => {
    const r = await bin(["export", "--org", "not-a-uid", "--out", path.join(work, "x")], apiEnv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--org "not-a-uid" is not allowed: the org\'s root group uid, 40 lowercase hex characters');
    const f = await bin(["export", "--org", emu.orgUid, "--out", path.join(work, "x"), "--format", "hcl"], apiEnv);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--format "hcl" is not allowed: ts, yaml or pulumi-import');
  });
});
