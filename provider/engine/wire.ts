/**
 * A kind's wire schema from its declaration (`declare.ts`, `WireDeclaration`): the zod schema that parses the
 * API's object of the kind, so that a kind declared with `wire:` has no hand-written wire type or schema in
 * `provider/client/` (`docs/architecture.md`, "Add a kind").
 *
 * The object is loose (contract: responses may carry fields the seed does not list; they pass, kept as they are):
 * - `uid`: a string, always there;
 * - every field the server keeps (`replace` and `mutable`, not `writeOnly`), under its `wireKey` (default its
 *   name), with its declared type; a field with a `default` takes it when the server leaves the field out;
 * - every `server` field, optional (the server may leave a time out: the OpenAPI lists none on some kinds).
 * Not on the wire: `parent` fields (the uid carries the parent), `createOnly` and `stateOnly` fields (never sent),
 * and `writeOnly` fields (the API never returns them, e.g. a client secret).
 *
 * `npm run gen` writes the TypeScript type of the same schema as the kind's `XWire` (`provider/schema/typescript.ts`).
 */
import { z } from "zod";

/**
 * What the derivation reads of a declared field (`declare.ts`, `Field`; written out here so that this module does
 * not import `declare.ts`, which imports it).
 */
export interface WireField {
  /** The field's kind: `parent`, `replace`, `mutable`, `createOnly` or `stateOnly`. */
  readonly kind: string;
  /** Its zod type (the declaration's `FieldType`). */
  readonly type?: unknown;
  /** The value when the server leaves it out. */
  readonly default?: unknown;
  /** Its key on the wire; default its name. */
  readonly wireKey?: string | undefined;
  /** The API never returns it. */
  readonly writeOnly?: boolean | undefined;
}

/**
 * The field kinds a create or PATCH sends and the server keeps (the others live in the path, or locally); of
 * those, the server returns all but the `writeOnly` ones ({@link onTheWire}).
 */
export const SERVER_SIDE: ReadonlySet<string> = new Set(["replace", "mutable"]);

/** Whether the server returns field `f` (see the module comment). */
export function onTheWire(f: WireField): boolean {
  return SERVER_SIDE.has(f.kind) && !f.writeOnly;
}

/**
 * The zod wire schema of a declaration's `fields` and `server` fields (module comment): a loose object.
 * @throws Error naming the field when a field the server returns declares no `type`.
 */
export function wireSchemaOf(kind: string, fields: Readonly<Record<string, WireField>>, server: Readonly<Record<string, { readonly type: unknown }>> = {}): z.ZodType {
  const shape: Record<string, z.ZodType> = { uid: z.string() };
  for (const [name, f] of Object.entries(fields)) {
    if (!onTheWire(f)) continue;
    if (!f.type) throw new Error(`${kind}.${name}: a field on the wire declares no type (declare.ts, Field.type)`);
    let t = f.type as unknown as z.ZodType;
    if (f.default !== undefined) t = (t instanceof z.ZodOptional ? (t.unwrap() as z.ZodType) : t).default(f.default as never);
    shape[f.wireKey ?? name] = t;
  }
  for (const [name, s] of Object.entries(server)) shape[name] = (s.type as unknown as z.ZodType).optional();
  return z.looseObject(shape);
}
