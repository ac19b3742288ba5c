/**
 * Engine tests: the real Pulumi CLI (built or found by scripts/ensure-pulumi) runs test/programs/basic against
 * an emulator on a loopback port, with a file backend in a temporary folder. Nothing here imitates the engine.
 * If the CLI cannot be had, these tests fail with the reason (PulumiCli's constructor throws); they never skip.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { changes, engineOk, runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { raw } from "./helpers";

const PROGRAM = path.join(REPO_ROOT, "test", "programs", "basic");
const LONG = 180_000;

/** Every file under `dir`, concatenated (the file backend's whole state, history and backups included). */
function allText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    out += statSync(p).isDirectory() ? allText(p) : readFileSync(p, "latin1");
  }
  return out;
}

function mutations(emu: Emulator, since: number): string[] {
  return emu.requests.slice(since).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}${r.query["updateMask"] ? `?updateMask=${r.query["updateMask"]}` : ""}`);
}

describe("a program through the real Pulumi CLI (token from the environment)", () => {
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;
  let outputs: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "engine-test-"));
    cli = new PulumiCli({
      cwd: PROGRAM,
      backendDir: backend,
      stack: "env-token",
      env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid },
    });
    await cli.initStack();
  }, LONG);
  afterAll(async () => {
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(PROGRAM, "Pulumi.env-token.yaml"), { force: true });
  });

  it("up creates the declared group tree, identity and hydrated role binding", async () => {
    await cli.ok(["up", "--yes", "--skip-preview"]);
    outputs = (await cli.outputs()) as Record<string, string>;
    expect(outputs["bindingRole"]).toBe("viewer");
    const sub = await raw(emu, "GET", `/iam/v2beta1/groups/${outputs["subUid"]}`);
    expect(sub.body).toMatchObject({ name: "sub", description: "a subgroup" });
    expect(outputs["subUid"]!.startsWith(`${outputs["teamUid"]}/`)).toBe(true);
    expect(outputs["botUid"]!.startsWith(`${outputs["subUid"]}/`)).toBe(true);
  }, LONG);

  it("pulumi preview -v=9 --logtostderr does not print a token given as PLATFORM_TOKEN", async () => {
    const r = await cli.run(["preview", "-v=9", "--logtostderr"]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stderr.length).toBeGreaterThan(10_000); // the verbose log did run
    expect(r.stdout + r.stderr).not.toContain(emu.token);
  }, LONG);

  it("refresh right after up finds no changes, and neither does a preview after it", async () => {
    const refresh = await cli.run(["refresh", "--yes", "--expect-no-changes"]);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    const preview = await cli.run(["preview", "--expect-no-changes"]);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
  }, LONG);

  it("a description change reaches the API as one PATCH with updateMask=description, and nothing else", async () => {
    await cli.ok(["config", "set", "description", "second"]);
    const preview = await engineOk(cli, "preview", ["--diff"]);
    expect(preview.summary).toMatchObject({ update: 1, create: 0, replace: 0, delete: 0 });
    expect(changes(preview).map((s) => `${s.op} ${s.name} ${s.diffs.join(",")}`)).toEqual(["update team description"]);
    const since = emu.requests.length;
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(mutations(emu, since)).toEqual([`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`]);
    expect((await raw(emu, "GET", `/iam/v2beta1/groups/${outputs["teamUid"]}`)).body.description).toBe("second");
  }, LONG);

  it("a bad name fails the preview naming the field and the rule, before any API call", async () => {
    await cli.ok(["config", "set", "teamName", "Bad Name!"]);
    const since = emu.requests.length;
    const preview = await runEngine(cli, "preview");
    await cli.ok(["config", "rm", "teamName"]);
    expect(preview.code).not.toBe(0);
    const failure = preview.diagnostics.find((d) => d.severity === "error" && d.urn?.endsWith("::team"));
    expect(failure?.message).toMatch(/name.*"Bad Name!" must match \^\[a-z0-9 \._-\]\{1,\}\$/);
    expect(mutations(emu, since)).toEqual([]);
  }, LONG);

  it("keeps state small and free of credentials: the serialized provider is only the shim", async () => {
    const state = await cli.exportState();
    const sizes: Record<string, number> = {};
    for (const r of state.deployment.resources ?? []) {
      const p = (r["outputs"] as Record<string, unknown> | undefined)?.["__provider"];
      if (typeof p === "string") {
        sizes[r["type"] as string] = p.length;
        expect(p).toContain('require("platform-pulumi/runtime")');
      }
    }
    expect(Object.keys(sizes).sort()).toEqual([
      "pulumi-nodejs:dynamic/platform:Group",
      "pulumi-nodejs:dynamic/platform:Identity",
      "pulumi-nodejs:dynamic/platform:RoleBinding",
    ]);
    console.log(`serialized __provider bytes by type: ${JSON.stringify(sizes)}`);
    expect(Math.max(...Object.values(sizes))).toBeLessThanOrEqual(1024);
    expect(allText(backend)).not.toContain(emu.token);
  }, LONG);

  it("destroy removes everything the program created", async () => {
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    const left = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.descendants_of=${emu.orgUid}`);
    expect(left.body.groups).toEqual([]);
    const idents = await raw(emu, "GET", `/iam/v2beta1/identities?uidp.descendants_of=${emu.orgUid}`);
    expect(idents.body.identities).toEqual([]);
  }, LONG);
});

describe("a program through the real Pulumi CLI (token from secret stack config)", () => {
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "engine-test-"));
    // No PLATFORM_TOKEN in the environment: the provider must get it from its configure request.
    const env = { PLATFORM_API_URL: emu.url, PLATFORM_ORG_UID: emu.orgUid, PLATFORM_TOKEN: "" };
    cli = new PulumiCli({ cwd: PROGRAM, backendDir: backend, stack: "config-token", env });
    await cli.initStack();
    await cli.ok(["config", "set", "--secret", "platform:token", emu.token]);
  }, LONG);
  afterAll(async () => {
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
  });

  // README "Where a token ends up": the engine's own verbose log prints the default provider's inputs, secret
  // stack config included. That is Pulumi's logging, not this package's; the README says it, and this shows it.
  it("pulumi preview -v=9 --logtostderr prints the secret config token in plain text (Pulumi's logging)", async () => {
    const r = await cli.run(["preview", "-v=9", "--logtostderr"]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout + r.stderr).toContain(emu.token);
  }, LONG);

  it("creates, refreshes cleanly and destroys, and the token appears nowhere in plain text", async () => {
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const refresh = await cli.run(["refresh", "--yes", "--expect-no-changes"]);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    const stackFile = readFileSync(path.join(PROGRAM, "Pulumi.config-token.yaml"), "utf8");
    expect(stackFile).toContain("secure:");
    expect(stackFile + allText(backend)).not.toContain(emu.token);
    rmSync(path.join(PROGRAM, "Pulumi.config-token.yaml"), { force: true });
  }, LONG);
});
