/**
 * Repo: an image repository under a group (`pulumi-nodejs:dynamic/platform:Repo`), with its README.
 *
 * Life cycle: create POSTs under `parentUid` with the ownership-marked description (`lifecycle.ts`), then writes
 * the README (`PATCH /repos/{uid}/readme`) when one is declared; a change of `parentUid` replaces; a change of any
 * other repo field PATCHes exactly that field (`updateMask`; `syncConfig` travels as `sync_config`, its JSON name
 * in the OpenAPI); a change of only `readme` PATCHes only the README; read reports the server's values (and the
 * README, when declared) as inputs so drift shows; delete deletes (the API deletes the repo's tags and overlay
 * bindings with it) and treats NOT_FOUND as done. Guarding a repo against deletion is the program's choice
 * (`protect: true`), never the provider's.
 *
 * A repo with a `syncConfig` inherits `aliases`, `activeTags`, `bundles`, `catalogTier` and its README from the
 * source (OpenAPI `Repo`: "attempts to change them fail with INVALID_ARGUMENT"; `RepoReadme.content`: "synced
 * from the source repository"), so `check` refuses them beside a `syncConfig`, before any API call.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ApiRepo, ApiSyncConfig } from "../../client/types";
import { isUnknown, optionalStringProblem, repoNameProblem, uidpProblem, type Failures } from "../../validation";
import { canonical, logInfo } from "../../engine/common";
import { z } from "zod";
import { createOnly, declareResource, mutable, output, parent, stateOnly } from "../../engine/declare";
import { adoptUidArg, createTime, CustomOverlay, descriptionArg, lookupsByName, named, stringList, uidArg, updateTime } from "../../engine/fieldTypes";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { RepoArgs, RepoInputs, RepoOutputs, RepoOutputProperties } from "./types";
export type { CustomOverlayArgs, CustomOverlay, OverlayContentsArgs, OverlayContents, OverlayFileArgs, OverlayFile, OverlayAccountsArgs, OverlayAccounts, OverlayUserArgs, OverlayUser, OverlayGroupArgs, OverlayGroup, OverlayCertificatesArgs, OverlayCertificates, SyncConfigArgs, SyncConfig, SyncState, RepoArgs, RepoInputs, RepoOutputs, RepoOutputProperties } from "./types";
import { processContext, type ProviderContext } from "../../engine/context";

/** The rule, defined with the others in `validation.ts` (the export checks server text with it too). */
export { repoNameProblem } from "../../validation";

/** The catalog tiers (OpenAPI `registry.v2beta1.CatalogTier`), in enum order. */
export const CATALOG_TIERS = [
  "CATALOG_TIER_UNSPECIFIED",
  "CATALOG_TIER_APPLICATION",
  "CATALOG_TIER_BASE",
  "CATALOG_TIER_FIPS",
  "CATALOG_TIER_AI",
  "CATALOG_TIER_DEVTOOLS",
  "CATALOG_TIER_COMMERCIAL",
] as const;

