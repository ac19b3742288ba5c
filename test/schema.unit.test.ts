/**
 * The Pulumi package schema (`schema.json`) and the reference pages (`docs/resources/`) generated from the kinds'
 * declarations (`provider/schema/`): current in the repository, accepted by Pulumi's own schema binder
 * (`tools/pulumi-schema`, pkg/v3 `codegen/schema.BindSpec`), complete (a description on every property, no `Any`
 * without a reason), and faithful to the declarations (replace-on-change, secrets, lookups' arguments).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import * as lookups from "../provider/lookups";
import { LOOKUPS } from "../provider/lookups/catalog";
import type { PlatformClient } from "../provider/client/client";
import { generatedFiles } from "../provider/schema/generate";
import { ANY_REASONS, anyTyped, packageSchema, resourceToken, type PackageSpec, type PropertySpec } from "../provider/schema/package";
import { KINDS } from "../provider/kinds/registry";

const root = path.resolve(__dirname, "..");
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const spec = packageSchema(version);

/** Every property of the schema, as `<where>` → spec. */
function allProperties(s: PackageSpec): Array<[string, PropertySpec]> {
  const out: Array<[string, PropertySpec]> = [];
  const add = (where: string, ps: Record<string, PropertySpec> | undefined) => Object.entries(ps ?? {}).forEach(([k, p]) => out.push([`${where}.${k}`, p]));
  add("config", s.config.variables);
  for (const [t, r] of Object.entries(s.resources)) {
    add(`${t} (input)`, r.inputProperties);
    add(`${t} (output)`, r.properties);
  }
  for (const [t, ty] of Object.entries(s.types)) add(t, ty.properties);
  for (const [t, f] of Object.entries(s.functions)) {
    add(`${t} (argument)`, f.inputs.properties);
    add(`${t} (result)`, f.outputs.properties);
  }
  return out;
}

describe("generated files", () => {
  it.each(Object.entries(generatedFiles(version)).map(([rel, content]) => [rel, content] as const))("%s is current (run `npm run gen` after editing a declaration)", (rel, content) => {
    expect(readFileSync(path.join(root, rel), "utf8")).toBe(content);
  });
});

describe("package schema", () => {
  it("has every kind as a resource, aliased to its dynamic type token", () => {
    expect(Object.keys(spec.resources)).toEqual(KINDS.map((k) => resourceToken(k)));
    for (const k of KINDS) expect(spec.resources[resourceToken(k)]!.aliases).toEqual([{ type: `pulumi-nodejs:dynamic/platform:${k.kind}` }]);
  });

  it("documents every property, type, resource and function", () => {
    const undocumented = allProperties(spec).filter(([, p]) => !p.description?.trim()).map(([w]) => w);
    expect(undocumented).toEqual([]);
    for (const [t, ty] of Object.entries(spec.types)) expect(ty.description, t).not.toBe("");
    for (const [t, r] of Object.entries(spec.resources)) expect(r.description, t).not.toBe("");
    for (const [t, f] of Object.entries(spec.functions)) expect(f.description, t).not.toBe("");
  });

  it("types nothing Any but the properties whose reason is given", () => {
    expect(anyTyped(spec).sort()).toEqual(Object.keys(ANY_REASONS).sort());
  });

  it("replaces on change exactly for the parent and replace fields, and keeps secret fields secret", () => {
    for (const k of KINDS) {
      const r = spec.resources[resourceToken(k)]!;
      const replacing = Object.entries(r.inputProperties).filter(([, p]) => p.replaceOnChanges).map(([n]) => n);
      const declared = Object.entries(k.fields).filter(([, f]) => !f.internal && (f.kind === "parent" || f.kind === "replace")).map(([n]) => n);
      expect(replacing, k.kind).toEqual(declared);
      const secret = Object.entries(r.properties).filter(([, p]) => p.secret).map(([n]) => n).sort();
      expect(secret, k.kind).toEqual([...k.secrets].sort());
    }
    expect(spec.resources["platform:iam:IdentityProvider"]!.inputProperties["clientSecret"]!.secret).toBe(true);
    expect(spec.resources["platform:iam:GroupInvite"]!.properties["code"]!.secret).toBe(true);
    expect(spec.config.variables["token"]!.secret).toBe(true);
  });

  it("leaves internal fields out (a group's deleteTimeoutSeconds, every kind's createToken)", () => {
    for (const r of Object.values(spec.resources)) {
      expect(Object.keys(r.inputProperties)).not.toContain("createToken");
      expect(Object.keys(r.properties)).not.toContain("deleteTimeoutSeconds");
    }
  });

  it("every lookup the package exports is a schema function (declared by its kind's `lookups:`), and no other", () => {
    const exported = Object.entries(lookups)
      .filter(([n, v]) => /^get[A-Z]\w*$/.test(n) && !n.endsWith("Output") && typeof v === "function")
      .map(([n]) => n);
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.sort()).toEqual(LOOKUPS.map((l) => l.fn).sort());
  });

  it.each(LOOKUPS.map((l) => [l.fn, l] as const))("%s: the schema function takes exactly the arguments the lookup accepts", async (fn, l) => {
    const f = (lookups as unknown as Record<string, (args: object, client: PlatformClient) => Promise<unknown>>)[fn];
    expect(typeof f, `${fn} is exported by provider/lookups`).toBe("function");
    const err = await f!({ __probe: "x" }, {} as PlatformClient).then(
      () => undefined,
      (e: unknown) => e,
    );
    const known = /\(known: ([^)]*)\)/.exec(String((err as Error | undefined)?.message))?.[1];
    expect(known, `${fn}'s error for an unknown argument`).toBeDefined();
    expect(Object.keys(l.args).sort()).toEqual(known!.split(", ").sort());
    expect(spec.functions[l.token]).toBeDefined();
  });
});

