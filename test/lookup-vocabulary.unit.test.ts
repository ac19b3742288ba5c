/**
 * One vocabulary across the lookups: every filter a singular lookup takes (`getGroup({ parentUid })`), its plural
 * takes too (`getGroups({ parentUid })`), meaning the same, against the emulator over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import * as lookups from "../provider/lookups";
import { subscriptionKind } from "../provider/kinds/subscription";

let emu: Emulator;
let client: PlatformClient;
let team: string;
beforeAll(async () => {
  emu = await startEmulator();
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  team = (await client.groups.create(emu.orgUid, { name: "vocab-team" })).uid;
  await client.groups.create(team, { name: "vocab-a" });
  await client.groups.create(team, { name: "vocab-b" });
  await client.groups.create(emu.orgUid, { name: "vocab-elsewhere" });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

/** Each singular lookup with the plural that lists the same kind; advisories name their lists in the plural (`advisoryIds`). */
const PAIRS: Array<[singular: keyof typeof lookups, plural: keyof typeof lookups, filters: Record<string, string>]> = [
  ["getGroup", "getGroups", { name: "x", parentUid: "p" }],
  ["getIdentity", "getIdentities", { name: "x", parentUid: "p" }],
  ["getRole", "getRoles", { name: "x", parentUid: "p" }],
  ["getRepo", "getRepos", { name: "x", parentUid: "p" }],
  ["getOverlay", "getOverlays", { name: "x", parentUid: "p" }],
  ["getSubscription", "getSubscriptions", { parentUid: "p", sink: "https://hooks.example.com/x" }],
  ["getRoleBinding", "getRoleBindings", { groupUid: "p", identityUid: "i", roleUid: "r" }],
  ["getTag", "getTags", { name: "x", repoUid: "p", digest: "sha256:00" }],
  ["getOverlayBinding", "getOverlayBindings", { repoUid: "p", overlayUid: "o" }],
];

describe("every filter of a singular lookup", () => {
  it.each(PAIRS)("%s's filters are known to %s", async (singular, plural, filters) => {
    const one = lookups[singular] as (a: object, c: PlatformClient) => Promise<unknown>;
    const many = lookups[plural] as (a: object, c: PlatformClient) => Promise<unknown>;
    for (const [k, v] of Object.entries(filters)) {
      // The singular takes it (it fails for lack of a match or a bad uid, never for an unknown argument) …
      const e1 = await one({ [k]: v }, client).then(() => undefined, (e: unknown) => e);
      expect(String(e1)).not.toMatch(/unknown argument/);
      // … and so does the plural.
      const e2 = await many({ [k]: v }, client).then(() => undefined, (e: unknown) => e);
      expect(String(e2), `${plural}({ ${k} })`).not.toMatch(/unknown argument/);
    }
  });
});

describe("parentUid on a plural lookup", () => {
  it("lists the same children as childrenOf", async () => {
    const byParent = await lookups.getGroups({ parentUid: team }, client);
    const byChildren = await lookups.getGroups({ childrenOf: team }, client);
    expect(byParent.map((g) => g.name).sort()).toEqual(["vocab-a", "vocab-b"]);
    expect(byParent).toEqual(byChildren);
  });

  it("agrees with childrenOf when both are given, and names both when they differ", async () => {
    expect(await lookups.getGroups({ parentUid: team, childrenOf: team }, client)).toHaveLength(2);
    await expect(lookups.getGroups({ parentUid: team, childrenOf: emu.orgUid }, client)).rejects.toThrow(
      `getGroups: childrenOf and parentUid name different parents ("${emu.orgUid}", "${team}"); give one`,
    );
  });

  it("groupUid lists a group's role bindings, as getRoleBinding's filter does", async () => {
    const id = await client.identities.create(team, { name: "vocab-bot", claimMatch: { issuer: "https://issuer.example.com", subject: "bot" } });
    const [viewer] = await lookups.getRoles({ name: "viewer" }, client);
    await client.roleBindings.create(team, { identityUid: id.uid, roleUid: viewer!.uid });
    const bindings = await lookups.getRoleBindings({ groupUid: team }, client);
    expect(bindings.map((b) => b.identityUid ?? b.identity?.uid)).toEqual([id.uid]);
  });

  it("sink filters a group's subscriptions", async () => {
    const sink = "https://hooks.example.com/vocab";
    await subscriptionKind.collection(client).create(team, { sink });
    await subscriptionKind.collection(client).create(team, { sink: "https://hooks.example.com/other" });
    const found = await lookups.getSubscriptions({ parentUid: team, sink }, client);
    expect(found.map((s) => s.sink)).toEqual([sink]);
  });
});
