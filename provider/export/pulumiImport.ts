/**
 * Pulumi's bulk import file (`pulumi import --file <file>`, Pulumi's docs "Importing resources", "Bulk import"): the
 * objects the export declares, each by the native plugin's type token (`platform:<module>:<Kind>`, the package
 * schema), a name made for code generation and its uid as the id. Pulumi imports them through the native plugin
 * (docs/native.md); the program that declares them is the export's own, in each language (`programs.ts`: the import
 * runs with `--generate-code=false`), though a host's code generation may write one too. What the export leaves out
 * (`Skipped`: invites, user identities, a synced repo's tags) is left out here too.
 *
 * Pulumi's generators write an entry's `name` as a variable and its resource name (`logicalName`, else `name`) into a
 * string literal or a YAML key, and not every generator escapes it (docs/export.md, "Pulumi's own import"). So no
 * server text reaches either as text: each entry's `name` is {@link importName}, an identifier made of the kind,
 * the letters and digits of the object's path-based name and a hash of its uid, and `logicalName` is never written (the resource
 * name is that same identifier). The object's text (names, descriptions, sinks) stays where it is, on the server,
 * as data the import reads.
 */
import { createHash } from "node:crypto";
import { kindEntry } from "../kinds/registry";
import { UNSAFE } from "../text";
import { camel, modelNodes, type ModelNode, type OrgModel } from "./model";

/** One entry of the bulk import file: the fields `pulumi import --file` reads that the export sets. */
export interface ImportEntry {
  /** The native type token, e.g. `platform:iam:Group`. */
  type: string;
  /**
   * The name Pulumi's code generation gives the resource's variable, and the resource's name: {@link importName},
   * matching {@link IMPORT_NAME}, unique in the file, the same in every export of the same org.
   */
  name: string;
  /** The object's uid. */
  id: string;
}

/** The bulk import file: `{ "resources": [...] }`, kind by kind in the model's order. */
export interface ImportFile {
  resources: ImportEntry[];
}

/**
 * What every entry's `name` matches: an ASCII identifier that starts with a lowercase letter, at most 64
 * characters; an identifier in every language Pulumi generates (TypeScript, Python, Go, C#, Java, YAML), never
 * `pulumi` (Pulumi YAML's reserved name) nor a keyword (it always holds an `_`, and starts with the kind).
 */
export const IMPORT_NAME = /^[a-z][A-Za-z0-9]{0,54}_[0-9a-f]{8,10}$/;

/** The lowerCamel kind: `RoleBinding` → `roleBinding`. */
function lowerKind(kind: string): string {
  return `${kind[0]!.toLowerCase()}${kind.slice(1)}`;
}

/**
 * The import name of a node: `<kind><Name>_<hash>`, where `<kind>` is the kind in lowerCamel (`roleBinding`),
 * `<Name>` the node's resource name (the model's path-based name, `model.ts`) reduced to its words of `[a-z0-9]` in
 * camelCase and cut to fit 64 characters, and `<hash>` the first `hashLength` (8 by default) hex of the SHA-256 of the uid. It depends on
 * nothing but the object (the same org gives the same names), and matches {@link IMPORT_NAME}.
 * @example importName({ kind: "Group", resourceName: "engineering/ci-cd", uid: "…" }) // "groupEngineeringCiCd_3f2a9b1c"
 */
export function importName(n: Pick<ModelNode, "kind" | "resourceName" | "uid">, hashLength = 8): string {
  const hash = createHash("sha256").update(n.uid).digest("hex").slice(0, hashLength);
  const words = camel([n.resourceName]);
  const stem = `${lowerKind(n.kind)}${words[0]?.toUpperCase() ?? ""}${words.slice(1)}`;
  return `${stem.slice(0, 64 - 1 - hashLength)}_${hash}`;
}

/**
 * The bulk import file of a model. Names are {@link importName}; in the (astronomically unlikely) case that two
 * uids share 8 hex of their hash, the later entry (in the model's order, which is deterministic) takes 10.
 * @throws Error when a node's kind is not in the kind registry (a model built by this package always is), or when
 *   two entries would still share a name.
 */
export function importFile(m: OrgModel): ImportFile {
  const used = new Set<string>();
  return {
    resources: modelNodes(m).map((n) => {
      const k = kindEntry(n.kind);
      if (k === undefined) throw new Error(`export: kind ${n.kind} is not in the kind registry`);
      let name = importName(n);
      if (used.has(name)) name = importName(n, 10);
      if (used.has(name)) throw new Error(`export: two objects would share the import name ${name}; one is ${n.kind} ${n.uid}`);
      used.add(name);
      return { type: `platform:${k.module}:${n.kind}`, name, id: n.uid };
    }),
  };
}

/** {@link UNSAFE} (`text.ts`: control characters, line terminators, bidirectional controls) without its `g` flag. */
const UNSAFE_ONE = new RegExp(UNSAFE.source);

/**
 * Whether Pulumi's code generators may not all write `s` back as the same text (docs/export.md, "Pulumi's own
 * import"): it holds a double quote, a backslash, a `$` (Pulumi YAML's interpolation), a backquote, `'''`, or an
 * {@link UNSAFE} character (a line break, U+2028, a bidirectional control).
 */
function generatorHazard(s: string): boolean {
  return /["\\$`]|'''/.test(s) || UNSAFE_ONE.test(s);
}

/** Every string inside a value (object keys included), depth first. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === "object") return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

/**
 * The objects of a model whose declared fields (the inputs `pulumi import` reads back through the native plugin)
 * (and the text read beside them, a repo's README) hold text for which {@link generatorHazard} holds: the host's
 * generated code for them must be read before it runs, or
 * not generated (`--generate-code=false`). Each by kind, uid and field name, in the model's order.
 */
export function generatorHazards(m: OrgModel): Array<{ kind: string; uid: string; field: string }> {
  const out: Array<{ kind: string; uid: string; field: string }> = [];
  for (const n of modelNodes(m)) {
    const k = kindEntry(n.kind);
    if (k === undefined) continue;
    const inputs = k.inputsOf(k.outputsOf(n.api as unknown as { uid: string })) as Record<string, unknown>;
    for (const [field, v] of Object.entries({ ...inputs, ...n.local })) if (strings(v).some((s) => generatorHazard(s))) out.push({ kind: n.kind, uid: n.uid, field });
  }
  return out;
}
