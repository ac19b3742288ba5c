/**
 * The programs beside Pulumi's bulk import file (`--format pulumi-import`, docs/export.md "Pulumi's own import, in
 * any language"): the same objects as `import.json`, each declared under the same name and type token with the
 * inputs `pulumi import` puts into the stack's state, in Python (`platform_pulumi`), Go (the Go SDK), Pulumi YAML
 * and TypeScript. They are this package's, written from its own schema (`schema/package.ts`), so adopting an org
 * never depends on a language host's code generator (`pulumi import --file … --generate-code=false` writes the
 * state only) and every server text is escaped here, for the language it lands in.
 *
 * - **Inputs.** Exactly what the native plugin's Read gives `pulumi import` as the object's inputs (`declare.ts`:
 *   `inputsOf(outputsOf(object))`), in the declaration's field order: every field the server returns, references
 *   (a parent, `identityUid`, `roleUid`…) as the uid strings the state holds. Fields the import does not read back
 *   are left out (`createOnly`: `adoptUid`, `adopt`; `stateOnly`: a repo's `readme`), so the first preview plans
 *   nothing for them. A write-only field (an identity provider's `clientSecret`: the API never returns it) is read
 *   from stack config `<import name><Field>` (secret when the field is), the one thing to set before `pulumi up`;
 *   that `up` sends it once.
 * - **Names** are the import file's (`pulumiImport.ts`, {@link IMPORT_NAME}): identifiers, never server text.
 * - **Strings** (values and map keys): Python `"…"` with `\\`, `\"` and every {@link UNSAFE} character escaped; Go
 *   `"…"` the same, a lone surrogate (which Go cannot hold) refused; TypeScript through `escape.ts`'s `tsString`;
 *   YAML through the `yaml` library, with every `$` doubled (Pulumi YAML reads `$$` as `$` and `${…}` as an
 *   interpolation, pulumi-yaml's `parseInterpolate`).
 */
import { kindEntry } from "../kinds/registry";
import { stringify } from "yaml";
import { tsString } from "../escape";
import { UNSAFE } from "../text";
import { packageSchema, type ComplexTypeSpec, type TypeSpec } from "../schema/package";
import { modelNodes, type OrgModel } from "./model";
import { importFile, IMPORT_NAME } from "./pulumiImport";
import type { GeneratedFile } from "./typescript";
import { TEMPLATE_TSCONFIG } from "./typescript";

/** A value of a declared input: a literal of the object's current value, or a stack config value. */
export type ProgramValue = { literal: unknown } | { config: string; secret: boolean };

/** One resource of the programs: the import file's entry, and its inputs in the declaration's field order. */
export interface ProgramResource {
  /** The native type token, `platform:<module>:<Kind>`. */
  type: string;
  /** The import file's name ({@link IMPORT_NAME}): the resource's name, and its variable where one is written. */
  name: string;
  /** The object's uid (the import file's `id`). */
  id: string;
  inputs: Array<[string, ProgramValue]>;
}

/** The languages the export writes a program in, each in its own folder of `--out`. */
export const PROGRAM_LANGUAGES = ["python", "go", "yaml", "typescript"] as const;
/** One of {@link PROGRAM_LANGUAGES}. */
export type ProgramLanguage = (typeof PROGRAM_LANGUAGES)[number];

/**
 * The resources of the programs: one per entry of `importFile(m)`, in its order, with the inputs the import puts
 * into state (module comment).
 * @throws Error when a node's kind is not in the kind registry (a model built by this package always is).
 */
