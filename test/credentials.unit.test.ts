/**
 * The credentials module against the emulator over loopback (the token exchange on its own auth port, so the
 * exchange's `aud` and the URL it is sent to differ), plus a stub server for answers the emulator never gives
 * (an opaque token with or without `expiry`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { Control } from "../emulator/control";
import { PlatformClient } from "../provider/client/client";
import { CredentialError, TokenExchangeError, tokenSource, type CredentialSettings } from "../provider/credentials";
import { raw } from "./helpers";

const SUBJECT = "repo:o/r:ref:refs/heads/main";
const OTHER_SUBJECT = "repo:o/r:ref:refs/heads/evil";

let emu: Emulator;
let identityUid: string;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({ authPort: 0 });
  const id = await raw(emu, "POST", `/iam/v2beta1/identities/${emu.orgUid}`, {
    name: "ci-bot",
    claimMatch: { issuer: emu.issuer.url, subject: SUBJECT },
  });
  expect(id.status).toBe(200);
  identityUid = id.body.uid;
  const roles = await raw(emu, "GET", "/iam/v2beta1/roles?name=viewer");
  const viewer = roles.body.roles.find((r: { name: string }) => r.name === "viewer");
  const rb = await raw(emu, "POST", `/iam/v2beta1/roleBindings/${emu.orgUid}`, { identityUid, roleUid: viewer.uid });
  expect(rb.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), "platform-credentials-"));
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  emu.control.set({ tokenTtlSeconds: 3600, errorRates: {}, resetRate: 0, clockOffsetMs: 0, seed: 1 });
});

/** Exchange requests the emulator has served so far. */
function exchanges(): Array<{ status: number; query: Record<string, string> }> {
  return emu.requests.filter((r) => r.path === "/sts/exchange");
}

/** Settings for the ci-bot identity against the emulator. */
function wi(extra: Partial<CredentialSettings> = {}): CredentialSettings {
  return { apiUrl: emu.url, authUrl: emu.authUrl, identity: identityUid, ...extra };
}

/** A clock the test moves by hand, starting at the real time. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = Date.now();
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** Fails when `text` contains `token`, its payload or its signature (a JWT's header is not secret). */
function expectNoToken(text: string, token: string): void {
  expect(text).not.toContain(token);
  for (const part of token.split(".").slice(1)) if (part.length >= 8) expect(text).not.toContain(part);
}

/** The rejection of `p` (fails the test if `p` resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}

/**
 * The first fault-generator seed for which the emulator's next requests fail (true) or pass (false) as in
 * `pattern`, under `settings`. Found by running the emulator's own generator, so the test stays deterministic.
 */
function seedFor(settings: { errorRates?: Record<string, number>; resetRate?: number }, pattern: boolean[]): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const c = new Control({ ...settings, seed });
    if (pattern.every((fails) => (c.drawFault() !== undefined) === fails)) return seed;
  }
  throw new Error("no seed found");
}

describe("static token", () => {
  it("returns the token as-is and never sends a request", async () => {
    const before = emu.requests.length;
    const src = tokenSource({ apiUrl: emu.url, token: "explicit-token-value", identity: identityUid, identityToken: "ignored" });
    expect(await src.getToken()).toBe("explicit-token-value");
    expect(await src.getToken()).toBe("explicit-token-value");
    expect(src.describe()).toBe("static token");
    expect(emu.requests.length).toBe(before);
  });
});

