/**
 * The provider context (`docs/architecture.md`, "The provider context"): a kind's provider bound to a context
 * reaches the API through that context's settings and client, and records its creates (a new group's consistency
 * window, the objects it made, identical creates' turns) in that context's ledger only. Two contexts share none of it.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../emulator";
import { resolveSettings, SETTINGS_ENV } from "../provider/config";
import { ProviderContext, processContext } from "../provider/engine/context";
import { groupKind } from "../provider/kinds/group";
import { identityKind } from "../provider/kinds/identity";
import { roleBindingKind } from "../provider/kinds/roleBinding";
import { candidatesInWindow } from "../provider/engine/lifecycle";
import { KINDS, kindEntry } from "../provider/kinds/registry";
import { localProvider } from "../provider/runtime";
import { getClient } from "../provider/state";
import { FAST_RETRIES, useProviderEmulator } from "./harness/provider";

let emu: Emulator;
useProviderEmulator((started) => {
  emu = started;
}, FAST_RETRIES);
beforeEach(() => emu.control.reset());

/** A fresh context pointed at the emulator. */
const contexts: ProviderContext[] = [];
function contextOnEmulator(): ProviderContext {
  const ctx = new ProviderContext();
  const settings: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token, ...FAST_RETRIES };
  ctx.configure((k) => settings[k]);
  contexts.push(ctx);
  return ctx;
}
afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
});

describe("two provider contexts", () => {
  it("do not share claims: an object claimed in one is still a recovery candidate in the other", async () => {
    const a = new ProviderContext();
    const b = new ProviderContext();
    const now = Date.now();
    const rows = [{ uid: "p/made", createTime: new Date(now).toISOString() }];
    const transport = { serverClockOffsetMs: () => 0 };
    a.creates.claim("p/made");
    expect(a.creates.isClaimed("p/made")).toBe(true);
    expect(b.creates.isClaimed("p/made")).toBe(false);
    expect(await candidatesInWindow({ transport, creates: a.creates }, now, now + 10, async () => rows)).toEqual([]);
    expect((await candidatesInWindow({ transport, creates: b.creates }, now, now + 10, async () => rows)).map((r) => r.uid)).toEqual(["p/made"]);
  });

  it("do not share turns: a key held in one context does not make the other wait", async () => {
    const a = new ProviderContext();
    const b = new ProviderContext();
    const release = await a.creates.acquire("k");
    expect(a.creates.keysHeld()).toBe(1);
    expect(b.creates.keysHeld()).toBe(0);
    let second = false;
    const waiting = a.creates.acquire("k").then((r) => ((second = true), r));
    const other = await b.creates.acquire("k"); // would hang (test timeout) if b waited for a's holder
    expect(second).toBe(false);
    other();
    release();
    (await waiting)();
    expect(a.creates.keysHeld()).toBe(0);
  });

  it("a group created through context A opens its consistency window in A only: A's child create waits it out, B's is refused", async () => {
    const a = contextOnEmulator();
    const b = contextOnEmulator();
    const parent = await groupKind.providerFor(a).create({ parentUid: emu.orgUid, name: "ctx-parent", description: "" });
    expect(a.creates.inWindow(parent.id)).toBe(true);
    expect(b.creates.inWindow(parent.id)).toBe(false);
    expect(processContext().creates.inWindow(parent.id)).toBe(false);
    emu.control.set({ consistencyDelayMs: 400 });
    await expect(groupKind.providerFor(b).create({ parentUid: parent.id, name: "b-child", description: "" })).rejects.toThrow(/code 7/);
    const child = await groupKind.providerFor(a).create({ parentUid: parent.id, name: "a-child", description: "" });
    expect(child.id.startsWith(`${parent.id}/`)).toBe(true);
  });

  it("an object a create through context A returned is claimed in A, not in B nor in the process's context", async () => {
    const a = contextOnEmulator();
    const b = contextOnEmulator();
    const group = await groupKind.providerFor(a).create({ parentUid: emu.orgUid, name: "ctx-claims", description: "" });
    const ident = await identityKind.providerFor(a).create({ parentUid: group.id, name: "bot", description: "", claimMatch: { issuer: "https://i.example", subject: "s" } });
    const viewer = (await getClient().roles.list({ name: "viewer" }).collect())[0]!;
    const made = await roleBindingKind.providerFor(a).create({ groupUid: group.id, identityUid: ident.id, roleUid: viewer.uid });
    expect([group.id, ident.id, made.id].map((uid) => a.creates.isClaimed(uid))).toEqual([true, true, true]);
    expect([group.id, ident.id, made.id].map((uid) => b.creates.isClaimed(uid))).toEqual([false, false, false]);
    expect(processContext().creates.isClaimed(made.id)).toBe(false);
  });

  it("a provider bound to a context uses that context's settings, not the process's", async () => {
    const unconfigured = new ProviderContext(); // no apiUrl in its config (the environment has none in tests either)
    const saved = process.env["PLATFORM_API_URL"];
    delete process.env["PLATFORM_API_URL"];
    try {
      await expect(groupKind.providerFor(unconfigured).create({ parentUid: emu.orgUid, name: "nowhere", description: "" })).rejects.toThrow(/platform:apiUrl/);
      const made = await groupKind.providerFor(contextOnEmulator()).create({ parentUid: emu.orgUid, name: "somewhere", description: "" });
      expect(made.id.startsWith(`${emu.orgUid}/`)).toBe(true);
    } finally {
      if (saved !== undefined) process.env["PLATFORM_API_URL"] = saved;
    }
  });
});

