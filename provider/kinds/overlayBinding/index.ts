/**
 * OverlayBinding: binds an {@link Overlay} to one repo under exact tags
 * (`pulumi-nodejs:dynamic/platform:OverlayBinding`).
 *
 * Life cycle: create POSTs `{overlay, tags}` under `repoUid` (`overlay`: the overlay's uid, or its name, resolved
 * in the repo's organization); the API has no PATCH for bindings, so any change replaces. Read reports the
 * server's values as inputs so drift shows (an `overlay` given by name stays as written while the bound overlay
 * still has that name); delete treats NOT_FOUND as done (deleting the repo deletes its bindings too).
 *
 * Create proof (bindings have no name or description): after an ambiguous failure, a binding of the repo to this
 * overlay with these tags, created inside the attempt's server-time window, is this create's; several in the
 * window, or one the server does not date, are refused, naming them.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiOverlayBinding } from "../../client/types";
import { isUnknown, uidpProblem } from "../../validation";
import { betaOnly, canonical, refuseDifferingAdoption } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, output, parent, replace } from "../../engine/declare";
import { adoptUidArg, createTime, lookupFilter, uidArg, updateTime } from "../../engine/fieldTypes";
import { createProvedInWindow } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { OverlayBindingArgs, OverlayBindingInputs, OverlayBindingOutputs, OverlayBindingOutputProperties } from "./types";
export type { OverlayBindingArgs, OverlayBindingInputs, OverlayBindingOutputs, OverlayBindingOutputProperties } from "./types";
import { tagNameProblem } from "../tag";

type Ref = ApiOverlayBinding["overlay"];

/** Whether the server's expanded overlay is the one `ref` (a uid or a name) names. */
function names(ref: unknown, overlay: Ref): boolean {
  return overlay !== undefined && (ref === overlay.uid || ref === overlay.name);
}

/** The repo's overlay bindings that match a create's every field: the same overlay (by uid or name) and tags. */
const matching = async (client: PlatformClient, inputs: OverlayBindingInputs): Promise<ApiOverlayBinding[]> =>
  (await betaOnly(client.overlayBindings.list({ childrenOf: inputs.repoUid, pageSize: 200 }).collect())).filter(
    (b) => names(inputs.overlay, b.overlay) && canonical([...b.tags].sort()) === canonical([...inputs.tags].sort()),
  );

/** The OverlayBinding kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const overlayBindingKind = declareResource<OverlayBindingInputs, OverlayBindingOutputs, ApiOverlayBinding>({
  kind: "OverlayBinding",
  module: "registry",
  what: "overlay binding",
  description: "Binds an `Overlay` to one repo under exact tags.",
  collection: (c) => c.overlayBindings,
  ownership: { proof: "window", matching, same: "the same overlay and tags" },
  listing: { betaOnly: true, label: (x) => `${x.overlay?.name ?? x.overlay?.uid ?? "?"} → ${x.tags.join(", ")}` },
  lookups: {
    plural: "OverlayBindings",
    listFilters: {
      repoUid: lookupFilter("Only bindings of this repo (sent as `uidp.children_of`; do not also give a different `childrenOf`)."),
      overlayUid: lookupFilter("Only bindings of this overlay, by uid (the List's `overlay` filter)."),
    },
    oneFilters: { repoUid: lookupFilter("uid of the binding's repo."), overlayUid: lookupFilter("uid of the bound overlay.") },
  },
  fields: {
    repoUid: parent({ type: uidArg("uid of the repo the overlay applies to. Changing it replaces the binding.") }),
    overlay: replace({
      type: z.string().describe("The overlay: its uid (e.g. `overlay.uid`), or its name, resolved in the repo's organization."),
      check: (v) => (isUnknown(v) || (typeof v === "string" && v.trim() !== "") ? undefined : `is required: the overlay's uid or name, got ${JSON.stringify(v)}`),
      fromServer: (v, _api, local) => (names(local["overlay"], v as Ref) ? local["overlay"] : (v as Ref)?.uid),
    }),
    tags: replace({
      type: z.array(z.string()).describe("The exact tag names the overlay applies to, at least one (duplicates are dropped, order kept)."),
      check: (v) => {
        if (isUnknown(v)) return undefined;
        if (!Array.isArray(v) || v.length === 0) return `must list at least one tag name (an all-tags change belongs on the repo's customOverlay), got ${JSON.stringify(v)}`;
        const bad = v.findIndex((t) => tagNameProblem(t) !== undefined);
        return bad < 0 ? undefined : `[${bad}] ${tagNameProblem(v[bad])}`;
      },
      normalize: (v) => (Array.isArray(v) && !v.some(isUnknown) ? [...new Set(v)] : v),
    }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("binding of the repo") }),
  },
  server: { overlayUid: output(z.string().describe("uid of the bound overlay."), ""), createTime, updateTime },
  hooks: {
    outputs: (o, api) => ({ ...o, overlayUid: api.overlay?.uid ?? "" }),
    checkAdopted: (existing, inputs) => refuseDifferingAdoption("overlay binding", existing, inputs, ["overlay", "tags"]),
    async create(inputs, ctx) {
      const client = ctx.client();
      const what = `overlay binding of ${inputs.overlay} to repo ${inputs.repoUid} (tags ${inputs.tags.join(", ")})`;
      return createProvedInWindow(ctx, {
        what,
        parentUid: inputs.repoUid,
        // Identical bindings of one program take turns (lifecycle.ts); keyed by repo and tags only, since the same
        // overlay may be given by uid or by name.
        key: JSON.stringify(["OverlayBinding", inputs.repoUid, [...inputs.tags].sort()]),
        post: () => client.overlayBindings.create(inputs.repoUid, { overlay: inputs.overlay, tags: inputs.tags }),
        matching: () => matching(client, inputs),
      });
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface OverlayBinding extends OverlayBindingOutputProperties {}

/**
 * An overlay bound to a repo's tags.
 *
 * @example
 * ```ts
 * new OverlayBinding("app-debug", { repoUid: app.uid, overlay: debug.uid, tags: ["latest-dev"] });
 * ```
 */
export class OverlayBinding extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = overlayBindingKind;

  /** @param name Pulumi resource name. @param args the binding. @param opts resource options. */
  constructor(name: string, args: OverlayBindingArgs, opts?: pulumi.CustomResourceOptions) {
    super(overlayBindingKind, name, args, opts);
  }
}
