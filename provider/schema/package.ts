/**
 * The Pulumi package schema of this package (`schema.json`), generated from the kinds' declarations: the kind
 * registry (`kinds/registry.ts`), each field's type and documentation ({@link Field.type}, zod), its kind
 * (a `parent` or `replace` field replaces on change) and secrecy, each kind's server-set outputs, the stack
 * config ({@link CONFIG_VARIABLES}) and the lookups ({@link LOOKUPS}). Nothing here names a kind.
 *
 * Shape: Pulumi's package schema (pulumi.com/docs/iac/extending-pulumi/schema/). Resources are
 * `platform:<module>:<Kind>`, named object types `platform:<module>:<Name>` (from zod `.meta({ id })`), lookups
 * `platform:<module>:get<Kind>` / `get<Kinds>`. Each resource aliases its dynamic-provider type token
 * (`pulumi-nodejs:dynamic/platform:<Kind>`), so a generated SDK moves a dynamic resource to the native type in place.
 *
 * `test/schema-binder.test.ts` binds the result with Pulumi's own schema binder (`tools/pulumi-schema`, pkg/v3
 * `codegen/schema.BindSpec`), requires a description on every property and no `Any` type without a reason
 * ({@link ANY_REASONS}), and checks that the committed `schema.json` is what this module generates.
 */
import type { z } from "zod";
import { zodOf } from "../engine/fieldTypes";
import { jsonSchemaOf, optional, type JsonSchema } from "./zodJson";
import { CONFIG_VARIABLES } from "../config";
import type { Field, ServerField } from "../engine/declare";
import { KINDS, type KindEntry } from "../kinds/registry";
import { typeToken } from "../engine/shim";
import { LOOKUPS, type LookupSpec } from "../lookups/catalog";

/** The package's name in type tokens and plugin names (`pulumi-resource-platform`). */
export const PACKAGE_NAME = "platform";

/** A Pulumi schema type reference or inline type (`TypeSpec`). */
export interface TypeSpec {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
}

/** A property of a resource, type, function or config (`PropertySpec`). */
export interface PropertySpec extends TypeSpec {
  description: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
  willReplaceOnChanges?: boolean;
}

/** An object type (`ObjectTypeSpec`) or an enum type (`ComplexTypeSpec` with `enum`). */
export interface ComplexTypeSpec {
  type: "object" | "string";
  description: string;
  properties?: Record<string, PropertySpec>;
  required?: string[];
  enum?: Array<{ value: string; name?: string }>;
}

/** A resource (`ResourceSpec`). */
export interface ResourceSpec {
  description: string;
  properties: Record<string, PropertySpec>;
  required: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  aliases: Array<{ type: string }>;
}

/** A function (`FunctionSpec`). */
export interface FunctionSpec {
  description: string;
  inputs: { properties: Record<string, PropertySpec>; required?: string[] };
  outputs: { properties: Record<string, PropertySpec>; required: string[] };
}

/** The package schema (`PackageSpec`), as far as this package fills it in. */
export interface PackageSpec {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  meta: { moduleFormat: string };
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ResourceSpec>;
  types: Record<string, ComplexTypeSpec>;
  functions: Record<string, FunctionSpec>;
  language: Record<string, unknown>;
}

/**
 * Properties typed `Any` on purpose, with the reason (`<token>.<property>`, `[]` for items, `{}` for map values →
 * why). A schema property typed `Any` that is not listed here fails `test/schema.unit.test.ts`.
 */
export const ANY_REASONS: Readonly<Record<string, string>> = {
  "platform:vulnerabilities:Advisory.events[]{}":
    "an advisory event's fields are not shown in the seed, and the API adds event kinds; the lookup passes each event through as the API sends it",
};

/** The token of a named type, from its zod id `<module>:<Name>`. */
function typeTokenOf(id: string): string {
  return `${PACKAGE_NAME}:${id}`;
}

/** Collects named types while converting; throws on a shape the Pulumi schema cannot hold. */
class TypeCollector {
  readonly types: Record<string, ComplexTypeSpec> = {};

