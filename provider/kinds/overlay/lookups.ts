/**
 * Package overlay lookups: `getOverlays`, `getOverlay` and their `...Output` twins (see `core.ts`). Overlays are
 * children of a group, looked up by name and parent like groups and repos.
 */
import type { ApiOverlay as Overlay } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";
import type { GetOverlaysArgs, GetOverlayArgs } from "./types";
export type { GetOverlaysArgs, GetOverlayArgs } from "./types";

const lookups = namedLookups<Overlay, GetOverlaysArgs, GetOverlayArgs>(["getOverlays", "getOverlay"], ["overlay", "overlays"], (c) => c.overlays);

/**
 * Lists package overlays, walking pages lazily (beta API versions only: the GA description keeps overlays beta).
 * @returns overlays in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const overlays = await getOverlays({ childrenOf: teamUid });
 */
export const getOverlays: ListLookup<GetOverlaysArgs, Overlay> = lookups.list;

/** {@link getOverlays} with `Input` arguments and an `Output` result. */
export const getOverlaysOutput: ListLookupOutput<GetOverlaysArgs, Overlay> = lookups.listOutput;

/**
 * Gets one package overlay: by `uid`, or by filters that must match exactly one overlay.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no overlay has that `uid`; other ApiErrors.
 * @example const tools = await getOverlay({ name: "debug-tools", parentUid: teamUid });
 */
export const getOverlay: OneLookup<GetOverlayArgs, Overlay> = lookups.one;

/** {@link getOverlay} with `Input` arguments and an `Output` result. */
export const getOverlayOutput: OneLookupOutput<GetOverlayArgs, Overlay> = lookups.oneOutput;
