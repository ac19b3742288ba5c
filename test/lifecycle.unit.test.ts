/**
 * The provider's safety behaviour against faults the emulator injects: retries of idempotent requests only,
 * the consistency window after a new group, creates that never duplicate after a lost response, adoption.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { UnavailableError } from "../provider/client/errors";
import { DEFAULT_RETRY, backoffMs, parseRetryAfter } from "../provider/client/retry";
import { groupKind, type GroupInputs } from "../provider/kinds/group";
import { identityKind } from "../provider/kinds/identity";
import { roleBindingKind } from "../provider/kinds/roleBinding";
import { groupInviteKind } from "../provider/kinds/groupInvite";
import { accountAssociationKind } from "../provider/kinds/accountAssociation";
import {
  CLOCK_SKEW_MS,
  SERVER_WINDOW_SLACK_MS,
  CreateLedger,
  adoptOnlyCandidate,
  candidatesInWindow,
  createdWithin,
  markDescription,
  markerToken,
  serverWindow,
  stripMarker,
} from "../provider/engine/lifecycle";
import { processContext } from "../provider/engine/context";
import { getClient } from "../provider/state";
import { FAST_RETRIES, useProviderEmulator } from "./harness/provider";

let emu: Emulator;
useProviderEmulator((started) => {
  emu = started;
}, FAST_RETRIES);
beforeEach(() => emu.control.reset());

const posts = (since: number) => emu.requests.slice(since).filter((r) => r.method === "POST");
const groupsNamed = async (parent: string, name: string) => getClient().groups.list({ childrenOf: parent, name }).collect();

describe("retry policy", () => {
  it("retries a GET through injected UNAVAILABLE errors and succeeds", async () => {
    emu.control.set({ errorRates: { "14": 0.6 }, seed: 7 });
    const since = emu.requests.length;
    const g = await getClient().groups.get(emu.orgUid);
    expect(g.uid).toBe(emu.orgUid);
    expect(emu.requests.slice(since).some((r) => r.status === 503)).toBe(true);
  });

  it("gives up after maxAttempts with the last error", async () => {
    emu.control.set({ errorRates: { "14": 1 } });
    const client = new PlatformClient({ apiUrl: emu.url, token: emu.token, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
    const since = emu.requests.length;
    await expect(client.groups.get(emu.orgUid)).rejects.toBeInstanceOf(UnavailableError);
    expect(emu.requests.length - since).toBe(3);
    await client.close();
  });

  it("never retries a POST on a plain error", async () => {
    emu.control.set({ errorRates: { "13": 1 } });
    const since = emu.requests.length;
    await expect(getClient().groups.create(emu.orgUid, { name: "no-retry" })).rejects.toThrow(/code 13/);
    expect(posts(since)).toHaveLength(1);
  });

  it("waits with full jitter within the cap, and honours a capped Retry-After", () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000, retryAfterCapMs: 5000 };
    expect(backoffMs(p, 0, undefined, () => 0.999)).toBeLessThan(100);
    expect(backoffMs(p, 10, undefined, () => 0.999)).toBeLessThanOrEqual(1000);
    expect(backoffMs(p, 3, 2000)).toBe(2000);
    expect(backoffMs(p, 3, 60_000)).toBe(5000);
    expect(parseRetryAfter("7")).toBe(7000);
    expect(parseRetryAfter(new Date(Date.now() + 3000).toUTCString())).toBeGreaterThan(1000);
  });
});

describe("creates", () => {
  it("retries a child create while a new parent group is not yet visible (consistency window)", async () => {
    const parent = await groupKind.provider.create({ parentUid: emu.orgUid, name: "fresh-parent", description: "" });
    emu.control.set({ consistencyDelayMs: 400 });
    const since = emu.requests.length;
    const child = await groupKind.provider.create({ parentUid: parent.id, name: "eager-child", description: "" });
    expect(child.id.startsWith(`${parent.id}/`)).toBe(true);
    const denied = posts(since).filter((r) => r.status === 403);
    expect(denied.length).toBeGreaterThan(0);
    expect(await groupsNamed(parent.id, "eager-child")).toHaveLength(1);
  });

  it("does not retry PERMISSION_DENIED under a parent it did not just create", async () => {
    const old = await getClient().groups.create(emu.orgUid, { name: "made-elsewhere" });
    emu.control.set({ consistencyDelayMs: 60_000 });
    await expect(groupKind.provider.create({ parentUid: old.uid, name: "kid", description: "" })).rejects.toThrow(/code 7/);
  });

  it("adopts the object a lost create response made, leaving no duplicate", async () => {
    emu.control.set({ dropCreateResponses: 1 });
    const since = emu.requests.length;
    const g = await groupKind.provider.create({ parentUid: emu.orgUid, name: "lost-response", description: "d" });
    expect(posts(since).map((r) => r.status)).toEqual([0]);
    const all = await groupsNamed(emu.orgUid, "lost-response");
    expect(all.map((x) => x.uid)).toEqual([g.id]);
  });

  it("adopts a lost role binding create by identity and role", async () => {
    const group = await groupKind.provider.create({ parentUid: emu.orgUid, name: "rb-lost", description: "" });
    const ident = await identityKind.provider.create({ parentUid: group.id, name: "bot", description: "", claimMatch: { issuer: "https://i.example", subject: "s" } });
    const viewer = (await getClient().roles.list({ name: "viewer" }).collect())[0]!;
    emu.control.set({ dropCreateResponses: 1 });
    const b = await roleBindingKind.provider.create({ groupUid: group.id, identityUid: ident.id, roleUid: viewer.uid });
    const bindings = await getClient().roleBindings.list({ childrenOf: group.id }).collect();
    expect(bindings.map((x) => x.uid)).toEqual([b.id]);
  });

  it("after a lost response adopts only the object carrying its own marker, never a same-named one of another writer", async () => {
    const other = await getClient().groups.create(emu.orgUid, { name: "twin", description: "another stack's" });
    emu.control.set({ dropCreateResponses: 1 });
    const made = await groupKind.provider.create({ parentUid: emu.orgUid, name: "twin", description: "mine" });
    expect(made.id).not.toBe(other.uid);
    const twins = await groupsNamed(emu.orgUid, "twin");
    expect(twins.map((g) => g.uid).sort()).toEqual([other.uid, made.id].sort());
    // The marker is gone once the create is settled: the declared description is what the server holds.
    expect(twins.find((g) => g.uid === made.id)?.description).toBe("mine");
    expect(made.outs?.description).toBe("mine");
  });

  it("never takes over another writer's same-named object made while its own POST was lost before the server", async () => {
    // The other writer's group appears while this create's POST is reset before it is handled: under the old
    // rule (any same-named child created in the last 120 s) it was adopted, so two states held one object.
    const other = await getClient().groups.create(emu.orgUid, { name: "contested", description: "x" });
    emu.control.set({ resetRate: 0.5, seed: 138 }); // resets exactly the first request
    const since = emu.requests.length;
    const made = await groupKind.provider.create({ parentUid: emu.orgUid, name: "contested", description: "x" });
    emu.control.set({ resetRate: 0 });
    expect(made.id).not.toBe(other.uid);
    expect(posts(since).map((r) => r.status)).toEqual([0, 200]);
    expect((await groupsNamed(emu.orgUid, "contested")).map((g) => g.uid).sort()).toEqual([other.uid, made.id].sort());
  });

  it("deletes an invite whose create answer (and code) was lost, then creates it again: one live invite, with its code", async () => {
    const [viewer] = await getClient().roles.list({ name: "viewer" }).collect();
    const group = await getClient().groups.create(emu.orgUid, { name: "invites-lost" });
    emu.control.set({ dropCreateResponses: 1 });
    const made = await groupInviteKind.provider.create({ parentUid: group.uid, roleUid: viewer!.uid, ttl: "259200s", email: "a@example.com", singleUse: false } as never);
    const live = await getClient().groupInvites.list({ childrenOf: group.uid }).collect();
    expect(live.map((i) => i.uid)).toEqual([made.id]);
    expect(String((made.outs as { code?: string }).code)).not.toBe("");
  });

  it("adopts its own account association after a lost response, proven by the marker, with the declared description", async () => {
    const group = await getClient().groups.create(emu.orgUid, { name: "assoc-lost" });
    emu.control.set({ dropCreateResponses: 1 });
    const made = await accountAssociationKind.provider.create({ groupUid: group.uid, name: "aws", description: "prod", amazon: { account: "123456789012" } } as never);
    expect(made.id).toBe(group.uid);
    expect((await getClient().accountAssociations.get(group.uid)).description).toBe("prod");
  });

  it("refuses, naming both, when a lost role binding create leaves two matching bindings in its window", () => {
    const rows = [{ uid: "a/1", createTime: "2026-11-23T10:00:00.000Z" }, { uid: "a/2", createTime: "2026-11-23T10:00:00.100Z" }];
    expect(() => adoptOnlyCandidate("role binding", "a", rows, new Error("reset"))).toThrow(/2 matching objects.*a\/1.*a\/2.*adoptUid/);
    expect(adoptOnlyCandidate("role binding", "a", rows.slice(0, 1), new Error("reset"))).toEqual({ adopt: rows[0] });
    expect(adoptOnlyCandidate("role binding", "a", [], new Error("reset"))).toEqual({ retry: true });
  });

  it("turns an attempt's local time window into server time with the Date header's offset", () => {
    const w = serverWindow({ serverClockOffsetMs: () => 60_000 }, 1_000_000, 1_000_200);
    expect(w).toEqual({ from: 1_000_000 + 60_000 - SERVER_WINDOW_SLACK_MS, to: 1_000_200 + 60_000 + SERVER_WINDOW_SLACK_MS });
    expect(createdWithin(new Date(1_060_100).toISOString(), w)).toBe(true);
    expect(createdWithin(new Date(1_000_100).toISOString(), w)).toBe(false); // local time, not server time
    expect(createdWithin(undefined, w)).toBe(false);
    expect(serverWindow({ serverClockOffsetMs: () => undefined }, 0, 10).from).toBe(-CLOCK_SKEW_MS);
  });

  it("marks and unmarks descriptions", () => {
    expect(markDescription("", "0123456789abcdef")).toBe("[pulumi-create:0123456789abcdef]");
    expect(markerToken(markDescription("team", "0123456789abcdef"))).toBe("0123456789abcdef");
    expect(stripMarker(markDescription("team", "0123456789abcdef"))).toBe("team");
    expect(markerToken("team [pulumi-create:xyz]")).toBeUndefined();
  });

  it("rides out injected HTTP 500s on creates: looks up, then resends, leaving exactly one object", async () => {
    emu.control.set({ errorRates: { "13": 0.2 }, seed: 9 }); // seed 9 at 20%: the 1st, 3rd and 9th requests fail, …
    const since = emu.requests.length;
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await groupKind.provider.create({ parentUid: emu.orgUid, name: `flaky-${i}`, description: "" }));
    emu.control.set({ errorRates: {} });
    expect(posts(since).some((r) => r.status === 500)).toBe(true);
    for (let i = 0; i < 6; i++) expect((await groupsNamed(emu.orgUid, `flaky-${i}`)).map((g) => g.uid)).toEqual([made[i]!.id]);
  });

  it("sends a create again when the connection broke before anything was created", async () => {
    // A reset before the request is handled: nothing is committed, the lookup finds nothing, the POST is resent.
    // Seed 138 at rate 0.5 resets exactly the first request (draws 0.14, 0.79, 0.81, 0.57, …).
    emu.control.set({ resetRate: 0.5, seed: 138 });
    const since = emu.requests.length;
    const g = await groupKind.provider.create({ parentUid: emu.orgUid, name: "reset-before", description: "" });
    emu.control.set({ resetRate: 0 });
    expect(posts(since).map((r) => r.status)).toEqual([0, 200]);
    expect((await groupsNamed(emu.orgUid, "reset-before")).map((x) => x.uid)).toEqual([g.id]);
  });
});

describe("identical creates in one process", () => {
  it("take a key in turn, first come first served; other keys at once; a second release does nothing", async () => {
    const order: string[] = [];
    const ledger = new CreateLedger();
    const run = async (key: string, name: string, ms: number) => {
      const release = await ledger.acquire(key);
      order.push(`${name}+`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name}-`);
      release();
      release();
    };
    await Promise.all([run("k", "a", 30), run("k", "b", 1), run("other", "x", 5), run("k", "c", 1)]);
    expect(order.filter((e) => !e.startsWith("x"))).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
    expect(order.indexOf("x-")).toBeLessThan(order.indexOf("a-")); // another key did not wait for "k"
    expect(ledger.keysHeld()).toBe(0);
  });

  it("a recovery never counts an object this process returned or adopted", async () => {
    const scope = { transport: { serverClockOffsetMs: () => 0 }, creates: new CreateLedger() };
    const now = Date.now();
    const rows = [
      { uid: "p/claimed", createTime: new Date(now).toISOString() },
      { uid: "p/lost", createTime: new Date(now + 10).toISOString() },
    ];
    expect((await candidatesInWindow(scope, now, now + 20, async () => rows)).map((r) => r.uid)).toEqual(["p/claimed", "p/lost"]);
    scope.creates.claim("p/claimed");
    expect((await candidatesInWindow(scope, now, now + 20, async () => rows)).map((r) => r.uid)).toEqual(["p/lost"]);
  });

  it("five identical role bindings created at once with every create answer lost: five bindings, each adopted by one create", async () => {
    const group = await groupKind.provider.create({ parentUid: emu.orgUid, name: "rb-twins", description: "" });
    const ident = await identityKind.provider.create({ parentUid: group.id, name: "bot", description: "", claimMatch: { issuer: "https://i.example", subject: "s" } });
    const viewer = (await getClient().roles.list({ name: "viewer" }).collect())[0]!;
    emu.control.set({ dropCreateResponses: 5 });
    const since = emu.requests.length;
    const made = await Promise.all([0, 1, 2, 3, 4].map(() => roleBindingKind.provider.create({ groupUid: group.id, identityUid: ident.id, roleUid: viewer.uid })));
    expect(posts(since).map((r) => r.status)).toEqual([0, 0, 0, 0, 0]);
    const bindings = await getClient().roleBindings.list({ childrenOf: group.id }).collect();
    expect(new Set(made.map((b) => b.id)).size).toBe(5);
    expect(bindings.map((x) => x.uid).sort()).toEqual(made.map((b) => b.id).sort());
    expect(processContext().creates.keysHeld()).toBe(0);
  });

  it("five identical invites created at once with three create answers lost: five live invites, each with its own code", async () => {
    const [viewer] = await getClient().roles.list({ name: "viewer" }).collect();
    const group = await getClient().groups.create(emu.orgUid, { name: "invite-twins" });
    emu.control.set({ dropCreateResponses: 3 });
    const inputs = { parentUid: group.uid, roleUid: viewer!.uid, ttl: "259200s", email: "", singleUse: false } as never;
    const made = await Promise.all([0, 1, 2, 3, 4].map(() => groupInviteKind.provider.create(inputs)));
    const live = await getClient().groupInvites.list({ childrenOf: group.uid }).collect();
    expect(live.map((i) => i.uid).sort()).toEqual(made.map((m) => m.id).sort());
    const codes = made.map((m) => String((m.outs as { code?: string }).code));
    expect(codes.every((c) => c.length > 0)).toBe(true);
    expect(new Set(codes).size).toBe(5);
  });
});

describe("identical creates of two writers (the documented limit, docs/resources-guide.md \"Creates under faults\")", () => {
  it("a lost POST that created nothing takes another writer's identical binding made in its window for its own", async () => {
    const group = await groupKind.provider.create({ parentUid: emu.orgUid, name: "rb-other-writer", description: "" });
    const ident = await identityKind.provider.create({ parentUid: group.id, name: "bot", description: "", claimMatch: { issuer: "https://i.example", subject: "s" } });
    const viewer = (await getClient().roles.list({ name: "viewer" }).collect())[0]!;
    const other = await getClient().roleBindings.create(group.id, { identityUid: ident.id, roleUid: viewer.uid });
    emu.control.set({ resetRate: 0.5, seed: 138 }); // resets exactly the first request, before the server handles it
    const made = await roleBindingKind.provider.create({ groupUid: group.id, identityUid: ident.id, roleUid: viewer.uid });
    expect(made.id).toBe(other.uid);
  });

  it("a lost POST that created nothing deletes another writer's identical invite made in its window, then creates its own", async () => {
    const [viewer] = await getClient().roles.list({ name: "viewer" }).collect();
    const group = await getClient().groups.create(emu.orgUid, { name: "invite-other-writer" });
    const other = await getClient().groupInvites.create(group.uid, { roleUid: viewer!.uid, ttl: "259200s" });
    emu.control.set({ resetRate: 0.5, seed: 138 });
    const made = await groupInviteKind.provider.create({ parentUid: group.uid, roleUid: viewer!.uid, ttl: "259200s", email: "", singleUse: false } as never);
    expect((await getClient().groupInvites.list({ childrenOf: group.uid }).collect()).map((i) => i.uid)).toEqual([made.id]);
    expect(made.id).not.toBe(other.uid);
  });
});

describe("batched reads", () => {
  it("reads that arrive together share one List by uidp.ids; a missing one is confirmed gone with its own GET", async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await groupKind.provider.create({ parentUid: emu.orgUid, name: `batch-${i}`, description: "" }));
    await getClient().groups.delete(made[2]!.id);
    const since = emu.requests.length;
    const reads = await Promise.all(made.map((m) => groupKind.provider.read(m.id, m.outs)));
    expect(reads.map((r) => r.id)).toEqual([made[0]!.id, made[1]!.id, "", made[3]!.id, made[4]!.id]);
    const sent = emu.requests.slice(since).map((r) => `${r.method} ${r.path}${r.query["uidp.ids"] ? ` ids=${r.query["uidp.ids"].split(",").length}` : ""}`);
    expect(sent).toEqual(["GET /iam/v2beta1/groups ids=5", `GET /iam/v2beta1/groups/${made[2]!.id}`]);
  });
});

describe("adoption (adoptUid)", () => {
  it("takes an existing group under management and reconciles its declared fields with one PATCH", async () => {
    const existing = await getClient().groups.create(emu.orgUid, { name: "legacy", description: "old" });
    const since = emu.requests.length;
    const adopted = await groupKind.provider.create({ parentUid: emu.orgUid, name: "legacy", description: "new", adoptUid: existing.uid } as GroupInputs);
    expect(adopted.id).toBe(existing.uid);
    expect(posts(since)).toHaveLength(0);
    expect(emu.requests.slice(since).filter((r) => r.method === "PATCH").map((r) => r.query["updateMask"])).toEqual(["description"]);
    expect((await getClient().groups.get(existing.uid)).description).toBe("new");
  });

  it("refuses to adopt an object under another parent, or one that does not exist", async () => {
    const elsewhere = await getClient().groups.create(emu.orgUid, { name: "elsewhere" });
    const other = await getClient().groups.create(emu.orgUid, { name: "other-parent" });
    await expect(groupKind.provider.create({ parentUid: other.uid, name: "x-x", description: "", adoptUid: elsewhere.uid } as GroupInputs)).rejects.toThrow(/lives under/);
    await expect(groupKind.provider.create({ parentUid: emu.orgUid, name: "x-x", description: "", adoptUid: `${emu.orgUid}/0123456789abcdef` } as GroupInputs)).rejects.toThrow(/no group with uid/);
  });

  it("ignores adoptUid in later diffs (no replace when it is removed)", async () => {
    const olds = { parentUid: emu.orgUid, name: "n-n", description: "", adoptUid: "x" } as GroupInputs;
    expect(await groupKind.provider.diff("id", olds as never, { parentUid: emu.orgUid, name: "n-n", description: "" })).toEqual({ changes: false, replaces: [] });
  });
});
