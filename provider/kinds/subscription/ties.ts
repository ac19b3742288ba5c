/**
 * Compile-time ties of the Subscription kind (`../ties.ts`): `SubscriptionArgs` and the class's typed outputs against the declared
 * fields, the declared fields against the wire type (`ApiSubscription`), and the wire type against its zod schema. A drift
 * fails `tsc` here, naming the field. Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ApiSubscription } from "../../client/types";
import type { SubscriptionShape } from "../../client/schemas";
import type { SchemaDrift } from "../../client/ties";
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Subscription, SubscriptionArgs, SubscriptionInputs, SubscriptionOutputs } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type SubscriptionTies = ExpectNone<
  | KindDrift<SubscriptionArgs, SubscriptionInputs, Subscription, SubscriptionOutputs, never, "adoptUid">
  | SchemaDrift<typeof SubscriptionShape, ApiSubscription>
  | WireDrift<SubscriptionInputs, ApiSubscription, "parentUid" | "adoptUid">
>;
