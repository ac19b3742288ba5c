/**
 * Overlay: a named, reusable package overlay under a group (`pulumi-nodejs:dynamic/platform:Overlay`), bound to
 * repos by {@link OverlayBinding}s.
 *
 * Life cycle: the API has no PATCH for overlays (OverlaysService: create, get, list, delete), so any change
 * replaces; when the name stays, the old overlay is deleted first (`deleteBeforeReplace`: names are unique among
 * a group's overlays, so the new one could not be created beside it), and bindings that name it by uid are
 * replaced with it. Deleting an overlay still bound fails with FAILED_PRECONDITION `RESOURCE_IN_USE` naming the
 * bindings. Read reports the server's values as inputs so drift shows; delete treats NOT_FOUND as done.
 *
 * `config` carries packages only (OpenAPI `Overlay.config`: "Only contents.packages may be set …: at least one
 * package is required on create, and any other populated field is rejected"); `check` refuses the rest first.
 *
 * Create proof (no description to mark): after an ambiguous failure, an overlay with this name and these packages,
 * created inside the attempt's server-time window, is this create's; one the server does not date is refused.
 */
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiOverlay } from "../../client/types";
import { isUnknown, nameProblem, uidpProblem, type Failures } from "../../validation";
import { betaOnly, canonical, refuseDifferingAdoption } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, parent, replace } from "../../engine/declare";
import { adoptUidArg, createTime, lookupsByName, nameArg, named, uidArg, updateTime } from "../../engine/fieldTypes";
import { createProvedInWindow } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { OverlayArgs, OverlayInputs, OverlayOutputs, OverlayOutputProperties } from "./types";
export type { OverlayConfigArgs, OverlayConfig, OverlayPackagesArgs, OverlayPackages, OverlayArgs, OverlayInputs, OverlayOutputs, OverlayOutputProperties } from "./types";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Failures of an overlay's config: `{ contents: { packages: [non-empty strings, at least one] } }` and nothing else. */
function configProblems(v: unknown, f: Failures): void {
  if (isUnknown(v)) return;
  if (!isObject(v)) {
    f.add("config", `must be { contents: { packages: [...] } }, got ${JSON.stringify(v)}`);
    return;
  }
  for (const k of Object.keys(v)) if (k !== "contents") f.add(`config.${k}`, "only config.contents.packages may be set on an overlay (the API refuses any other member)");
  const contents = v["contents"];
  if (isUnknown(contents)) return;
  if (!isObject(contents)) {
    f.add("config.contents", `must be { packages: [...] }, got ${JSON.stringify(contents)}`);
    return;
  }
  for (const k of Object.keys(contents)) if (k !== "packages") f.add(`config.contents.${k}`, "only config.contents.packages may be set on an overlay (the API refuses any other member)");
  const packages = contents["packages"];
  if (isUnknown(packages)) return;
  if (!Array.isArray(packages) || packages.length === 0) f.add("config.contents.packages", `must list at least one package, got ${JSON.stringify(packages)}`);
  else packages.forEach((p, i) => {
    if (!isUnknown(p) && (typeof p !== "string" || p.trim() === "")) f.add(`config.contents.packages[${i}]`, `must be a package name, got ${JSON.stringify(p)}`);
  });
}

/** The group's overlays that match a create's every field: the same name and packages (none on GA paths). */
const matching = async (client: PlatformClient, inputs: OverlayInputs): Promise<ApiOverlay[]> =>
  (await betaOnly(client.overlays.list({ childrenOf: inputs.parentUid, name: inputs.name, pageSize: 200 }).collect())).filter(
    (o) => o.name === inputs.name && canonical(o.config?.contents?.packages ?? []) === canonical(inputs.config.contents.packages),
  );

/** The Overlay kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const overlayKind = declareResource<OverlayInputs, OverlayOutputs, ApiOverlay>({
  kind: "Overlay",
  module: "registry",
  what: "overlay",
  description: "A named, reusable package overlay under a group, bound to repos' tags by `OverlayBinding`.",
  collection: (c) => c.overlays,
  ownership: { proof: "window", matching, same: "the same name" },
  listing: { betaOnly: true },
  blocksGroupDelete: true,
  lookups: lookupsByName("Overlays", {
    listName: "Exact overlay name. Default: any name.",
    name: "Exact overlay name (unique within a group, not across groups).",
    parentUid: "uid of the group holding the overlay (`uidp.children_of`). Default: any group.",
    list: "Lists package overlays, walking pages lazily (beta API versions only: the GA description keeps overlays beta).",
    listExample: "const overlays = await getOverlays({ childrenOf: teamUid });",
    oneExample: "const tools = await getOverlay({ name: \"debug-tools\", parentUid: teamUid });",
  }),
  fields: {
    parentUid: parent({ type: uidArg("uid of the group that holds the overlay. Changing it replaces the overlay.") }),
    name: replace({ check: nameProblem, type: nameArg("Overlay", "Unique among the group's overlays.") }),
    config: replace({
      type: named(
        "registry",
        "OverlayConfig",
        z
          .object({
            contents: named(
              "registry",
              "OverlayPackages",
              z.object({ packages: z.array(z.string()).describe("The APK packages to append to the bound images, at least one.") }).describe("The packages an overlay appends."),
            ),
          })
          .describe("`{ contents: { packages: [...] } }`, at least one package."),
      ), nested: configProblems, check: (v) => (v === undefined ? "is required: { contents: { packages: [...] } }" : undefined) }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("overlay in `parentUid`") }),
  },
  server: { createTime, updateTime },
  hooks: {
    /** A replace that keeps the name deletes first: names are unique among a group's overlays. */
    diff(olds, news, d) {
      return d.replaces?.length && olds.name === news.name ? { ...d, deleteBeforeReplace: true } : d;
    },
    checkAdopted: (existing, inputs) => refuseDifferingAdoption("overlay", existing, inputs, ["name", "config"]),
    async create(inputs, ctx) {
      const client = ctx.client();
      const what = `overlay "${inputs.name}"`;
      const body = { name: inputs.name, config: { contents: { packages: inputs.config.contents.packages } } };
      return createProvedInWindow(ctx, {
        what,
        parentUid: inputs.parentUid,
        post: () => client.overlays.create(inputs.parentUid, body),
        matching: () => matching(client, inputs),
      });
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Overlay extends OverlayOutputProperties {}

/**
 * A reusable package overlay.
 *
 * @example
 * ```ts
 * const debug = new Overlay("debug-tools", { parentUid: team.uid, name: "debug-tools", config: { contents: { packages: ["curl", "jq"] } } });
 * new OverlayBinding("app-debug", { repoUid: app.uid, overlay: debug.uid, tags: ["latest-dev"] });
 * ```
 */
export class Overlay extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = overlayKind;

  /** @param name Pulumi resource name. @param args the overlay. @param opts resource options. */
  constructor(name: string, args: OverlayArgs, opts?: pulumi.CustomResourceOptions) {
    super(overlayKind, name, args, opts);
  }
}