  /**
   * The Pulumi property for zod type `t`, with `fallbackDoc` when the type carries no description.
   * @throws Error naming `where` for an inline object with properties (give it `.meta({ id })`) or an inline enum.
   */
  property(t: z.ZodType, where: string, fallbackDoc?: string): PropertySpec {
    const js = jsonSchemaOf(t);
    for (const [id, def] of Object.entries(js.$defs ?? {})) this.define(id, def, js.$defs ?? {});
    const spec = this.typeOf(js, where);
    const doc = js.description ?? (js.$ref ? js.$defs?.[js.$ref.replace("#/$defs/", "")]?.description : undefined) ?? fallbackDoc ?? "";
    return { ...spec, description: doc };
  }

  private define(id: string, def: JsonSchema, defs: Record<string, JsonSchema>): void {
    const token = typeTokenOf(id);
    if (this.types[token]) return;
    if (def.enum) {
      this.types[token] = { type: "string", description: def.description ?? "", enum: def.enum.map((v) => ({ value: String(v) })) };
      return;
    }
    const properties: Record<string, PropertySpec> = {};
    this.types[token] = { type: "object", description: def.description ?? "", properties, ...(def.required?.length ? { required: def.required } : {}) };
    for (const [k, p] of Object.entries(def.properties ?? {})) {
      const ref = p.$ref ? defs[p.$ref.replace("#/$defs/", "")] : undefined;
      properties[k] = { ...this.typeOf(p, `${token}.${k}`), description: p.description ?? ref?.description ?? "" };
    }
  }

  private typeOf(js: JsonSchema, where: string): TypeSpec {
    if (js.$ref) return { $ref: `#/types/${typeTokenOf(js.$ref.replace("#/$defs/", ""))}` };
    if (js.enum) throw new Error(`${where}: an enum needs a name: give it .meta({ id: "<module>:<Name>" }) (provider/engine/fieldTypes.ts, named())`);
    switch (js.type) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
        return { type: js.type };
      case "array":
        return { type: "array", items: js.items ? this.typeOf(js.items, `${where}[]`) : { $ref: "pulumi.json#/Any" } };
      case "object":
        if (js.properties) throw new Error(`${where}: an object type needs a name: give it .meta({ id: "<module>:<Name>" }) (provider/engine/fieldTypes.ts, named())`);
        return {
          type: "object",
          additionalProperties: typeof js.additionalProperties === "object" ? this.typeOf(js.additionalProperties, `${where}{}`) : { $ref: "pulumi.json#/Any" },
        };
      default:
        return { $ref: "pulumi.json#/Any" };
    }
  }
}

/** The resource token of a kind: `platform:<module>:<Kind>`. */
export function resourceToken(k: Pick<KindEntry, "module" | "kind">): string {
  return `${PACKAGE_NAME}:${k.module}:${k.kind}`;
}

function resourceSpec(k: KindEntry, types: TypeCollector): ResourceSpec {
  const token = resourceToken(k);
  const inputs: Record<string, PropertySpec> = {};
  const requiredInputs: string[] = [];
  const required = ["uid"];
  for (const [name, f] of Object.entries(k.fields) as Array<[string, Field]>) {
    if (f.internal) continue;
    if (!f.type) throw new Error(`${token}.${name}: the field declares no type (declare.ts, Field.type)`);
    const p = types.property(zodOf(f.type), `${token}.${name}`);
    if (f.secret) p.secret = true;
    if (f.kind === "parent" || f.kind === "replace") p.replaceOnChanges = p.willReplaceOnChanges = true;
    inputs[name] = p;
    if (!optional(zodOf(f.type))) requiredInputs.push(name);
    if (!optional(zodOf(f.type)) || f.default !== undefined) required.push(name);
  }
  const outputs: Record<string, PropertySpec> = {
    uid: { type: "string", description: `The ${k.what}'s uid (a UIDP, seed §1); also the resource's id.` },
  };
  for (const [name, p] of Object.entries(inputs)) {
    const { replaceOnChanges: _r, willReplaceOnChanges: _w, ...out } = p;
    outputs[name] = out;
  }
  for (const [name, s] of Object.entries(k.server) as Array<[string, ServerField]>) {
    const p = types.property(zodOf(s.type), `${token}.${name}`);
    if (k.secrets.includes(name)) p.secret = true;
    outputs[name] = p;
    if (!s.optional) required.push(name);
  }
  return {
    description: k.description,
    properties: outputs,
    required: [...new Set(required)],
    inputProperties: inputs,
    requiredInputs,
    aliases: [{ type: typeToken(k.kind) }],
  };
}