export function programResources(m: OrgModel): ProgramResource[] {
  const entries = importFile(m).resources;
  return modelNodes(m).map((n, i) => {
    const e = entries[i]!;
    const k = kindEntry(n.kind);
    if (k === undefined || e.id !== n.uid) throw new Error(`export: kind ${n.kind} (${n.uid}) is not in the kind registry`);
    const read = k.inputsOf(k.outputsOf(n.api as unknown as { uid: string })) as Record<string, unknown>;
    const inputs: Array<[string, ProgramValue]> = [];
    for (const [field, f] of Object.entries(k.fields)) {
      if (f.internal || f.kind === "createOnly" || f.kind === "stateOnly") continue;
      if (f.writeOnly) {
        inputs.push([field, { config: `${e.name}${field[0]!.toUpperCase()}${field.slice(1)}`, secret: f.secret === true }]);
        continue;
      }
      const v = read[field];
      if (v === undefined || v === null) continue;
      inputs.push([field, { literal: v }]);
    }
    return { type: e.type, name: e.name, id: e.id, inputs };
  });
}

// --- the schema: each property's type --------------------------------------------------------------------------

let schemaCache: ReturnType<typeof packageSchema> | undefined;
function schema(): ReturnType<typeof packageSchema> {
  return (schemaCache ??= packageSchema("0.0.0"));
}

/** The schema type of `field` of resource `token`. @throws Error when the schema has no such input. */
function inputType(token: string, field: string): TypeSpec {
  const t = schema().resources[token]?.inputProperties[field];
  if (t === undefined) throw new Error(`export: the package schema has no input ${field} of ${token}`);
  return t;
}

/** The named type a `$ref` points at (`#/types/platform:iam:ClaimMatch`): its token, module, name and spec. */
function refType(ref: string): { token: string; module: string; name: string; spec: ComplexTypeSpec } {
  const token = ref.replace(/^#\/types\//, "");
  const spec = schema().types[token];
  const [, module, name] = token.split(":");
  if (spec === undefined || module === undefined || name === undefined) throw new Error(`export: the package schema has no type ${ref}`);
  return { token, module, name, spec };
}

/** The value's entries of an object, in key order as given, without undefined/null members. */
function members(v: unknown): Array<[string, unknown]> {
  return Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && x !== null);
}

// --- string literals -------------------------------------------------------------------------------------------

/** `\uXXXX` (or `\xXX` below U+0100 in Python) for one UTF-16 code unit. */
function hex4(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A Python string literal of `s`: `"…"`, with `\\`, `\"` and every {@link UNSAFE} character (line breaks, other
 * controls, U+2028/2029, bidirectional controls, lone surrogates) escaped as `\uXXXX`; Python reads it back as `s`.
 */
export function pyString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(UNSAFE, hex4)}"`;
}

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every string of a value, map keys included. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === "object") return members(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

/**
 * A Go interpreted string literal of `s`: `"…"`, with `\\`, `\"` and every {@link UNSAFE} character escaped as
 * `\uXXXX`.
 * @throws Error when `s` holds a lone surrogate: no Go string literal holds one (Go strings are UTF-8 bytes).
 */
export function goString(s: string): string {
  if (LONE_SURROGATE.test(s)) {
    throw new Error(`export: a text with a lone surrogate (${tsString(s)}) cannot be written in Go`);
  }
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(UNSAFE, hex4)}"`;
}

/** `s` for a Pulumi YAML program: every `$` doubled, so that Pulumi YAML reads the text, not an interpolation. */
export function yamlProgramText(s: string): string {
  return s.replace(/\$/g, "$$$$");
}

// --- Python ----------------------------------------------------------------------------------------------------

/** The Python SDK's name of a property: snake_case (`parentUid` → `parent_uid`, `homeDir` → `home_dir`). */
export function pyName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

const PY_INDENT = "    ";

function pyValue(v: unknown, t: TypeSpec, indent: string): string {
  if (t.$ref !== undefined && t.$ref.startsWith("#/types/")) {
    const r = refType(t.$ref);
    if (r.spec.type === "string") return pyString(String(v));
    const inner = indent + PY_INDENT;
    const args = members(v).map(([k, x]) => {
      const pt = r.spec.properties?.[k];
      if (pt === undefined) throw new Error(`export: the package schema has no property ${k} of ${r.token}`);
      return `${inner}${pyName(k)}=${pyValue(x, pt, inner)},`;
    });
    return args.length ? `${r.module}.${r.name}Args(\n${args.join("\n")}\n${indent})` : `${r.module}.${r.name}Args()`;
  }
  return pyPlain(v, t, indent);
}

