/**
 * Server text never becomes code in what the export writes (docs/export.md, "Server text in the export"): an org
 * whose free text and sinks are code in some language (a sink that ends a string literal and calls `require`, a
 * description with `"""`, `'''` and line breaks, Pulumi YAML's `${…}` and `$${…}`, a JavaScript comment's end,
 * U+2028) and a group named `pulumi` is read from the emulator and written in every format and layout:
 *
 * - `--format pulumi-import`: every entry's `name` is an identifier ({@link IMPORT_NAME}) made of the kind, the
 *   letters and digits of the object's name and a hash of its uid; no `logicalName`; unique; the same from a
 *   second read of the same org; the objects whose text the host's generators may not write back are counted.
 * - `--format ts` (one and split): the TypeScript parser reads each `index.ts` without an error, finds every
 *   payload as the exact value of a string literal, and no identifier that only the payloads hold.
 * - `--format yaml` (one and split): the `yaml` library reads each org file back to the exact payloads (the org
 *   file is data that `Org` reads with that library: it has no `${…}` interpolation), and `parseOrgFile` takes it.
 */
import * as ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startEmulator, type Emulator } from "../emulator";
import { hazardNote } from "../provider/commands/export";
import { buildModel, type OrgModel } from "../provider/export/model";
import { generatorHazards, IMPORT_NAME, importFile } from "../provider/export/pulumiImport";
import { readOrg } from "../provider/export/read";
import { splitModel, writeSplitOrgFiles, writeSplitProjects } from "../provider/export/split";
import { writeIndex } from "../provider/export/typescript";
import { writeOrgFile } from "../provider/export/yaml";
import { parseOrgFile } from "../provider/org/file";
import { getClient, setConfigLookup } from "../provider/state";
import { hostileText, seedHostile, type Hostile } from "./harness/hostileText";

let emu: Emulator;
let model: OrgModel;
let again: OrgModel;
let made: Hostile;
const CANARY = "/tmp/export-hostile-canary";
const { descriptions: DESCRIPTIONS, sinks: SINKS } = hostileText(CANARY);

beforeAll(async () => {
  emu = await startEmulator({ seed: {} });
  const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
  setConfigLookup((k) => config[k]);
  made = await seedHostile(getClient(), emu.orgUid, CANARY);
  model = buildModel(await readOrg(getClient(), emu.orgUid));
  again = buildModel(await readOrg(getClient(), emu.orgUid));
}, 120_000);

afterAll(async () => {
  await getClient().close();
  await emu.close();
});

/** Every payload the org holds: descriptions and sinks. */
const payloads = () => [...made.descriptions.values(), ...made.sinks.values()];

/**
 * What the TypeScript parser reads in `text`: its syntax errors, the value of every string literal, and every
 * identifier (outside strings and comments).
 */
