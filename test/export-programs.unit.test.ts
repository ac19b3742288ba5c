/**
 * The programs `--format pulumi-import` writes beside `import.json` (docs/export.md, "Pulumi's own import, in any
 * language"; `provider/export/programs.ts`), for an org with objects of every kind (the samples of
 * `harness/samples.ts`) and the hostile text of `harness/hostileText.ts`, read from the emulator:
 *
 * - **Python**: run under the Python SDK's mocks (`harness/pyMockRun.py`, the venv of
 *   scripts/ensure-language-python): it registers exactly the entries of import.json (type, name) with exactly the
 *   inputs the import puts into state, every payload as its exact text; Python's `ast` finds no payload identifier.
 * - **Go**: `go/parser` (gofmt's) reads `main.go` without an error; every entry is one `New<Kind>(ctx, name, …)`;
 *   every payload is the exact value of a string literal, no payload identifier is code.
 * - **YAML**: the `yaml` library reads `Pulumi.yaml`; every entry is a resource of that name and type whose
 *   properties, with `$$` read as `$` (Pulumi YAML), are exactly the imported inputs; no text holds a live `${`.
 * - **TypeScript**: the TypeScript parser reads `index.ts`; every entry is one `new Native(type, name, …)` (a `pulumi.CustomResource`); every
 *   payload is a string literal's exact value, no payload identifier is code.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type Emulator } from "../emulator";
import { buildModel, type OrgModel } from "../provider/export/model";
import { goString, importCommands, programProjects, programResources, pyString, yamlHazards, yamlProgram, yamlProgramText, type ProgramResource } from "../provider/export/programs";
import { importFile, type ImportEntry } from "../provider/export/pulumiImport";
import { readOrg } from "../provider/export/read";
import { KINDS } from "../provider/kinds/registry";
import { getClient, setConfigLookup } from "../provider/state";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { seedHostile, type Hostile } from "./harness/hostileText";
import { SAMPLES, type Made } from "./harness/samples";

const CANARY = "/tmp/export-programs-canary";
const PAYLOAD_ONLY = ["require", "writeFileSync", "open", "system", "exit", "token"];
let emu: Emulator;
let model: OrgModel;
let entries: ImportEntry[];
let resources: ProgramResource[];
let files: Map<string, string>;
let hostile: Hostile;
let dir: string;
const made: Made = {};

beforeAll(async () => {
  emu = await startEmulator({ seed: {} });
  const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
  setConfigLookup((k) => config[k]);
  const top = (await getClient().groups.create(emu.orgUid, { name: "every-kind", description: "" })).uid;
  for (const k of KINDS) {
    for (const news of SAMPLES[k.kind]!(top, made)) {
      const checked = await k.provider.check({}, news);
      expect(checked.failures ?? [], k.kind).toEqual([]);
      made[k.kind] = [...(made[k.kind] ?? []), (await k.provider.create(checked.inputs!)).id];
    }
  }
  hostile = await seedHostile(getClient(), emu.orgUid, CANARY);
  model = buildModel(await readOrg(getClient(), emu.orgUid));
  entries = importFile(model).resources;
  resources = programResources(model);
  files = new Map(programProjects(model, { project: "exported", pulumiRange: "*" }).files.map((f) => [f.path, f.text]));
  dir = mkdtempSync(path.join(tmpdir(), "export-programs-"));
}, 120_000);

afterAll(async () => {
  await getClient().close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Each payload by the uid of the object holding it and the input it is: descriptions and sinks. */
const payloads = (): Array<{ uid: string; field: string; text: string }> => [
  ...[...hostile.descriptions].map(([uid, text]) => ({ uid, field: "description", text })),
  ...[...hostile.sinks].map(([uid, text]) => ({ uid, field: "sink", text })),
];

/** The imported inputs of `r` as plain values: a config value as `config:<key>`. */
const plain = (r: ProgramResource): Record<string, unknown> => Object.fromEntries(r.inputs.map(([k, v]) => [k, "literal" in v ? v.literal : `config:${v.config}`]));