describe("workload identity", () => {
  it("exchanges an OIDC token for an API token that works against the API", async () => {
    const oidc = await emu.issuer.mint(SUBJECT);
    const before = exchanges().length;
    const src = tokenSource(wi({ identityToken: oidc }));
    const token = await src.getToken();
    expect(token).not.toBe(oidc);
    expect(decodeJwt(token).sub).toBe(identityUid);

    const ex = exchanges().slice(before);
    expect(ex).toHaveLength(1);
    expect(ex[0]).toMatchObject({ status: 200, query: { aud: emu.url, identity: identityUid } });

    const r = await raw(emu, "GET", `/iam/v2beta1/groups/${emu.orgUid}`, undefined, token);
    expect(r.status).toBe(200);

    // As the client's token function.
    const client = new PlatformClient({ apiUrl: emu.url, token: () => src.getToken() });
    try {
      expect((await client.groups.get(emu.orgUid)).uid).toBe(emu.orgUid);
    } finally {
      await client.close();
    }
    expect(exchanges().length - before).toBe(1);

    const d = src.describe();
    expect(d).toContain(`workload identity ${identityUid} via ${emu.authUrl}`);
    expectNoToken(d, oidc);
    expectNoToken(d, token);
  });

  it("sends exactly one exchange for 20 concurrent callers", async () => {
    const src = tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT) }));
    const before = exchanges().length;
    emu.control.set({ latencyMs: 50 }); // keep the exchange in flight while all callers arrive
    try {
      const tokens = await Promise.all(Array.from({ length: 20 }, () => src.getToken()));
      expect(new Set(tokens).size).toBe(1);
    } finally {
      emu.control.set({ latencyMs: 0 });
    }
    expect(exchanges().length - before).toBe(1);
  });

  it("reuses a 30-second token until half its lifetime, then refreshes it once", async () => {
    emu.control.set({ tokenTtlSeconds: 30 });
    const clock = manualClock();
    const src = tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT), now: clock.now }));
    const before = exchanges().length;
    const t1 = await src.getToken();
    expect(exchanges().length - before).toBe(1);

    clock.advance(14_000);
    expect(await src.getToken()).toBe(t1);
    expect(exchanges().length - before).toBe(1);

    clock.advance(2_000); // 16 s: past the refresh point (15 s)
    const t2 = await src.getToken();
    expect(t2).not.toBe(t1);
    expect(exchanges().length - before).toBe(2);
    expect(await src.getToken()).toBe(t2);
    expect(exchanges().length - before).toBe(2);
  });

  it("refreshes a one-hour token refreshBeforeSeconds (default 300) before it expires", async () => {
    const clock = manualClock();
    const src = tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT), now: clock.now }));
    const before = exchanges().length;
    const t1 = await src.getToken();
    clock.advance(3_299_000);
    expect(await src.getToken()).toBe(t1);
    expect(exchanges().length - before).toBe(1);
    clock.advance(2_000); // 3301 s: inside the last 300 s
    expect(await src.getToken()).not.toBe(t1);
    expect(exchanges().length - before).toBe(2);
  });

  it("re-reads identityTokenFile at every refresh and keeps a valid cached token when a refresh fails", async () => {
    const file = join(dir, "oidc-token");
    const tokenA = await emu.issuer.mint(SUBJECT);
    const tokenB = await emu.issuer.mint(OTHER_SUBJECT);
    writeFileSync(file, `${tokenA}\n`);
    const clock = manualClock();
    const src = tokenSource(wi({ identityTokenFile: file, now: clock.now }));
    expect(src.describe()).toContain(file);
    const before = exchanges().length;
    const t1 = await src.getToken();
    expect(decodeJwt(t1).sub).toBe(identityUid);

    writeFileSync(file, tokenB); // rotated to a token for a subject the identity does not accept
    clock.advance(3_400_000); // past the refresh point, before the expiry (3600 s)
    expect(await src.getToken()).toBe(t1);
    const failed = exchanges().slice(before);
    expect(failed.map((r) => r.status)).toEqual([200, 403]);

    clock.advance(201_000); // 3601 s: the cached token has expired
    const err = await rejection(src.getToken());
    expect(err).toBeInstanceOf(TokenExchangeError);
    expect(err.message).toContain("PERMISSION_DENIED");
    expect(err.message).toContain("HTTP 403");
    expectNoToken(err.message, tokenA);
    expectNoToken(err.message, tokenB);
    expectNoToken(err.message, t1);

    // The failure was not cached: with a good token in the file the next call succeeds.
    writeFileSync(file, await emu.issuer.mint(SUBJECT));
    const t2 = await src.getToken();
    expect(t2).not.toBe(t1);
    expect(exchanges().slice(before).map((r) => r.status)).toEqual([200, 403, 403, 200]);
  });

  it("fails with code 7 / permission denied for an OIDC token of the wrong subject, without echoing it", async () => {
    const oidc = await emu.issuer.mint(OTHER_SUBJECT);
    const before = exchanges().length;
    const err = await rejection(tokenSource(wi({ identityToken: oidc })).getToken());
    expect(err).toBeInstanceOf(TokenExchangeError);
    expect(err.message).toMatch(/permission/i);
    expect(err.message).toContain("code 7");
    expect(err.message).toContain(identityUid);
    expectNoToken(err.message, oidc);
    expect((err as TokenExchangeError).code).toBe(7);
    expect((err as TokenExchangeError).httpStatus).toBe(403);
    expect(exchanges().length - before).toBe(1); // not retried
  });

  it("fails with 'expired' for an expired OIDC token", async () => {
    const oidc = await emu.issuer.mint(SUBJECT, { ttlSeconds: 1 });
    emu.control.set({ clockOffsetMs: 5_000 });
    const err = await rejection(tokenSource(wi({ identityToken: oidc })).getToken());
    expect(err.message).toContain("expired");
    expect(err.message).toContain("UNAUTHENTICATED (code 16)");
    expectNoToken(err.message, oidc);
  });

  it("names the file when identityTokenFile cannot be read", async () => {
    const missing = join(dir, "does-not-exist");
    const err = await rejection(tokenSource(wi({ identityTokenFile: missing })).getToken());
    expect(err.message).toContain(missing);
    expect(err.message).toContain("PLATFORM_IDENTITY_TOKEN_FILE");
    expect(err.message).toContain("ENOENT");
  });
});