function pyPlain(v: unknown, t: TypeSpec, indent: string): string {
  const inner = indent + PY_INDENT;
  if (typeof v === "string") return pyString(v);
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : (() => { throw new Error(`export: ${v} is not a number Python can hold`); })();
  if (Array.isArray(v)) {
    const item = t.items ?? {};
    if (v.length === 0) return "[]";
    return `[\n${v.map((x) => `${inner}${pyValue(x, item, inner)},`).join("\n")}\n${indent}]`;
  }
  if (v !== null && typeof v === "object") {
    const item = t.additionalProperties ?? {};
    const es = members(v);
    if (es.length === 0) return "{}";
    return `{\n${es.map(([k, x]) => `${inner}${pyString(k)}: ${pyValue(x, item, inner)},`).join("\n")}\n${indent}}`;
  }
  throw new Error(`export: a value of type ${typeof v} cannot be written in Python`);
}

/** The SDK's module of a type token (`platform:iam:Group` → `iam`) and its Python class (`Group`, `RoleBinding`). */
function tokenParts(token: string): { module: string; kind: string } {
  const [, module, kind] = token.split(":");
  return { module: module!, kind: kind! };
}

/**
 * The Python program (`__main__.py`): `from platform_pulumi import <modules>`, then one `<module>.<Kind>(name, …)`
 * per resource, every input a keyword argument (snake_case) of the SDK's class, objects as the SDK's `…Args`.
 */
export function pythonProgram(rs: readonly ProgramResource[]): string {
  const modules = [...new Set(rs.map((r) => tokenParts(r.type).module))].sort();
  const out = [
    `"""Exported from the Platform API by \`platform-pulumi export --format pulumi-import\`: every object of import.json with`,
    "the inputs `pulumi import --file import.json --generate-code=false` puts into the stack's state (docs/export.md).\"\"\"",
    "import pulumi",
    ...(modules.length ? [`from platform_pulumi import ${modules.join(", ")}`] : []),
    "",
    "config = pulumi.Config()",
  ];
  for (const r of rs) {
    const { module, kind } = tokenParts(r.type);
    const args = r.inputs.map(([k, v]) => {
      const value = "literal" in v ? pyValue(v.literal, inputType(r.type, k), PY_INDENT) : `config.${v.secret ? "require_secret" : "require"}(${pyString(v.config)})`;
      return `${PY_INDENT}${pyName(k)}=${value},`;
    });
    out.push("", `${r.name} = ${module}.${kind}(`, `${PY_INDENT}${pyString(r.name)},`, ...args, ")");
  }
  return `${out.join("\n")}\n`;
}

// --- Go --------------------------------------------------------------------------------------------------------

/** The Go SDK's name of a property: its first letter upper case (`parentUid` → `ParentUid`). */
export function goName(name: string): string {
  return `${name[0]!.toUpperCase()}${name.slice(1)}`;
}

const GO_SCALAR: Record<string, string> = { string: "String", boolean: "Bool", integer: "Int", number: "Float64" };

/** The Go SDK's type of a schema type, for an array or map of it (`pulumi.StringArray`, `iam.OverlayFileArray`). */
function goElem(t: TypeSpec): string {
  if (t.$ref !== undefined && t.$ref.startsWith("#/types/")) {
    const r = refType(t.$ref);
    return `${r.module}.${r.name}`;
  }
  const s = t.type ? GO_SCALAR[t.type] : undefined;
  if (s === undefined) throw new Error(`export: no Go type for ${JSON.stringify(t)}`);
  return `pulumi.${s}`;
}

