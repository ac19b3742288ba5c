/**
 * Compile-time ties of the OverlayBinding kind (`../ties.ts`): `OverlayBindingArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiOverlayBinding`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiOverlayBinding } from "../../client/types";
import type { OverlayBindingShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { OverlayBinding, OverlayBindingArgs, OverlayBindingInputs, OverlayBindingOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type OverlayBindingTies = ExpectNone<
  | KindDrift<OverlayBindingArgs, OverlayBindingInputs, OverlayBinding, OverlayBindingOutputs, never, "adoptUid">
  | SchemaDrift<typeof OverlayBindingShape, ApiOverlayBinding>
  | WireDrift<OverlayBindingInputs, ApiOverlayBinding, "repoUid" | "adoptUid">
>;