describe("retries", () => {
  it.each([
    ["14", 503],
    ["8", 429],
    ["13", 500],
  ])("retries code %s (HTTP %i) and succeeds on the third attempt", async (code, http) => {
    const errorRates = { [code]: 0.5 };
    emu.control.set({ errorRates, seed: seedFor({ errorRates }, [true, true, false]) });
    const before = exchanges().length;
    const token = await tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT) })).getToken();
    expect(decodeJwt(token).sub).toBe(identityUid);
    expect(exchanges().slice(before).map((r) => r.status)).toEqual([http, http, 200]);
  });

  it("retries a reset connection", async () => {
    emu.control.set({ resetRate: 0.5, seed: seedFor({ resetRate: 0.5 }, [true, false]) });
    const token = await tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT) })).getToken();
    expect(decodeJwt(token).sub).toBe(identityUid);
  });

  it("recovers when the exchange starts working again during the backoff", async () => {
    emu.control.set({ errorRates: { "14": 1 } });
    const before = exchanges().length;
    const pending = tokenSource(wi({ identityToken: await emu.issuer.mint(SUBJECT) })).getToken();
    // Only the first attempt is certain to fail (the backoff is random); wait for it, then heal.
    const deadline = Date.now() + 2_000;
    while (exchanges().length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    emu.control.set({ errorRates: {} });
    expect(decodeJwt(await pending).sub).toBe(identityUid);
    const statuses = exchanges().slice(before).map((r) => r.status);
    expect(statuses[0]).toBe(503);
    expect(statuses.at(-1)).toBe(200);
  });

  it("gives up after 3 attempts with the status in the message, and tries again on the next call", async () => {
    emu.control.set({ errorRates: { "14": 1 } });
    const oidc = await emu.issuer.mint(SUBJECT);
    const src = tokenSource(wi({ identityToken: oidc }));
    const before = exchanges().length;
    const err = await rejection(src.getToken());
    expect(err.message).toContain("HTTP 503");
    expect(err.message).toContain("UNAVAILABLE (code 14)");
    expect(err.message).toContain("after 3 attempts");
    expectNoToken(err.message, oidc);
    expect(exchanges().length - before).toBe(3);

    emu.control.set({ errorRates: {} });
    expect(decodeJwt(await src.getToken()).sub).toBe(identityUid);
    expect(exchanges().length - before).toBe(4);
  });
});

