/**
 * Event subscription lookups: `getSubscriptions`, `getSubscription` and their `...Output` twins (see `core.ts`).
 * A group's subscriptions are its children; the List has no sink filter, so `getSubscription` filters the sink in
 * this process.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import { subscriptionKind } from "./index";
import type { SubscriptionWire as Subscription } from "./types";
import { checkArgs, emptySet, listParams, outputOf, PAGING, programClientFromConfig, single, take, UIDP, type InputArgs } from "../../lookups/core";
import type { GetSubscriptionsArgs, GetSubscriptionArgs } from "./types";
export type { GetSubscriptionsArgs, GetSubscriptionArgs } from "./types";

/**
 * Lists event subscriptions, walking pages lazily. A group's subscriptions are its children: `childrenOf: groupUid`.
 * @returns subscriptions in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const hooks = await getSubscriptions({ childrenOf: teamUid });
 */
export async function getSubscriptions(args: GetSubscriptionsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Subscription[]> {
  const a = checkArgs("getSubscriptions", args, { sink: "string", ...UIDP, ...PAGING });
  if (emptySet(a.ids)) return [];
  const keep = a.sink === undefined ? undefined : (s: Subscription) => s.sink === a.sink;
  return take(subscriptionKind.collection(client).list(listParams(a, keep === undefined, "getSubscriptions")).pages(a.limit === undefined), a.limit, keep);
}

/** {@link getSubscriptions} with `Input` arguments and an `Output` result. */
export function getSubscriptionsOutput(args: pulumi.Input<InputArgs<GetSubscriptionsArgs>> = {}, client?: PlatformClient): pulumi.Output<Subscription[]> {
  return outputOf<GetSubscriptionsArgs, Subscription[]>(args, (a) => getSubscriptions(a, client));
}

/**
 * Gets one event subscription: by `uid`, or by filters that must match exactly one subscription.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when none has that `uid`; other ApiErrors.
 * @example const hook = await getSubscription({ parentUid: teamUid, sink: "https://hooks.example.com/x" });
 */
export async function getSubscription(args: GetSubscriptionArgs, client: PlatformClient = programClientFromConfig()): Promise<Subscription> {
  const a = checkArgs("getSubscription", args, { uid: "string", parentUid: "string", sink: "string" });
  return single("getSubscription", ["subscription", "subscriptions"], a, ["parentUid", "sink"], (uid) => subscriptionKind.collection(client).get(uid), () => ({
    pages: subscriptionKind.collection(client).list(listParams(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {})).pages(),
    ...(a.sink !== undefined ? { keep: (s: Subscription) => s.sink === a.sink } : {}),
  }));
}

/** {@link getSubscription} with `Input` arguments and an `Output` result. */
export function getSubscriptionOutput(args: pulumi.Input<InputArgs<GetSubscriptionArgs>>, client?: PlatformClient): pulumi.Output<Subscription> {
  return outputOf<GetSubscriptionArgs, Subscription>(args, (a) => getSubscription(a, client));
}