function goValue(v: unknown, t: TypeSpec, indent: string): string {
  const inner = `${indent}\t`;
  if (t.$ref !== undefined && t.$ref.startsWith("#/types/")) {
    const r = refType(t.$ref);
    if (r.spec.type === "string") return `${r.module}.${r.name}(${goString(String(v))})`;
    const fields = members(v).map(([k, x]) => {
      const pt = r.spec.properties?.[k];
      if (pt === undefined) throw new Error(`export: the package schema has no property ${k} of ${r.token}`);
      return `${inner}${goName(k)}: ${goValue(x, pt, inner)},`;
    });
    return fields.length ? `&${r.module}.${r.name}Args{\n${fields.join("\n")}\n${indent}}` : `&${r.module}.${r.name}Args{}`;
  }
  if (t.type === "array") {
    const item = t.items ?? {};
    const items = (v as unknown[]).map((x) => `${inner}${goValue(x, item, inner)},`);
    return items.length ? `${goElem(item)}Array{\n${items.join("\n")}\n${indent}}` : `${goElem(item)}Array{}`;
  }
  if (t.type === "object") {
    const item = t.additionalProperties ?? {};
    const es = members(v).map(([k, x]) => `${inner}${goString(k)}: ${goValue(x, item, inner)},`);
    return es.length ? `${goElem(item)}Map{\n${es.join("\n")}\n${indent}}` : `${goElem(item)}Map{}`;
  }
  if (t.type === "string") return `pulumi.String(${goString(String(v))})`;
  if (t.type === "boolean") return `pulumi.Bool(${v === true ? "true" : "false"})`;
  if (t.type === "integer" && Number.isSafeInteger(v)) return `pulumi.Int(${String(v)})`;
  if (t.type === "number" && typeof v === "number" && Number.isFinite(v)) return `pulumi.Float64(${String(v)})`;
  throw new Error(`export: the value ${tsString(JSON.stringify(v) ?? "")} of type ${JSON.stringify(t)} cannot be written in Go`);
}

/**
 * The Go program (`main.go`): one `<module>.New<Kind>(ctx, name, &<module>.<Kind>Args{…})` per resource, every
 * input a field of the SDK's args (`pulumi.String(…)`, `pulumi.StringArray{…}`, `&iam.ClaimMatchArgs{…}`).
 * @throws Error when a text holds a lone surrogate ({@link goString}).
 */
export function goProgram(rs: readonly ProgramResource[]): string {
  const modules = [...new Set(rs.map((r) => tokenParts(r.type).module))].sort();
  const usesConfig = rs.some((r) => r.inputs.some(([, v]) => "config" in v));
  const body: string[] = [];
  for (const r of rs) {
    const { module, kind } = tokenParts(r.type);
    const fields = r.inputs.map(([k, v]) => {
      const value = "literal" in v ? goValue(v.literal, inputType(r.type, k), "\t\t\t") : `cfg.${v.secret ? "RequireSecret" : "Require"}(${goString(v.config)})`;
      return `\t\t\t${goName(k)}: ${value},`;
    });
    body.push(
      `\t\tif _, err := ${module}.New${kind}(ctx, ${goString(r.name)}, &${module}.${kind}Args{`,
      ...fields,
      "\t\t}); err != nil {",
      "\t\t\treturn err",
      "\t\t}",
    );
  }
  return [
    "// Exported from the Platform API by `platform-pulumi export --format pulumi-import`: every object of import.json",
    "// with the inputs `pulumi import --file import.json --generate-code=false` puts into the stack's state",
    "// (docs/export.md).",
    "package main",
    "",
    "import (",
    ...modules.map((m) => `\t"platform-pulumi/sdk/go/platform/${m}"`),
    ...(modules.length ? [""] : []),
    '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
    ...(usesConfig ? ['\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"'] : []),
    ")",
    "",
    "func main() {",
    "\tpulumi.Run(func(ctx *pulumi.Context) error {",
    ...(usesConfig ? ['\t\tcfg := config.New(ctx, "")'] : []),
    ...body,
    "\t\treturn nil",
    "\t})",
    "}",
    "",
  ].join("\n");
}

// --- YAML ------------------------------------------------------------------------------------------------------

