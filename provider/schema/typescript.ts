/**
 * The TypeScript types of each kind, generated from its declaration (`provider/kinds/<kind>/types.ts`):
 * `XArgs` (the public arguments, every field a `pulumi.Input`, with the field's documentation), `XInputs` (computed from `XArgs` by `Checked`, engine/shim.ts, after
 * `check`: a field with a default is always there), `XOutputs` (the inputs, `uid` and the server-set outputs) and
 * `XOutputProperties` (the class's typed `Output`s, merged into the class by an interface of the same name), and
 * the named object types the fields use (`ClaimMatchArgs` for arguments, `ClaimMatch` as stored); for a kind
 * declared with `wire:`, `XWire` too (the object as the API returns it, the TypeScript form of the wire schema
 * derived from the declaration, `engine/wire.ts`).
 *
 * Written by `npm run gen` with the schema; `test/schema.unit.test.ts` fails when a committed file is not current.
 */
import type { z } from "zod";
import { zodOf } from "../engine/fieldTypes";
import { jsonSchemaOf, optional, type JsonSchema } from "./zodJson";
import type { Field, FieldType, ServerField } from "../engine/declare";
import type { KindEntry } from "../kinds/registry";


/** `text` in lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A doc comment, indented. */
function doc(text: string | undefined, indent: string): string {
  if (!text) return "";
  const body = text.replace(/\*\//g, "*\\/");
  const one = `${indent}/** ${body} */`;
  return one.length <= 116 && !body.includes("\n")
    ? `${one}\n`
    : `${indent}/**\n${wrap(body, 112 - indent.length).map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

/** "a" or "an" before `word`. */
function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** Emits one kind's types module. */
class Emitter {
  private readonly named = new Map<string, { js: JsonSchema; args: boolean; plain: boolean }>();
  private defs: Record<string, JsonSchema> = {};

  private nameOf(ref: string): string {
    const id = ref.replace("#/$defs/", "");
    return id.slice(id.indexOf(":") + 1);
  }

  /** The TypeScript type of `js`; `args`: the argument form (every level a `pulumi.Input`). */
  type(js: JsonSchema, args: boolean): string {
    if (js.$ref) {
      const id = js.$ref.replace("#/$defs/", "");
      const def = this.defs[id]!;
      const entry = this.named.get(id) ?? { js: def, args: false, plain: false };
      this.named.set(id, entry);
      if (def.enum) return "string";
      if (args) {
        if (!entry.args) {
          entry.args = true;
          this.walk(def, true);
        }
        return `${this.nameOf(js.$ref)}Args`;
      }
      if (!entry.plain) {
        entry.plain = true;
        this.walk(def, false);
      }
      return this.nameOf(js.$ref);
    }
    const input = (t: string) => (args ? `pulumi.Input<${t}>` : t);
    switch (js.type) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "array":
        return `${input(this.type(js.items ?? {}, args))}[]`;
      case "object":
        return `Record<string, ${typeof js.additionalProperties === "object" ? input(this.type(js.additionalProperties, args)) : "unknown"}>`;
      default:
        return "unknown";
    }
  }

  private walk(def: JsonSchema, args: boolean): void {
    for (const p of Object.values(def.properties ?? {})) this.type(p, args);
  }

  /** The description of a named type, by its `$ref`. */
  described(ref: string): string | undefined {
    return this.defs[ref.replace("#/$defs/", "")]?.description;
  }

  /** The JSON schema of a zod type (`io`: its input or output side), its `$defs` remembered. */
  schema(t: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
    const js = jsonSchemaOf(t, io);
    this.defs = { ...this.defs, ...(js.$defs ?? {}) };
    return js;
  }

  /** The named types reached, as interfaces (argument forms, then stored forms). */
  namedInterfaces(): string {
    let out = "";
    const done = new Set<string>();
    // Emitting one may reach more: loop until stable.
    for (let again = true; again; ) {
      again = false;
      for (const [id, e] of [...this.named]) {
        if (e.js.enum) continue;
        const name = id.slice(id.indexOf(":") + 1);
        for (const form of ["args", "plain"] as const) {
          const key = `${id}/${form}`;
          if (!(form === "args" ? e.args : e.plain) || done.has(key)) continue;
          done.add(key);
          again = true;
          const req = new Set(e.js.required ?? []);
          const fields = Object.entries(e.js.properties ?? {}).map(([k, p]) => {
            const t = this.type(p, form === "args");
            const ref = p.$ref ? this.defs[p.$ref.replace("#/$defs/", "")] : undefined;
            const full = form === "args" ? `pulumi.Input<${t}>` : t;
            return `${doc(p.description ?? ref?.description, "  ")}  ${k}${req.has(k) ? "" : "?"}: ${full}${req.has(k) ? "" : " | undefined"};`;
          });
          // A type with an argument form has its plain form computed from it: each field is written once.
          if (form === "plain" && e.args) out += `${doc(e.js.description, "")}export type ${name} = Plain<${name}Args>;\n\n`;
          else out += `${doc(e.js.description, "")}export interface ${name}${form === "args" ? "Args" : ""} {\n${fields.join("\n")}\n}\n\n`;
        }
      }
    }
    return out;
  }
}

/**
 * The generated types module of kind `k`: `<Kind>Args`, `<Kind>Inputs`, `<Kind>Outputs`, `<Kind>OutputProperties`
 * and the named object types its fields use.
 * @throws Error naming the field when a field declares no type.
 */
export function kindTypesModule(k: KindEntry): string {
  const e = new Emitter();
  const K = k.kind;
  const args: string[] = [];
  const defaulted: string[] = [];
  const engineOnly: string[] = [];
  const outputKeys: string[] = ["uid"];
  for (const [name, f] of Object.entries(k.fields) as Array<[string, Field]>) {
    if (name === "createToken") continue;
    if (!f.type) throw new Error(`${K}.${name}: the field declares no type (declare.ts, Field.type)`);
    const js = e.schema(zodOf(f.type));
    const opt = optional(zodOf(f.type));
    const desc = js.description ?? (js.$ref ? e.described(js.$ref) : undefined);
    if (!f.internal) args.push(`${doc(desc, "  ")}  ${name}${opt ? "?" : ""}: pulumi.Input<${e.type(js, true)}>;`);
    const plain = e.type(js, false);
    const always = !opt || f.default !== undefined;
    if (f.internal) engineOnly.push(`${doc(desc, "  ")}  ${name}${always ? "" : "?"}: ${plain}${always ? "" : " | undefined"};`);
    else if (opt && always) defaulted.push(`"${name}"`);
    if (!f.internal && f.kind !== "createOnly") outputKeys.push(name);
  }
  const outputs: string[] = [`  /** The ${k.what}'s uid (a UIDP); also the resource's id. */\n  uid: string;`];
  for (const [name, s] of Object.entries(k.server) as Array<[string, ServerField]>) {
    const js = e.schema(zodOf(s.type));
    const t = e.type(js, false);
    const sdesc = js.description ?? (js.$ref ? e.described(js.$ref) : undefined);
    outputs.push(`${doc(sdesc, "  ")}  ${name}${s.optional ? "?" : ""}: ${t}${s.optional ? " | undefined" : ""};`);
    outputKeys.push(name);
  }
  // The wire type: the output side of the derived wire schema (a field with a default is always there), by its own
  // emitter, so that the output side's named types never replace the input side's of the same id.
  const wire: string[] = [];
  if (k.wireSchema) {
    const w = new Emitter();
    const js = w.schema(k.wireSchema as unknown as z.ZodType, "output");
    const req = new Set(js.required ?? []);
    for (const [name, p] of Object.entries(js.properties ?? {})) {
      if (p.$ref || Object.keys(js.$defs ?? {}).length) {
        throw new Error(`${K}.${name}: the wire type of a kind declared with \`wire:\` has no named object types yet (typescript.ts); declare its collection by hand`);
      }
      const pdesc = name === "uid" ? `The ${k.what}'s uid (a UIDP).` : p.description;
      wire.push(`${doc(pdesc, "  ")}  ${name}${req.has(name) ? "" : "?"}: ${w.type(p, false)}${req.has(name) ? "" : " | undefined"};`);
    }
  }
  // The lookups' argument types, from the declaration's `lookups:` (each filter an optional string or list).
  const lookupArgs: string[] = [];
  if (k.lookups) {
    const l = k.lookups;
    const filters = (fs: Readonly<Record<string, FieldType>>) =>
      Object.entries(fs).map(([n, t]) => {
        const js = e.schema(zodOf(t));
        return `${doc(js.description, "  ")}  ${n}?: ${e.type(js, false)};`;
      });
    const one = Object.keys(l.oneFilters).map((n) => `\`${n}\``).join(", ");
    lookupArgs.push(
      `/** Arguments of \`get${l.plural}\`: its filters, the \`uidp\` filters and paging (\`provider/lookups/core.ts\`). */`,
      `export interface Get${l.plural}Args extends PagingArgs, UidpFilterArgs {`,
      ...filters(l.listFilters),
      `}`,
      ``,
      `/** Arguments of \`get${K}\`: \`uid\`, or filters (${one}); exactly one of the two. */`,
      `export interface Get${K}Args {`,
      `  /** The ${k.what}'s uid (one GET). */`,
      `  uid?: string;`,
      ...filters(l.oneFilters),
      `}`,
      ``,
    );
  }
  const named = e.namedInterfaces();
  return [
    `/**`,
    ` * The types of ${article(k.what)} ${k.what} (\`${K}\`), generated by \`npm run gen\` from its declaration in \`./index.ts\`.`,
    ` * Do not edit: change the declaration and run \`npm run gen\`.`,
    ` */`,
    `import type * as pulumi from "@pulumi/pulumi";`,
    `import type { Checked, OutputProperties${named.includes("= Plain<") ? ", Plain" : ""} } from "../../engine/shim";`,
    ...(k.lookups ? [`import type { PagingArgs, UidpFilterArgs } from "../../lookups/core";`] : []),
    ``,
    named.trimEnd(),
    ``,
    `/** Arguments of ${article(K)} {@link ${K}}. */`,
    `export interface ${K}Args {`,
    ...args,
    `}`,
    ``,
    `/** ${article(k.what) === "an" ? "An" : "A"} ${k.what}'s inputs after \`check\`: a field with a default is always present. */`,
    ...wrap(
      `export type ${K}Inputs = Checked<${K}Args, ${defaulted.length ? defaulted.join(" | ") : "never"}${engineOnly.length ? ", {" : ">;"}`,
      116,
    ).map((l, i) => (i === 0 ? l : `  ${l}`)),
    ...(engineOnly.length ? [...engineOnly, `}>;`] : []),
    ``,
    `/** ${article(k.what) === "an" ? "An" : "A"} ${k.what}'s outputs: the inputs, its uid and every field the server returns. */`,
    `export interface ${K}Outputs extends ${K}Inputs {`,
    ...outputs,
    `  [serverField: string]: unknown;`,
    `}`,
    ``,
    `/** The typed outputs of ${article(K)} ${K} resource (merged into the class by an interface of the same name). */`,
    ...wrap(`export type ${K}OutputProperties = OutputProperties<${K}Outputs, ${outputKeys.map((n) => `"${n}"`).join(" | ")}>;`, 116).map((l, i) => (i === 0 ? l : `  ${l}`)),
    ``,
    ...lookupArgs,
    ...(k.wireSchema
      ? [
          `/**`,
          ` * ${article(k.what) === "an" ? "An" : "A"} ${k.what} as the API returns it (\`/${k.wire?.api}/<version>/${k.wire?.collection}\`), from the wire schema derived`,
          ` * from the declaration (\`engine/wire.ts\`); the server may send more fields, kept as they are.`,
          ` */`,
          `export interface ${K}Wire {`,
          ...wire,
          `}`,
          ``,
        ]
      : []),
  ]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n");
}

