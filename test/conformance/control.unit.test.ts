/**
 * Conformance: the emulator's control surface (latency, error rates, connection resets, dropped create
 * responses, token lifetime, clock offset, state dump, reset), over HTTP under `/_emulator/` and through the
 * in-process API. The same tests run against both.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { StatusError, startEmulator, type ControlSettings, type Emulator } from "../../emulator";
import { Empty, Group, Identity, Repo } from "../../provider/client/schemas";
import { ControlSettingsSchema, MintedToken, StateDump, api, base, expectInvalid, expectList, expectOk, expectStatus, getRow, http, jwtPayload, listAll, listPage, mkGroup, type Json } from "./helpers";

/** The documented settings and defaults (the emulator may add more). */
type Settings = z.output<typeof ControlSettingsSchema>;
const DEFAULTS = { latencyMs: 0, errorRates: {}, resetRate: 0, dropCreateResponses: 0, tokenTtlSeconds: 3600, clockOffsetMs: 0, seed: 1 };
const DAY_MS = 24 * 60 * 60 * 1000;

let withControl: Emulator;
let withoutControl: Emulator;

beforeAll(async () => {
  [withControl, withoutControl] = await Promise.all([startEmulator({ control: true }), startEmulator()]);
});
afterAll(async () => {
  await Promise.all([withControl.close(), withoutControl.close()]);
});

/** One way of driving the controls. */
interface Driver {
  name: string;
  emu(): Emulator;
  set(patch: Record<string, unknown>): Promise<Settings>;
  get(): Promise<Settings>;
  /** Sets an invalid patch; returns the rejection's code and field names. */
  reject(patch: Record<string, unknown>): Promise<{ code: number; fields: string[] }>;
  state(): Promise<Record<string, Array<{ uid: string; [k: string]: unknown }>>>;
  reset(): Promise<void>;
  token(identity: string, ttlSeconds?: number): Promise<string>;
}

const httpDriver: Driver = {
  name: "HTTP /_emulator/",
  emu: () => withControl,
  set: async (patch) => expectOk(await http(`${withControl.url}/_emulator/control`, { method: "POST", json: patch }), ControlSettingsSchema),
  get: async () => expectOk(await http(`${withControl.url}/_emulator/control`), ControlSettingsSchema),
  reject: async (patch) => {
    const s = expectInvalid(await http(`${withControl.url}/_emulator/control`, { method: "POST", json: patch }), []);
    return { code: s.code, fields: (s.details.find((d) => d["@type"]?.endsWith("BadRequest")) as Json).fieldViolations.map((v: Json) => v.field) };
  },
  state: async () => expectOk(await http(`${withControl.url}/_emulator/state`), StateDump),
  reset: async () => {
    expectOk(await http(`${withControl.url}/_emulator/reset`, { method: "POST", json: {} }), Empty);
  },
  token: async (identity, ttlSeconds) =>
    expectOk(await http(`${withControl.url}/_emulator/tokens`, { method: "POST", json: { identity, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) } }), MintedToken).token,
};

const inProcessDriver: Driver = {
  name: "in-process API (HTTP control off)",
  emu: () => withoutControl,
  set: async (patch) => ControlSettingsSchema.parse(withoutControl.control.set(patch as Partial<ControlSettings>)),
  get: async () => ControlSettingsSchema.parse(withoutControl.control.get()),
  reject: async (patch) => {
    try {
      withoutControl.control.set(patch as Partial<ControlSettings>);
    } catch (err) {
      expect(err).toBeInstanceOf(StatusError);
      const body = (err as StatusError).toBody();
      return { code: body.code, fields: (body.details.find((d) => String(d["@type"]).endsWith("BadRequest")) as Json).fieldViolations.map((v: Json) => v.field) };
    }
    throw new Error("control.set accepted an invalid patch");
  },
  state: async () => StateDump.parse(JSON.parse(JSON.stringify(withoutControl.dump()))),
  reset: async () => withoutControl.reset(),
  token: (identity, ttlSeconds) => withoutControl.mintToken(identity, ttlSeconds),
};