const UIDP = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;
const INHERITED = ["aliases", "activeTags", "bundles", "catalogTier"] as const;
const SYNC_MEMBERS = ["source", "amazon", "google", "azure"];
const SYNC_SERVER_MEMBERS = ["expirationTime", "gracePeriod", "uniqueTags", "apkoOverlay"];
const OVERLAY_MEMBERS = ["contents", "environment", "annotations", "accounts", "certificates"];
const RESERVED: Record<string, string[]> = { environment: ["CHAINGUARD_"], annotations: ["dev.chainguard.", "org.opencontainers."] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why `v` is not a list of non-empty strings, or undefined. */
function stringListProblem(v: unknown): string | undefined {
  if (v === undefined || isUnknown(v)) return undefined;
  if (!Array.isArray(v)) return `must be a list of strings, got ${JSON.stringify(v)}`;
  const bad = v.findIndex((s) => !isUnknown(s) && (typeof s !== "string" || s === ""));
  return bad < 0 ? undefined : `[${bad}] must be a non-empty string, got ${JSON.stringify(v[bad])}`;
}

/** Why `v` is not a catalog tier name, or undefined. */
function tierProblem(v: unknown): string | undefined {
  if (v === undefined || isUnknown(v) || (CATALOG_TIERS as readonly unknown[]).includes(v)) return undefined;
  return `${JSON.stringify(v)} is not a catalog tier; allowed: ${CATALOG_TIERS.join(", ")}`;
}

/** Failures of a customOverlay: its members, and the keys the API reserves. */
function overlayProblems(v: unknown, f: Failures): void {
  if (isUnknown(v)) return;
  if (!isObject(v)) {
    f.add("customOverlay", `must be an object with any of ${OVERLAY_MEMBERS.join(", ")}, got ${JSON.stringify(v)}`);
    return;
  }
  for (const k of Object.keys(v)) if (!OVERLAY_MEMBERS.includes(k)) f.add(`customOverlay.${k}`, `is not a customOverlay member; allowed: ${OVERLAY_MEMBERS.join(", ")}`);
  for (const [member, prefixes] of Object.entries(RESERVED)) {
    const map = v[member];
    if (map === undefined || isUnknown(map)) continue;
    if (!isObject(map)) {
      f.add(`customOverlay.${member}`, `must be a map of strings, got ${JSON.stringify(map)}`);
      continue;
    }
    for (const key of Object.keys(map)) {
      const p = prefixes.find((x) => key.startsWith(x));
      if (p) f.add(`customOverlay.${member}`, `key "${key}" uses the reserved prefix "${p}", which the API refuses`);
    }
  }
}

/** Failures of a syncConfig: `source` required, the members strings, no service-managed member. */
function syncProblems(v: unknown, f: Failures): void {
  if (isUnknown(v)) return;
  if (!isObject(v)) {
    f.add("syncConfig", `must be an object { source, amazon?, google?, azure? }, got ${JSON.stringify(v)}`);
    return;
  }
  for (const k of Object.keys(v)) {
    if (SYNC_SERVER_MEMBERS.includes(k)) f.add(`syncConfig.${k}`, "is set by the service (read it from the syncState output); remove it");
    else if (!SYNC_MEMBERS.includes(k)) f.add(`syncConfig.${k}`, `is not a syncConfig member; allowed: ${SYNC_MEMBERS.join(", ")}`);
  }
  const source = v["source"];
  if (source === undefined || source === "") f.add("syncConfig.source", "is required: the source repo's uid, a catalog name (org/repo) or an image reference (host/org/repo)");
  else if (!isUnknown(source) && typeof source !== "string") f.add("syncConfig.source", `must be a string, got ${JSON.stringify(source)}`);
  for (const k of ["amazon", "google", "azure"]) f.add(`syncConfig.${k}`, optionalStringProblem(v[k]));
}

/** A syncConfig with only its set members, in a stable shape. */
function syncOf(v: Record<string, unknown>): RepoInputs["syncConfig"] {
  return Object.fromEntries(SYNC_MEMBERS.filter((k) => v[k] !== undefined && v[k] !== "").map((k) => [k, v[k]])) as unknown as RepoInputs["syncConfig"];
}

/** An inherited field's output: the server's value, or, on a synced repo (whose value is the source's), the declared one. */
function inherited(def: unknown) {
  return (v: unknown, api: Record<string, unknown>, local: Record<string, unknown>, key: string): unknown =>
    api["sync_config"] !== undefined ? (local[key] ?? def) : (v ?? def);
}
const tierFromServer = inherited(CATALOG_TIERS[0]);
const listFromServer = inherited([]);

/** Repo.syncConfig (OpenAPI `registry.v2beta1.SyncConfig`): what a program declares of a sync. */
const SyncConfigType = named(
  "registry",
  "SyncConfig",
  z
    .object({
      source: z.string().describe("The repo to sync from: its uid, a catalog name (`chainguard/nginx`) or an image reference (`cgr.dev/chainguard/nginx`). The API stores the uid (output `syncState.source`); a name is kept as written."),
      amazon: z.string().optional().describe("AWS ECR repository to also sync images to."),
      google: z.string().optional().describe("Google Artifact Registry repository to also sync images to."),
      azure: z.string().optional().describe("Azure ACR repository to also sync images to."),
    })
    .describe("Sync images and metadata from another repo; default none (the repo does not sync)."),
);

const decl = declareResource<RepoInputs, RepoOutputs, ApiRepo>({
  kind: "Repo",
  module: "registry",
  what: "repo",
  description: "An image repository under a group, with its README.",
  collection: (c) => c.repos,
  listing: { path: true },
  blocksGroupDelete: true,
  lookups: lookupsByName("Repos", {
    listName: "Exact repo name, e.g. `nginx`. Default: any name.",
    name: "Exact repo name, e.g. `nginx`.",
    parentUid: "uid of the group holding the repo (`uidp.children_of`). Default: any group.",
    list: "Lists registry repos, walking pages lazily.",
    listExample: "const repos = await getRepos({ childrenOf: orgUid, orderBy: \"name\" });",
    oneExample: "const nginx = await getRepo({ name: \"nginx\", parentUid: orgUid });",
  }),
  fields: {
    parentUid: parent({ type: uidArg("uid of the group that holds the repo. Changing it replaces the repo.") }),
    name: mutable({
      check: repoNameProblem,
      type: z.string().describe("Repo name, the last part of its image reference: an OCI repository name (lowercase letters and digits, separated by `.`, `_`, `__`, `-` or `/`), at most 255 characters, unique in its group."),
    }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    aliases: mutable({ type: stringList("Equivalent image names; default `[]`. Not with `syncConfig` (inherited from the source)."), check: stringListProblem, default: [], fromServer: (v, a, l) => listFromServer(v, a, l, "aliases") }),
    activeTags: mutable({ type: stringList("Actively maintained tags; default `[]`. Not with `syncConfig` (inherited from the source)."), check: stringListProblem, default: [], fromServer: (v, a, l) => listFromServer(v, a, l, "activeTags") }),
    bundles: mutable({ type: stringList("Sales grouping labels; default `[]`. Not with `syncConfig` (inherited from the source)."), check: stringListProblem, default: [], fromServer: (v, a, l) => listFromServer(v, a, l, "bundles") }),
    catalogTier: mutable({
      type: named("registry", "CatalogTier", z.enum(CATALOG_TIERS).describe("A repo's catalog tier (OpenAPI `registry.v2beta1.CatalogTier`)."))
        .optional()
        .describe("Catalog tier; default `CATALOG_TIER_UNSPECIFIED`. Not with `syncConfig` (inherited from the source)."),
      check: tierProblem, default: CATALOG_TIERS[0], fromServer: (v, a, l) => tierFromServer(v, a, l, "catalogTier") }),
    // `{}` is no overlay: stored as unset, so it never differs from what the server reads back.
    customOverlay: mutable({
      type: CustomOverlay.optional().describe(
        "apko customizations applied when the repo's images are rebuilt; default none. The API allows it only on repos with custom assembly enabled.",
      ),
      optional: true, nested: overlayProblems, normalize: (v) => (isObject(v) && Object.keys(v).length === 0 ? undefined : v) }),
    syncConfig: mutable({
      type: SyncConfigType.optional(),
      optional: true,
      wireKey: "sync_config",
      nested: syncProblems,
      normalize: (v) => (isObject(v) ? syncOf(v) : v),
      // The server returns the source as a uid: a catalog name or image reference declared instead is kept as written.
      fromServer: (v, _api, local) => {
        if (!isObject(v)) return undefined;
        const server = syncOf(v)!;
        const mine = (local["syncConfig"] as Record<string, unknown> | undefined)?.["source"];
        return typeof mine === "string" && !UIDP.test(mine) ? { ...server, source: mine } : server;
      },
    }),
    // The README is a sub-resource: written and read by this file's wrappers below, never in the repo's body.
    readme: stateOnly({
      check: optionalStringProblem,
      type: z.string().optional().describe("The README, raw Markdown (the `/repos/{uid}/readme` sub-resource); `\"\"` removes it. Unset: the README is not managed. Not with `syncConfig` (the README is the source's)."),
    }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("repo in `parentUid`") }),
  },
  server: {
    createTime,
    updateTime,
    syncState: output(
      named(
        "registry",
        "SyncState",
        z
          .object({
            source: z.string().describe("The source repo's uid."),
            amazon: z.string().optional().describe("AWS ECR repository images are also synced to."),
            google: z.string().optional().describe("Google Artifact Registry repository images are also synced to."),
            azure: z.string().optional().describe("Azure ACR repository images are also synced to."),
            expirationTime: z.string().optional().describe("When syncing stops, RFC 3339. Set by the service."),
            gracePeriod: z.boolean().optional().describe("Whether the EOL grace period is on (the organization's setting). Set by the service."),
            uniqueTags: z.boolean().optional().describe("Whether exported tags are uniquely labelled (the organization's setting). Set by the service."),
            apkoOverlay: z.string().optional().describe("The apko overlay applied on rebuilds during sync. Set by the service."),
          })
          .describe("The server's whole sync settings; absent when the repo does not sync. Output only."),
      ),
      undefined,
      { optional: true },
    ),
  },
  hooks: {
    /** The synced-repo rule: what a repo inherits from its source cannot be set beside a syncConfig. */
    check(news, f) {
      if (news["syncConfig"] === undefined || news["syncConfig"] === null) return;
      for (const k of INHERITED) {
        const v = news[k];
        const set = k === "catalogTier" ? v !== undefined && v !== CATALOG_TIERS[0] : Array.isArray(v) ? v.length > 0 : v !== undefined;
        if (set) f.add(k, `${JSON.stringify(v)}: a repo with a syncConfig inherits ${k} from syncConfig.source, and the API refuses it (INVALID_ARGUMENT); remove ${k} or the syncConfig`);
      }
      if (news["readme"] !== undefined) f.add("readme", "a repo with a syncConfig has its README synced from syncConfig.source, and the API refuses a write; remove readme or the syncConfig");
    },
    outputs(o, api) {
      const { sync_config: sync, ...rest } = o as RepoOutputs & { sync_config?: ApiSyncConfig };
      void sync;
      return (api.sync_config ? { ...rest, syncState: api.sync_config } : rest) as RepoOutputs;
    },
  },
});

/**
 * The Repo provider bound to a provider context: the declared one, plus the README. Create writes it after the repo
 * exists (a failed write is logged and left for the next `pulumi up`, never orphaning the repo); read returns the
 * server's README when one is declared; update PATCHes it alone when only it changed. README requests go through
 * `ctx.client()`.
 */
function repoProviderFor(ctx: ProviderContext): ReturnType<typeof decl.providerFor> {
  const base = decl.providerFor(ctx);
  return {
    ...base,

    async create(inputs) {
      const r = await base.create(inputs);
      const wanted = inputs.readme;
      if (wanted !== undefined && inputs.adoptUid) {
        // An adopted repo already has a README: write the declared one only when it differs (adopting an
        // org as it is must change nothing), including "" for a README to remove.
        const { content } = await ctx.client().repos.getReadme(r.id);
        if (content === wanted) return { ...r, outs: { ...r.outs!, readme: content } };
        const readme = await ctx.client().repos.patchReadme(r.id, wanted);
        return { ...r, outs: { ...r.outs!, readme: readme.content } };
      }
      if (wanted === undefined || wanted === "") return r;
      try {
        const readme = await ctx.client().repos.patchReadme(r.id, wanted);
        return { ...r, outs: { ...r.outs!, readme: readme.content } };
      } catch (err) {
        logInfo(`repo ${r.id}: created, but writing its README failed (${(err as Error).message}); the next \`pulumi up\` writes it`);
        return { ...r, outs: { ...r.outs!, readme: "" } };
      }
    },

    async read(id, props) {
      const r = await base.read(id, props);
      if (!r.id || props?.readme === undefined || r.props?.syncConfig !== undefined) return r;
      const { content } = await ctx.client().repos.getReadme(id);
      return { ...r, props: { ...r.props!, readme: content }, inputs: { ...r.inputs!, readme: content } };
    },

    async update(id, olds, news) {
      const r = await base.update(id, olds, news);
      if (news.readme === undefined || canonical(olds.readme) === canonical(news.readme)) return r;
      const { content } = await ctx.client().repos.patchReadme(id, news.readme);
      return { outs: { ...r.outs!, readme: content } };
    },
  };
}

/** The Repo provider bound to the process's context (`processContext()`): what the runtime serves for `Repo`. */
const repoProvider: typeof decl.provider = repoProviderFor(processContext());

/**
 * The Repo kind's declaration, as the kind registry (`registry.ts`) lists it: its provider, for any context and
 * for the process's, with the README wrappers.
 */
export const repoKind: typeof decl = { ...decl, providerFor: repoProviderFor, provider: repoProvider };

/** The typed outputs of the class (generated from the declaration). */
export interface Repo extends RepoOutputProperties {}

/**
 * An image repository.
 *
 * @example
 * ```ts
 * const app = new Repo("app", { parentUid: team.uid, name: "app", catalogTier: "CATALOG_TIER_APPLICATION", readme: "# app" });
 * const mirror = new Repo("nginx", { parentUid: team.uid, name: "nginx", syncConfig: { source: "chainguard/nginx" } });
 * ```
 */
export class Repo extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = decl;

  /**
   * @param name Pulumi resource name (unique in the stack; not the repo's name).
   * @param args the repo's fields.
   * @param opts resource options (`protect: true` guards the repo against `pulumi destroy`).
   */
  constructor(name: string, args: RepoArgs, opts?: pulumi.CustomResourceOptions) {
    super(decl, name, args, opts, { readme: args.readme });
  }
}
