/**
 * Compile-time ties of the Group kind (`../ties.ts`): `GroupArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiGroup`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiGroup } from "../../client/types";
import type { GroupShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Group, GroupArgs, GroupInputs, GroupOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type GroupTies = ExpectNone<
  | KindDrift<GroupArgs, GroupInputs, Group, GroupOutputs, "deleteTimeoutSeconds", "adoptUid" | "deleteTimeoutSeconds">
  | SchemaDrift<typeof GroupShape, ApiGroup>
  | WireDrift<GroupInputs, ApiGroup, "parentUid" | "adoptUid" | "deleteTimeoutSeconds">
>;
