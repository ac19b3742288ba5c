/**
 * Conformance: event subscriptions, `/events/{v2beta1,v2}/subscriptions`: create under a group with
 * an https `sink`, GET, List (filters, paging), DELETE; no PATCH; RESOURCE_NOT_EMPTY on the group; authorization.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Empty } from "../../provider/client/schemas";
import { RFC3339_MS, api, builtinRole, create, expectInvalid, expectNotFound, expectOk, expectPrecondition, expectStatus, fieldViolations, mkGroup, qs, type Json, type Res } from "./helpers";
import { useEmulator } from "../harness/emulator";

const E = "/events/v2beta1/subscriptions";
const Subscription = z.strictObject({
  uid: z.string().regex(/^[0-9a-f]{40}(\/[0-9a-f]{16})+$/),
  sink: z.string().startsWith("https://"),
  createTime: z.string().regex(RFC3339_MS),
  updateTime: z.string().regex(RFC3339_MS),
});
const Envelope = z.strictObject({ subscriptions: z.array(Subscription), nextPageToken: z.string().optional(), totalCount: z.string().regex(/^(0|[1-9]\d*)$/), skipped: z.number().int() });

const emu = useEmulator();
let n = 0;
const fresh = async (parent?: string) => (await mkGroup(emu, parent ?? emu.orgUid, `ev-${++n}`)).uid as string;
const ok = (res: Res) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Subscription.parse(res.body);
};
const subscribe = async (g: string, sink = `https://hooks.example/${++n}`) => ok(await api(emu, "POST", `${E}/${g}`, { sink }));
const list = async (params: Record<string, string | number | string[] | undefined>, token?: string) => {
  const res = await api(emu, "GET", `${E}${qs(params)}`, undefined, token ?? emu.token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Envelope.parse(res.body);
};

describe("subscriptions", () => {
  it("creates under a group (uid a UIDP under it, read-only fields ignored), GETs, and DELETEs; a second DELETE is NOT_FOUND", async () => {
    const g = await fresh();
    const sub = ok(await api(emu, "POST", `${E}/${g}`, { sink: "https://hooks.example/in", uid: "spoofed", createTime: "1999-01-01T00:00:00.000Z" }));
    expect(sub.uid).toMatch(new RegExp(`^${g}/[0-9a-f]{16}$`));
    expect(sub.sink).toBe("https://hooks.example/in");
    expect(sub.createTime).toBe(sub.updateTime);
    expect(sub.createTime).not.toBe("1999-01-01T00:00:00.000Z");
    expect(ok(await api(emu, "GET", `${E}/${sub.uid}`))).toEqual(sub);
    expectOk(await api(emu, "DELETE", `${E}/${sub.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${E}/${sub.uid}`), sub.uid);
    expectNotFound(await api(emu, "DELETE", `${E}/${sub.uid}`), sub.uid);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["not a string", 42],
    ["not a URL", "hooks.example/in"],
    ["http", "http://hooks.example/in"],
    ["http on loopback", "http://127.0.0.1:8080/in"],
    ["another scheme", "ftp://hooks.example/in"],
    ["credentials in the URL", "https://user:pw@hooks.example/in"],
  ])("a sink that is %s is INVALID_ARGUMENT naming sink", async (_why, sink) => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${E}/${g}`, sink === undefined ? {} : { sink }), ["sink"]);
    expect((await list({ "uidp.children_of": g })).totalCount).toBe("0");
  });

  it("unknown fields are INVALID_ARGUMENT, reported together with a bad sink in one BadRequest", async () => {
    const g = await fresh();
    const s = expectInvalid(await api(emu, "POST", `${E}/${g}`, { sink: "http://x", events: ["repo.created"], filter: {} }), ["sink", "events", "filter"]);
    expect(fieldViolations(s)).toHaveLength(3);
  });

  it("has no PATCH (code 12, HTTP 405); a create under a missing group is NOT_FOUND", async () => {
    const sub = await subscribe(await fresh());
    expectStatus(await api(emu, "PATCH", `${E}/${sub.uid}`, { sink: "https://other.example" }), 12, 405);
    expect(ok(await api(emu, "GET", `${E}/${sub.uid}`)).sink).toBe(sub.sink);
    const missing = `${emu.orgUid}/0123456789abcdef`;
    expectNotFound(await api(emu, "POST", `${E}/${missing}`, { sink: "https://hooks.example" }), missing);
  });

  it("List pages (snake and camel), orders by sink, skips, and filters uidp.*", async () => {
    const g = await fresh();
    const kid = await fresh(g);
    const subs = [];
    for (const s of ["e", "b", "d", "a", "c"]) subs.push(await subscribe(g, `https://${s}.example/hook`));
    const deep = await subscribe(kid, "https://deep.example/hook");
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await list({ "uidp.children_of": g, page_size: 2, page_token: token });
      expect(page.subscriptions.length).toBeLessThanOrEqual(2);
      expect(page.totalCount).toBe("5");
      seen.push(...page.subscriptions.map((s) => s.uid));
      token = page.nextPageToken || undefined;
    } while (token);
    expect(seen).toEqual(subs.map((s) => s.uid).sort());
    const desc = await list({ "uidp.descendantsOf": g, orderBy: "sink desc", pageSize: 3 });
    expect(desc.subscriptions.map((s) => s.sink)).toEqual(["https://e.example/hook", "https://deep.example/hook", "https://d.example/hook"]);
    expect(desc.totalCount).toBe("6");
    const skipped = await list({ "uidp.children_of": g, order_by: "sink", skip: 4 });
    expect(skipped.subscriptions.map((s) => s.sink)).toEqual(["https://e.example/hook"]);
    expect(skipped.skipped).toBe(4);
    expect((await list({ "uidp.ids": [deep.uid] })).subscriptions).toEqual([deep]);
    expect((await list({ "uidp.ancestorsOf": `${deep.uid}/0123456789abcdef` })).subscriptions).toEqual([deep]);
  });

  it("§4 rule 4: a group with a subscription is RESOURCE_NOT_EMPTY naming subscriptions until it is deleted", async () => {
    const g = await fresh();
    const sub = await subscribe(g);
    const v = expectPrecondition(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), "RESOURCE_NOT_EMPTY");
    expect(v[0]!.description).toContain("subscriptions (1)");
    expectOk(await api(emu, "DELETE", `${E}/${sub.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), Empty);
  });

  it("the GA path /events/v2/ serves the same collection; there is no v1 form", async () => {
    const sub = ok(await api(emu, "POST", `/events/v2/subscriptions/${await fresh()}`, { sink: "https://ga.example" }));
    expect(ok(await api(emu, "GET", `${E}/${sub.uid}`)).sink).toBe("https://ga.example");
    expectStatus(await api(emu, "GET", "/events/v1/subscriptions"), 5, 404);
    expectStatus(await api(emu, "GET", E, undefined, null), 16, 401);
  });

  it("a viewer reads the group's subscriptions but cannot create or delete one; an editor creates but only an owner deletes", async () => {
    const g = await fresh();
    const sub = await subscribe(g);
    const tokenFor = async (role: string) => {
      const id: Json = await create(emu, "identities", g, { name: `ev-actor-${++n}`, claimMatch: { issuer: "https://issuer.example", subject: `ev-${n}` } });
      await create(emu, "roleBindings", g, { identityUid: id.uid, roleUid: await builtinRole(emu, role) });
      return emu.mintToken(id.uid);
    };
    const viewer = await tokenFor("viewer");
    expect(ok(await api(emu, "GET", `${E}/${sub.uid}`, undefined, viewer)).uid).toBe(sub.uid);
    expect((await list({}, viewer)).subscriptions.map((s) => s.uid)).toEqual([sub.uid]);
    expectStatus(await api(emu, "POST", `${E}/${g}`, { sink: "https://nope.example" }, viewer), 7, 403);
    expectStatus(await api(emu, "DELETE", `${E}/${sub.uid}`, undefined, viewer), 7, 403);
    const editor = await tokenFor("editor");
    const mine = ok(await api(emu, "POST", `${E}/${g}`, { sink: "https://editor.example" }, editor));
    expectStatus(await api(emu, "DELETE", `${E}/${mine.uid}`, undefined, editor), 7, 403);
    expect((await list({ "uidp.children_of": g })).totalCount).toBe("2");
    const outsider = await (async () => {
      const other = await fresh();
      const id: Json = await create(emu, "identities", other, { name: `ev-out-${++n}`, claimMatch: { issuer: "https://issuer.example", subject: `ev-${n}` } });
      await create(emu, "roleBindings", other, { identityUid: id.uid, roleUid: await builtinRole(emu, "viewer") });
      return emu.mintToken(id.uid);
    })();
    expect((await list({ "uidp.descendants_of": g }, outsider)).totalCount).toBe("0");
    expectStatus(await api(emu, "GET", `${E}/${sub.uid}`, undefined, outsider), 7, 403);
  });
});
