/**
 * Every kind's declared fields through an export round trip: objects of every kind in the kind registry are
 * created on the emulator through their own providers (check, then create) with every declared field set, the org
 * is read (`readOrg`), modelled and written as a TypeScript program, and each declared field must appear in the
 * object's declaration with its value. The expectation comes from the declaration alone (`docs/architecture.md`,
 * "The kind registry"), so a field added to a declaration fails here until `export` writes it: the samples below
 * must set every field, and the export derives how to write it.
 *
 * Also: the org file (`--format yaml`) names every kind it cannot hold among what it skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { buildModel, type OrgModel } from "../provider/export/model";
import { readOrg } from "../provider/export/read";
import { declaredCounts, writeIndex } from "../provider/export/typescript";
import { writeOrgFile } from "../provider/export/yaml";
import type { Field } from "../provider/engine/declare";
import { KINDS, type KindEntry } from "../provider/kinds/registry";
import { getClient, setConfigLookup } from "../provider/state";
import { SAMPLES, SYNCED_REPO, type Made } from "./harness/samples";

let emu: Emulator;
let model: OrgModel;
let index: string;
/** Per kind, the objects made: uid and the inputs `check` returned. */
const made = new Map<string, Array<{ uid: string; inputs: Record<string, unknown>; given: string[] }>>();

async function create(k: KindEntry, news: Record<string, unknown>): Promise<void> {
  const checked = await k.provider.check({}, news);
  expect(checked.failures ?? [], `${k.kind} ${JSON.stringify(news)}`).toEqual([]);
  const r = await k.provider.create(checked.inputs!);
  made.set(k.kind, [...(made.get(k.kind) ?? []), { uid: r.id, inputs: checked.inputs as unknown as Record<string, unknown>, given: Object.keys(news) }]);
}

beforeAll(async () => {
  emu = await startEmulator({ seed: {} });
  const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
  setConfigLookup((k) => config[k]);
  const top = (await getClient().groups.create(emu.orgUid, { name: "export-fields", description: "" })).uid;
  const uids = (): Made => Object.fromEntries([...made].map(([kind, rows]) => [kind, rows.map((r) => r.uid)]));
  for (const k of KINDS) for (const news of SAMPLES[k.kind]!(top, uids())) await create(k, news);
  await create(KINDS.find((k) => k.kind === "Repo")!, SYNCED_REPO(top, uids()));
  model = buildModel(await readOrg(getClient(), top));
  index = writeIndex(model);
}, 120_000);

afterAll(async () => {
  await getClient().close();
  await emu.close();
});

/** The declarations of index.ts: kind, and each top-level field's text, by field name. */
function declarations(text: string): Array<{ kind: string; body: string; fields: Map<string, string> }> {
  const out: Array<{ kind: string; body: string; fields: Map<string, string> }> = [];
  for (const m of text.matchAll(/new (\w+)\("(?:[^"\\]|\\.)*", \{\n([\s\S]*?)\n\}(?:, [^;]*)?\);/g)) {
    const fields = new Map<string, string>();
    let current: string | undefined;
    for (const line of m[2]!.split("\n")) {
      const top = /^ {4}(\w+): (.*)$/.exec(line);
      if (top) {
        current = top[1]!;
        fields.set(current, top[2]!);
      } else if (current) fields.set(current, `${fields.get(current)}\n${line}`);
    }
    for (const [k, v] of fields) fields.set(k, v.replace(/,$/, ""));
    out.push({ kind: m[1]!, body: m[2]!, fields });
  }
  return out;
}

/** Every scalar inside a value (strings, numbers, booleans), and object keys. */
function leaves(v: unknown): Array<string | number | boolean> {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (typeof v === "object") return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => [k, ...leaves(x)]);
  return [v as string | number | boolean];
}

const UID = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

/**
 * The fields the declaration says export writes: every field but the built-in createToken, `createOnly` fields
 * that do not adopt, and `stateOnly` fields (state, not server) unless the reader found them beside the object.
 */
function exported(k: KindEntry, local: Record<string, unknown> | undefined): Array<[string, Field]> {
  return Object.entries(k.fields).filter(([name, f]) => {
    if (name === "createToken") return false;
    if (f.kind === "createOnly") return f.adoption !== undefined || name === "adoptUid";
    if (f.kind === "stateOnly") return local?.[name] !== undefined;
    return true;
  });
}

