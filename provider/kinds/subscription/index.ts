/**
 * Subscription: a webhook subscription to a group's events (`pulumi-nodejs:dynamic/platform:Subscription`,
 * `/events/v2beta1/subscriptions`).
 *
 * Life cycle: create POSTs `{sink}` under `parentUid`; the API has no PATCH for subscriptions, so a change of the
 * sink replaces (the new one is created before the old is deleted, so no event is missed); read reports the
 * server's sink as an input so drift shows; delete treats NOT_FOUND as done.
 *
 * Create proof (a subscription has only its sink): after an ambiguous failure, a subscription of the group to this
 * sink created inside the attempt's server-time window is this create's; several in the window, or one the server
 * does not date (the OpenAPI lists no time on subscriptions), are refused, naming them.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import { sinkProblem, uidpProblem } from "../../validation";
import { refuseDifferingAdoption } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, parent, replace, type DeclaredResource } from "../../engine/declare";
import { adoptUidArg, createTime, lookupFilter, uidArg } from "../../engine/fieldTypes";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { SubscriptionArgs, SubscriptionInputs, SubscriptionOutputs, SubscriptionOutputProperties, SubscriptionWire } from "./types";
export type { SubscriptionArgs, SubscriptionInputs, SubscriptionOutputs, SubscriptionOutputProperties, SubscriptionWire } from "./types";

/** The rule, defined with the others in `validation.ts` (the export checks server text with it too). */
export { sinkProblem } from "../../validation";

/** The group's subscriptions that match a create's every field: the same sink. */
const matching = async (client: PlatformClient, inputs: SubscriptionInputs): Promise<SubscriptionWire[]> =>
  (await subscriptionKind.collection(client).list({ childrenOf: inputs.parentUid, pageSize: 200 }).collect()).filter((s) => s.sink === inputs.sink);

/** The Subscription kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const subscriptionKind: DeclaredResource<SubscriptionInputs, SubscriptionOutputs, SubscriptionWire> = declareResource<SubscriptionInputs, SubscriptionOutputs, SubscriptionWire>({
  kind: "Subscription",
  module: "events",
  what: "subscription",
  description: "A webhook subscription to a group's events, delivered to an https sink.",
  // The collection, its wire schema and `SubscriptionWire` (types.ts) follow from the fields below (engine/wire.ts).
  wire: { api: "events", collection: "subscriptions" },
  ownership: { proof: "window", matching, same: "the same sink" },
  listing: { label: "sink" },
  blocksGroupDelete: true,
  lookups: {
    plural: "Subscriptions",
    listFilters: { sink: lookupFilter("Only subscriptions with this exact sink URL (filtered in this process: the List has no sink filter).") },
    oneFilters: {
      parentUid: lookupFilter("uid of the group (`uidp.children_of`)."),
      sink: lookupFilter("The exact sink URL (filtered in this process: the List has no sink filter)."),
    },
  },
  fields: {
    parentUid: parent({ type: uidArg("uid of the group whose events are delivered. Changing it replaces the subscription.") }),
    sink: replace({ check: sinkProblem, type: z.string().describe('The https URL events are delivered to (OpenAPI `Subscription.sink`: "Must use the https scheme"). Changing it replaces the subscription.') }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("subscription in `parentUid`") }),
  },
  server: { createTime },
  hooks: {
    checkAdopted: (existing, inputs) => refuseDifferingAdoption("subscription", existing, inputs, ["sink"]),
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Subscription extends SubscriptionOutputProperties {}

/**
 * A webhook subscription to a group's events.
 *
 * @example
 * ```ts
 * new Subscription("audit-hook", { parentUid: team.uid, sink: "https://hooks.example.com/platform" });
 * ```
 */
export class Subscription extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = subscriptionKind;

  /** @param name Pulumi resource name. @param args the subscription. @param opts resource options. */
  constructor(name: string, args: SubscriptionArgs, opts?: pulumi.CustomResourceOptions) {
    super(subscriptionKind, name, args, opts);
  }
}
