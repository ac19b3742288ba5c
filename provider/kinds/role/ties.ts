/**
 * Compile-time ties of the Role kind (`../ties.ts`): `RoleArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiRole`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiRole } from "../../client/types";
import type { RoleShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Role, RoleArgs, RoleInputs, RoleOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type RoleTies = ExpectNone<
  | KindDrift<RoleArgs, RoleInputs, Role, RoleOutputs, never, "adoptUid">
  | SchemaDrift<typeof RoleShape, ApiRole>
  | WireDrift<RoleInputs, ApiRole, "parentUid" | "adoptUid">
>;