afterEach(() => {
  // safety net: a failed test must not leave faults on for the next one
  withControl.control.reset();
  withoutControl.control.reset();
});

describe("the HTTP control surface", () => {
  it("is off unless the emulator is started with control: GET /_emulator/control is 404", async () => {
    expectStatus(await http(`${withoutControl.url}/_emulator/control`), 5, 404);
    expectStatus(await http(`${withoutControl.url}/_emulator/control`, { method: "POST", json: { latencyMs: 1 } }), 5, 404);
    expectStatus(await http(`${withoutControl.url}/_emulator/state`), 5, 404);
    expectStatus(await http(`${withoutControl.url}/_emulator/reset`, { method: "POST", json: {} }), 5, 404);
    expectStatus(await http(`${withoutControl.url}/_emulator/tokens`, { method: "POST", json: { identity: withoutControl.ownerUid } }), 5, 404);
    expect(withoutControl.control.get().latencyMs).toBe(0);
    expect(expectOk(await http(`${withControl.url}/_emulator/control`), ControlSettingsSchema)).toMatchObject(DEFAULTS);
  });
});

describe.each([httpDriver, inProcessDriver])("controls through the $name", (d) => {
  it("get returns the settings; set changes only the settings given", async () => {
    const start = await d.get();
    expect(start).toMatchObject(DEFAULTS);
    expect(await d.set({ latencyMs: 5 })).toEqual({ ...start, latencyMs: 5 });
    expect(await d.set({ errorRates: { "14": 0 } })).toEqual({ ...start, latencyMs: 5, errorRates: { "14": 0 } });
    expect(await d.get()).toEqual({ ...start, latencyMs: 5, errorRates: { "14": 0 } });
    await d.set({ latencyMs: 0, errorRates: {} });
  });

  it("set rejects unknown and out-of-range settings with INVALID_ARGUMENT naming each", async () => {
    const r = await d.reject({ colour: 1, resetRate: 2, errorRates: { "14": 7 } });
    expect(r.code).toBe(3);
    expect(r.fields).toEqual(expect.arrayContaining(["colour", "resetRate", "errorRates.14"]));
    expect(await d.get()).toMatchObject(DEFAULTS);
  });

  it("latency adds delay to every API request", async () => {
    const e = d.emu();
    await d.set({ latencyMs: 250 });
    const slowList = await api(e, "GET", base("groups"));
    const slowGet = await api(e, "GET", `${base("repos")}?page_size=1`);
    expectList(slowList, "groups", Group);
    expectList(slowGet, "repos", Repo);
    expect(slowList.ms).toBeGreaterThanOrEqual(240);
    expect(slowGet.ms).toBeGreaterThanOrEqual(240);
    await d.set({ latencyMs: 0 });
    const fast = await api(e, "GET", base("groups"));
    expectList(fast, "groups", Group);
    expect(fast.ms).toBeLessThan(240);
  });

  it("error rate 1 for code 14: every API request fails with code 14 and HTTP 503 until set back to {}", async () => {
    const e = d.emu();
    await d.set({ errorRates: { "14": 1 } });
    const g = `${e.orgUid}`;
    const results = [
      await api(e, "GET", base("groups")),
      await api(e, "GET", `${base("groups")}/${g}`),
      await api(e, "POST", `${base("groups")}/${g}`, { name: "during-outage" }),
      await api(e, "PATCH", `${base("groups")}/${g}`, { description: "x" }),
      await api(e, "GET", base("repos")),
      await api(e, "GET", base("tags")),
      await api(e, "GET", base("advisories")),
      await api(e, "GET", base("roles")),
    ];
    for (const r of results) expectStatus(r, 14, 503, { errorInfo: false });
    await d.set({ errorRates: {} });
    expect(expectOk(await api(e, "GET", `${base("groups")}/${g}`), Group).uid).toBe(g);
    expect((await listPage(e, "groups", { name: "during-outage" })).totalCount).toBe(0);
  });

  it("an error rate below 1 fails that share of requests, reproducibly for a seed", async () => {
    const e = d.emu();
    const run = async () => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await api(e, "GET", `${base("groups")}/${e.orgUid}`);
        if (r.status === 200) expectOk(r, Group);
        else expectStatus(r, 13, 500, { errorInfo: false });
        out.push(r.status);
      }
      return out;
    };
    await d.set({ seed: 7, errorRates: { "13": 0.5 } });
    const a = await run();
    await d.set({ seed: 7 });
    const b = await run();
    await d.set({ errorRates: {} });
    const failures = a.filter((s) => s === 500).length;
    expect(a.every((s) => s === 200 || s === 500)).toBe(true);
    expect(failures).toBeGreaterThanOrEqual(8);
    expect(failures).toBeLessThanOrEqual(32);
    expect(b).toEqual(a);
  });

  it("resetRate 1: the client sees a socket error; 0 restores", async () => {
    const e = d.emu();
    await d.set({ resetRate: 1 });
    await expect(api(e, "GET", base("groups"))).rejects.toThrow();
    await expect(api(e, "POST", `${base("groups")}/${e.orgUid}`, { name: "reset-create" })).rejects.toThrow();
    await d.set({ resetRate: 0 });
    expectList(await api(e, "GET", base("groups")), "groups", Group);
    expect((await listPage(e, "groups", { name: "reset-create" })).totalCount).toBe(0);
  });

  it("dropCreateResponses N: the next N creates commit but the client gets a connection error", async () => {
    const e = d.emu();
    const parent = await mkGroup(e, e.orgUid, "drop-parent");
    await d.set({ dropCreateResponses: 2 });
    await expect(api(e, "POST", `${base("groups")}/${parent.uid}`, { name: "dropped-1" })).rejects.toThrow();
    await expect(api(e, "POST", `${base("groups")}/${parent.uid}`, { name: "dropped-2" })).rejects.toThrow();
    expect((await d.get()).dropCreateResponses).toBe(0);
    const third = expectOk(await api(e, "POST", `${base("groups")}/${parent.uid}`, { name: "answered-3" }), Group);
    const kids = await listAll(e, "groups", { "uidp.children_of": parent.uid });
    expect(kids.map((g) => g.name).sort()).toEqual(["answered-3", "dropped-1", "dropped-2"]);
    expect(kids.map((g) => g.uid)).toContain(third.uid);
  });

  it("tokenTtlSeconds sets the lifetime of tokens minted from then on", async () => {
    const e = d.emu();
    await d.set({ tokenTtlSeconds: 90 });
    const t = await d.token(e.ownerUid);
    const p = jwtPayload(t);
    expect(p.exp! - p.iat!).toBe(90);
    expect(p.sub).toBe(e.ownerUid);
    expectList(await api(e, "GET", base("groups"), undefined, t), "groups", Group);
    await d.set({ tokenTtlSeconds: 3600 });
    const t2 = jwtPayload(await d.token(e.ownerUid));
    expect(t2.exp! - t2.iat!).toBe(3600);
    const expired = await d.token(e.ownerUid, -10);
    expectStatus(await api(e, "GET", base("groups"), undefined, expired), 16, 401);
  });

  it("clockOffsetMs moves the emulator's clock: timestamps and token expiry follow it", async () => {
    const e = d.emu();
    const offset = 10 * DAY_MS;
    await d.set({ clockOffsetMs: offset });
    try {
      expectStatus(await api(e, "GET", base("groups")), 16, 401); // the start token is long expired on the moved clock
      const t = await d.token(e.ownerUid);
      const g = expectOk(await api(e, "POST", `${base("groups")}/${e.orgUid}`, { name: "future" }, t), Group);
      expect(Math.abs(Date.parse(g.createTime!) - (Date.now() + offset))).toBeLessThan(60_000);
      expect(Math.abs(jwtPayload(t).iat! * 1000 - (Date.now() + offset))).toBeLessThan(60_000);
    } finally {
      await d.set({ clockOffsetMs: 0 });
    }
    const now = expectOk(await api(e, "POST", `${base("groups")}/${e.orgUid}`, { name: "present" }), Group);
    expect(Math.abs(Date.parse(now.createTime!) - Date.now())).toBeLessThan(60_000);
  });

  it("the state dump contains created rows", async () => {
    const e = d.emu();
    const g = await mkGroup(e, e.orgUid, "dumped-group", "in the dump");
    const id = expectOk(await api(e, "POST", `${base("identities")}/${g.uid}`, { name: "dumped-id", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }), Identity);
    const state = await d.state();
    for (const c of ["groups", "identities", "roles", "roleBindings", "identityProviders", "accountAssociations", "groupInvites", "repos", "tags", "advisories"]) {
      expect(state, c).toHaveProperty(c);
    }
    expect(state["groups"]!.find((r) => r.uid === g.uid)).toMatchObject({ name: "dumped-group", description: "in the dump" });
    expect(state["identities"]!.find((r) => r.uid === id.uid)).toMatchObject({ name: "dumped-id" });
    expect(state["groups"]!.some((r) => r.uid === e.orgUid)).toBe(true);
  });

  it("reset brings back the start state: created rows gone, org and seeds still there, controls default", async () => {
    const e = d.emu();
    await d.reset();
    const before = await d.state();
    const counts = async () => ({
      groups: (await listPage(e, "groups", { page_size: 1 })).totalCount,
      identities: (await listPage(e, "identities", { page_size: 1 })).totalCount,
      roles: (await listPage(e, "roles", { page_size: 1 })).totalCount,
      repos: (await listPage(e, "repos", { page_size: 1 })).totalCount,
      tags: (await listPage(e, "tags", { page_size: 1 })).totalCount,
      advisories: (await listPage(e, "advisories", { page_size: 1 })).totalCount,
    });
    const start = await counts();
    expect(start.repos).toBeGreaterThan(0);
    const g = await mkGroup(e, e.orgUid, "to-be-reset");
    expectOk(await api(e, "POST", `${base("identities")}/${g.uid}`, { name: "to-be-reset", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }), Identity);
    expectOk(await api(e, "PATCH", `${base("groups")}/${e.orgUid}`, { description: "changed before reset" }), Group);
    await d.set({ latencyMs: 5, tokenTtlSeconds: 60 });
    expect((await counts()).groups).toBe(start.groups + 1);
    await d.reset();
    expect(await d.get()).toMatchObject(DEFAULTS);
    expectStatus(await api(e, "GET", `${base("groups")}/${g.uid}`), 5, 404);
    const root = await getRow(e, "groups", e.orgUid);
    expect(root.description).not.toBe("changed before reset");
    expect(await counts()).toEqual(start);
    expect(await d.state()).toEqual(before);
    expect((await getRow(e, "identities", e.ownerUid)).uid).toBe(e.ownerUid);
  });
});

describe("error injection maps each code to its HTTP status", () => {
  it("an injected error is a google.rpc.Status with an ErrorInfo (reason, domain) like every other error", async () => {
    withoutControl.control.set({ errorRates: { "14": 1 } });
    try {
      expectStatus(await api(withoutControl, "GET", base("groups")), 14, 503);
    } finally {
      withoutControl.control.set({ errorRates: {} });
    }
  });

  it.each([
    [3, 400],
    [5, 404],
    [6, 409],
    [7, 403],
    [9, 400],
    [12, 501],
    [13, 500],
    [14, 503],
    [16, 401],
  ])("code %i -> HTTP %i", async (code, status) => {
    withoutControl.control.set({ errorRates: { [String(code)]: 1 } });
    try {
      expectStatus(await api(withoutControl, "GET", base("groups")), code, status, { errorInfo: false });
    } finally {
      withoutControl.control.set({ errorRates: {} });
    }
    expectList(await api(withoutControl, "GET", base("groups")), "groups", Group);
  });
});

