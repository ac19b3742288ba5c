/**
 * Compile-time ties of the Tag kind (`../ties.ts`): `TagArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiTag`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiTag } from "../../client/types";
import type { TagShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Tag, TagArgs, TagInputs, TagOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type TagTies = ExpectNone<
  | KindDrift<TagArgs, TagInputs, Tag, TagOutputs, never, "adoptUid">
  | SchemaDrift<typeof TagShape, ApiTag>
  | WireDrift<TagInputs, ApiTag, "repoUid" | "adoptUid">
>;
