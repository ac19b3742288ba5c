/**
 * Every file generated from the kinds' declarations, as `npm run gen` writes them: `schema.json` (the Pulumi
 * package schema, {@link packageSchema}), the reference pages under `docs/resources/` ({@link referencePages}),
 * each kind's `types.ts` and, for a kind found by name, its `lookups.ts` (`typescript.ts`).
 * `test/schema.unit.test.ts` compares the committed files with these, so a declaration edited without `npm run gen`
 * fails the tests.
 */
import { referencePages } from "./docs";
import { packageSchema } from "./package";
import { kindLookupsModule, kindTypesModule } from "./typescript";
import { KINDS } from "../kinds/registry";

/**
 * Path relative to the repository root → content, for package version `version`.
 * @throws Error naming the field when a declared type cannot be written in the schema.
 */
export function generatedFiles(version: string): Record<string, string> {
  const spec = packageSchema(version);
  const folder = (k: (typeof KINDS)[number]) => `provider/kinds/${k.kind[0]!.toLowerCase()}${k.kind.slice(1)}`;
  const types = Object.fromEntries(KINDS.map((k) => [`${folder(k)}/types.ts`, kindTypesModule(k)]));
  const lookups = Object.fromEntries(KINDS.flatMap((k) => (k.lookups?.byName ? [[`${folder(k)}/lookups.ts`, kindLookupsModule(k)!]] : [])));
  const creates = Object.fromEntries(KINDS.map((k) => [k.kind, { what: k.what, proof: k.ownership.proof, same: k.ownership.same, lost: k.ownership.lost }]));
  return { "schema.json": `${JSON.stringify(spec, null, 2)}\n`, ...referencePages(spec, creates), ...types, ...lookups };
}
