/**
 * Tag: an image tag in a repo, pointing at a manifest digest (`pulumi-nodejs:dynamic/platform:Tag`).
 *
 * Life cycle: the API has no PATCH for tags (OpenAPI: TagsService has create, get, list, delete), so any change
 * replaces; when the name stays, the old tag is deleted first (`deleteBeforeReplace`), because a create of a name
 * the repo already has updates that very tag ("creates (or updates) a tag under a repo"), and deleting the old one
 * afterwards would delete the new one. Read reports the server's values as inputs so drift shows; delete treats
 * NOT_FOUND as done.
 *
 * Create never takes over another writer's tag: because the API's create overwrites a tag of the same name, a
 * name the repo already has is refused (adopt it with `adoptUid`); after an ambiguous failure, a tag with this
 * name and every declared field, updated inside the attempt's server-time window, is this create's (tags carry
 * no creation time: their `updateTime` dates the create).
 */
import { programLanguage, propertyLine } from "../../programLanguage";
import * as pulumi from "@pulumi/pulumi";
import type { PlatformClient } from "../../client/client";
import type { ApiTag } from "../../client/types";
import { digestProblem, isUnknown, tagNameProblem, uidpProblem } from "../../validation";
import { refuseDifferingAdoption } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, parent, replace } from "../../engine/declare";
import { adoptUidArg, lookupFilter, stringList, uidArg, updateTime } from "../../engine/fieldTypes";
import { createProvedInWindow } from "../../engine/lifecycle";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { TagArgs, TagInputs, TagOutputs, TagOutputProperties } from "./types";
export type { TagArgs, TagInputs, TagOutputs, TagOutputProperties } from "./types";

/** The rule, defined with the others in `validation.ts` (the export checks server text with it too). */
export { tagNameProblem } from "../../validation";

const FIELDS = ["name", "digest", "bundles", "deprecated"] as const;

function bundlesProblem(v: unknown): string | undefined {
  if (v === undefined || isUnknown(v)) return undefined;
  return Array.isArray(v) && v.every((s) => isUnknown(s) || (typeof s === "string" && s !== "")) ? undefined : `must be a list of non-empty strings, got ${JSON.stringify(v)}`;
}

/**
 * The repo's tags that match a create's every field: the same name, digest, bundles and deprecation (unset: their
 * defaults, as in a pending create's inputs written before check filled them).
 */
const matching = async (client: PlatformClient, inputs: TagInputs): Promise<ApiTag[]> =>
  (await client.tags.list({ childrenOf: inputs.repoUid, name: inputs.name, pageSize: 200 }).collect()).filter(
    (t) => t.name === inputs.name && t.digest === inputs.digest && JSON.stringify(t.bundles ?? []) === JSON.stringify(inputs.bundles ?? []) && (t.deprecated ?? false) === (inputs.deprecated ?? false),
  );

/** The Tag kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const tagKind = declareResource<TagInputs, TagOutputs, ApiTag>({
  kind: "Tag",
  module: "registry",
  what: "tag",
  description: "An image tag in a repo, pointing at a manifest digest. Every field replaces.",
  collection: (c) => c.tags,
  // Tags carry no createTime: their updateTime dates them.
  ownership: { proof: "window", matching, time: (t) => t.updateTime, same: "the same name and digest" },
  lookups: {
    plural: "Tags",
    listFilters: {
      name: lookupFilter("Exact tag name, e.g. `latest`. Default: any name."),
      repoUid: lookupFilter("Only tags of this repo (sent as `uidp.children_of`; do not also give a different `childrenOf`)."),
      digest: lookupFilter("Only tags pointing at this digest, e.g. `sha256:…` (the List's `digest` filter)."),
    },
    oneFilters: {
      name: lookupFilter("Exact tag name, e.g. `latest`."),
      repoUid: lookupFilter("uid of the tag's repo (`uidp.children_of`). Default: any repo, so `{ name: \"latest\" }` alone is usually ambiguous."),
      digest: lookupFilter("The digest the tag points at."),
    },
  },
  fields: {
    repoUid: parent({ type: uidArg("uid of the repo the tag belongs to. Changing it replaces the tag.") }),
    name: replace({ check: tagNameProblem, type: z.string().describe("Tag name, an OCI tag: `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`, e.g. `latest`, `1.2.3`.") }),
    digest: replace({ check: digestProblem, type: z.string().describe("The manifest digest it points at: `sha256:` + 64 hex, or `sha512:` + 128 hex characters.") }),
    bundles: replace({ type: stringList("Sales labels; default `[]`."), check: bundlesProblem, default: [], fromServer: (v) => v ?? [] }),
    deprecated: replace({
      type: z.boolean().optional().describe("Whether the tag is deprecated; default `false`."),
      check: (v) => (v === undefined || isUnknown(v) || typeof v === "boolean" ? undefined : `must be true or false, got ${JSON.stringify(v)}`),
      default: false,
      fromServer: (v) => v ?? false,
    }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("tag of the repo") }),
  },
  server: { updateTime },
  hooks: {
    /** A replace that keeps the name deletes first: a create of the same name would update the old tag in place. */
    diff(olds, news, d) {
      return d.replaces?.length && olds.name === news.name ? { ...d, deleteBeforeReplace: true } : d;
    },
    checkAdopted: (existing, inputs) => refuseDifferingAdoption("tag", existing, inputs, FIELDS),
    async create(inputs, ctx) {
      const client = ctx.client();
      const what = `tag "${inputs.name}" of repo ${inputs.repoUid}`;
      const same = (await client.tags.list({ childrenOf: inputs.repoUid, name: inputs.name, pageSize: 200 }).collect()).filter((t) => t.name === inputs.name);
      if (same.length > 0) {
        throw new Error(
          `${what}: the repo already has a tag named "${inputs.name}" (${same[0]!.uid}, digest ${same[0]!.digest ?? "?"}), and the API's create would overwrite it; take it under management with ${propertyLine(programLanguage(), "adoptUid", same[0]!.uid)}, or choose another name`,
        );
      }
      const body = { name: inputs.name, digest: inputs.digest, bundles: inputs.bundles, deprecated: inputs.deprecated };
      return createProvedInWindow(ctx, {
        what,
        parentUid: inputs.repoUid,
        post: () => client.tags.create(inputs.repoUid, body),
        matching: () => matching(client, inputs),
        time: (t) => t.updateTime,
      });
    },
  },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Tag extends TagOutputProperties {}

/**
 * An image tag.
 *
 * @example
 * ```ts
 * new Tag("app-latest", { repoUid: app.uid, name: "latest", digest: "sha256:…" });
 * ```
 */
export class Tag extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = tagKind;

  /** @param name Pulumi resource name. @param args the tag. @param opts resource options. */
  constructor(name: string, args: TagArgs, opts?: pulumi.CustomResourceOptions) {
    super(tagKind, name, args, opts);
  }
}
