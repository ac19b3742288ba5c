/**
 * A kind declared with `wire:` (`provider/engine/declare.ts`, `engine/wire.ts`): its wire schema comes from its
 * declaration (uid, the fields the server keeps under their wire keys with their defaults, the server fields
 * optional; loose), a field added to the declaration reaches the schema, and its collection is the client's
 * generic `collection(desc)` (one per collection, against the emulator: `docs/architecture.md`, "Add a kind").
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PlatformClient } from "../provider/client/client";
import { ResponseShapeError } from "../provider/client/errors";
import { createOnly, declareResource, mutable, parent, replace, stateOnly, type Field } from "../provider/engine/declare";
import { createTime, updateTime } from "../provider/engine/fieldTypes";
import { subscriptionKind } from "../provider/kinds/subscription";
import { useEmulator } from "./harness/emulator";

/** The keys of a derived wire schema and, for each, whether a parse needs it (the output side: a default fills it). */
function shapeOf(schema: unknown): Record<string, "required" | "optional"> {
  const js = z.toJSONSchema(schema as z.ZodType, { io: "output", unrepresentable: "any" }) as { properties?: object; required?: string[] };
  const req = new Set(js.required ?? []);
  return Object.fromEntries(Object.keys(js.properties ?? {}).map((k) => [k, req.has(k) ? "required" : "optional"]));
}

/** A declaration with one field of every kind, `extra` added to its fields. */
function widget(extra: Record<string, Field> = {}) {
  return declareResource<object, object, { uid: string }>({
    kind: "WireTestWidget",
    what: "widget",
    module: "registry",
    description: "A test kind.",
    wire: { api: "registry", collection: "widgets" },
    fields: {
      parentUid: parent({ type: z.string().describe("The group.") }),
      name: mutable({ type: z.string().describe("Its name.") }),
      description: mutable({ default: "", type: z.string().optional().describe("Free text.") }),
      syncConfig: mutable({ wireKey: "sync_config", type: z.object({ source: z.string() }).optional().describe("Sync settings.") }),
      digest: replace({ type: z.string().describe("A digest.") }),
      secret: mutable({ secret: true, writeOnly: true, type: z.string().optional().describe("Never returned.") }),
      adoptUid: createOnly({ type: z.string().optional().describe("Adopts.") }),
      timeoutSeconds: stateOnly({ type: z.number().optional().describe("State only.") }),
      ...extra,
    } as never,
    server: { createTime, updateTime },
  });
}

describe("a declaration's derived wire schema", () => {
  it("has uid, the fields the server keeps (wireKey, default) and the server fields optional; no parent, createOnly, stateOnly or write-only field", () => {
    expect(shapeOf(widget().wireSchema)).toEqual({
      uid: "required",
      name: "required",
      description: "required", // its default fills it when the server leaves it out
      sync_config: "optional",
      digest: "required",
      createTime: "optional",
      updateTime: "optional",
    });
  });

  it("is Subscription's: uid, sink, createTime", () => {
    expect(subscriptionKind.wire).toEqual({ api: "events", collection: "subscriptions" });
    expect(shapeOf(subscriptionKind.wireSchema)).toEqual({ uid: "required", sink: "required", createTime: "optional" });
  });

  it("parses loosely: unknown keys pass and are kept; a default fills a missing field; a missing required field fails naming it", () => {
    const s = widget().wireSchema!;
    const row = { uid: "a/b", name: "w", digest: "sha256:0", sync_config: { source: "x/y" }, future: { nested: 1 } };
    const r = s.safeParse(row);
    expect(r).toEqual({ success: true, data: { ...row, description: "" } });
    const bad = s.safeParse({ uid: "a/b", name: "w" });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.error.issues.map((i) => i.path.join("."))).toEqual(["digest"]);
    const sub = subscriptionKind.wireSchema!.safeParse({ uid: "g/0123456789abcdef", sink: "https://h.example", labels: { a: "b" } });
    expect(sub).toEqual({ success: true, data: { uid: "g/0123456789abcdef", sink: "https://h.example", labels: { a: "b" } } });
  });

  it("follows a field added to the declaration, and only one the server keeps", () => {
    const before = shapeOf(widget().wireSchema);
    const after = shapeOf(widget({ tags: mutable({ type: z.array(z.string()).optional().describe("Tags.") }), note: createOnly({ type: z.string().optional().describe("Local.") }) }).wireSchema);
    expect(after).toEqual({ ...before, tags: "optional" });
    const s = widget({ tags: mutable({ type: z.array(z.string()).describe("Tags.") }) }).wireSchema!;
    expect(s.safeParse({ uid: "a/b", name: "w", digest: "d", tags: "not a list" }).success).toBe(false);
  });

  it("is refused with both or neither of collection and wire", () => {
    const base = { kind: "WireTestBad", what: "bad", module: "registry" as const, description: "x", fields: { parentUid: parent(), name: mutable(), description: mutable() } };
    expect(() => declareResource<object, object, { uid: string }>(base as never)).toThrow("declareResource(WireTestBad): give exactly one of collection and wire");
    expect(() => declareResource<object, object, { uid: string }>({ ...base, wire: { api: "x", collection: "y" }, collection: (c: PlatformClient) => c.groups } as never)).toThrow(/exactly one of collection and wire/);
  });
});

