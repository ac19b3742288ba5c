/**
 * `/events/{version}/subscriptions`: webhook subscriptions under a group: create, get, list, delete; no PATCH
 * (the vendor's OpenAPI, `events.v2beta1.Subscription` and SubscriptionsService, has none).
 *
 * `sink` is required and must be an https URL (Subscription.sink: "The routable HTTPS URL to which events are
 * delivered. Must use the https scheme."). Plain http is refused on loopback too: the emulator delivers no
 * events, so a local test sink would never be called and has no reason to be allowed.
 */
import type { CollectionSpec } from "../collection";
import { newChildUid, parentOf } from "../uidp";
import { timestamp } from "./common";

/** Why `sink` is not an https URL with a host, or undefined when it is. */
export function sinkError(sink: unknown): string | undefined {
  if (sink === undefined || sink === "") return "is required (an https URL)";
  if (typeof sink !== "string") return "must be a string (an https URL)";
  let url: URL;
  try {
    url = new URL(sink);
  } catch {
    return `"${sink}" is not a URL`;
  }
  if (url.protocol !== "https:") return `must use the https scheme, got "${url.protocol.replace(/:$/, "")}"`;
  if (url.hostname === "") return "must name a host";
  if (url.username !== "" || url.password !== "") return "must not carry credentials in the URL";
  return undefined;
}

export const subscriptions: CollectionSpec = {
  api: "events",
  collection: "subscriptions",
  resourceType: "events.subscription",
  caps: { list: "CAP_EVENTS_SUBSCRIPTION_LIST", create: "CAP_EVENTS_SUBSCRIPTION_CREATE", delete: "CAP_EVENTS_SUBSCRIPTION_DELETE" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["sink", "createTime", "updateTime"],
  writable: ["sink"],
  readOnly: ["uid", "createTime", "updateTime"],
  validate(row, v) {
    const why = sinkError(row["sink"]);
    if (why) v.push({ field: "sink", description: why });
  },
  build(ctx, parentUid, body) {
    const t = timestamp(ctx.now());
    return { uid: newChildUid(parentUid), sink: body["sink"], createTime: t, updateTime: t };
  },
};
