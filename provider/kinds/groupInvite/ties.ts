/**
 * Compile-time ties of the GroupInvite kind (`../ties.ts`): `GroupInviteArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiGroupInvite`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiGroupInvite as ApiInvite } from "../../client/types";
import type { GroupInviteShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { GroupInvite, GroupInviteArgs, GroupInviteInputs, GroupInviteOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type GroupInviteTies = ExpectNone<
  | KindDrift<GroupInviteArgs, GroupInviteInputs, GroupInvite, GroupInviteOutputs, never, never>
  | SchemaDrift<typeof GroupInviteShape, ApiInvite>
  | WireDrift<GroupInviteInputs, ApiInvite, "parentUid" | "ttl">
>;