describe("the programs beside import.json", () => {
  it("declare every entry of import.json, by the same name and type, with the inputs the import reads (no adoptUid, readme)", () => {
    expect(resources.map((r) => ({ type: r.type, name: r.name, id: r.id }))).toEqual(entries);
    // Every kind the export declares is there, and the hostile payloads are the values of their fields.
    expect(new Set(resources.map((r) => r.type.split(":")[2]))).toEqual(new Set(KINDS.filter((k) => k.kind !== "GroupInvite").map((k) => k.kind)));
    const byId = new Map(resources.map((r) => [r.id, plain(r)]));
    for (const p of payloads()) expect(byId.get(p.uid)?.[p.field], p.text).toBe(p.text);
    for (const r of resources) for (const [k] of r.inputs) expect(["adoptUid", "adopt", "readme"], `${r.name}.${k}`).not.toContain(k);
    // An identity provider's client secret (the API never returns it) from secret config.
    const idps = resources.filter((r) => r.type === "platform:iam:IdentityProvider");
    expect(idps).toHaveLength(made["IdentityProvider"]!.length);
    for (const r of idps) expect(plain(r)["clientSecret"]).toBe(`config:${r.name}ClientSecret`);
  });

  const python = path.join(REPO_ROOT, ".pulumi-work/language-python/venv/bin/python");
  it.skipIf(!existsSync(python))("Python: run under the SDK's mocks, registers every entry with exactly its inputs; every payload is text", () => {
    const file = path.join(dir, "__main__.py");
    writeFileSync(file, files.get("python/__main__.py")!);
    const config = Object.fromEntries(resources.flatMap((r) => r.inputs.flatMap(([, v]) => ("config" in v ? [[v.config, `config:${v.config}`]] : []))));
    const run = spawnSync(python, [path.join(REPO_ROOT, "test/harness/pyMockRun.py"), file, JSON.stringify(config)], { encoding: "utf8", maxBuffer: 64 << 20 });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(CANARY)).toBe(false);
    const got = JSON.parse(run.stdout) as Array<{ type: string; name: string; inputs: Record<string, unknown> }>;
    // The SDK registers them as their inputs resolve, not in the program's order.
    expect(got.map((g) => `${g.type} ${g.name}`).sort()).toEqual(entries.map((e) => `${e.type} ${e.name}`).sort());
    const byName = new Map(resources.map((r) => [r.name, r]));
    // A secret config value reaches the engine as a secret (Pulumi's secret signature around the value).
    const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };
    for (const g of got) {
      const r = byName.get(g.name)!;
      expect(g.inputs, g.name).toEqual(Object.fromEntries(r.inputs.map(([k, v]) => [k, "literal" in v ? v.literal : { ...SECRET, value: `config:${v.config}` }])));
    }
    // No payload identifier is code: Python's own parser's names.
    const names = execFileSync(python, ["-c", "import ast,sys,json; print(json.dumps(sorted({n.id for n in ast.walk(ast.parse(open(sys.argv[1]).read())) if isinstance(n, ast.Name)} | {n.attr for n in ast.walk(ast.parse(open(sys.argv[1]).read())) if isinstance(n, ast.Attribute)})))", file], { encoding: "utf8" });
    for (const id of PAYLOAD_ONLY) expect(JSON.parse(names) as string[], id).not.toContain(id);
  });

  const go = spawnSync("go", ["version"]).status === 0;
  it.skipIf(!go)("Go: gofmt's parser reads main.go; every entry is one New<Kind>(ctx, name, …); every payload is a string literal's exact value", () => {
    // Not named *.go: `go run` would take it for a source file of the harness.
    const file = path.join(dir, "main.go.txt");
    writeFileSync(file, files.get("go/main.go")!);
    const out = JSON.parse(execFileSync("go", ["run", path.join(REPO_ROOT, "test/harness/goStrings.go"), file], { encoding: "utf8", cwd: dir, env: { ...process.env, GO111MODULE: "off" } })) as { error: string; strings: string[]; identifiers: string[]; resources: string[] };
    expect(out.error).toBe("");
    expect(out.resources).toEqual(entries.map((e) => `${e.type.split(":")[1]}.${e.type.split(":")[2]} ${e.name}`));
    for (const p of payloads()) expect(out.strings, p.text).toContain(p.text);
    for (const id of PAYLOAD_ONLY) expect(out.identifiers, id).not.toContain(id);
    expect(spawnSync("gofmt", ["-e", "-l", file]).status).toBe(0);
    expect(() => goString("\ud800")).toThrow(/lone surrogate/);
  });

  it("Go: a text with a lone surrogate (which no Go string holds) leaves the Go project out, with a note naming the object; the others are written", () => {
    const m = structuredClone(model);
    m.groups[0]!.api.description = "a\ud800b";
    const { files: written, notes } = programProjects(m, { project: "exported", pulumiRange: "*" });
    const paths = written.map((f) => f.path);
    expect(paths.filter((p) => p.startsWith("go/"))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["python/__main__.py", "yaml/Pulumi.yaml", "typescript/index.ts"]));
    expect(notes).toEqual([expect.stringContaining(`no Go program: 1 object hold text with a lone surrogate, which no Go string holds (${m.groups[0]!.uid})`)]);
    expect(written.find((f) => f.path === "python/__main__.py")!.text).toContain('"a\\ud800b"');
    // The commands printed after the export name only the programs written.
    const commands = importCommands("out", [], ["python", "yaml", "typescript"]);
    expect(commands).toContain("cd out/python && ");
    expect(commands).not.toContain("cd out/go");
  });

  it("YAML: Pulumi.yaml's resources are the entries, their properties the exact inputs once $$ is read as $; no live ${", () => {
    const doc = parse(files.get("yaml/Pulumi.yaml")!) as { name: string; runtime: string; config: Record<string, { type: string; secret?: boolean }>; resources: Record<string, { type: string; properties: Record<string, unknown> }> };
    expect(doc.runtime).toBe("yaml");
    expect(Object.entries(doc.resources).map(([name, r]) => ({ type: r.type, name }))).toEqual(entries.map((e) => ({ type: e.type, name: e.name })));
    const unDouble = (v: unknown): unknown =>
      typeof v === "string" ? v.replace(/\$\$/g, "$") : Array.isArray(v) ? v.map(unDouble) : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [unDouble(k), unDouble(x)])) : v;
    const live = (v: unknown): string[] =>
      typeof v === "string" ? (v.replace(/\$\$/g, "").includes("${") ? [v] : []) : Array.isArray(v) ? v.flatMap(live) : v !== null && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => [...live(k), ...live(x)]) : [];
    for (const r of resources) {
      const props = doc.resources[r.name]!.properties;
      const configured = r.inputs.filter(([, v]) => "config" in v).map(([k]) => k);
      const literal = Object.fromEntries(Object.entries(props).filter(([k]) => !configured.includes(k)));
      expect(live(literal), r.name).toEqual([]);
      expect(unDouble(literal), r.name).toEqual(Object.fromEntries(Object.entries(plain(r)).filter(([k]) => !configured.includes(k))));
      for (const k of configured) {
        const key = r.name + k[0]!.toUpperCase() + k.slice(1);
        expect(props[k]).toBe(`\${${key}}`);
        expect(doc.config[key]).toEqual({ type: "string", secret: true });
      }
    }
    expect(yamlProgramText("$${a}$")).toBe("$$$${a}$$");
  });

  it("YAML: a map key Pulumi YAML would read as a function (fn::…, any case) leaves the YAML program out, with a note naming the object, not the key", () => {
    const identity = resources.find((r) => r.type === "platform:iam:Identity" && r.inputs.some(([k]) => k === "claimMatch"))!;
    const withKey = (key: string): ProgramResource => ({
      ...identity,
      inputs: identity.inputs.map(([k, v]): [string, ProgramResource["inputs"][number][1]] => (k === "claimMatch" && "literal" in v ? [k, { literal: { ...(v.literal as object), claims: { [key]: "/etc/passwd" } } }] : [k, v])),
    });
    for (const key of ["fn::fileAsset", "Fn::Invoke", "fn::platform:iam:getRole"]) {
      expect(yamlHazards([withKey(key)])).toEqual([{ name: identity.name, id: identity.id, field: "claimMatch" }]);
      expect(() => yamlProgram([withKey(key)], "p")).toThrow(/fn::/);
    }
    expect(yamlHazards([withKey("x-fn::y")])).toEqual([]);
    expect(yamlHazards(resources)).toEqual([]);
  });

  it("TypeScript: index.ts parses; every entry is one Native(type, name, …); every payload is a string literal's exact value", () => {
    const f = ts.createSourceFile("index.ts", files.get("typescript/index.ts")!, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    expect((f as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics).toEqual([]);
    const strings = new Set<string>();
    const identifiers = new Set<string>();
    const declared: string[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isStringLiteral(n)) strings.add(n.text);
      if (ts.isIdentifier(n)) identifiers.add(n.text);
      if (ts.isNewExpression(n) && n.expression.getText(f) === "Native") {
        const [t, name] = n.arguments!;
        declared.push(`${(t as ts.StringLiteral).text} ${(name as ts.StringLiteral).text}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(f);
    expect(declared).toEqual(entries.map((e) => `${e.type} ${e.name}`));
    for (const p of payloads()) expect(strings, p.text).toContain(p.text);
    for (const id of PAYLOAD_ONLY) expect(identifiers, id).not.toContain(id);
    // And it type-checks against @pulumi/pulumi, with the project's tsconfig.json.
    const project = path.join(dir, "typescript");
    mkdirSync(project);
    for (const name of ["index.ts", "tsconfig.json"]) writeFileSync(path.join(project, name), files.get(`typescript/${name}`)!);
    symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"));
    const parsed = ts.parseJsonConfigFileContent(JSON.parse(files.get("typescript/tsconfig.json")!), ts.sys, project);
    const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  it("Python string literals: what Python reads back is the text, for every payload", () => {
    const texts = [...payloads().map((p) => p.text), "\u2028\ud800x\udc00\u0000\u007f\u202e'''\"\"\"\\"];
    const file = path.join(dir, "strings.py");
    writeFileSync(file, `import json\nprint(json.dumps([${texts.map(pyString).join(", ")}]))\n`);
    const python3 = existsSync(python) ? python : "python3";
    const back = JSON.parse(execFileSync(python3, [file], { encoding: "utf8" })) as string[];
    expect(back).toEqual(texts);
  });
});
