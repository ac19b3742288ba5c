/**
 * Conformance: identity and access. The token exchange (GET and form POST), claimMatch rules, token lifetime,
 * OIDC failures, the test issuer's discovery and JWKS, trusted issuers, a separate auth port; then
 * authorization by role bindings (viewer, editor, owner, registry.pull) and API token failures.
 */
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { Empty, Group, Identity, RawToken, Repo, listEnvelope } from "../../provider/client/schemas";
import { IdToken, Jwks, OidcDiscovery, RFC3339_MS, api, base, builtinRole, create, expectInvalid, expectOk, expectStatus, getRow, http, jwtPayload, listAll, listPage, mkGroup, qs, type Res } from "./helpers";

const CI_ISSUER = "https://ci.example";
let emu: Emulator;
let ciKey: CryptoKey;
let foreignKey: CryptoKey;
let n = 0;

beforeAll(async () => {
  const ci = await generateKeyPair("ES256");
  ciKey = ci.privateKey;
  const jwk: JWK = { ...(await exportJWK(ci.publicKey)), kid: "ci-1", alg: "ES256", use: "sig" };
  foreignKey = (await generateKeyPair("ES256")).privateKey;
  emu = await startEmulator({ trustedIssuers: { [CI_ISSUER]: { keys: [jwk] } } });
});
afterAll(async () => {
  await emu.close();
});

/** Signs a JWT with `key`. */
async function sign(key: CryptoKey, o: { iss: string; sub: string; aud: string; kid: string; ttl?: number; claims?: Record<string, unknown> }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(o.claims ?? {})
    .setProtectedHeader({ alg: "ES256", kid: o.kid, typ: "JWT" })
    .setIssuer(o.iss)
    .setSubject(o.sub)
    .setAudience(o.aud)
    .setIssuedAt(now)
    .setExpirationTime(now + (o.ttl ?? 300))
    .sign(key);
}

/** GET {authUrl}/sts/exchange?aud=&identity= with the OIDC token as bearer. */
function exchange(e: Emulator, oidc: string, identity: string, aud: string = e.url): Promise<Res> {
  return http(`${e.authUrl}/sts/exchange${qs({ aud, identity })}`, { token: oidc });
}
/** The same as a form POST. */
function exchangeForm(e: Emulator, oidc: string, identity: string, aud: string = e.url): Promise<Res> {
  return http(`${e.authUrl}/sts/exchange`, { method: "POST", token: oidc, form: { aud, identity } });
}

/** An identity in a fresh group (or `parent`) with this claimMatch. */
async function identityWith(claimMatch: Record<string, unknown>, parent?: string): Promise<string> {
  const g = parent ?? (await mkGroup(emu, emu.orgUid, `sts-${++n}`)).uid;
  return (await create(emu, "identities", g, { name: `wi-${++n}`, claimMatch })).uid;
}

/** Asserts a successful exchange for `identity` and returns the API token. */
function expectToken(res: Res, e: Emulator, identity: string): string {
  const t = expectOk(res, RawToken);
  const p = jwtPayload(t.token);
  expect(p.sub).toBe(identity);
  expect(p.aud === e.url || (Array.isArray(p.aud) && p.aud.includes(e.url))).toBe(true);
  return t.token;
}