/** Every string of a value (map keys too) with `$` doubled ({@link yamlProgramText}). */
function yamlValue(v: unknown): unknown {
  if (typeof v === "string") return yamlProgramText(v);
  if (Array.isArray(v)) return v.map(yamlValue);
  if (v !== null && typeof v === "object") return Object.fromEntries(members(v).map(([k, x]) => [yamlProgramText(k), yamlValue(x)]));
  return v;
}

/**
 * The Pulumi YAML project (`Pulumi.yaml`, `runtime: yaml`): `config:` for the write-only inputs, and `resources:`,
 * each by its import name with its `type` and `properties`; written by the `yaml` library (every scalar quoted as
 * its content needs), every text's `$` doubled.
 * @throws Error when {@link yamlHazards} finds a map key Pulumi YAML would read as a function.
 */
export function yamlProgram(rs: readonly ProgramResource[], project: string): string {
  const hazards = yamlHazards(rs);
  if (hazards.length) throw new Error(`export: Pulumi YAML would read a map key of ${hazards.map((h) => `${h.name}.${h.field}`).join(", ")} as a function (it starts with fn::)`);
  const config: Record<string, unknown> = {};
  const resources: Record<string, unknown> = {};
  for (const r of rs) {
    const properties: Record<string, unknown> = {};
    for (const [k, v] of r.inputs) {
      if ("literal" in v) properties[k] = yamlValue(v.literal);
      else {
        config[v.config] = { type: "string", ...(v.secret ? { secret: true } : {}) };
        properties[k] = `\${${v.config}}`;
      }
    }
    resources[r.name] = { type: r.type, properties };
  }
  const doc = {
    name: project,
    runtime: "yaml",
    description: "Exported from the Platform API by platform-pulumi export --format pulumi-import (docs/export.md)",
    ...(Object.keys(config).length ? { config } : {}),
    resources,
  };
  return stringify(doc, { lineWidth: 0 });
}

/**
 * The inputs of `rs` that Pulumi YAML would read as code whatever their `$`s: a map key that starts with `fn::` (any
 * case). pulumi-yaml (`ast/expr.go`, `tryParseFunction`, `tryParseAssetOrArchive`) reads an object of one such key
 * as a built-in function (`fn::invoke`, `fn::<package>:<module>:<function>`, `fn::secret`…) and such a key anywhere
 * as an asset or archive (`fn::fileAsset`: a local file read and sent), and has no escape for a key. Each by the
 * resource's import name, uid and field, in order; the map key itself is server text, so it is not returned.
 */
export function yamlHazards(rs: readonly ProgramResource[]): Array<{ name: string; id: string; field: string }> {
  const hasFnKey = (v: unknown): boolean =>
    Array.isArray(v) ? v.some(hasFnKey) : v !== null && typeof v === "object" ? members(v).some(([k, x]) => /^fn::/i.test(k) || hasFnKey(x)) : false;
  return rs.flatMap((r) => r.inputs.filter(([, v]) => "literal" in v && hasFnKey(v.literal)).map(([field]) => ({ name: r.name, id: r.id, field })));
}

// --- TypeScript ------------------------------------------------------------------------------------------------