describe("settings", () => {
  it("throws CredentialError naming the config keys and env vars when nothing is set", () => {
    const err = (() => {
      try {
        tokenSource({ apiUrl: "https://api.example.dev" });
      } catch (e) {
        return e as Error;
      }
      throw new Error("expected tokenSource to throw");
    })();
    expect(err).toBeInstanceOf(CredentialError);
    for (const name of ["platform:token", "PLATFORM_TOKEN", "platform:identity", "PLATFORM_IDENTITY", "PLATFORM_IDENTITY_TOKEN", "PLATFORM_IDENTITY_TOKEN_FILE"]) {
      expect(err.message).toContain(name);
    }
  });

  it("names what is missing for half-configured workload identity, never the OIDC token", () => {
    expect(() => tokenSource({ apiUrl: "https://api.example.dev", identity: "abc" })).toThrow(
      expect.objectContaining({ name: "CredentialError", message: expect.stringMatching(/PLATFORM_IDENTITY_TOKEN\b.*PLATFORM_IDENTITY_TOKEN_FILE/) }),
    );
    let msg = "";
    try {
      tokenSource({ apiUrl: "https://api.example.dev", identityToken: "eyJsecret.eyJpayload.sig" });
    } catch (e) {
      expect(e).toBeInstanceOf(CredentialError);
      msg = (e as Error).message;
    }
    expect(msg).toContain("platform:identity");
    expect(msg).toContain("PLATFORM_IDENTITY");
    expect(msg).not.toContain("eyJsecret");
  });

  it("rejects a bad authUrl or apiUrl, naming the setting", () => {
    expect(() => tokenSource({ apiUrl: "https://api.example.dev", authUrl: "ftp://x", identity: "abc", identityToken: "t" })).toThrow(/platform:authUrl \/ PLATFORM_AUTH_URL/);
    expect(() => tokenSource({ apiUrl: "api.example.dev", identity: "abc", identityToken: "t" })).toThrow(/platform:apiUrl \/ PLATFORM_API_URL/);
    expect(() => tokenSource({ apiUrl: "https://api.example.dev", identity: "abc", identityToken: "t", refreshBeforeSeconds: -1 })).toThrow(CredentialError);
  });
});

describe("expiry without a JWT exp (stub server)", () => {
  let server: Server;
  let url = "";
  let served = 0;
  let seen: Array<{ url: string | undefined; authorization: string | undefined }> = [];
  let body: (n: number) => Record<string, unknown> = () => ({});
  beforeAll(async () => {
    server = createServer((req, res) => {
      served += 1;
      seen.push({ url: req.url, authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body(served)));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("uses the response's expiry for an opaque token", async () => {
    const clock = manualClock();
    served = 0;
    seen = [];
    body = (n) => ({ token: `opaque-${n}`, expiry: new Date(clock.now() + 20 * 60_000).toISOString() });
    const src = tokenSource({ apiUrl: url, identity: "abc", identityToken: "oidc-literal", now: clock.now });
    expect(await src.getToken()).toBe("opaque-1");
    clock.advance(14 * 60_000);
    expect(await src.getToken()).toBe("opaque-1");
    clock.advance(2 * 60_000); // 16 min: within 300 s of the 20-minute expiry
    expect(await src.getToken()).toBe("opaque-2");
    expect(served).toBe(2);
    expect(seen[0]).toEqual({ url: `/sts/exchange?${new URLSearchParams({ aud: url, identity: "abc" })}`, authorization: "Bearer oidc-literal" });
  });

  it("assumes 55 minutes when there is neither exp nor expiry", async () => {
    const clock = manualClock();
    served = 0;
    body = (n) => ({ token: `opaque-${n}` });
    const src = tokenSource({ apiUrl: url, identity: "abc", identityToken: "oidc-literal", now: clock.now });
    expect(await src.getToken()).toBe("opaque-1");
    clock.advance(49 * 60_000);
    expect(await src.getToken()).toBe("opaque-1");
    clock.advance(2 * 60_000); // 51 min
    expect(await src.getToken()).toBe("opaque-2");
    expect(served).toBe(2);
  });
});