describe("token exchange", () => {
  it("GET /sts/exchange returns an API token for the identity whose exact claimMatch matches", async () => {
    const sub = "repo:acme/app:ref:refs/heads/main";
    const uid = await identityWith({ issuer: emu.issuer.url, subject: sub });
    const token = expectToken(await exchange(emu, await emu.issuer.mint(sub), uid), emu, uid);
    const me = await api(emu, "GET", `${base("identities")}/${uid}`, undefined, token);
    expect(expectOk(me, Identity).uid).toBe(uid);
  });

  it("a form POST to /sts/exchange works the same", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "form-sub" });
    expectToken(await exchangeForm(emu, await emu.issuer.mint("form-sub"), uid), emu, uid);
    expectStatus(await exchangeForm(emu, await emu.issuer.mint("other-sub"), uid), 7, 403);
  });

  it("claimMatch pattern fields match the whole claim", async () => {
    const uid = await identityWith({ issuerPattern: "http://127\\.0\\.0\\.1:[0-9]+/oidc", subjectPattern: "repo:acme/[a-z]+:ref:refs/heads/main" });
    expectToken(await exchange(emu, await emu.issuer.mint("repo:acme/app:ref:refs/heads/main"), uid), emu, uid);
    expectStatus(await exchange(emu, await emu.issuer.mint("repo:acme/app:ref:refs/heads/main-evil"), uid), 7, 403);
    expectStatus(await exchange(emu, await emu.issuer.mint("xrepo:acme/app:ref:refs/heads/main"), uid), 7, 403);
  });

  it("claimMatch claims (exact) and claimPatterns (pattern) must match", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "s", claims: { repository_owner: "acme" }, claimPatterns: { ref: "refs/heads/(main|release-.*)" } });
    const mint = (claims: Record<string, unknown>) => emu.issuer.mint("s", { claims });
    expectToken(await exchange(emu, await mint({ repository_owner: "acme", ref: "refs/heads/release-1" }), uid), emu, uid);
    expectStatus(await exchange(emu, await mint({ repository_owner: "evil", ref: "refs/heads/main" }), uid), 7, 403);
    expectStatus(await exchange(emu, await mint({ repository_owner: "acme", ref: "refs/heads/feature" }), uid), 7, 403);
    expectStatus(await exchange(emu, await mint({ ref: "refs/heads/main" }), uid), 7, 403);
  });

  it("claimMatch audience (exact) and audiencePattern decide which OIDC audiences are accepted", async () => {
    const exact = await identityWith({ issuer: emu.issuer.url, subject: "aud", audience: "https://aud.example" });
    expectToken(await exchange(emu, await emu.issuer.mint("aud", { audience: "https://aud.example" }), exact), emu, exact);
    expectStatus(await exchange(emu, await emu.issuer.mint("aud"), exact), 7, 403);
    const pattern = await identityWith({ issuer: emu.issuer.url, subject: "aud", audiencePattern: "https://aud-[0-9]+\\.example" });
    expectToken(await exchange(emu, await emu.issuer.mint("aud", { audience: "https://aud-42.example" }), pattern), emu, pattern);
    expectStatus(await exchange(emu, await emu.issuer.mint("aud", { audience: "https://aud-x.example" }), pattern), 7, 403);
  });

  it("without an audience rule the OIDC token's audience must be the auth URL", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "noaud" });
    expectToken(await exchange(emu, await emu.issuer.mint("noaud", { audience: emu.authUrl }), uid), emu, uid);
    expectStatus(await exchange(emu, await emu.issuer.mint("noaud", { audience: "https://elsewhere.example" }), uid), 7, 403);
  });

  it("a token that does not match the identity is PERMISSION_DENIED (7, HTTP 403)", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "right" });
    expectStatus(await exchange(emu, await emu.issuer.mint("wrong"), uid), 7, 403);
    const otherIssuer = await identityWith({ issuer: "https://token.actions.githubusercontent.com", subject: "right" });
    expectStatus(await exchange(emu, await emu.issuer.mint("right"), otherIssuer), 7, 403);
    const g = await mkGroup(emu, emu.orgUid, `sts-${++n}`);
    const sp = await create(emu, "identities", g.uid, { name: "svc-only", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" });
    expectStatus(await exchange(emu, await emu.issuer.mint("right"), sp.uid), 7, 403);
    expectStatus(await exchange(emu, await emu.issuer.mint("right"), `${g.uid}/0123456789abcdef`), 7, 403);
  });

  it("the API token lasts 1 hour by default (expiry and exp - iat)", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "ttl" });
    const before = Date.now();
    const t = expectOk(await exchange(emu, await emu.issuer.mint("ttl"), uid), RawToken);
    expect(t.expiry).toMatch(RFC3339_MS);
    expect(Math.abs(Date.parse(t.expiry!) - (before + 3600_000))).toBeLessThan(5_000);
    const p = jwtPayload(t.token);
    expect(p.exp! - p.iat!).toBe(3600);
    const owner = jwtPayload(emu.token);
    expect(owner.exp! - owner.iat!).toBe(3600);
  });

  it("the API token lifetime is configurable through control tokenTtlSeconds", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "ttl2" });
    emu.control.set({ tokenTtlSeconds: 120 });
    try {
      const before = Date.now();
      const t = expectOk(await exchange(emu, await emu.issuer.mint("ttl2"), uid), RawToken);
      const p = jwtPayload(t.token);
      expect(p.exp! - p.iat!).toBe(120);
      expect(Math.abs(Date.parse(t.expiry!) - (before + 120_000))).toBeLessThan(5_000);
    } finally {
      emu.control.set({ tokenTtlSeconds: 3600 });
    }
    const again = jwtPayload(expectOk(await exchange(emu, await emu.issuer.mint("ttl2"), uid), RawToken).token);
    expect(again.exp! - again.iat!).toBe(3600);
  });

  it("an OIDC token with a bad signature is UNAUTHENTICATED (16, HTTP 401)", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "sig" });
    const forged = await sign(foreignKey, { iss: emu.issuer.url, sub: "sig", aud: emu.authUrl, kid: "test-issuer-1" });
    expectStatus(await exchange(emu, forged, uid), 16, 401);
    // a real token whose payload was altered after signing
    const real = await emu.issuer.mint("someone-else");
    const [h, , s] = real.split(".");
    const payload = Buffer.from(JSON.stringify({ ...jwtPayload(real), sub: "sig" })).toString("base64url");
    expectStatus(await exchange(emu, `${h}.${payload}.${s}`, uid), 16, 401);
  });

  it("an OIDC token from an unknown issuer is UNAUTHENTICATED", async () => {
    const uid = await identityWith({ issuer: "https://unknown.example", subject: "u" });
    const t = await sign(foreignKey, { iss: "https://unknown.example", sub: "u", aud: emu.authUrl, kid: "k" });
    expectStatus(await exchange(emu, t, uid), 16, 401);
  });

  it("an expired OIDC token is UNAUTHENTICATED", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "old" });
    expectStatus(await exchange(emu, await emu.issuer.mint("old", { ttlSeconds: -60 }), uid), 16, 401);
  });

  it("a missing or malformed bearer is UNAUTHENTICATED", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "nob" });
    expectStatus(await http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: uid })}`), 16, 401);
    expectStatus(await exchange(emu, "not-a-jwt", uid), 16, 401);
  });

  it("an aud other than the API URL is INVALID_ARGUMENT naming aud", async () => {
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "aud-arg" });
    const oidc = await emu.issuer.mint("aud-arg");
    for (const aud of ["https://api.example", `${emu.url}/`, emu.authUrl + "/x", ""]) {
      const s = expectInvalid(await exchange(emu, oidc, uid, aud), ["aud"]);
      expect(s.message).toContain("aud");
    }
    expectInvalid(await exchangeForm(emu, oidc, uid, "https://api.example"), ["aud"]);
  });

  it("serves the test issuer's discovery document and JWKS, which verify its tokens", async () => {
    const disco = expectOk(await http(`${emu.authUrl}/oidc/.well-known/openid-configuration`), OidcDiscovery);
    expect(disco.issuer).toBe(emu.issuer.url);
    expect(emu.issuer.url).toBe(`${emu.authUrl}/oidc`);
    expect(disco.jwks_uri).toBe(`${emu.issuer.url}/jwks`);
    const jwks = expectOk(await http(disco.jwks_uri), Jwks);
    expect(jwks.keys.length).toBeGreaterThan(0);
    const minted = expectOk(await http(`${emu.authUrl}/oidc/token`, { method: "POST", json: { subject: "via-route", claims: { env: "ci" } } }), IdToken);
    const { payload } = await jwtVerify(minted.id_token, createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]), { issuer: disco.issuer });
    expect(payload).toMatchObject({ sub: "via-route", env: "ci", aud: emu.authUrl });
    const uid = await identityWith({ issuer: emu.issuer.url, subject: "via-route", claims: { env: "ci" } });
    expectToken(await exchange(emu, minted.id_token, uid), emu, uid);
  });

  it("accepts an issuer trusted from a JWKS", async () => {
    const uid = await identityWith({ issuer: CI_ISSUER, subject: "pipeline-1" });
    const good = await sign(ciKey, { iss: CI_ISSUER, sub: "pipeline-1", aud: emu.authUrl, kid: "ci-1" });
    expectToken(await exchange(emu, good, uid), emu, uid);
    const forged = await sign(foreignKey, { iss: CI_ISSUER, sub: "pipeline-1", aud: emu.authUrl, kid: "ci-1" });
    expectStatus(await exchange(emu, forged, uid), 16, 401);
    const wrongSub = await sign(ciKey, { iss: CI_ISSUER, sub: "pipeline-2", aud: emu.authUrl, kid: "ci-1" });
    expectStatus(await exchange(emu, wrongSub, uid), 7, 403);
  });

  it("serves the exchange and issuer on a separate auth port (authPort: 0)", async () => {
    const split = await startEmulator({ authPort: 0 });
    try {
      expect(split.authUrl).not.toBe(split.url);
      expect(new URL(split.authUrl).port).not.toBe(new URL(split.url).port);
      expect(split.issuer.url).toBe(`${split.authUrl}/oidc`);
      expect(expectOk(await http(`${split.authUrl}/oidc/.well-known/openid-configuration`), OidcDiscovery).issuer).toBe(split.issuer.url);
      const g = await mkGroup(split, split.orgUid, "split");
      const id = await create(split, "identities", g.uid, { name: "split-id", claimMatch: { issuer: split.issuer.url, subject: "split-sub" } });
      const oidc = await split.issuer.mint("split-sub");
      expect(jwtPayload(oidc).aud).toBe(split.authUrl);
      const token = expectToken(await exchange(split, oidc, id.uid), split, id.uid);
      expect(expectOk(await api(split, "GET", `${base("identities")}/${id.uid}`, undefined, token), Identity).uid).toBe(id.uid);
      expectStatus(await http(`${split.url}/sts/exchange${qs({ aud: split.url, identity: id.uid })}`, { token: oidc }), 5, 404);
    } finally {
      await split.close();
    }
  });
});

describe("authorization by role bindings", () => {
  let G: string;
  let C: string;
  let GC: string;
  let O: string;
  beforeAll(async () => {
    G = (await mkGroup(emu, emu.orgUid, "authz-g")).uid;
    C = (await mkGroup(emu, G, "authz-child")).uid;
    GC = (await mkGroup(emu, C, "authz-grandchild")).uid;
    O = (await mkGroup(emu, emu.orgUid, "authz-outside")).uid;
  });

  /** An identity in G bound to `role` at `at`, with a token from the exchange. */
  async function actor(role: string, at: string = G): Promise<{ uid: string; token: string }> {
    const sub = `actor-${++n}`;
    const uid = (await create(emu, "identities", G, { name: sub, claimMatch: { issuer: emu.issuer.url, subject: sub } })).uid as string;
    await create(emu, "roleBindings", at, { identityUid: uid, roleUid: await builtinRole(emu, role) });
    const token = expectToken(await exchange(emu, await emu.issuer.mint(sub), uid), emu, uid);
    return { uid, token };
  }

  it("viewer at G: GET and List inside G and its descendants work", async () => {
    const { token } = await actor("viewer");
    for (const uid of [G, C, GC]) expect(expectOk(await api(emu, "GET", `${base("groups")}/${uid}`, undefined, token), Group).uid).toBe(uid);
    const kids = await listPage(emu, "groups", { "uidp.children_of": C }, token);
    expect(kids.items.map((g) => g.uid)).toEqual([GC]);
    const ids = await listAll(emu, "identities", { "uidp.children_of": G }, token);
    expect(ids.length).toBeGreaterThan(0);
  });

  it("viewer at G: Lists outside G are filtered to what the binding reaches", async () => {
    const { token } = await actor("viewer");
    const all = await listAll(emu, "groups", {}, token);
    expect(all.map((g) => g.uid).sort()).toEqual([G, C, GC].sort());
    const page = await listPage(emu, "groups", { page_size: 1 }, token);
    expect(page.totalCount).toBe(3);
    expect((await listAll(emu, "groups", { "uidp.children_of": emu.orgUid }, token)).map((g) => g.uid)).toEqual([G]);
    const ownerView = await listAll(emu, "groups");
    expect(ownerView.length).toBeGreaterThan(3);
    for (const id of await listAll(emu, "identities", {}, token)) expect(id.uid.startsWith(`${G}/`)).toBe(true);
  });

  it("viewer at G: GET outside G is PERMISSION_DENIED (7, HTTP 403)", async () => {
    const { token } = await actor("viewer");
    for (const uid of [emu.orgUid, O]) expectStatus(await api(emu, "GET", `${base("groups")}/${uid}`, undefined, token), 7, 403);
    const outsider = await create(emu, "identities", O, { name: "outsider", claimMatch: { issuer: "https://i.example", subject: "o" } });
    expectStatus(await api(emu, "GET", `${base("identities")}/${outsider.uid}`, undefined, token), 7, 403);
  });

  it("viewer at G: create inside G is PERMISSION_DENIED", async () => {
    const { token } = await actor("viewer");
    expectStatus(await api(emu, "POST", `${base("groups")}/${G}`, { name: "viewer-made" }, token), 7, 403);
    expectStatus(await api(emu, "POST", `${base("identities")}/${C}`, { name: "viewer-made", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }, token), 7, 403);
    expectStatus(await api(emu, "PATCH", `${base("groups")}/${C}`, { description: "viewer was here" }, token), 7, 403);
    expect((await listPage(emu, "groups", { name: "viewer-made" })).totalCount).toBe(0);
  });

  it("a binding reaches the group's descendants, not its ancestors", async () => {
    const { token } = await actor("viewer", C);
    expect(expectOk(await api(emu, "GET", `${base("groups")}/${GC}`, undefined, token), Group).uid).toBe(GC);
    expectStatus(await api(emu, "GET", `${base("groups")}/${G}`, undefined, token), 7, 403);
  });

  it("editor at G: create and PATCH work inside G; DELETE is PERMISSION_DENIED", async () => {
    const { token } = await actor("editor");
    const made = expectOk(await api(emu, "POST", `${base("groups")}/${C}`, { name: "editor-made" }, token), Group);
    const patched = expectOk(await api(emu, "PATCH", `${base("groups")}/${made.uid}`, { description: "edited" }, token), Group);
    expect(patched.description).toBe("edited");
    expectStatus(await api(emu, "DELETE", `${base("groups")}/${made.uid}`, undefined, token), 7, 403);
    expect((await getRow(emu, "groups", made.uid)).uid).toBe(made.uid);
    expectStatus(await api(emu, "POST", `${base("groups")}/${O}`, { name: "editor-outside" }, token), 7, 403);
    const viewer = await builtinRole(emu, "viewer");
    expectStatus(await api(emu, "POST", `${base("roleBindings")}/${G}`, { identityUid: emu.ownerUid, roleUid: viewer }, token), 7, 403);
  });

  it("owner at G: DELETE and role-binding create work inside G, not outside", async () => {
    const { token } = await actor("owner");
    const made = expectOk(await api(emu, "POST", `${base("groups")}/${G}`, { name: "owner-made" }, token), Group);
    expectOk(await api(emu, "DELETE", `${base("groups")}/${made.uid}`, undefined, token), Empty);
    expectStatus(await api(emu, "GET", `${base("groups")}/${made.uid}`), 5, 404);
    const viewer = await builtinRole(emu, "viewer");
    const target = await create(emu, "identities", G, { name: "bound-by-owner", claimMatch: { issuer: "https://i.example", subject: "b" } });
    const b = await create(emu, "roleBindings", C, { identityUid: target.uid, roleUid: viewer }, token);
    expect(b.group.uid).toBe(C);
    expectStatus(await api(emu, "POST", `${base("roleBindings")}/${O}`, { identityUid: target.uid, roleUid: viewer }, token), 7, 403);
    expectStatus(await api(emu, "DELETE", `${base("groups")}/${O}`, undefined, token), 7, 403);
  });

  it("registry.pull can list repos and tags but not groups", async () => {
    const { token } = await actor("registry.pull", emu.orgUid);
    const repos = await listAll(emu, "repos", {}, token);
    expect(repos.length).toBeGreaterThan(0);
    expect(repos.length).toBe((await listAll(emu, "repos")).length);
    const tags = await listAll(emu, "tags", {}, token);
    expect(tags.length).toBe((await listAll(emu, "tags")).length);
    expect(expectOk(await api(emu, "GET", `${base("repos")}/${repos[0].uid}`, undefined, token), Repo).uid).toBe(repos[0].uid);
    const groups = await listPage(emu, "groups", {}, token);
    expect(groups.items).toEqual([]);
    expect(groups.totalCount).toBe(0);
    expectStatus(await api(emu, "GET", `${base("groups")}/${emu.orgUid}`, undefined, token), 7, 403);
    expectStatus(await api(emu, "POST", `${base("groups")}/${emu.orgUid}`, { name: "puller-made" }, token), 7, 403);
  });
});

describe("API tokens", () => {
  it.each([
    ["GET", () => `${base("groups")}`],
    ["GET", () => `${base("groups")}/${emu.orgUid}`],
    ["POST", () => `${base("groups")}/${emu.orgUid}`],
    ["PATCH", () => `${base("groups")}/${emu.orgUid}`],
    ["DELETE", () => `${base("groups")}/${emu.orgUid}/0123456789abcdef`],
    ["GET", () => `${base("repos")}`],
    ["GET", () => `${base("advisories")}`],
  ] as Array<[string, () => string]>)("a %s request without a token is UNAUTHENTICATED (16, HTTP 401)", async (method, path) => {
    expectStatus(await api(emu, method, path(), method === "POST" || method === "PATCH" ? { name: "no-token" } : undefined, null), 16, 401);
  });

  it("an expired API token is UNAUTHENTICATED", async () => {
    const expired = await emu.mintToken(emu.ownerUid, -10);
    const p = jwtPayload(expired);
    expect(p.exp! < Date.now() / 1000).toBe(true);
    expectStatus(await api(emu, "GET", base("groups"), undefined, expired), 16, 401);
    expect(expectOk(await api(emu, "GET", base("groups"), undefined, await emu.mintToken(emu.ownerUid)), listEnvelope("groups", Group)).items.length).toBeGreaterThan(0);
  });

  it("an API token not signed by the emulator, or with another audience, is UNAUTHENTICATED", async () => {
    const iss = jwtPayload(emu.token).iss!;
    const forged = await sign(foreignKey, { iss, sub: emu.ownerUid, aud: emu.url, kid: "emulator-1" });
    expectStatus(await api(emu, "GET", base("groups"), undefined, forged), 16, 401);
    const oidc = await emu.issuer.mint(emu.ownerUid, { audience: emu.url });
    expectStatus(await api(emu, "GET", base("groups"), undefined, oidc), 16, 401);
    const r = await http(`${emu.url}${base("groups")}`, { token: "not-a-jwt" });
    expectStatus(r, 16, 401);
  });
});