describe("the process's context", () => {
  it("is what the runtime's providers, the default provider exports and state.ts share", async () => {
    expect(getClient()).toBe(processContext().client());
    const made = await localProvider("Group").create!({ parentUid: emu.orgUid, name: "via-runtime", description: "" });
    expect(processContext().creates.inWindow(made.id)).toBe(true);
    const viaExport = await kindEntry("Group")!.provider.create({ parentUid: emu.orgUid, name: "via-export", description: "" });
    expect(processContext().creates.isClaimed(viaExport.id)).toBe(true);
  });
});

describe("a context configured with a stable lookup (the runtime's configure request)", () => {
  /** A context over `config` (a mutable map), stable or not, and a count of the lookups it made. */
  function counted(config: Record<string, string>, stable: boolean): { ctx: ProviderContext; lookups: () => number } {
    let n = 0;
    const ctx = new ProviderContext();
    ctx.configure((k) => {
      n++;
      return config[k];
    }, stable);
    contexts.push(ctx);
    return { ctx, lookups: () => n };
  }

  it("resolves the settings once, keeps the same client, and asks the config no more", () => {
    const { ctx, lookups } = counted({ "platform:apiUrl": emu.url, "platform:token": emu.token }, true);
    const first = ctx.clientAndSettings();
    const asked = lookups();
    expect(asked).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      const again = ctx.clientAndSettings();
      expect(again.settings).toBe(first.settings);
      expect(again.client).toBe(first.client);
    }
    expect(lookups()).toBe(asked);
  });

  it("resolves again when a PLATFORM_* environment variable changes, and a changed API URL makes a new client", () => {
    const { ctx } = counted({ "platform:token": emu.token }, true);
    const saved = process.env["PLATFORM_API_URL"];
    try {
      process.env["PLATFORM_API_URL"] = emu.url;
      const first = ctx.clientAndSettings();
      process.env["PLATFORM_API_URL"] = `${emu.url}/`; // the same URL once its trailing slash is cut: a new resolve
      const second = ctx.clientAndSettings();
      expect(second.settings).not.toBe(first.settings);
      expect(second.client).toBe(first.client);
      process.env["PLATFORM_API_URL"] = "http://127.0.0.1:9";
      const third = ctx.clientAndSettings();
      expect(third.settings.apiUrl).toBe("http://127.0.0.1:9");
      expect(third.client).not.toBe(first.client);
    } finally {
      if (saved === undefined) delete process.env["PLATFORM_API_URL"];
      else process.env["PLATFORM_API_URL"] = saved;
    }
  });

  it("is not kept when the lookup is not stable: a changed config is seen at the next call", () => {
    const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
    const { ctx } = counted(config, false);
    expect(ctx.settings().apiUrl).toBe(emu.url);
    config["platform:apiUrl"] = "http://127.0.0.1:9";
    expect(ctx.settings().apiUrl).toBe("http://127.0.0.1:9");
  });

  it("a new configure drops what was kept", () => {
    const { ctx } = counted({ "platform:apiUrl": emu.url, "platform:token": emu.token }, true);
    expect(ctx.settings().apiUrl).toBe(emu.url);
    ctx.configure((k) => ({ "platform:apiUrl": "http://127.0.0.1:9", "platform:token": "t" })[k], true);
    expect(ctx.settings().apiUrl).toBe("http://127.0.0.1:9");
  });
});

describe("SETTINGS_ENV", () => {
  it("names every environment variable the settings are resolved from", () => {
    const read = new Set<string>();
    const env = new Proxy({ PLATFORM_API_URL: "http://127.0.0.1:9", PLATFORM_TOKEN: "t" } as NodeJS.ProcessEnv, {
      get(target, name) {
        if (typeof name === "string") read.add(name);
        return target[name as string];
      },
    });
    resolveSettings(() => undefined, env);
    expect(read.size).toBeGreaterThan(10);
    expect([...read].filter((n) => !SETTINGS_ENV.includes(n))).toEqual([]);
  });
});

describe("what a group's delete knows of the other kinds", () => {
  it("comes from the kind registry through the context, every blocking kind in the registry's order", async () => {
    const { blocking, containers } = new ProviderContext().groupChildren();
    expect(blocking.map(([kind]) => kind)).toEqual(KINDS.filter((k) => k.list && k.blocksGroupDelete).map((k) => k.kind));
    expect([...containers].sort()).toEqual(KINDS.filter((k) => k.container).map((k) => k.kind).sort());
    // The delete hook receives the context it is bound to: a stuck group names its children through it.
    const group = groupKind.providerFor(contextOnEmulator());
    const parent = await group.create({ parentUid: emu.orgUid, name: "held-by-context", description: "" });
    await group.create({ parentUid: parent.id, name: "kid", description: "" });
    const err = await group.delete!(parent.id, { parentUid: emu.orgUid, name: "held-by-context", description: "", deleteTimeoutSeconds: 0.05 } as never).catch((e: unknown) => e);
    expect(String(err)).toContain('children left: Group "kid" (/held-by-context/kid');
  });

  it("without the registry loaded, a group's delete says so instead of listing nothing", async () => {
    vi.resetModules();
    const fresh = (await import("../provider/engine/context")) as typeof import("../provider/engine/context");
    expect(() => new fresh.ProviderContext().groupChildren()).toThrow(/kind registry \(kinds\/registry\.ts\) is not loaded/);
  });
});
