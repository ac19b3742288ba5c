/**
 * Against a misbehaving server (docs/security.md "Against a misbehaving server"), memory and stack: servers on loopback in
 * this process, the built bin in its own.
 *
 * - Every List walk is bounded in bytes: valid 30 MB pages with fresh page tokens and no `totalCount` end with a
 *   ListingTooLargeError naming the request and `platform:maxWalkBytes`, the export's RSS far from the heap's end.
 * - Parsing is bounded in depth: JSON nested 20,000 deep ends with an error naming the request and the limit, in
 *   the client (the transport every command, lookup and refresh reads through) and in the export.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlatformClient } from "../provider/client/client";
import { ListingTooLargeError, MAX_RESPONSE_DEPTH, ResponseTooDeepError } from "../provider/client/errors";
import { clientFromSettings } from "../provider/clientFactory";
import { resolveSettings } from "../provider/config";
import { runBin } from "./harness/bin";
import { useLoopbackServers } from "./harness/loopback";

let work: string;
const ROOT = "a".repeat(40);
const TOKEN = "plat_test_token_1234";

/** A server on a free loopback port; resolves to its base URL. All are closed after the file. */
const serve = useLoopbackServers();

function send(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "platform-pulumi-bounds-"));
});
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
});

/** Valid group rows, `count` of them, each about 270 bytes. */
const rows = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => JSON.stringify({ uid: `${ROOT}/${(from + i).toString(16).padStart(16, "0")}`, name: `group-${from + i}`, description: "d".repeat(200) }));

/**
 * A server whose groups List answers every page with `page` (the same rows) and a fresh next page token, without
 * totalCount; other Lists are empty; a group GET answers the root. Counts the groups List requests.
 */
async function endlessServer(page: Buffer): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  const url = await serve((req, res) => {
    const p = (req.url ?? "").split("?")[0]!;
    if (p === "/iam/v2beta1/groups") return send(res, 200, Buffer.concat([page, Buffer.from(`,"nextPageToken":"t${n++}"}`)]));
    if (/^\/(iam|registry|events)\/v2beta1\/[A-Za-z]+$/.test(p)) return send(res, 200, "{}");
    if (p.startsWith("/iam/v2beta1/groups/")) return send(res, 200, JSON.stringify({ uid: ROOT, name: "root" }));
    send(res, 404, JSON.stringify({ code: 5, message: "not found", details: [] }));
  });
  return { url, requests: () => n };
}

/** `{"groups":[rows…]` without its closing brace (the server appends the token). */
const pageOf = (r: string[]) => Buffer.from(`{"groups":[${r.join(",")}]`);

