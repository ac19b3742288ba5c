/**
 * Compile-time ties of the Identity kind (`../ties.ts`): `IdentityArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiIdentity`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiIdentity } from "../../client/types";
import type { IdentityShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Identity, IdentityArgs, IdentityInputs, IdentityOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type IdentityTies = ExpectNone<
  | KindDrift<IdentityArgs, IdentityInputs, Identity, IdentityOutputs, never, "adoptUid">
  | SchemaDrift<typeof IdentityShape, ApiIdentity>
  | WireDrift<IdentityInputs, ApiIdentity, "parentUid" | "adoptUid">
>;
