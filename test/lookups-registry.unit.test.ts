/**
 * The lookup pairs of the listable registry and events kinds (overlays, overlay bindings, subscriptions) against the emulator:
 * filters reach the server (or apply in this process where the List has none), singular lookups by uid and by
 * filters with NO_MATCH / AMBIGUOUS naming the filters and uids, and the `...Output` twins; and the repo lookup
 * returns the fields the repo resource manages.
 */
import { subscriptionKind } from "../provider/kinds/subscription";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import {
  LookupError,
  getOverlay,
  getOverlayBinding,
  getOverlayBindingOutput,
  getOverlayBindings,
  getOverlayBindingsOutput,
  getOverlayOutput,
  getOverlays,
  getOverlaysOutput,
  getRepo,
  getSubscription,
  getSubscriptionOutput,
  getSubscriptions,
  getSubscriptionsOutput,
} from "../provider/lookups";

let emu: Emulator;
let client: PlatformClient;
let teamA: string;
let teamB: string;
let repo: string;
let toolsA: string;
let toolsB: string;
let bindingA: string;
let hooks: string[];

/** The value of an Output, for the `...Output` twins. */
function value<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply((v) => resolve(v)));
}

beforeAll(async () => {
  emu = await startEmulator();
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  teamA = (await client.groups.create(emu.orgUid, { name: "team-a" })).uid;
  teamB = (await client.groups.create(emu.orgUid, { name: "team-b" })).uid;
  repo = (await client.repos.create(teamA, { name: "app", bundles: ["x"], catalogTier: "CATALOG_TIER_BASE" })).uid;
  toolsA = (await client.overlays.create(teamA, { name: "tools", config: { contents: { packages: ["curl"] } } })).uid;
  toolsB = (await client.overlays.create(teamB, { name: "tools", config: { contents: { packages: ["jq"] } } })).uid;
  bindingA = (await client.overlayBindings.create(repo, { overlay: toolsA, tags: ["latest"] })).uid;
  hooks = [];
  for (const sink of ["https://hooks.example.com/1", "https://hooks.example.com/2"]) hooks.push((await subscriptionKind.collection(client).create(teamA, { sink })).uid);
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

describe("overlays", () => {
  it("lists by group and name; the singular lookup refuses a name two groups share, listing both", async () => {
    expect((await getOverlays({ childrenOf: teamB }, client)).map((o) => o.uid)).toEqual([toolsB]);
    expect((await getOverlays({ name: "tools" }, client)).map((o) => o.uid).sort()).toEqual([toolsA, toolsB].sort());
    expect((await getOverlay({ name: "tools", parentUid: teamA }, client)).config).toEqual({ contents: { packages: ["curl"] } });
    const err = await getOverlay({ name: "tools" }, client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LookupError);
    expect((err as LookupError).reason).toBe("AMBIGUOUS");
    expect((err as LookupError).message).toContain(toolsA);
    expect((await value(getOverlayOutput({ uid: toolsB }, client))).name).toBe("tools");
    expect(await value(getOverlaysOutput({ childrenOf: teamA }, client))).toHaveLength(1);
  });
});

describe("overlay bindings", () => {
  it("filters by repo and by overlay (the List's overlay filter), with the overlay expanded", async () => {
    const since = emu.requests.length;
    expect((await getOverlayBindings({ overlayUid: toolsA }, client)).map((b) => b.uid)).toEqual([bindingA]);
    expect(emu.requests[since]!.query["overlay"]).toBe(toolsA);
    expect(await getOverlayBindings({ overlayUid: toolsB }, client)).toEqual([]);
    const b = await getOverlayBinding({ repoUid: repo }, client);
    expect(b).toMatchObject({ uid: bindingA, tags: ["latest"], overlay: { uid: toolsA, name: "tools" } });
    await expect(getOverlayBinding({ repoUid: repo, overlayUid: toolsB }, client)).rejects.toThrow(/getOverlayBinding: no overlay binding matches \{ repoUid=.*overlayUid=/);
    await expect(getOverlayBindings({ repoUid: repo, childrenOf: teamA }, client)).rejects.toThrow(/repoUid and childrenOf name different parents/);
    expect((await value(getOverlayBindingOutput({ uid: bindingA }, client))).tags).toEqual(["latest"]);
    expect(await value(getOverlayBindingsOutput({ repoUid: repo }, client))).toHaveLength(1);
  });
});

describe("subscriptions", () => {
  it("lists a group's subscriptions and finds one by its sink (filtered here: the List has no sink filter)", async () => {
    expect((await getSubscriptions({ childrenOf: teamA }, client)).map((s) => s.uid).sort()).toEqual([...hooks].sort());
    expect((await getSubscription({ parentUid: teamA, sink: "https://hooks.example.com/2" }, client)).uid).toBe(hooks[1]);
    const err = (await getSubscription({ parentUid: teamA }, client).catch((e: unknown) => e)) as LookupError;
    expect(err.reason).toBe("AMBIGUOUS");
    expect(err.uids.slice().sort()).toEqual([...hooks].sort());
    await expect(getSubscription({ parentUid: teamA, sink: "https://nowhere.example.com" }, client)).rejects.toThrow(/no subscription matches/);
    expect(await getSubscriptions({ parentUid: teamA, sink: "https://hooks.example.com/2" }, client)).toHaveLength(1);
    await expect(getSubscriptions({ target: "x" } as never, client)).rejects.toThrow(/unknown argument "target"/);
    expect((await value(getSubscriptionOutput({ uid: hooks[0]! }, client))).sink).toBe("https://hooks.example.com/1");
    expect(await value(getSubscriptionsOutput({ childrenOf: teamB }, client))).toEqual([]);
  });
});

describe("repos", () => {
  it("returns the fields the Repo resource manages", async () => {
    expect(await getRepo({ uid: repo }, client)).toMatchObject({ name: "app", bundles: ["x"], catalogTier: "CATALOG_TIER_BASE", aliases: [], activeTags: [] });
  });
});
