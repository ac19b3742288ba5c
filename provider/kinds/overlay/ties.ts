/**
 * Compile-time ties of the Overlay kind (`../ties.ts`): `OverlayArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiOverlay`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiOverlay } from "../../client/types";
import type { OverlayShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Overlay, OverlayArgs, OverlayInputs, OverlayOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type OverlayTies = ExpectNone<
  | KindDrift<OverlayArgs, OverlayInputs, Overlay, OverlayOutputs, never, "adoptUid">
  | SchemaDrift<typeof OverlayShape, ApiOverlay>
  | WireDrift<OverlayInputs, ApiOverlay, "parentUid" | "adoptUid">
>;