/** A doc comment of paragraphs (a tag's continuation lines indented two more spaces), at the top level. */
function block(paragraphs: readonly string[]): string {
  const lines = paragraphs.flatMap((p) => wrap(p.replace(/\*\//g, "*\\/"), 112).map((l, i) => (i > 0 && p.startsWith("@") ? `  ${l}` : l)));
  return `/**\n${lines.map((l) => ` * ${l}`).join("\n")}\n */`;
}

/**
 * The generated lookups module of kind `k` when it is found by name (`lookups: lookupsByName(…)`, declare.ts
 * `LookupDeclaration.byName`): `get<Plural>`, `get<Kind>` and their `...Output` twins, bound to `namedLookups`
 * (`provider/lookups/core.ts`) with the kind's collection; undefined for any other kind, whose `lookups.ts` is
 * written by hand.
 */
export function kindLookupsModule(k: KindEntry): string | undefined {
  const l = k.lookups;
  if (!l?.byName) return undefined;
  const K = k.kind;
  const P = l.plural;
  const whats = P.toLowerCase();
  const api = k.wireSchema ? `${K}Wire` : `Api${K}`;
  const kindVar = `${K[0]!.toLowerCase()}${K.slice(1)}Kind`;
  return [
    `/**`,
    ` * ${article(k.what) === "an" ? "An" : "A"} ${k.what}'s lookups: \`get${P}\`, \`get${K}\` and their \`...Output\` twins, generated by \`npm run gen\``,
    ` * from the declaration's \`lookups:\` in \`./index.ts\` (the rules they share: \`provider/lookups/core.ts\`). Do not edit.`,
    ` */`,
    `import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";`,
    k.wireSchema ? `import type { ${api} } from "./types";` : `import type { ${api} } from "../../client/types";`,
    `import { ${kindVar} } from "./index";`,
    `import type { Get${P}Args, Get${K}Args } from "./types";`,
    `export type { Get${P}Args, Get${K}Args } from "./types";`,
    ``,
    `const lookups = namedLookups<${api}, Get${P}Args, Get${K}Args>(["get${P}", "get${K}"], ["${k.what}", "${whats}"], (c) => ${kindVar}.collection(c));`,
    ``,
    block([
      l.byName.list,
      `@returns ${whats} in \`orderBy\` order (default \`uid\`); empty when none match.`,
      "@throws TypeError for bad arguments; ApiError from the API (e.g. InvalidArgumentError for a bad `orderBy`); SettingsError when no client is given and none is configured.",
      `@example ${l.byName.listExample}`,
    ]),
    `export const get${P}: ListLookup<Get${P}Args, ${api}> = lookups.list;`,
    ``,
    `/** {@link get${P}} with \`Input\` arguments and an \`Output\` result. */`,
    `export const get${P}Output: ListLookupOutput<Get${P}Args, ${api}> = lookups.listOutput;`,
    ``,
    block([
      `Gets one ${k.what}: by \`uid\`, or by filters that must match exactly one ${k.what}.${l.byName.oneNote ? ` ${l.byName.oneNote}` : ""}`,
      `@throws TypeError when both or neither of \`uid\` and filters are given, or for bad arguments; LookupError when the filters match no ${k.what}, or several (listing their uids); NotFoundError when no ${k.what} has that \`uid\`; other ApiErrors from the API.`,
      `@example ${l.byName.oneExample}`,
    ]),
    `export const get${K}: OneLookup<Get${K}Args, ${api}> = lookups.one;`,
    ``,
    `/** {@link get${K}} with \`Input\` arguments and an \`Output\` result. */`,
    `export const get${K}Output: OneLookupOutput<Get${K}Args, ${api}> = lookups.oneOutput;`,
    ``,
  ].join("\n");
}
