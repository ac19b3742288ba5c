/**
 * The API client against the emulator over loopback, plus a stub server for responses the emulator never sends
 * (a Status code that disagrees with the HTTP status, a body that is not a Status, a dropped connection).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import {
  ConnectionError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  redact,
} from "../provider/client/errors";

let emu: Emulator;
let client: PlatformClient;
beforeAll(async () => {
  emu = await startEmulator();
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
});
afterAll(async () => {
  await client.close();
  await emu.close();
});

/** A one-route HTTP server answering every request with `status` and `body`. */
async function stub(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json", "x-request-id": "req-123" }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("close", () => {
  it("is idempotent: a second close, and a close after a request, resolve (undici rejects a second close of its agent with ClientDestroyedError)", async () => {
    const c = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    await c.groups.get(emu.orgUid);
    await c.close();
    await expect(c.close()).resolves.toBeUndefined();
  });
});

describe("requests", () => {
  it("puts uids into paths with their slashes, never percent-encoded", async () => {
    const g = await client.groups.create(emu.orgUid, { name: "path-test" });
    await client.groups.get(g.uid);
    const last = emu.requests.at(-1)!;
    expect(last.path).toBe(`/iam/v2beta1/groups/${g.uid}`);
    expect(last.path).not.toContain("%2F");
  });

  it("sends PATCH with updateMask as a comma-separated query parameter", async () => {
    const g = await client.groups.create(emu.orgUid, { name: "mask-client", description: "a" });
    const out = await client.groups.patch(g.uid, { name: "mask-client2", description: "b" }, ["name", "description"]);
    expect(out).toMatchObject({ name: "mask-client2", description: "b" });
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "name,description" } });
  });

  it("uses the configured API version segment", async () => {
    const ga = new PlatformClient({ apiUrl: emu.url, token: emu.token, apiVersion: "v2" });
    await ga.groups.get(emu.orgUid);
    expect(emu.requests.at(-1)!.path).toBe(`/iam/v2/groups/${emu.orgUid}`);
    await ga.close();
  });

  it("keeps fields the schema does not list (lenient parsing)", async () => {
    const root = await client.groups.get(emu.orgUid);
    expect((root as unknown as Record<string, unknown>)["status"]).toBe("ORG_STATUS_READY");
  });

  it("rejects a uid that could escape its path before sending anything", () => {
    expect(() => client.groups.get("../../sts/exchange")).toThrow(/not a valid uid/);
    expect(() => client.groups.get("abc?x=1")).toThrow(/not a valid uid/);
  });
});

describe("pagination", () => {
  it("walks every page lazily, one request per page, in snake_case", async () => {
    const parent = await client.groups.create(emu.orgUid, { name: "pages" });
    for (let i = 0; i < 7; i++) await client.groups.create(parent.uid, { name: `p-${i}` });
    const before = emu.requests.length;
    const it = client.groups.list({ childrenOf: parent.uid, pageSize: 3, orderBy: "name" });
    const first = await it.collect(2);
    expect(first.map((g) => g.name)).toEqual(["p-0", "p-1"]);
    expect(emu.requests.length - before).toBe(1); // the second page was never requested
    expect(emu.requests.at(-1)!.query).toMatchObject({ page_size: "3", order_by: "name", "uidp.children_of": parent.uid });
    const all = await it.collect();
    expect(all.map((g) => g.name)).toEqual(["p-0", "p-1", "p-2", "p-3", "p-4", "p-5", "p-6"]);
    expect(emu.requests.length - before).toBe(1 + 3);
  });

  it("reports totalCount as a number", async () => {
    const pages = client.roles.list({ pageSize: 2 }).pages();
    const { value } = await pages.next();
    expect(value!.totalCount).toBeGreaterThanOrEqual(4);
    expect(value!.nextPageToken).toBeTypeOf("string");
  });
});

describe("errors", () => {
  it("types a NOT_FOUND with the request's method and path", async () => {
    const err = await client.groups.get(`${emu.orgUid}/0123456789abcdef`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ code: 5, httpStatus: 404, request: { method: "GET", path: `/iam/v2beta1/groups/${emu.orgUid}/0123456789abcdef` } });
    expect((err as NotFoundError).requestId).toBeTypeOf("string");
  });

  it("exposes BadRequest field violations", async () => {
    const err = await client.groups.create(emu.orgUid, { name: "UPPER" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).fieldViolations.map((v) => v.field)).toEqual(["name"]);
  });

  it("exposes PreconditionFailure violations", async () => {
    const err = await client.groups.delete(emu.orgUid).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as FailedPreconditionError).preconditionViolations.length).toBe(1);
  });

  it("decides by the body's code, not by the HTTP status", async () => {
    const { url, server } = await stub(400, JSON.stringify({ code: 5, message: "gone", details: [] }));
    const c = new PlatformClient({ apiUrl: url, token: "t" });
    const err = await c.groups.get(emu.orgUid).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).httpStatus).toBe(400);
    expect((err as NotFoundError).requestId).toBe("req-123");
    await c.close();
    server.close();
  });

  it("falls back to the HTTP status when the body is not a Status", async () => {
    const { url, server } = await stub(503, "<html>busy</html>");
    const c = new PlatformClient({ apiUrl: url, token: "t" });
    await expect(c.groups.get(emu.orgUid)).rejects.toBeInstanceOf(UnavailableError);
    await c.close();
    server.close();
  });

  it("raises ConnectionError with a cause when nothing listens", async () => {
    const { url, server } = await stub(200, "{}");
    server.close();
    await new Promise((r) => setTimeout(r, 20));
    const c = new PlatformClient({ apiUrl: url, token: "t" });
    const err = await c.groups.get(emu.orgUid).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).cause).toBeDefined();
    await c.close();
  });

  it("never carries the token, even when the server echoes it", async () => {
    const expired = await emu.mintToken(emu.ownerUid, -1);
    const c = new PlatformClient({ apiUrl: emu.url, token: expired });
    const err = (await c.groups.get(emu.orgUid).catch((e: unknown) => e)) as UnauthenticatedError;
    expect(err).toBeInstanceOf(UnauthenticatedError);
    const everything = JSON.stringify({ m: err.message, s: err.status, r: err.request, st: err.stack });
    expect(everything).not.toContain(expired);
    await c.close();

    const { url, server } = await stub(401, JSON.stringify({ code: 16, message: `bad token Bearer ${expired}`, details: [] }));
    const echo = new PlatformClient({ apiUrl: url, token: expired });
    const err2 = (await echo.groups.get(emu.orgUid).catch((e: unknown) => e)) as UnauthenticatedError;
    expect(err2.message).not.toContain(expired);
    expect(err2.status.message).toContain("[REDACTED]");
    await echo.close();
    server.close();
  });

  it("redact scrubs bearer tokens and JWT-shaped strings", () => {
    expect(redact("Authorization: Bearer abc.def.ghi and eyJhbGciOi.eyJzdWIiOiJ4In0.sig")).toBe("Authorization: [REDACTED] and [REDACTED]");
  });
});
