/**
 * Compile-time ties of the IdentityProvider kind (`../ties.ts`): `IdentityProviderArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiIdentityProvider`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiIdentityProvider as ApiIdp } from "../../client/types";
import type { IdentityProviderShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { IdentityProvider, IdentityProviderArgs, IdentityProviderInputs, IdentityProviderOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type IdentityProviderTies = ExpectNone<
  | KindDrift<IdentityProviderArgs, IdentityProviderInputs, IdentityProvider, IdentityProviderOutputs, never, "adoptUid">
  | SchemaDrift<typeof IdentityProviderShape, ApiIdp>
  | WireDrift<IdentityProviderInputs, ApiIdp, "parentUid" | "adoptUid" | "clientSecret">
>;