function functionSpec(l: LookupSpec, types: TypeCollector): FunctionSpec {
  const properties: Record<string, PropertySpec> = {};
  for (const [name, t] of Object.entries(l.args)) properties[name] = types.property(t, `${l.token}.${name}`);
  const result = types.property(l.result, `${l.token}.result`);
  return {
    description: l.description,
    inputs: { properties },
    outputs: l.plural
      ? { properties: { items: { type: "array", items: result.$ref ? { $ref: result.$ref } : result, description: "The matching objects, in `orderBy` order; empty when none match." } }, required: ["items"] }
      : { properties: { value: { ...result, description: "The one matching object." } }, required: ["value"] },
  };
}

/**
 * The package schema for `version` (the npm package's version). Deterministic: the same declarations give the
 * same JSON, byte for byte.
 * @throws Error naming the field when a declared type cannot be written in the schema (an unnamed object or enum).
 */
export function packageSchema(version: string): PackageSpec {
  const types = new TypeCollector();
  const config: Record<string, PropertySpec> = {};
  for (const [key, v] of Object.entries(CONFIG_VARIABLES) as Array<[string, { type: "string" | "integer" | "boolean"; env: string; secret?: boolean; description: string }]>) {
    config[key] = { type: v.type, description: `${v.description} Environment: \`${v.env}\`.`, ...(v.secret ? { secret: true } : {}) };
  }
  const resources: Record<string, ResourceSpec> = {};
  for (const k of KINDS) resources[resourceToken(k)] = resourceSpec(k, types);
  const functions: Record<string, FunctionSpec> = {};
  for (const l of LOOKUPS) functions[l.token] = functionSpec(l, types);
  return {
    name: PACKAGE_NAME,
    displayName: "Platform API v2",
    version,
    description: "Pulumi resources for the Platform API v2: IAM, registry, events and vulnerabilities.",
    keywords: ["pulumi", "platform", "iam", "registry", "category/utility", "kind/native"],
    license: "Apache-2.0",
    meta: { moduleFormat: "(.*)" },
    config: { variables: config },
    provider: { description: "The provider of the Platform API v2: its settings are the `platform:*` stack config.", inputProperties: config },
    resources,
    types: Object.fromEntries(Object.entries(types.types).sort(([a], [b]) => a.localeCompare(b))),
    functions,
    language: {
      nodejs: { packageName: "@platform-pulumi/platform", respectSchemaVersion: true },
      python: { packageName: "platform_pulumi", respectSchemaVersion: true, pyproject: { enabled: true } },
      go: { importBasePath: "platform-pulumi/sdk/go/platform", generateResourceContainerTypes: true, respectSchemaVersion: true },
    },
  };
}

/** Every property typed `Any` in `spec` (`<token>.<property>`), resources, types and functions alike. */
export function anyTyped(spec: PackageSpec): string[] {
  const out: string[] = [];
  const visit = (where: string, t: TypeSpec | undefined): void => {
    if (!t) return;
    if (t.$ref === "pulumi.json#/Any") out.push(where);
    visit(`${where}[]`, t.items);
    visit(`${where}{}`, t.additionalProperties);
  };
  const props = (where: string, ps: Record<string, PropertySpec> | undefined) => Object.entries(ps ?? {}).forEach(([k, p]) => visit(`${where}.${k}`, p));
  for (const [t, r] of Object.entries(spec.resources)) {
    props(t, r.properties);
    props(t, r.inputProperties);
  }
  for (const [t, ty] of Object.entries(spec.types)) props(t, ty.properties);
  for (const [t, f] of Object.entries(spec.functions)) {
    props(t, f.inputs.properties);
    props(t, f.outputs.properties);
  }
  return [...new Set(out)];
}