describe("PlatformClient.collection", () => {
  let client: PlatformClient;
  const emu = useEmulator(undefined, (e) => {
    client = new PlatformClient({ apiUrl: e.url, token: e.token });
  });
  afterAll(() => client.close());

  it("gives one collection per API collection, and refuses a second, different description of it", () => {
    const schema = subscriptionKind.wireSchema!;
    const a = client.collection({ api: "events", collection: "subscriptions", schema });
    expect(client.collection({ api: "events", collection: "subscriptions", schema })).toBe(a);
    expect(subscriptionKind.collection(client)).toBe(a);
    expect(() => client.collection({ api: "events", collection: "subscriptions", schema: z.looseObject({ uid: z.string() }) })).toThrow(
      "collection events/subscriptions: described twice, differently (another schema, patch or listKey)",
    );
  });

  it("creates, lists, gets and deletes a kind's objects through its derived schema, and names a row the schema refuses", async () => {
    const group = await client.groups.create(emu.orgUid, { name: "wire-test", description: "" });
    const subs = subscriptionKind.collection(client);
    const made = await subs.create(group.uid, { sink: "https://hooks.example.com/wire" });
    expect(made).toMatchObject({ uid: expect.stringMatching(new RegExp(`^${group.uid}/[0-9a-f]{16}$`)), sink: "https://hooks.example.com/wire" });
    expect((await subs.list({ childrenOf: group.uid }).collect()).map((s) => s.sink)).toEqual(["https://hooks.example.com/wire"]);
    expect(await subs.get(made.uid)).toEqual(made);
    // A collection that expects a field the server does not send fails the response, naming the field.
    const strict = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    const wanting = strict.collection({ api: "events", collection: "subscriptions", schema: z.looseObject({ uid: z.string(), colour: z.string() }) });
    await expect(wanting.get(made.uid)).rejects.toThrow(ResponseShapeError);
    await expect(wanting.get(made.uid)).rejects.toThrow(/colour/);
    await strict.close();
    await subs.delete(made.uid);
    expect(await subs.list({ childrenOf: group.uid }).collect()).toEqual([]);
  });

  it("keeps the deprecated PlatformClient.subscriptions working beside the kind's own collection", async () => {
    const group = await client.groups.create(emu.orgUid, { name: "wire-legacy", description: "" });
    const made = await client.subscriptions.create(group.uid, { sink: "https://hooks.example.com/legacy" });
    expect((await subscriptionKind.collection(client).get(made.uid)).sink).toBe("https://hooks.example.com/legacy");
    expect((await client.subscriptions.list({ childrenOf: group.uid }).collect()).map((s) => s.uid)).toEqual([made.uid]);
    await client.subscriptions.delete(made.uid);
    expect(await subscriptionKind.collection(client).list({ childrenOf: group.uid }).collect()).toEqual([]);
  });
});
