/**
 * Overlay binding lookups: `getOverlayBindings`, `getOverlayBinding` and their `...Output` twins (see `core.ts`).
 * Bindings are children of their repo; the binding List's own `overlay` filter is a parameter of the client's
 * `overlayBindings.list`.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { Paginator } from "../../client/pagination";
import type { ApiOverlayBinding as OverlayBinding } from "../../client/types";
import { checkArgs, emptySet, outputOf, PAGING, pick, programClientFromConfig, single, take, UIDP, underRepo, type ArgSpec, type InputArgs } from "../../lookups/core";
import type { GetOverlayBindingsArgs, GetOverlayBindingArgs } from "./types";
export type { GetOverlayBindingsArgs, GetOverlayBindingArgs } from "./types";

const BINDINGS_OF_OVERLAYS_SPEC: ArgSpec = { repoUid: "string", overlayUid: "string", ...UIDP, ...PAGING };

function overlayBindingPaginator(fn: string, client: PlatformClient, a: GetOverlayBindingsArgs): Paginator<OverlayBinding> {
  const { overlayUid, ...rest } = a;
  return client.overlayBindings.list({ ...underRepo(fn, rest), ...(overlayUid !== undefined ? { overlay: overlayUid } : {}) });
}

/**
 * Lists overlay bindings (each with its overlay expanded), walking pages lazily.
 * @returns bindings in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments (or `repoUid` and `childrenOf` that differ); ApiError from the API;
 *   SettingsError when not configured.
 * @example const bindings = await getOverlayBindings({ overlayUid: tools.uid });
 */
export async function getOverlayBindings(args: GetOverlayBindingsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<OverlayBinding[]> {
  const a = checkArgs("getOverlayBindings", args, BINDINGS_OF_OVERLAYS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(overlayBindingPaginator("getOverlayBindings", client, a).pages(), a.limit);
}

/** {@link getOverlayBindings} with `Input` arguments and an `Output` result. */
export function getOverlayBindingsOutput(args: pulumi.Input<InputArgs<GetOverlayBindingsArgs>> = {}, client?: PlatformClient): pulumi.Output<OverlayBinding[]> {
  return outputOf<GetOverlayBindingsArgs, OverlayBinding[]>(args, (a) => getOverlayBindings(a, client));
}

/**
 * Gets one overlay binding: by `uid`, or by filters that must match exactly one binding.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no binding has that `uid`; other ApiErrors.
 * @example const b = await getOverlayBinding({ repoUid: app.uid, overlayUid: tools.uid });
 */
export async function getOverlayBinding(args: GetOverlayBindingArgs, client: PlatformClient = programClientFromConfig()): Promise<OverlayBinding> {
  const a = checkArgs("getOverlayBinding", args, { uid: "string", repoUid: "string", overlayUid: "string" });
  return single("getOverlayBinding", ["overlay binding", "overlay bindings"], a, ["repoUid", "overlayUid"], (uid) => client.overlayBindings.get(uid), () => ({
    pages: overlayBindingPaginator("getOverlayBinding", client, pick(a, ["repoUid", "overlayUid"]) as GetOverlayBindingsArgs).pages(),
  }));
}

/** {@link getOverlayBinding} with `Input` arguments and an `Output` result. */
export function getOverlayBindingOutput(args: pulumi.Input<InputArgs<GetOverlayBindingArgs>>, client?: PlatformClient): pulumi.Output<OverlayBinding> {
  return outputOf<GetOverlayBindingArgs, OverlayBinding>(args, (a) => getOverlayBinding(a, client));
}