describe("every List walk is bounded in bytes", () => {
  it("a walk over the byte budget stops before parsing the page over it, naming the request, the setting and its value", async () => {
    const page = pageOf(rows(10));
    const s = await endlessServer(page);
    // Three answers (the page and its token) fit, the fourth does not.
    const budget = (page.length + 40) * 3;
    const client = new PlatformClient({ apiUrl: s.url, token: TOKEN, maxWalkBytes: budget, retry: { maxAttempts: 1 } });
    for (const walk of [() => client.groups.list().collect(), async () => { for await (const g of client.groups.list()) void g; }]) {
      const err = (await walk().catch((e: unknown) => e)) as ListingTooLargeError;
      expect(err).toBeInstanceOf(ListingTooLargeError);
      expect(err.message).toMatch(new RegExp(`^GET /iam/v2beta1/groups: the listing is larger than the client holds: 4 pages of \\d+ bytes, over the ${budget} bytes of setting platform:maxWalkBytes \\(PLATFORM_MAX_WALK_BYTES\\); stopped after 4 pages and (20|30) rows$`));
      expect(err.pagesRead).toBe(4);
    }
    // A walk that ended gave its bytes back: the client's next walks start from zero (the provider's reads).
    expect(client.transport.walkLedger.held).toBe(0);
    await client.close();
  });

  it("a command's client counts all its Lists together: two walks each under the budget, not both", async () => {
    let n = 0;
    const page = rows(10).join(",");
    const url = await serve((_req, res) => send(res, 200, `{"groups":[${page}],"totalCount":"10"}`));
    const budget = Math.floor(page.length * 1.5);
    for (const perCommand of [false, true]) {
      const client = new PlatformClient({ apiUrl: url, token: TOKEN, maxWalkBytes: budget, walkBytesPerCommand: perCommand, retry: { maxAttempts: 1 } });
      expect((await client.groups.list().collect()).length).toBe(10);
      const second = await client.groups.list().collect().catch((e: unknown) => e);
      if (perCommand) expect((second as Error).message).toMatch(/with the other Lists of this command, over the \d+ bytes of setting platform:maxWalkBytes/);
      else expect((second as unknown[]).length).toBe(10);
      await client.close();
      n++;
    }
    expect(n).toBe(2);
  });

  it("the setting: env var and stack config, a clear error for a bad value", () => {
    const base = { PLATFORM_API_URL: "http://127.0.0.1:9", PLATFORM_TOKEN: TOKEN };
    expect(resolveSettings(() => undefined, base).maxWalkBytes).toBeUndefined();
    expect(clientFromSettings(resolveSettings(() => undefined, base)).transport.maxWalkBytes).toBe(256 * 1024 * 1024);
    expect(resolveSettings((k) => ({ "platform:maxWalkBytes": "1000" })[k], base).maxWalkBytes).toBe(1000);
    expect(clientFromSettings(resolveSettings(() => undefined, { ...base, PLATFORM_MAX_WALK_BYTES: "2048" })).transport.maxWalkBytes).toBe(2048);
    expect(() => resolveSettings(() => undefined, { ...base, PLATFORM_MAX_WALK_BYTES: "lots" })).toThrow(/platform:maxWalkBytes \(PLATFORM_MAX_WALK_BYTES\) must be a positive integer, got "lots"/);
  });

  it("platform-pulumi export against valid 30 MB pages with fresh tokens and no totalCount: exit 1 naming the setting, RSS well under the heap limit", async () => {
    const page = pageOf(rows(98_000));
    expect(page.length).toBeGreaterThan(29_000_000);
    const s = await endlessServer(page);
    // The bin's peak RSS, written by a preload at exit (process.resourceUsage().maxRSS is in KiB).
    const preload = path.join(work, "maxrss.cjs");
    const rssFile = path.join(work, "maxrss.txt");
    writeFileSync(preload, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS * 1024)));\n`);
    const r = await runBin(["export", "--org", ROOT, "--out", path.join(work, "big")], {
      PATH: process.env["PATH"],
      HOME: process.env["HOME"],
      PLATFORM_API_URL: s.url,
      PLATFORM_TOKEN: TOKEN,
      // Far above the 9 pages the budget allows, so that a client without the budget ends too (and this test fails).
      PLATFORM_MAX_PAGES: "20",
      NODE_OPTIONS: `--require ${preload}`,
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(2);
    expect(r.stderr).toMatch(/platform-pulumi export: GET \/iam\/v2beta1\/groups: the listing is larger than the client holds: \d+ pages of \d+ bytes.*over the 268435456 bytes of setting platform:maxWalkBytes \(PLATFORM_MAX_WALK_BYTES\)/);
    const rss = Number(readFileSync(rssFile, "utf8"));
    // Measured 1.0 GB on Node 20 (docs/security.md "Against a misbehaving server"); before the budget, 4.1 GB and no end.
    expect(rss).toBeLessThan(1.6 * 1024 ** 3);
    // The walk stopped at the budget: 256 MiB is 9 pages of 30 MB, the 10th at most in flight.
    expect(s.requests()).toBeLessThanOrEqual(11);
  }, 180_000);
});

describe("parsing is bounded in depth", () => {
  const DEEP = 20_000;
  const deepArray = "[".repeat(DEEP) + "]".repeat(DEEP);
  const deepObject = '{"a":'.repeat(DEEP) + "1" + "}".repeat(DEEP);

  /** A server answering `body(path)` with `status`. */
  const deepServer = (status: number, body: (p: string) => string) => serve((req, res) => send(res, status, body((req.url ?? "").split("?")[0]!)));

  it.each([
    ["a 200 List with a deep unknown field", 200, (p: string) => (p === "/iam/v2beta1/groups" ? `{"groups":[{"uid":"${ROOT}/0000000000000001","name":"grp","x":${deepObject}}]}` : "{}")],
    ["a 200 body nested as arrays", 200, () => deepArray],
    ["an error Status with deep details", 503, () => `{"code":14,"message":"x","details":[{"@type":"t","x":${deepObject}}]}`],
  ] as const)("the client refuses %s, naming the request and the limit", async (_what, status, body) => {
    const url = await deepServer(status, body);
    const client = new PlatformClient({ apiUrl: url, token: TOKEN, retry: { maxAttempts: 1 } });
    // Only strings reach the assertion: a deep value in a failure report would overflow the test runner's own stack.
    const got = await client.groups.list().collect().then(
      () => "resolved",
      (e: unknown) => (e instanceof ResponseTooDeepError ? `${e.name}: ${e.message}` : `other: ${String(e).slice(0, 200)}`),
    );
    await client.close();
    expect(got).toBe(`ResponseTooDeepError: GET /iam/v2beta1/groups: unexpected response (HTTP ${status}): the JSON body nests arrays and objects deeper than the ${MAX_RESPONSE_DEPTH} levels the client parses (no API answer nests that deep)`);
  });

  it("a body nested exactly to the limit is parsed", async () => {
    const ok = `{"groups":[],"x":${"[".repeat(MAX_RESPONSE_DEPTH - 1)}${"]".repeat(MAX_RESPONSE_DEPTH - 1)}}`;
    const url = await deepServer(200, () => ok);
    const client = new PlatformClient({ apiUrl: url, token: TOKEN, retry: { maxAttempts: 1 } });
    expect(await client.groups.list().collect()).toEqual([]);
    await client.close();
  });

  it("platform-pulumi export against 20,000-deep JSON (in a List row, and in an error Status) exits 2 naming the request and the limit", async () => {
    for (const [status, body] of [
      [200, (p: string) => (p === "/iam/v2beta1/groups" ? `{"groups":[{"uid":"${ROOT}/0000000000000001","name":"grp","x":${deepObject}}]}` : p.startsWith("/iam/v2beta1/groups/") ? `{"uid":"${ROOT}","name":"root"}` : "{}")],
      [503, () => `{"code":14,"message":"x","details":[{"@type":"t","x":${deepObject}}]}`],
    ] as const) {
      const url = await deepServer(status, body);
      const r = await runBin(["export", "--org", ROOT, "--out", path.join(work, `deep-${status}`)], {
        PATH: process.env["PATH"],
        HOME: process.env["HOME"],
        PLATFORM_API_URL: url,
        PLATFORM_TOKEN: TOKEN,
        PLATFORM_RETRY_MAX_ATTEMPTS: "1",
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).not.toContain("Maximum call stack size exceeded");
      expect(r.stderr).toMatch(new RegExp(`platform-pulumi export: GET /[a-z]+/v2beta1/[A-Za-z/0-9]+: unexpected response \\(HTTP ${status}\\): the JSON body nests arrays and objects deeper than the ${MAX_RESPONSE_DEPTH} levels the client parses`));
    }
  }, 60_000);
});
