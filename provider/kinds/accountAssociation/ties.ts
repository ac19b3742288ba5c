/**
 * Compile-time ties of the AccountAssociation kind (`../ties.ts`): `AccountAssociationArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiAccountAssociation`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiAccountAssociation as ApiAssoc } from "../../client/types";
import type { AccountAssociationShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { AccountAssociation, AccountAssociationArgs, AccountAssociationInputs, AccountAssociationOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type AccountAssociationTies = ExpectNone<
  | KindDrift<AccountAssociationArgs, AccountAssociationInputs, AccountAssociation, AccountAssociationOutputs, never, "adopt">
  | SchemaDrift<typeof AccountAssociationShape, ApiAssoc>
  | WireDrift<AccountAssociationInputs, ApiAssoc, "groupUid" | "adopt">
>;
