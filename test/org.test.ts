/**
 * The `Org` component through the real Pulumi CLI on the emulator (compiled program, `test/programs/org`): a nested
 * org from a file (children of the component, outputs by path), every problem of a bad file or spec reported at
 * once before any object is created, and a file written by `platform-pulumi export --format yaml` adopting the org
 * it describes (no POST, no DELETE, then no changes).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runDist } from "./harness/bin";
import { readDoc } from "./harness/docs";

const LONG = 240_000;
const program = path.join(REPO_ROOT, "test", "programs", "org");

/** The package's bin, with this process's environment plus `env`. */
const bin = (args: string[], env: NodeJS.ProcessEnv) => runDist(path.join("cli", "main.js"), args, env);

describe("Org component", () => {
  let emu: Emulator;
  let client: PlatformClient;
  let backend: string;
  let work: string;
  let env: Record<string, string>;
  const stacks: string[] = [];
  const stack = async (name: string, extra: Record<string, string>) => {
    const cli = new PulumiCli({ cwd: program, backendDir: backend, stack: name, env: { ...env, ...extra } });
    await cli.initStack();
    stacks.push(name);
    return cli;
  };
  const under = async () => ({
    groups: (await client.groups.list({ descendantsOf: emu.orgUid }).collect()).map((g) => g.uid).sort(),
    identities: (await client.identities.list({ descendantsOf: emu.orgUid }).collect()).map((g) => g.uid).sort(),
    bindings: (await client.roleBindings.list({ descendantsOf: emu.orgUid }).collect()).map((g) => g.uid).sort(),
  });
  const writes = (from: number) => emu.requests.slice(from).filter((r) => r.method === "POST" || r.method === "DELETE" || r.method === "PATCH");

  beforeAll(async () => {
    emu = await startEmulator();
    client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    backend = mkdtempSync(path.join(tmpdir(), "org-state-"));
    work = mkdtempSync(path.join(tmpdir(), "org-work-"));
    env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
  }, LONG);
  afterAll(async () => {
    await client?.close();
    await emu?.close();
    for (const s of stacks) rmSync(path.join(program, `Pulumi.${s}.yaml`), { force: true });
    if (backend) rmSync(backend, { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("declares a nested org from a file as the component's children, and an exported file adopts it unchanged", async () => {
    const before = await under();
    const cli = await stack("file", { ORG_FILE: "org.yaml" }); // relative: from the project folder
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const out = await cli.outputs();
    expect(out["counts"]).toEqual({ groups: 5, identities: 2, roles: 1, bindings: 3, repos: 1, subscriptions: 1 });
    const groupUids = out["groupUids"] as Record<string, string>;
    expect(Object.keys(groupUids).sort()).toEqual(["engineering", "engineering/api", "engineering/platform", "engineering/platform/ci-cd", "security"]);
    expect(groupUids["engineering/platform/ci-cd"]!.startsWith(`${groupUids["engineering/platform"]}/`)).toBe(true);
    expect((await client.groups.get(groupUids["engineering/platform/ci-cd"]!)).description).toBe("Pipelines");
    const ciBot = (out["identityUids"] as Record<string, string>)["engineering/platform/ci-cd/ci-bot"]!;
    expect(ciBot.startsWith(`${groupUids["engineering/platform/ci-cd"]}/`)).toBe(true);
    expect(Object.keys(out["repoUids"] as object)).toEqual(["engineering/api/app"]);
    // Every object is a child of the component.
    const state = await cli.exportState();
    const resources = (state.deployment.resources ?? []) as Array<{ urn: string; type: string; parent?: string }>;
    const component = resources.find((r) => r.type === "platform:index:Org")!;
    const mine = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/platform:"));
    expect(mine).toHaveLength(5 + 2 + 1 + 3 + 1 + 1);
    expect(mine.every((r) => r.parent === component.urn)).toBe(true);
    const made = await under();
    expect(made.groups.length - before.groups.length).toBe(5);
    expect(made.bindings.length - before.bindings.length).toBe(3);

    // The same org, exported as a file, then declared by another stack that does not know it: adopted, nothing written.
    const exported = path.join(work, "exported");
    const r = await bin(["export", "--org", emu.orgUid, "--out", exported, "--format", "yaml"], env);
    expect(r.code, r.out).toBe(0);
    await cli.ok(["stack", "rm", "--force", "--yes"]); // forget the first stack, objects left in place
    stacks.splice(stacks.indexOf("file"), 1);
    const adopter = await stack("adopt", { ORG_FILE: path.join(exported, "org.yaml") });
    const seen = emu.requests.length;
    await adopter.ok(["up", "--yes", "--skip-preview"]);
    expect(writes(seen)).toEqual([]);
    expect(await under()).toEqual(made);
    await adopter.ok(["preview", "--expect-no-changes"]);
    expect((await adopter.outputs())["groupUids"]).toEqual(groupUids);

    await adopter.ok(["destroy", "--yes", "--skip-preview"]);
    expect(await under()).toEqual(before);
  }, LONG);

  it("reads a relative file from the project's folder when main is in a subfolder (the CLI starts the program there)", async () => {
    const project = path.join(work, "main-in-dist");
    mkdirSync(path.join(project, "dist"), { recursive: true });
    symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
    copyFileSync(path.join(program, "org.yaml"), path.join(project, "org.yaml"));
    writeFileSync(path.join(project, "Pulumi.yaml"), "name: main-in-dist\nruntime: nodejs\nmain: dist/index.js\n");
    writeFileSync(
      path.join(project, "dist", "index.js"),
      'const { Org } = require("platform-pulumi");\nconst org = new Org("org", { parentUid: process.env.PLATFORM_ORG_UID, file: "org.yaml" });\nmodule.exports = { counts: org.counts };\n',
    );
    const cli = new PulumiCli({ cwd: project, backendDir: backend, stack: "dist", env });
    await cli.initStack();
    const r = await cli.run(["preview"]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/\+ 15 to create/); // the stack, the component and its 13 children
  }, LONG);

  it("export --format yaml --under a group: the README's snippet adopts the file under that group; a different parentUid fails the preview", async () => {
    // The README's Org snippet, as written (no parentUid: the file's, else platform:orgUid).
    const snippet = 'const org = new Org("org", { file: "org.yaml" });';
    expect(readFileSync(path.join(REPO_ROOT, "README.md"), "utf8")).toContain(snippet);
    expect(readDoc("docs/org.md")).toContain(snippet);
    const anchor = await client.groups.create(emu.orgUid, { name: "under-anchor" });
    const team = await client.groups.create(anchor.uid, { name: "team-a", description: "Team A" });
    await client.groups.create(team.uid, { name: "svc" });
    const exported = path.join(work, "under");
    const r = await bin(["export", "--org", emu.orgUid, "--under", anchor.uid, "--out", exported, "--format", "yaml"], env);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(exported, "org.yaml"), "utf8")).toContain(`parentUid: ${anchor.uid}\n`);

    const project = path.join(work, "under-project");
    mkdirSync(project, { recursive: true });
    symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
    copyFileSync(path.join(exported, "org.yaml"), path.join(project, "org.yaml"));
    writeFileSync(path.join(project, "Pulumi.yaml"), "name: under-project\nruntime: nodejs\nmain: index.js\n");
    writeFileSync(
      path.join(project, "index.js"),
      [
        'const { Org, orgUid } = require("platform-pulumi");',
        `if (process.env.GIVE_ROOT) new Org("org", { parentUid: orgUid(), file: "org.yaml" }); else { ${snippet} module.exports = { groupUids: org.groupUids }; }`,
        "",
      ].join("\n"),
    );
    // platform:orgUid is the root, as the README's setup says: the file's parentUid must win over it.
    const { PLATFORM_ORG_UID: _root, ...noOrgEnv } = env;
    const cli = new PulumiCli({ cwd: project, backendDir: backend, stack: "under", env: noOrgEnv });
    await cli.initStack();
    await cli.ok(["config", "set", "platform:orgUid", emu.orgUid]);

    const wrong = new PulumiCli({ cwd: project, backendDir: backend, stack: "under", env: { ...noOrgEnv, GIVE_ROOT: "1" } });
    const seen = emu.requests.length;
    const refused = await wrong.run(["preview"]);
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}\n${refused.stderr}`).toContain(`parentUid "${emu.orgUid}" is not allowed: org.yaml records parentUid "${anchor.uid}"`);

    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(writes(seen)).toEqual([]);
    await cli.ok(["preview", "--expect-no-changes"]);
    expect(Object.keys((await cli.outputs())["groupUids"] as object).sort()).toEqual(["team-a", "team-a/svc"]);
    await cli.ok(["stack", "rm", "--force", "--yes"]);
  }, LONG);

  it("unmanaged speaks to an org file's user: the path of the group an object is under, and the uid: to add there", async () => {
    const file = path.join(work, "unmanaged.yaml");
    writeFileSync(file, "groups:\n  - name: um-eng\n    groups: [{ name: apps }]\n");
    const cli = await stack("unmanaged", { ORG_FILE: file });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const apps = ((await cli.outputs())["groupUids"] as Record<string, string>)["um-eng/apps"]!;
    const stray = await client.groups.create(apps, { name: "stray" });
    const r = await bin(["unmanaged", "--stack", "unmanaged", "--cwd", program, "--json"], cli.env() as Record<string, string>);
    expect(r.code, r.out).toBe(1);
    const rows = (JSON.parse(r.out.slice(r.out.indexOf("{"))) as { unmanaged: Array<{ uid: string; parentPath: string; adopt: string }> }).unmanaged;
    expect(rows).toEqual([expect.objectContaining({ uid: stray.uid, parentPath: "um-eng/apps", adopt: `org file: uid: "${stray.uid}" on the group "um-eng/apps/stray"` })]);
    // No destroy: nothing is asserted of one here (the first test's is), and no later test reads the org's groups.
    await client.groups.delete(stray.uid);
  }, LONG);

  it("reports every problem of the file at once, with file:line:column, and creates nothing", async () => {
    const bad = path.join(work, "bad.yaml");
    writeFileSync(bad, "groups:\n  - name: ok-name\n  - name: Bad_Name\nidentities:\n  - name: bot\n    group: nowhere\n    claimMatch: { issuer: 'https://x.example', subject: s }\nbindings:\n  - { identity: ok-name/bot, group: ok-name, role: viewer }\n");
    const cli = await stack("bad", { ORG_FILE: bad });
    const seen = emu.requests.length;
    const r = await cli.run(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    const text = `${r.stdout}\n${r.stderr}`;
    expect(text).toContain(`${bad}: 3 problems:`);
    expect(text).toContain(`${bad}:3:11: groups[1].name: group name "Bad_Name" must match`);
    expect(text).toContain(`${bad}:6:12: identities[0].group: no group at path "nowhere"; known: ok-name`);
    expect(text).toMatch(/bad\.yaml:9:\d+: bindings\[0\]\.identity: no identity at path "ok-name\/bot"/);
    expect(writes(seen)).toEqual([]);
    expect(emu.requests.length).toBe(seen); // nothing asked of the API: the file failed before the role lookup
  }, LONG);

  it("checks the bindings' built-in roles against the API before declaring anything", async () => {
    const bad = path.join(work, "role.yaml");
    writeFileSync(bad, "groups:\n  - name: team\nidentities:\n  - name: bot\n    group: team\n    claimMatch: { issuer: 'https://x.example', subject: s }\nbindings:\n  - { identity: team/bot, group: team, role: admin }\n");
    const cli = await stack("role", { ORG_FILE: bad });
    const seen = emu.requests.length;
    const r = await cli.run(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/role\.yaml:8:\d+: bindings\[0\]\.role: no role named "admin"; roles at "team": /);
    expect(writes(seen)).toEqual([]);
  }, LONG);

  it("a bad setting fails the Org at once, as one line, without Node's PromiseRejectionHandledWarning lines", async () => {
    const file = path.join(work, "setting.yaml");
    writeFileSync(file, "groups:\n  - name: team\nidentities:\n  - name: bot\n    group: team\n    claimMatch: { issuer: 'https://x.example', subject: s }\nbindings:\n  - { identity: team/bot, group: team, role: viewer }\n");
    const cli = await stack("setting", { ORG_FILE: file, PLATFORM_RETRY_MAX_ATTEMPTS: "abc" });
    const seen = emu.requests.length;
    const r = await cli.run(["preview"]);
    expect(r.code).not.toBe(0);
    const text = `${r.stdout}\n${r.stderr}`;
    expect(text).toContain('platform:retryMaxAttempts (PLATFORM_RETRY_MAX_ATTEMPTS) must be an integer >= 1, got "abc"');
    expect(text).not.toContain("PromiseRejectionHandledWarning");
    expect(emu.requests.length).toBe(seen);
  }, LONG);

  it("checks a spec given as an object the same way, placing problems by path", async () => {
    const spec = { groups: [{ name: "eng", groups: [{ name: "UPPER" }] }], bindings: [{ identity: "eng/ghost", group: "eng", role: "viewer" }] };
    const cli = await stack("spec", { ORG_SPEC: JSON.stringify(spec) });
    const seen = emu.requests.length;
    const r = await cli.run(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    const text = `${r.stdout}\n${r.stderr}`;
    expect(text).toContain("spec: 2 problems:");
    expect(text).toContain('spec: groups[0].groups[0].name: group name "UPPER" must match');
    expect(text).toContain('spec: bindings[0].identity: no identity at path "eng/ghost"');
    expect(writes(seen)).toEqual([]);
  }, LONG);
});
