/**
 * Repo, Tag, Overlay, OverlayBinding and Subscription: each provider method against the emulator, called
 * the way the dynamic-provider host calls them: check's failures, create (with the ownership proof after a lost
 * answer), read without a diff and with drift, the exact update mask, the README sub-resource, replaces, delete,
 * and a group delete that waits for registry children and names them.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import type { RecordedRequest } from "../emulator";
import { groupKind } from "../provider/kinds/group";
import { deleteGroupPatiently, describeChildren } from "../provider/engine/lifecycle";
import { groupChildren } from "../provider/kinds/registry";
import { overlayKind, type OverlayInputs } from "../provider/kinds/overlay";
import { overlayBindingKind, type OverlayBindingInputs } from "../provider/kinds/overlayBinding";
import { repoKind, type RepoInputs, type RepoOutputs } from "../provider/kinds/repo";
import { subscriptionKind, type SubscriptionInputs } from "../provider/kinds/subscription";
import { tagKind, type TagInputs } from "../provider/kinds/tag";
import { getClient } from "../provider/state";
import { z } from "zod";
import { declareResource, parent, replace } from "../provider/engine/declare";
import { createTime } from "../provider/engine/fieldTypes";
import { FAST_RETRIES, useProviderEmulator } from "./harness/provider";

let emu: Emulator;
let group: string;
const D1 = `sha256:${"a".repeat(64)}`;
const D2 = `sha256:${"b".repeat(64)}`;

useProviderEmulator(async (started) => {
  emu = started;
  group = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "registry", description: "" })).id;
}, FAST_RETRIES);
beforeEach(() => emu.control.reset());

const writes = (since: number) =>
  emu.requests
    .slice(since)
    .filter((r: RecordedRequest) => r.method !== "GET")
    .map((r: RecordedRequest) => `${r.method} ${r.path}${r.query["updateMask"] ? `?updateMask=${r.query["updateMask"]}` : ""}`);

async function checked<I>(p: { check: (o: I, n: I) => Promise<{ inputs?: I; failures?: Array<{ property: string; reason: string }> }> }, news: object) {
  return p.check({} as I, news as I);
}

async function repoInputs(news: object): Promise<RepoInputs> {
  const r = await checked(repoKind.provider, news);
  expect(r.failures).toEqual([]);
  return r.inputs!;
}

describe("Repo", () => {
  it("check names every bad field and refuses what a synced repo inherits", async () => {
    const bad = await checked(repoKind.provider, {
      parentUid: group,
      name: "Bad Name",
      catalogTier: "CATALOG_TIER_GOLD",
      aliases: ["ok", ""],
      customOverlay: { environment: { CHAINGUARD_X: "1" }, colour: "red" },
    });
    expect(bad.failures!.map((f) => f.property).sort()).toEqual(["aliases", "catalogTier", "customOverlay.colour", "customOverlay.environment", "name"]);
    expect(bad.failures!.find((f) => f.property === "catalogTier")!.reason).toMatch(/"CATALOG_TIER_GOLD" is not a catalog tier; allowed: CATALOG_TIER_UNSPECIFIED, /);
    const synced = await checked(repoKind.provider, {
      parentUid: group,
      name: "mirror",
      syncConfig: { source: "chainguard/nginx", gracePeriod: true },
      bundles: ["x"],
      catalogTier: "CATALOG_TIER_BASE",
      readme: "# no",
    });
    expect(synced.failures!.map((f) => f.property).sort()).toEqual(["bundles", "catalogTier", "readme", "syncConfig.gracePeriod"]);
    expect(synced.failures!.find((f) => f.property === "bundles")!.reason).toMatch(/inherits bundles from syncConfig\.source.*INVALID_ARGUMENT/);
    const noSource = await checked(repoKind.provider, { parentUid: group, name: "mirror", syncConfig: {} });
    expect(noSource.failures).toEqual([{ property: "syncConfig.source", reason: expect.stringMatching(/is required/) }]);
  });

  it("creates with the README, reads back without a diff, and PATCHes exactly the changed field", async () => {
    const inputs = await repoInputs({
      parentUid: group,
      name: "app",
      description: "the app",
      aliases: ["app-alias"],
      catalogTier: "CATALOG_TIER_APPLICATION",
      customOverlay: { contents: { packages: ["curl"] }, environment: { MODE: "prod" } },
      readme: "# app",
    });
    let since = emu.requests.length;
    const made = await repoKind.provider.create(inputs);
    expect(writes(since)).toEqual([`POST /registry/v2beta1/repos/${group}`, `PATCH /registry/v2beta1/repos/${made.id}?updateMask=description`, `PATCH /registry/v2beta1/repos/${made.id}/readme?updateMask=content`]);
    expect((await getClient().repos.getReadme(made.id)).content).toBe("# app");
    const read = await repoKind.provider.read(made.id, made.outs);
    expect(read.props).toMatchObject({ name: "app", description: "the app", aliases: ["app-alias"], catalogTier: "CATALOG_TIER_APPLICATION", readme: "# app" });
    expect(await repoKind.provider.diff(made.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });

    since = emu.requests.length;
    const next = { ...inputs, catalogTier: "CATALOG_TIER_BASE" };
    const d = await repoKind.provider.diff(made.id, read.props!, next);
    expect(d).toEqual({ changes: true, replaces: [] });
    const updated = await repoKind.provider.update(made.id, read.props!, next);
    expect(writes(since)).toEqual([`PATCH /registry/v2beta1/repos/${made.id}?updateMask=catalogTier`]);
    expect(updated.outs!.catalogTier).toBe("CATALOG_TIER_BASE");

    since = emu.requests.length;
    await repoKind.provider.update(made.id, updated.outs!, { ...next, readme: "# app v2" });
    expect(writes(since)).toEqual([`PATCH /registry/v2beta1/repos/${made.id}/readme?updateMask=content`]);
    expect((await getClient().repos.getReadme(made.id)).content).toBe("# app v2");
  });

  it("shows README and field drift on refresh, and a parent change replaces", async () => {
    const inputs = await repoInputs({ parentUid: group, name: "drifty", readme: "one" });
    const made = await repoKind.provider.create(inputs);
    await getClient().repos.patchReadme(made.id, "edited by hand");
    await getClient().repos.patch(made.id, { bundles: ["sneaky"] }, ["bundles"]);
    const read = await repoKind.provider.read(made.id, made.outs);
    expect(read.inputs).toMatchObject({ readme: "edited by hand", bundles: ["sneaky"] });
    const d = await repoKind.provider.diff(made.id, read.props!, inputs);
    expect(d.changes).toBe(true);
    expect((await repoKind.provider.diff(made.id, read.props!, { ...inputs, parentUid: emu.orgUid })).replaces).toEqual(["parentUid"]);
  });

  it("creates a synced repo (syncConfig sent as sync_config, patched with mask syncConfig) with no diff after read", async () => {
    const source = await repoKind.provider.create(await repoInputs({ parentUid: group, name: "upstream", bundles: ["base"], catalogTier: "CATALOG_TIER_BASE" }));
    const inputs = await repoInputs({ parentUid: group, name: "mirror", syncConfig: { source: source.id } });
    const made = await repoKind.provider.create(inputs);
    const server = await getClient().repos.get(made.id);
    expect(server.sync_config?.source).toBe(source.id);
    expect(server.bundles).toEqual(["base"]); // inherited from the source
    const read = await repoKind.provider.read(made.id, made.outs);
    expect(read.props!.syncState).toMatchObject({ source: source.id, gracePeriod: false });
    expect(read.props).not.toHaveProperty("sync_config");
    expect(await repoKind.provider.diff(made.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
    const since = emu.requests.length;
    const next = { ...inputs, syncConfig: { source: source.id, amazon: "123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror" } };
    const updated = await repoKind.provider.update(made.id, read.props! as RepoOutputs, next);
    expect(writes(since)).toEqual([`PATCH /registry/v2beta1/repos/${made.id}?updateMask=syncConfig`]);
    expect((await getClient().repos.get(made.id)).sync_config).toMatchObject(next.syncConfig);
    expect(updated.outs!.syncConfig).toEqual(next.syncConfig);
  });

  it("destroy deletes (no provider-side guard), and a second delete is fine", async () => {
    const made = await repoKind.provider.create(await repoInputs({ parentUid: group, name: "doomed" }));
    await repoKind.provider.delete(made.id, made.outs!);
    await repoKind.provider.delete(made.id, made.outs!);
    expect((await repoKind.provider.read(made.id, made.outs)).id).toBe("");
  });

  it("adopting a repo writes its README only when the declared one differs (an adoption changes nothing)", async () => {
    const c = getClient();
    const existing = await c.repos.create(group, { name: "adopt-me" });
    await c.repos.patchReadme(existing.uid, "# as it is\n");
    const since = emu.requests.length;
    const same = await repoKind.provider.create(await repoInputs({ parentUid: group, name: "adopt-me", readme: "# as it is\n", adoptUid: existing.uid }));
    expect(writes(since)).toEqual([]);
    expect(same.outs!.readme).toBe("# as it is\n");
    const other = await c.repos.create(group, { name: "adopt-me-too" });
    const mark = emu.requests.length;
    const changed = await repoKind.provider.create(await repoInputs({ parentUid: group, name: "adopt-me-too", readme: "# new\n", adoptUid: other.uid }));
    expect(writes(mark)).toEqual([`PATCH /registry/v2beta1/repos/${other.uid}/readme?updateMask=content`]);
    expect(changed.outs!.readme).toBe("# new\n");
  });

  it("after a lost create answer adopts the marked repo, never a same-named one of another writer", async () => {
    emu.control.set({ dropCreateResponses: 1 });
    const made = await repoKind.provider.create(await repoInputs({ parentUid: group, name: "lost-answer", description: "mine" }));
    const all = await getClient().repos.list({ childrenOf: group, name: "lost-answer" }).collect();
    expect(all.map((r) => r.uid)).toEqual([made.id]);
    expect(all[0]!.description).toBe("mine");
  });
});

describe("Tag", () => {
  let repo: string;
  beforeAll(async () => {
    repo = (await repoKind.provider.create(await repoInputs({ parentUid: group, name: "tagged" }))).id;
  });

  it("checks name, digest and bundles", async () => {
    const r = await checked(tagKind.provider, { repoUid: repo, name: "-bad", digest: "sha256:xyz", bundles: [1] });
    expect(r.failures!.map((f) => f.property)).toEqual(["name", "digest", "bundles"]);
    expect(r.failures![1]!.reason).toMatch(/"sha256:xyz" is not a digest: sha256:<64 lowercase hex>/);
  });

  it("creates, reads back without a diff; a changed digest replaces delete-first, a new name create-first", async () => {
    const inputs = (await checked<TagInputs>(tagKind.provider, { repoUid: repo, name: "latest", digest: D1 })).inputs!;
    const made = await tagKind.provider.create(inputs);
    const read = await tagKind.provider.read(made.id, made.outs);
    expect(read.props).toMatchObject({ name: "latest", digest: D1, bundles: [], deprecated: false, repoUid: repo });
    expect(await tagKind.provider.diff(made.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
    expect(await tagKind.provider.diff(made.id, read.props!, { ...inputs, digest: D2 })).toEqual({ changes: true, replaces: ["digest"], deleteBeforeReplace: true });
    expect(await tagKind.provider.diff(made.id, read.props!, { ...inputs, name: "stable" })).toEqual({ changes: true, replaces: ["name"] });
  });

  it("refuses a name the repo already has (the API's create would overwrite it), naming adoptUid", async () => {
    const existing = await getClient().tags.create(repo, { name: "taken", digest: D1 });
    const since = emu.requests.length;
    await expect(tagKind.provider.create({ repoUid: repo, name: "taken", digest: D2, bundles: [], deprecated: false })).rejects.toThrow(
      new RegExp(`already has a tag named "taken" \\(${existing.uid}, digest ${D1}\\).*adoptUid`),
    );
    expect(writes(since)).toEqual([]);
    expect((await getClient().tags.get(existing.uid)).digest).toBe(D1);
  });

  it("after a lost create answer adopts the tag made inside the attempt", async () => {
    emu.control.set({ dropCreateResponses: 1 });
    const made = await tagKind.provider.create({ repoUid: repo, name: "lost", digest: D2, bundles: [], deprecated: true });
    const all = await getClient().tags.list({ childrenOf: repo, name: "lost" }).collect();
    expect(all.map((t) => t.uid)).toEqual([made.id]);
    expect(made.outs).toMatchObject({ deprecated: true, digest: D2 });
  });
});

describe("Overlay and OverlayBinding", () => {
  let repo: string;
  beforeAll(async () => {
    repo = (await repoKind.provider.create(await repoInputs({ parentUid: group, name: "overlaid" }))).id;
  });

  it("check allows packages only, at least one", async () => {
    const r = await checked(overlayKind.provider, { parentUid: group, name: "tools", config: { contents: { packages: [], runtimeRepositories: ["x"] }, environment: {} } });
    expect(r.failures!.map((f) => f.property).sort()).toEqual(["config.contents.packages", "config.contents.runtimeRepositories", "config.environment"]);
    const b = await checked(overlayBindingKind.provider, { repoUid: repo, overlay: "", tags: [] });
    expect(b.failures!.map((f) => f.property)).toEqual(["overlay", "tags"]);
  });

  it("creates an overlay and a binding (by name and by uid), reads both without a diff, replaces on change", async () => {
    const oi = (await checked<OverlayInputs>(overlayKind.provider, { parentUid: group, name: "tools", config: { contents: { packages: ["curl", "jq"] } } })).inputs!;
    const overlay = await overlayKind.provider.create(oi);
    const oread = await overlayKind.provider.read(overlay.id, overlay.outs);
    expect(await overlayKind.provider.diff(overlay.id, oread.props!, oi)).toEqual({ changes: false, replaces: [] });
    expect(await overlayKind.provider.diff(overlay.id, oread.props!, { ...oi, config: { contents: { packages: ["curl"] } } })).toEqual({
      changes: true,
      replaces: ["config"],
      deleteBeforeReplace: true,
    });

    for (const ref of ["tools", overlay.id]) {
      const bi = (await checked<OverlayBindingInputs>(overlayBindingKind.provider, { repoUid: repo, overlay: ref, tags: ["latest", "latest", "dev"] })).inputs!;
      expect(bi.tags).toEqual(["latest", "dev"]);
      const b = await overlayBindingKind.provider.create(bi);
      const bread = await overlayBindingKind.provider.read(b.id, b.outs);
      expect(bread.props).toMatchObject({ overlay: ref, overlayUid: overlay.id, tags: ["latest", "dev"], repoUid: repo });
      expect(await overlayBindingKind.provider.diff(b.id, bread.props!, bi)).toEqual({ changes: false, replaces: [] });
      expect((await overlayBindingKind.provider.diff(b.id, bread.props!, { ...bi, tags: ["dev"] })).replaces).toEqual(["tags"]);
      await overlayBindingKind.provider.delete(b.id, bread.props!);
    }
    await overlayKind.provider.delete(overlay.id, oread.props!);
    expect((await overlayKind.provider.read(overlay.id, oread.props)).id).toBe("");
  });

  it("after a lost create answer adopts the one binding made in the window", async () => {
    const overlay = await overlayKind.provider.create({ parentUid: group, name: "lost-tools", config: { contents: { packages: ["git"] } } });
    emu.control.set({ dropCreateResponses: 1 });
    const b = await overlayBindingKind.provider.create({ repoUid: repo, overlay: overlay.id, tags: ["v1"] });
    const all = await getClient().overlayBindings.list({ childrenOf: repo }).collect();
    expect(all.filter((x) => x.overlay?.uid === overlay.id).map((x) => x.uid)).toEqual([b.id]);
  });

  it("five identical bindings created at once with every create answer lost: five bindings, each adopted by one create", async () => {
    const overlay = await overlayKind.provider.create({ parentUid: group, name: "twin-tools", config: { contents: { packages: ["git"] } } });
    emu.control.set({ dropCreateResponses: 5 });
    // One by uid, the others by name: the same overlay, so the same candidates.
    const made = await Promise.all([overlay.id, "twin-tools", "twin-tools", "twin-tools", "twin-tools"].map((ref) => overlayBindingKind.provider.create({ repoUid: repo, overlay: ref, tags: ["v2"] })));
    const all = (await getClient().overlayBindings.list({ childrenOf: repo }).collect()).filter((x) => x.overlay?.uid === overlay.id);
    expect(new Set(made.map((b) => b.id)).size).toBe(5);
    expect(all.map((x) => x.uid).sort()).toEqual(made.map((b) => b.id).sort());
  });
});

describe("Subscription", () => {
  it("a window-proved kind without a create hook POSTs its wire body: a field added to its declaration reaches it", async () => {
    const posted: Array<{ parent: string; body: object }> = [];
    const recording = {
      create: async (parent: string, body: object) => {
        posted.push({ parent, body });
        return { uid: `${parent}/0123456789abcdef`, createTime: new Date().toISOString(), ...body };
      },
    };
    const kind = declareResource<{ parentUid: string; sink: string; colour?: string }, { parentUid: string; sink: string; colour?: string }, { uid: string }>({
      kind: "WindowTestKind",
      what: "window test object",
      module: "events",
      description: "A test kind, proved by the window like a subscription.",
      collection: () => recording as never,
      ownership: { proof: "window", matching: async () => [], same: "the same sink and colour" },
      fields: {
        parentUid: parent({ type: z.string().describe("The group.") }),
        sink: replace({ type: z.string().describe("A URL.") }),
        colour: replace({ default: "blue", type: z.string().optional().describe("The field added.") }),
      },
      server: { createTime },
    });
    const made = await kind.provider.create({ parentUid: group, sink: "https://hooks.example.com/w", colour: "green" });
    expect(posted).toEqual([{ parent: group, body: { sink: "https://hooks.example.com/w", colour: "green" } }]);
    expect(made.id).toBe(`${group}/0123456789abcdef`);
  });

  it("requires an https sink, naming the value", async () => {
    const r = await checked(subscriptionKind.provider, { parentUid: group, sink: "http://hooks.example.com/x" });
    expect(r.failures).toEqual([{ property: "sink", reason: '"http://hooks.example.com/x" must use the https scheme, not http' }]);
  });

  it("creates, reads without a diff, replaces on a sink change, deletes", async () => {
    const inputs = (await checked<SubscriptionInputs>(subscriptionKind.provider, { parentUid: group, sink: "https://hooks.example.com/a" })).inputs!;
    const made = await subscriptionKind.provider.create(inputs);
    const read = await subscriptionKind.provider.read(made.id, made.outs);
    expect(await subscriptionKind.provider.diff(made.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
    expect((await subscriptionKind.provider.diff(made.id, read.props!, { ...inputs, sink: "https://hooks.example.com/b" })).replaces).toEqual(["sink"]);
    await subscriptionKind.provider.delete(made.id, read.props!);
    expect((await subscriptionKind.provider.read(made.id, read.props)).id).toBe("");
  });

  it("after a lost create answer refuses when two matching subscriptions were made in the window", async () => {
    const g = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "two-writers", description: "" })).id;
    // Another writer's identical subscription, made in the same instant as ours.
    await subscriptionKind.collection(getClient()).create(g, { sink: "https://hooks.example.com/same" });
    emu.control.set({ dropCreateResponses: 1 });
    await expect(subscriptionKind.provider.create({ parentUid: g, sink: "https://hooks.example.com/same" })).rejects.toThrow(/2 matching objects were created under .*none was adopted/);
  });

  it("five identical subscriptions created at once with every create answer lost: five subscriptions, each adopted by one create", async () => {
    const g = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "sub-twins", description: "" })).id;
    emu.control.set({ dropCreateResponses: 5 });
    const made = await Promise.all([0, 1, 2, 3, 4].map(() => subscriptionKind.provider.create({ parentUid: g, sink: "https://hooks.example.com/twins" })));
    const all = await subscriptionKind.collection(getClient()).list({ childrenOf: g }).collect();
    expect(new Set(made.map((x) => x.id)).size).toBe(5);
    expect(all.map((x) => x.uid).sort()).toEqual(made.map((x) => x.id).sort());
  });
});

describe("group delete with registry children", () => {
  it("waits while repos, overlays and subscriptions are deleted, and names them when it gives up", async () => {
    const g = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "full", description: "" })).id;
    const repo = await getClient().repos.create(g, { name: "r1" });
    const overlay = await getClient().overlays.create(g, { name: "ov1", config: { contents: { packages: ["p"] } } });
    const sub = await subscriptionKind.collection(getClient()).create(g, { sink: "https://hooks.example.com/full" });
    const left = `Repo "r1" (/full/r1, uid ${repo.uid}); Overlay "ov1" (in /full, uid ${overlay.uid}); Subscription "https://hooks.example.com/full" (in /full, uid ${sub.uid})`;
    expect(await describeChildren(getClient(), g, groupChildren())).toBe(left);
    await expect(deleteGroupPatiently(getClient(), g, 0.05, getClient().transport.retry, groupChildren())).rejects.toThrow(`not empty; children left: ${left}`);
    setTimeout(() => {
      void Promise.all([getClient().repos.delete(repo.uid), getClient().overlays.delete(overlay.uid), subscriptionKind.collection(getClient()).delete(sub.uid)]);
    }, 50);
    await deleteGroupPatiently(getClient(), g, 10, getClient().transport.retry, groupChildren());
    expect((await getClient().groups.list({ childrenOf: emu.orgUid, name: "full" }).collect())).toEqual([]);
  });
});
