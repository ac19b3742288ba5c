/**
 * Compile-time ties of the Subscription kind (`../ties.ts`): `SubscriptionArgs` and the class's typed outputs against the declared
 * fields, and the declared fields against the wire type (`SubscriptionWire`). The wire type and its schema need no tie:
 * both come from the declaration (`engine/wire.ts`; `npm run gen` writes the type from the schema, and
 * `test/schema.unit.test.ts` fails while the written one is not current). A drift fails `tsc` here, naming the field.
 * Types only: nothing imports this file, so no public type depends on zod.
 */
import type { ExpectNone, KindDrift, WireDrift } from "../ties";
import type { Subscription, SubscriptionArgs, SubscriptionInputs, SubscriptionOutputs, SubscriptionWire } from "./index";

/** Every key by which the kind's types drift: `never` when in step. */
export type SubscriptionTies = ExpectNone<
  | KindDrift<SubscriptionArgs, SubscriptionInputs, Subscription, SubscriptionOutputs, never, "adoptUid">
  | WireDrift<SubscriptionInputs, SubscriptionWire, "parentUid" | "adoptUid">
>;