function tsValue(v: unknown, indent: string): string {
  const inner = `${indent}    `;
  if (typeof v === "string") return tsString(v);
  if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return String(v);
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => `${inner}${tsValue(x, inner)},`).join("\n")}\n${indent}]` : "[]";
  if (v !== null && typeof v === "object") {
    const es = members(v);
    return es.length ? `{\n${es.map(([k, x]) => `${inner}${tsString(k)}: ${tsValue(x, inner)},`).join("\n")}\n${indent}}` : "{}";
  }
  throw new Error(`export: a value of type ${typeof v} cannot be written in TypeScript`);
}

/**
 * The TypeScript program (`index.ts`): one `new Native(<type token>, name, {…})` per resource, `Native` a
 * `pulumi.CustomResource` of the given type (the native type by its token: docs/native.md, no Node.js SDK is
 * shipped), every input a property.
 */
export function typescriptProgram(rs: readonly ProgramResource[]): string {
  const out = [
    "// Exported from the Platform API by `platform-pulumi export --format pulumi-import`: every object of import.json",
    "// with the inputs `pulumi import --file import.json --generate-code=false` puts into the stack's state",
    "// (docs/export.md). Each resource is the native plugin's type, by its token (docs/native.md).",
    'import * as pulumi from "@pulumi/pulumi";',
    "",
    "/** A resource of the native plugin, by its type token (pulumi.CustomResource is abstract). */",
    "class Native extends pulumi.CustomResource {",
    "    constructor(type: string, name: string, args: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {",
    "        super(type, name, args, opts);",
    "    }",
    "}",
    "",
    "const config = new pulumi.Config();",
  ];
  for (const r of rs) {
    const props = r.inputs.map(([k, v]) => `    ${k}: ${"literal" in v ? tsValue(v.literal, "    ") : `config.${v.secret ? "requireSecret" : "require"}(${tsString(v.config)})`},`);
    out.push("", `export const ${r.name} = new Native(${tsString(r.type)}, ${tsString(r.name)}, {`, ...props, "});");
  }
  return `${out.join("\n")}\n`;
}

// --- the projects ----------------------------------------------------------------------------------------------

/** Options of {@link programProjects}. */
export interface ProgramProjectOptions {
  /** The Pulumi project name of every program (Pulumi.yaml `name`). */
  project: string;
  /** The version range of @pulumi/pulumi the TypeScript project depends on. */
  pulumiRange: string;
  /** This package's root folder, relative to each language's folder (for the Python and Go SDKs it ships); omitted: not written. */
  packageRoot?: ((folder: ProgramLanguage) => string) | undefined;
}

/** What {@link programProjects} wrote, and the programs it could not write, each with why. */
export interface ProgramProjects {
  files: GeneratedFile[];
  /** One line per language left out (no server text in it): YAML when {@link yamlHazards} finds keys, Go for a lone surrogate. */
  notes: string[];
}

/**
 * Every file of the four projects, each in its language's folder (`python/`, `go/`, `yaml/`, `typescript/`),
 * each a Pulumi project named `project`: in it, `pulumi import --file ../import.json --generate-code=false` writes
 * the state, and the program declares what was imported. The YAML project is left out, with a note, when a map key
 * would be code there ({@link yamlHazards}); the Go project, when a text holds a lone surrogate ({@link goString}).
 */
export function programProjects(m: OrgModel, o: ProgramProjectOptions): ProgramProjects {
  const rs = programResources(m);
  for (const r of rs) if (!IMPORT_NAME.test(r.name)) throw new Error(`export: ${r.name} is not an import name`);
  const pulumiYaml = (runtime: string, extra: string[] = []) =>
    [`name: ${o.project}`, `runtime: ${runtime}`, "description: Exported from the Platform API by platform-pulumi export --format pulumi-import", ...extra, ""].join("\n");
  const root = (l: ProgramLanguage) => o.packageRoot?.(l);
  const files: GeneratedFile[] = [
    { path: "python/Pulumi.yaml", text: pulumiYaml("python", ["main: __main__.py"]).replace("runtime: python", "runtime:\n  name: python\n  options:\n    virtualenv: venv") },
    { path: "python/__main__.py", text: pythonProgram(rs) },
    { path: "python/requirements.txt", text: `pulumi>=3.231.0,<4.0.0\n${root("python") !== undefined ? `${root("python")}/sdk/python\n` : "platform_pulumi\n"}` },
    {
      path: "go/go.mod",
      text: [
        `module ${o.project.replace(/[^A-Za-z0-9_.-]/g, "-")}`,
        "",
        "go 1.23",
        "",
        "require (",
        "\tgithub.com/pulumi/pulumi/sdk/v3 v3.248.0",
        "\tplatform-pulumi/sdk/go/platform v0.0.0",
        ")",
        "",
        `replace platform-pulumi/sdk/go/platform => ${root("go") !== undefined ? `${root("go")}/sdk/go/platform` : "<the folder of platform-pulumi>/sdk/go/platform"}`,
        "",
      ].join("\n"),
    },
    { path: "typescript/Pulumi.yaml", text: pulumiYaml("nodejs") },
    { path: "typescript/index.ts", text: typescriptProgram(rs) },
    { path: "typescript/package.json", text: `${JSON.stringify({ name: o.project, main: "index.ts", devDependencies: { "@types/node": "^18", typescript: "^5.0.0" }, dependencies: { "@pulumi/pulumi": o.pulumiRange } }, null, 4)}\n` },
    { path: "typescript/tsconfig.json", text: `${JSON.stringify(TEMPLATE_TSCONFIG, null, 4)}\n` },
  ];
  const notes: string[] = [];
  const loneSurrogates = rs.filter((r) => r.inputs.some(([, v]) => "literal" in v && strings(v.literal).some((t) => LONE_SURROGATE.test(t))));
  if (loneSurrogates.length === 0) files.push({ path: "go/Pulumi.yaml", text: pulumiYaml("go") }, { path: "go/main.go", text: goProgram(rs) });
  else {
    files.splice(files.findIndex((f) => f.path === "go/go.mod"), 1);
    notes.push(`note: no Go program: ${loneSurrogates.length} object${loneSurrogates.length === 1 ? "" : "s"} hold text with a lone surrogate, which no Go string holds (${loneSurrogates.slice(0, 5).map((r) => r.id).join(", ")}${loneSurrogates.length > 5 ? ", ..." : ""}); use another language's program`);
  }
  const yamlRisks = yamlHazards(rs);
  if (yamlRisks.length === 0) files.push({ path: "yaml/Pulumi.yaml", text: yamlProgram(rs, o.project) });
  else {
    const shown = yamlRisks.slice(0, 5).map((h) => `${h.id} (${h.field})`).join(", ");
    notes.push(
      `note: no YAML program: ${yamlRisks.length} field${yamlRisks.length === 1 ? "" : "s"} hold a map key starting with "fn::" (${shown}${yamlRisks.length > 5 ? ", ..." : ""}), ` +
        "which Pulumi YAML reads as a function call or a file to send, with no way to escape it; use the Python, Go or TypeScript program (docs/export.md)",
    );
  }
  return { files, notes };
}

