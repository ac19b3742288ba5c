/**
 * `platform-pulumi export --format pulumi-import` (docs/export.md, docs/native.md): an org with objects of every
 * kind (the samples of `harness/samples.ts`, made through each kind's provider) is exported as Pulumi's bulk import
 * file; `pulumi import --file` in a new YAML project that loads the native plugin imports every entry with no write
 * to the API and writes the program with Pulumi's own code generation. With the one edit docs/export.md names (an
 * identity provider's client secret from secret config: the API never returns it), the program's first preview
 * plans only that write-only field, its `up` sends one PATCH per identity provider, and then nothing is left to do.
 *
 * The programs the export writes beside the import file (`export/programs.ts`), in a second stack: the import
 * writes the state only (`--generate-code=false`, as with the Python host built here, which cannot generate code);
 * the Python program's first `up` sends only the identity providers' client secrets, and the YAML program, on the
 * same stack, then previews no change: both declare exactly what was imported.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator, type Emulator } from "../emulator";
import { KINDS } from "../provider/kinds/registry";
import { getClient, setConfigLookup } from "../provider/state";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { ensureHost } from "./harness/nativeOrg";
import { SAMPLES, type Made } from "./harness/samples";
import { emulatorEnv, writesSince } from "./harness/steps";

const LONG = 600_000;
const host = ensureHost("ensure-language-yaml");
const python = ensureHost("ensure-language-python");
let emu: Emulator;
let dir: string;
let top: string;
const made: Made = {};

beforeAll(async () => {
  emu = await startEmulator({ seed: {} });
  dir = mkdtempSync(path.join(tmpdir(), "export-pulumi-import-"));
  const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
  setConfigLookup((k) => config[k]);
  top = (await getClient().groups.create(emu.orgUid, { name: "imported-org", description: "" })).uid;
  for (const k of KINDS) {
    for (const news of SAMPLES[k.kind]!(top, made)) {
      const checked = await k.provider.check({}, news);
      expect(checked.failures ?? [], k.kind).toEqual([]);
      made[k.kind] = [...(made[k.kind] ?? []), (await k.provider.create(checked.inputs!)).id];
    }
  }
}, LONG);

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(host.status === 3)("export --format pulumi-import, then pulumi import --file", () => {
  it("writes one entry per exported object, by native type token and uid; Pulumi imports them all with no write, and its generated YAML, given the client secret, converges after one PATCH of it", async () => {
    const out = path.join(dir, "export");
    const env = { ...process.env, ...emulatorEnv(emu) };
    const r = await runBin(["export", "--org", emu.orgUid, "--under", top, "--out", out, "--format", "pulumi-import"], env);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(path.join(out, "import.json"), "utf8")) as { resources: Array<{ type: string; name: string; id: string }> };
    // Every object made but the invite (its code cannot be read back: the export skips it) and the top group itself.
    const expected = KINDS.filter((k) => k.kind !== "GroupInvite").flatMap((k) => made[k.kind]!.map((uid) => `platform:${k.module}:${k.kind} ${uid}`));
    expect(file.resources.map((e) => `${e.type} ${e.id}`).sort()).toEqual(expected.sort());

    const project = path.join(dir, "project");
    const backend = path.join(dir, "backend");
    for (const d of [project, backend]) rmSync(d, { recursive: true, force: true });
    mkdirSync(project);
    mkdirSync(backend);
    const program = { name: "imported", runtime: "yaml", plugins: { providers: [{ name: "platform", path: path.join(REPO_ROOT, "plugin") }] } };
    writeFileSync(path.join(project, "Pulumi.yaml"), stringify(program));
    const hostDir = host.lines[host.lines.length - 1] ?? "";
    const cli = new PulumiCli({ cwd: project, backendDir: backend, stack: "imported", env: { ...emulatorEnv(emu), PATH: `${hostDir}${path.delimiter}${process.env["PATH"] ?? ""}` } });
    await cli.initStack();
    const since = emu.requests.length;
    const code = path.join(dir, "generated.yaml");
    const imp = await cli.run(["import", "--file", path.join(out, "import.json"), "--yes", "--out", code]);
    console.log(`pulumi import --file: exit ${imp.code}, ${file.resources.length} entries\n${imp.stdout.slice(-3000)}\n${imp.stderr.slice(-3000)}`);
    expect(imp.code).toBe(0);
    expect(writesSince(emu, since)).toEqual([]);
    const state = (await cli.exportState()).deployment.resources ?? [];
    expect(state.filter((x) => String(x["type"]).startsWith("platform:") && !String(x["type"]).startsWith("pulumi:")).length).toBe(file.resources.length);

    const generated = parse(readFileSync(code, "utf8")) as { resources: Record<string, { type: string; properties: Record<string, unknown> }>; variables?: Record<string, unknown> };
    // The one edit a user makes (docs/export.md "pulumi import"): the API never returns an identity provider's
    // client secret, so the program takes it from a secret config value.
    const idps = Object.values(generated.resources).filter((x) => x.type === "platform:iam:IdentityProvider");
    expect(idps).toHaveLength(made["IdentityProvider"]!.length);
    for (const x of idps) x.properties["clientSecret"] = "${idpClientSecret}";
    await cli.ok(["config", "set", "--secret", "idpClientSecret", "sample-client-secret"]);
    writeFileSync(path.join(project, "Pulumi.yaml"), stringify({ ...program, config: { idpClientSecret: { type: "string", secret: true } }, ...generated }));
    // What the API never returns is the one change: the client secret, a write-only field, is sent once. The preview
    // is the one `up` runs first (one engine run): its output is what `up --diff` prints before `Updating (imported):`.
    const upSince = emu.requests.length;
    const up = await cli.run(["up", "--yes", "--diff"]);
    const [preview = "", applied] = up.stdout.split(/^Updating \(imported\):$/m);
    console.log(`preview of the generated program (up --diff): exit ${up.code}\n${preview.slice(-4000)}\n${up.stderr.slice(-2000)}`);
    expect(up.code).toBe(0);
    expect(applied, up.stdout).toBeDefined();
    expect(preview).toMatch(new RegExp(`~ ${idps.length} to update`));
    expect(preview).not.toMatch(/to (create|delete|replace)/);
    expect(preview.match(/~ clientSecret: /g) ?? []).toHaveLength(idps.length);
    expect(writesSince(emu, upSince)).toEqual(made["IdentityProvider"]!.map((uid) => `PATCH /iam/v2beta1/identityProviders/${uid}?updateMask=oidc`)); // the secret is sent inside oidc
    const settled = await cli.run(["preview", "--expect-no-changes"]);
    expect(settled.code, settled.stdout).toBe(0);
  }, LONG);
});

describe.skipIf(host.status === 3 || python.status === 3)("export --format pulumi-import, then the exported program in Python and in YAML", () => {
  it("pulumi import --generate-code=false writes the state with no write; the Python program's up sends only the client secrets; the YAML program on the same stack plans nothing", async () => {
    const out = path.join(dir, "programs");
    const r = await runBin(["export", "--org", emu.orgUid, "--under", top, "--out", out, "--format", "pulumi-import", "--project", "adopted"], { ...process.env, ...emulatorEnv(emu) });
    expect(r.code, r.stderr).toBe(0);
    for (const f of ["import.json", "python/__main__.py", "python/Pulumi.yaml", "go/main.go", "go/go.mod", "yaml/Pulumi.yaml", "typescript/index.ts"]) expect(existsSync(path.join(out, f)), f).toBe(true);
    // The one command per language, printed after the summary.
    for (const l of ["python", "go", "yaml", "typescript"]) expect(r.stdout).toContain(`cd ${out}/${l} && `);
    const file = JSON.parse(readFileSync(path.join(out, "import.json"), "utf8")) as { resources: Array<{ type: string; name: string; id: string }> };
    const idps = file.resources.filter((e) => e.type === "platform:iam:IdentityProvider");
    expect(idps).toHaveLength(made["IdentityProvider"]!.length);

    // Each folder is a project as written; the test adds only where the plugin is (docs/native.md installs it).
    const withPlugin = (folder: string) => {
      const f = path.join(out, folder, "Pulumi.yaml");
      writeFileSync(f, stringify({ ...(parse(readFileSync(f, "utf8")) as object), plugins: { providers: [{ name: "platform", path: path.join(REPO_ROOT, "plugin") }] } }));
    };
    withPlugin("python");
    withPlugin("yaml");
    const backend = path.join(dir, "backend-programs");
    mkdirSync(backend);
    const yamlDir = host.lines[host.lines.length - 1] ?? "";
    const env = { ...emulatorEnv(emu), PULUMI_PYTHON_CMD: python.lines[python.lines.length - 1] ?? "", PATH: `${python.lines[python.lines.length - 2] ?? ""}${path.delimiter}${yamlDir}${path.delimiter}${process.env["PATH"] ?? ""}` };
    const py = new PulumiCli({ cwd: path.join(out, "python"), backendDir: backend, stack: "adopted", env });
    await py.initStack();
    const since = emu.requests.length;
    const imp = await py.run(["import", "--file", "../import.json", "--generate-code=false", "--yes"]);
    expect(imp.code, `${imp.stdout}\n${imp.stderr}`).toBe(0);
    expect(writesSince(emu, since)).toEqual([]);
    for (const e of idps) await py.ok(["config", "set", "--secret", `${e.name}ClientSecret`, "sample-client-secret"]);

    // The Python program: its up plans only the client secrets (write-only: the import could not read them).
    const upSince = emu.requests.length;
    const up = await py.run(["up", "--yes", "--diff"]);
    const [preview = "", applied] = up.stdout.split(/^Updating \(adopted\):$/m);
    console.log(`up of the exported Python program: exit ${up.code}\n${preview.slice(-3000)}\n${up.stderr.slice(-2000)}`);
    expect(up.code).toBe(0);
    expect(applied, up.stdout).toBeDefined();
    expect(preview).toMatch(new RegExp(`~ ${idps.length} to update`));
    expect(preview).not.toMatch(/to (create|delete|replace)/);
    expect(preview.match(/~ clientSecret: /g) ?? []).toHaveLength(idps.length);
    expect(writesSince(emu, upSince)).toEqual(made["IdentityProvider"]!.map((uid) => `PATCH /iam/v2beta1/identityProviders/${uid}?updateMask=oidc`));

    // The YAML program, on the same stack (same project name, its config copied): no change at all.
    copyFileSync(path.join(out, "python", "Pulumi.adopted.yaml"), path.join(out, "yaml", "Pulumi.adopted.yaml"));
    const yaml = new PulumiCli({ cwd: path.join(out, "yaml"), backendDir: backend, stack: "adopted", env });
    const settled = await yaml.run(["preview", "--expect-no-changes"]);
    expect(settled.code, `${settled.stdout}\n${settled.stderr}`).toBe(0);
  }, LONG);
});