describe("export writes every declared field of every kind", () => {
  it("the samples set every field export writes (a new field needs a sample, not an export edit)", () => {
    for (const k of KINDS) {
      const set = new Set((made.get(k.kind) ?? []).flatMap((m) => m.given));
      const missing = Object.entries(k.fields)
        .filter(([name, f]) => name !== "createToken" && f.kind !== "parent" && f.kind !== "createOnly" && !set.has(name))
        .map(([name]) => name);
      expect(missing, `${k.kind}: declared fields no sample sets`).toEqual([]);
    }
  });

  for (const kindName of Object.keys(SAMPLES)) {
    it(`${kindName}: each object's declaration holds every declared field with its value`, () => {
      const k = KINDS.find((x) => x.kind === kindName)!;
      const decls = declarations(index).filter((d) => d.kind === k.kind);
      const objects = made.get(k.kind) ?? [];
      expect(objects.length).toBeGreaterThan(0);
      if (k.kind === "GroupInvite") {
        // An invite's code cannot be read back: the export skips invites, and says so.
        expect(decls).toEqual([]);
        expect(model.skipped.map((s) => s.kind)).toContain("GroupInvite");
        return;
      }
      expect(decls.length).toBe(declaredCounts(model)[k.kind]);
      const nodes = nodesOf(k.kind);
      for (const o of objects) {
        const node = nodes.find((n) => n.uid === o.uid);
        expect(node, `${k.kind} ${o.uid} in the model`).toBeDefined();
        // The declaration that adopts this object: its uid, or (adopted by a flag) its name.
        const decl = decls.find((d) => d.body.includes(JSON.stringify(o.uid))) ?? decls.find((d) => d.fields.get("name") === JSON.stringify(o.inputs["name"]));
        expect(decl, `${k.kind} ${o.uid}: no declaration`).toBeDefined();
        for (const [name, f] of exported(k, node!.local)) {
          const v = o.inputs[name];
          if (f.kind === "createOnly") {
            expect(decl!.fields.get(name), `${k.kind}.${name}`).toBe(f.adoption === "flag" ? "true" : JSON.stringify(o.uid));
            continue;
          }
          if (v === undefined || (f.default !== undefined && JSON.stringify(v) === JSON.stringify(f.default))) {
            expect(decl!.fields.has(name), `${k.kind}.${name} unset: left out`).toBe(false);
            continue;
          }
          const text = decl!.fields.get(name);
          expect(text, `${k.kind}.${name} missing from ${decl!.body}`).toBeDefined();
          if (f.kind === "parent" || (typeof v === "string" && UID.test(v))) {
            expect(text, `${k.kind}.${name} is a reference`).toMatch(/^(\w+\.uid|underUid|orgUid|"[0-9a-f/]+" \/\*.*\*\/)$/);
            continue;
          }
          if (f.secret && f.writeOnly) {
            expect(text).toMatch(/^config\.requireSecret\("\w+"\)$/);
            continue;
          }
          const shown = f.exportAs ? f.exportAs(v) : v;
          for (const leaf of leaves(shown)) {
            if (typeof leaf === "string" && UID.test(leaf)) expect(text).toMatch(/\w+\.uid/);
            else expect(text, `${k.kind}.${name}: ${JSON.stringify(leaf)}`).toContain(typeof leaf === "string" && !/^[A-Za-z_$][\w$]*$/.test(leaf) ? JSON.stringify(leaf) : String(leaf));
          }
        }
      }
    });
  }

  it("the org file lists, among what it skipped, every exported kind it cannot hold", () => {
    const yaml = writeOrgFile(model);
    const held = new Set(Object.keys(yaml.counts));
    const counts = declaredCounts(model);
    for (const k of KINDS) if (!held.has(k.kind) && (counts[k.kind] ?? 0) > 0) expect(yaml.skipped.map((s) => s.kind), k.kind).toContain(k.kind);
  });

  it("a subscription or role binding under a group the caller cannot list is skipped and counted, not declared", () => {
    const s = model.snapshot;
    const hidden = `${s.anchor.uid}/${"f".repeat(16)}`; // a group the reader did not see
    const lost = buildModel({
      ...s,
      subscriptions: [...s.subscriptions, { ...s.subscriptions[0]!, uid: `${hidden}/${"a".repeat(16)}` }],
      roleBindings: [...s.roleBindings, { ...s.roleBindings[0]!, uid: `${hidden}/${"b".repeat(16)}` }, { ...s.roleBindings[0]!, uid: `${hidden}/${"c".repeat(16)}` }],
    });
    const why = "under a group the caller cannot list";
    expect(lost.skipped).toEqual(expect.arrayContaining([{ kind: "Subscription", count: 1, why }, { kind: "RoleBinding", count: 2, why }]));
    expect(lost.subscriptions.map((n) => n.uid)).toEqual(model.subscriptions.map((n) => n.uid));
    expect(lost.roleBindings.map((n) => n.uid)).toEqual(model.roleBindings.map((n) => n.uid));
  });
});

function nodesOf(kind: string): Array<{ uid: string; local?: Record<string, unknown> | undefined }> {
  const m = model as unknown as Record<string, Array<{ uid: string; kind: string; local?: Record<string, unknown> }>>;
  return Object.values(m)
    .filter((v): v is Array<{ uid: string; kind: string; local?: Record<string, unknown> }> => Array.isArray(v))
    .flat()
    .filter((n) => n && n.kind === kind);
}