function readTs(text: string): { errors: string[]; strings: Set<string>; identifiers: Set<string> } {
  const f = ts.createSourceFile("index.ts", text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const strings = new Set<string>();
  const identifiers = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) strings.add(n.text);
    if (ts.isIdentifier(n)) identifiers.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(f);
  const errors = ((f as unknown as { parseDiagnostics?: ts.Diagnostic[] }).parseDiagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  return { errors, strings, identifiers };
}

/** Identifiers only the payloads hold: were one read as code, the parser would find it. */
const PAYLOAD_ONLY = ["require", "writeFileSync", "os", "system", "exit", "token"];

describe("server text in the export's files", () => {
  it("the API keeps every payload as sent (the emulator keeps the API's rules: a sink is an https URL, a name ^[a-z0-9 ._-]{3,63}$)", () => {
    const read = new Map(model.groups.map((g) => [g.uid, g.api.description]));
    for (const [uid, d] of made.descriptions) expect(read.get(uid)).toBe(d);
    expect(new Map(model.subscriptions.map((s) => [s.uid, s.api.sink]))).toEqual(made.sinks);
    expect(made.sinks.size).toBe(SINKS.length);
    expect(made.descriptions.size).toBe(Object.keys(DESCRIPTIONS).length + 1);
  });

  it("--format pulumi-import: every name is an identifier made of kind, name and uid hash, unique, stable; no logicalName", () => {
    const file = importFile(model);
    const ids = new Set(file.resources.map((e) => e.id));
    for (const uid of [made.top, made.pulumiGroup, ...made.descriptions.keys(), ...made.sinks.keys()]) expect(ids, uid).toContain(uid);
    for (const e of file.resources as Array<{ name: string; logicalName?: string }>) {
      // What a generator writes as a variable or a resource name: letters, digits and "_" only.
      for (const n of [e.name, e.logicalName]) if (n !== undefined) expect(n, JSON.stringify(e)).toMatch(/^[A-Za-z0-9_]+$/);
    }
    for (const e of file.resources) {
      expect(Object.keys(e).sort(), JSON.stringify(e)).toEqual(["id", "name", "type"]);
      expect(e.name, JSON.stringify(e)).toMatch(IMPORT_NAME);
      expect(e.name).not.toBe("pulumi");
    }
    expect(new Set(file.resources.map((e) => e.name)).size).toBe(file.resources.length);
    expect(importFile(again)).toEqual(file);
    // The group named `pulumi`: its name is a word of the identifier, not the identifier.
    expect(file.resources.find((e) => e.id === made.pulumiGroup)!.name).toMatch(/^groupPulumi_[0-9a-f]{8}$/);
  });

  it("--format pulumi-import: the objects whose text Pulumi's generators may not write back are named, not quoted", () => {
    const hazards = generatorHazards(model);
    const flagged = new Set(hazards.map((h) => h.uid));
    for (const uid of [...made.descriptions.keys(), ...made.sinks.keys()]) expect(flagged, uid).toContain(uid);
    const note = hazardNote(hazards);
    expect(note).toMatch(/--generate-code=false/);
    for (const p of payloads()) expect(note).not.toContain(p);
    expect(hazardNote([])).toBe("");
  });

  it("--format ts: index.ts parses, every payload is a string literal's exact value, none is code", () => {
    const { errors, strings, identifiers } = readTs(writeIndex(model));
    expect(errors).toEqual([]);
    for (const p of payloads()) expect(strings, JSON.stringify(p)).toContain(p);
    for (const id of PAYLOAD_ONLY) expect(identifiers, id).not.toContain(id);
  });

  it("--layout split --format ts: every project's index.ts parses, every payload is a string literal's exact value, none is code", () => {
    const files = writeSplitProjects(splitModel(model, { project: "org" }), { packageRange: () => "*", pulumiRange: "*" }).filter((f) => f.path.endsWith("/index.ts"));
    expect(files.length).toBeGreaterThan(1);
    const all = new Set<string>();
    for (const f of files) {
      const { errors, strings, identifiers } = readTs(f.text);
      expect(errors, f.path).toEqual([]);
      for (const s of strings) all.add(s);
      for (const id of PAYLOAD_ONLY) expect(identifiers, `${f.path}: ${id}`).not.toContain(id);
    }
    for (const p of payloads()) expect(all, JSON.stringify(p)).toContain(p);
  });

  it("--format yaml: the org file reads back to the exact payloads, and Org's parser takes it", () => {
    const { text } = writeOrgFile(model);
    const doc = parse(text) as { groups: Array<Record<string, unknown>>; subscriptions: Array<{ sink: string; uid: string }> };
    const descriptions = new Map<string, string>();
    const walk = (gs: Array<Record<string, unknown>> = []) => {
      for (const g of gs) {
        if (typeof g["description"] === "string") descriptions.set(g["uid"] as string, g["description"]);
        walk(g["groups"] as Array<Record<string, unknown>> | undefined);
      }
    };
    walk(doc.groups);
    expect(descriptions).toEqual(made.descriptions);
    expect(new Map(doc.subscriptions.map((s) => [s.uid, s.sink]))).toEqual(made.sinks);
    const layout = parseOrgFile(text);
    expect(layout.groups.some((g) => g.name === "pulumi")).toBe(true);
  });

  it("--layout split --format yaml: every org file reads back to the exact payloads, every index.ts parses", () => {
    const { files } = writeSplitOrgFiles(model, { project: "org", packageRange: () => "*", pulumiRange: "*" });
    const texts = new Set<string>();
    for (const f of files) {
      if (f.path.endsWith("/org.yaml")) for (const s of scalars(parse(f.text))) texts.add(s);
      if (f.path.endsWith("/index.ts")) {
        const { errors, identifiers } = readTs(f.text);
        expect(errors, f.path).toEqual([]);
        for (const id of PAYLOAD_ONLY) expect(identifiers, `${f.path}: ${id}`).not.toContain(id);
      }
    }
    for (const p of payloads()) expect(texts, JSON.stringify(p)).toContain(p);
  });

});

/** Every string scalar of a parsed YAML document. */
function scalars(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(scalars);
  if (v !== null && typeof v === "object") return Object.values(v as Record<string, unknown>).flatMap(scalars);
  return [];
}
