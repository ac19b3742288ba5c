/**
 * Compile-time ties between the client's wire types (`types.ts`, plain interfaces for the public `.d.ts`) and the
 * zod schemas that parse responses (`schemas.ts`): each schema is declared as `z.ZodType<Api.X>` (its output fits
 * the interface), and here its named keys must be exactly the interface's, so a field added to one and not the
 * other fails `tsc`, the error naming the field.
 *
 * Types only: the file compiles to nothing (no public type depends on zod).
 */
import type { z } from "zod";
import type { Drift, ExpectNone, KnownKeys } from "../typeTies";
import type * as S from "./schemas";
import type * as Api from "./types";

/** The keys by which a schema's parsed object and a wire type differ: `never` when in step. */
export type SchemaDrift<Schema extends z.ZodType, T> = Drift<KnownKeys<z.output<Schema>>, keyof T & string>;

/**
 * Every wire type with its schema that no kind owns; a kind's own wire type and schema are tied in its `XTies`
 * (`provider/kinds/<kind>/index.ts`).
 */
export type SchemaTies = [
  ExpectNone<SchemaDrift<typeof S.ClaimMatchShape, Api.ClaimMatch>>,
  ExpectNone<SchemaDrift<typeof S.CustomOverlayShape, Api.ApiCustomOverlay>>,
  ExpectNone<SchemaDrift<typeof S.SyncConfigShape, Api.ApiSyncConfig>>,
  ExpectNone<SchemaDrift<typeof S.RepoReadmeShape, Api.ApiRepoReadme>>,
  ExpectNone<SchemaDrift<typeof S.AdvisoryShape, Api.ApiAdvisory>>,
];