/** The secret config keys the programs read (one per write-only input), in the resources' order. */
export function programConfigKeys(m: OrgModel): Array<{ key: string; secret: boolean; name: string; id: string }> {
  return programResources(m).flatMap((r) => r.inputs.flatMap(([, v]) => ("config" in v ? [{ key: v.config, secret: v.secret, name: r.name, id: r.id }] : [])));
}

/**
 * The commands to adopt the org in each language, for `out` (the export's folder), as printed after the export
 * and in docs/export.md: in the language's folder, make a stack, import the state with no code generation, set
 * the write-only config, and `up` (which sends only those). `languages`: those whose program was written (default all).
 */
export function importCommands(out: string, keys: ReadonlyArray<{ key: string; secret: boolean }>, languages: readonly ProgramLanguage[] = PROGRAM_LANGUAGES): string {
  const q = (s: string) => (/^[A-Za-z0-9_./:-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
  const setConfig = keys.length ? ` && ${keys.map((k) => `pulumi config set${k.secret ? " --secret" : ""} ${k.key} ...`).join(" && ")}` : "";
  const steps = (language: ProgramLanguage, prep: string) =>
    `  ${`${language}:`.padEnd(12)} cd ${q(`${out}/${language}`)} && ${prep}pulumi stack init <stack> && pulumi import --file ../import.json --generate-code=false --yes${setConfig} && pulumi up`;
  return [
    "adopt the org in one language (each folder is a Pulumi project that loads the plugin as docs/native.md says):",
    ...(languages.includes("python") ? [steps("python", "pulumi install && ")] : []),
    ...(languages.includes("go") ? [steps("go", "go mod tidy && ")] : []),
    ...(languages.includes("yaml") ? [steps("yaml", "")] : []),
    ...(languages.includes("typescript") ? [steps("typescript", "pulumi install && ")] : []),
    "",
  ].join("\n");
}
