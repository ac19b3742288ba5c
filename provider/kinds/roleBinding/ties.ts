/**
 * Compile-time ties of the RoleBinding kind (`../ties.ts`): `RoleBindingArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiRoleBinding`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiRoleBinding } from "../../client/types";
import type { RoleBindingShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { RoleBinding, RoleBindingArgs, RoleBindingInputs, RoleBindingOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type RoleBindingTies = ExpectNone<
  | KindDrift<RoleBindingArgs, RoleBindingInputs, RoleBinding, RoleBindingOutputs, never, "adoptUid">
  | SchemaDrift<typeof RoleBindingShape, ApiRoleBinding>
  | WireDrift<RoleBindingInputs, ApiRoleBinding, "groupUid" | "adoptUid">
>;
