/**
 * Fuzz: a bounded, seeded stream of hostile requests against one emulator (API port and auth port)
 * over loopback, through raw sockets so nothing is sanitised on the way: bad paths and encodings, raw bytes,
 * odd query parameters and page tokens, huge, deep and malformed JSON, a wrong type in every field of every
 * collection's create and PATCH bodies, forged and malformed tokens, hostile identity patterns.
 *
 * Asserts for every answer: no 5xx (no faults are injected here), every error body a google.rpc.Status with
 * `content-type: application/json`, every answer within 3 s (no stall). Afterwards the server still answers a
 * normal GET and its memory grew within a generous bound. The generator is fast-check with a fixed seed, so a
 * failure replays; what it finds is kept as a regression test in `hostile.unit.test.ts`.
 */
import fc from "fast-check";
import { SignJWT, generateKeyPair } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { api, base, builtinRole, create, mkGroup, type CollectionName, type Json } from "./helpers";
import { isStatusBody, rawRequest, type RawRes } from "./raw";
import { scaled } from "../harness/scale";

/** Fixed seed (override with FUZZ_SEED to explore; a failure prints the seed that replays it) and size. */
const SEED = Number(process.env["FUZZ_SEED"] ?? 20_260_901);
const RUNS = scaled(2_500, 500);
/** No single answer may take longer than this (a stall or a super-linear path shows up here). */
const MAX_ANSWER_MS = 3_000;
/** RSS may grow by at most this much over the whole run. */
const MAX_RSS_GROWTH_BYTES = 400 * 1024 * 1024;

let emu: Emulator;
const known: Record<string, string[]> = {};
let viewer = "";
let forged: string[] = [];
let sent = 0;
let slowest = 0;
const byStatus = new Map<number, number>();

const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v) ?? "null").toString("base64url");
const clean = (s: string) => s.replace(/[\r\n]/g, " ");

beforeAll(async () => {
  emu = await startEmulator({ authPort: 0 });
  viewer = await builtinRole(emu, "viewer");
  const g = (await mkGroup(emu, emu.orgUid, "fuzz-root")).uid as string;
  const kid = (await mkGroup(emu, g, "fuzz-kid")).uid as string;
  const ident = await create(emu, "identities", g, { name: "fuzz-ident", claimMatch: { issuer: emu.issuer.url, subject: "fuzz" } });
  const role = await create(emu, "roles", g, { name: "fuzz-role", capabilities: ["CAP_IAM_GROUPS_LIST"] });
  const binding = await create(emu, "roleBindings", g, { identityUid: ident.uid, roleUid: viewer });
  const idp = await create(emu, "identityProviders", g, { name: "fuzz-idp", oidc: { issuer: "https://idp.example", clientId: "c", clientSecret: "s" } });
  await create(emu, "accountAssociations", kid, { amazon: { account: "123456789012" } });
  const invite = await create(emu, "groupInvites", g, { roleUid: viewer, ttl: "3600s" });
  const repo = (await api(emu, "GET", base("repos"))).body.repos[0].uid as string;
  Object.assign(known, {
    groups: [g, kid],
    identities: [ident.uid],
    roles: [role.uid, viewer],
    roleBindings: [binding.uid],
    identityProviders: [idp.uid],
    accountAssociations: [kid],
    groupInvites: [invite.uid],
    repos: [repo],
  });
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: emu.ownerUid, aud: emu.url, iss: emu.url, iat: now, exp: now + 3600 };
  const rsa = await generateKeyPair("RS256");
  forged = [
    await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "emulator-1" }).sign(new TextEncoder().encode("x".repeat(32))),
    await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "emulator-1" }).sign(rsa.privateKey),
    `${b64({ alg: "none" })}.${b64(claims)}.`,
    `${b64({ alg: "ES256", kid: "emulator-1" })}.${b64(claims)}.${b64("not a signature")}`,
    await emu.issuer.mint("fuzz"),
  ];
});
afterAll(async () => {
  await emu.close();
});

/** One request as bytes: which port, method and raw target, headers, body. */
interface Req {
  port: "api" | "auth";
  method: string;
  target: Buffer;
  headers: Record<string, string>;
  body: Buffer;
}

function send(r: Req): Promise<RawRes> {
  const lines = Object.entries({ host: "fuzz", connection: "close", ...r.headers, ...(r.body.length || r.method !== "GET" ? { "content-length": String(r.body.length) } : {}) })
    .map(([k, v]) => `${k}: ${clean(v)}`)
    .join("\r\n");
  const head = Buffer.concat([Buffer.from(`${r.method} `), r.target, Buffer.from(` HTTP/1.1\r\n${lines}`)]);
  sent++;
  return rawRequest(r.port === "api" ? emu.url : emu.authUrl, head, r.body);
}

// ---- arbitraries --------------------------------------------------------------------------------------------

const COLLECTIONS: Array<[CollectionName, string]> = [
  ["groups", "iam"], ["identities", "iam"], ["roles", "iam"], ["roleBindings", "iam"], ["identityProviders", "iam"],
  ["accountAssociations", "iam"], ["groupInvites", "iam"], ["repos", "registry"], ["tags", "registry"], ["advisories", "vulnerabilities"],
];
const WRITABLE: CollectionName[] = ["groups", "identities", "roles", "roleBindings", "identityProviders", "accountAssociations", "groupInvites", "repos"];
/** Collections outside the helpers' table, reached by path only. */
const MORE_COLLECTIONS = ["overlays", "overlayBindings", "subscriptions"];

const deep = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** A value of any JSON type, including the awkward ones. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, "", " ", "\u0000", "\uffff", "__proto__", "constructor", [], {}, [[[]]], { "": "" }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 300, unit: "binary" }) },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(100_000), "é".repeat(20_000), "(a+)+$", "https://" + "a".repeat(5000)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 80 }).map((d) => JSON.parse(deep(d))) },
);

/** A uid-like path tail: real uids, well-formed unknown ones, and garbage. */
const uidArb = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...Object.values(known).flat(), emu.orgUid) },
    { weight: 2, arbitrary: fc.stringMatching(/^[0-9a-f]{40}(\/[0-9a-f]{16}){0,3}$/) },
    { weight: 2, arbitrary: fc.string({ maxLength: 80 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.constantFrom("%zz", "%", "%0", "%00", "..", "../..", "%2e%2e/%2e%2e", "%ff%fe", "%C0%AF", "*", "a".repeat(3000), "%E2%80%AE", "//", "0".repeat(40) + "//") },
  );

const queryArb = (): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.constantFrom(
          "page_size", "pageSize", "page_token", "pageToken", "order_by", "orderBy", "skip", "name", "uidp.descendants_of", "uidp.children_of",
          "uidp.ancestors_of", "uidp.in_root", "uidp.ids", "updateMask", "update_mask", "digest", "updated_since", "advisory_ids", "key_id", "aud", "identity", "__proto__", "",
        ),
        fc.oneof(
          fc.constantFrom("-1", "0", "1", "200", "201", "99999999999999999999", "1e3", "NaN", "name desc", "created_at%20desc", "uid asc asc", "desc", "true", "maybe", "%zz", "%"),
          fc.string({ maxLength: 60 }).map(encodeURIComponent),
          fc.constantFrom(...Object.values(known).flat()),
          // A page token shaped like the emulator's cursors (fingerprint of a plain list), with odd values.
          fc.tuple(hostileValue, fc.oneof(fc.string({ maxLength: 20 }), hostileValue), fc.oneof(fc.integer(), hostileValue)).map(([v, u, t]) =>
            b64({ f: JSON.stringify(["uid", false, null, null, null, null, null, null, ""]), v, u, t }),
          ),
        ),
      ),
      { maxLength: 6 },
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : ""));

const authArb = (): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${emu.token}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...forged).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom("HS256", "RS256", "none", "None", "ES256", "ES512", "PS256", "EdDSA", "", "A128KW"), fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 40 }))
        .map(([alg, claims, sig]) => `Bearer ${b64({ alg, kid: "emulator-1", typ: "JWT" })}.${b64(claims)}.${b64(sig)}`),
    },
    { weight: 1, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 })).map(([h, p]) => `Bearer ${b64(h)}.${b64(p)}.`) },
  );

/** A valid create body per collection, to mutate one field at a time. */
function template(c: CollectionName): Json {
  const g = known["groups"]![0]!;
  switch (c) {
    case "groups": return { name: "fz-group", description: "d" };
    case "identities": return { name: "fz-ident", description: "d", claimMatch: { issuer: "https://i.example", subjectPattern: "repo:.*", audience: "a", claims: { ref: "main" }, claimPatterns: { env: "prod|dev" } } };
    case "roles": return { name: "fz-role", description: "d", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] };
    case "roleBindings": return { identityUid: known["identities"]![0], roleUid: viewer };
    case "identityProviders": return { name: "fz-idp", description: "d", defaultRole: viewer, oidc: { issuer: "https://idp.example", clientId: "c", clientSecret: "s", additionalScopes: ["email"], groupsClaim: "groups", pkceEnabled: true } };
    case "accountAssociations": return { name: "fz", description: "d", amazon: { account: "123456789012" }, google: { projectId: "p", projectNumber: "1" }, azure: { tenantId: "t", clientIds: { a: "b" } }, chainguard: { serviceBindings: { SERVICE_PRINCIPAL_INGESTER: `${g}/0123456789abcdef` } }, github: { appInstallations: { "1": { installations: [{ installationId: "2", name: "n" }] } } } };
    case "groupInvites": return { email: "a@example.com", roleUid: viewer, ttl: "3600s", singleUse: true };
    case "repos":
      return {
        name: "fz-repo",
        description: "d",
        sync_config: { source: known["repos"]![0], amazon: "a", google: "g", azure: "z" },
        customOverlay: {
          contents: { packages: ["curl"], runtimeRepositories: ["https://r"], runtimeKeyring: [{ name: "k", content: "c" }] },
          environment: { A: "1" },
          annotations: { a: "b" },
          accounts: { runAs: "u", users: [{ username: "u", uid: 1, gid: 1 }], groups: [{ groupname: "g", gid: 1, members: ["u"] }] },
          certificates: { providers: ["p"], additional: [{ name: "n", content: "c" }] },
        },
      };
    default: return {};
  }
}

/** Every path into a JSON value (`a`, `a.b`, `a.b[0]` as key lists). */
function paths(v: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof v !== "object" || v === null) return [prefix];
  const out: Array<Array<string | number>> = prefix.length ? [prefix] : [];
  for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, Array.isArray(v) ? Number(k) : k]));
  return out;
}

function setPath(v: Json, path: Array<string | number>, value: unknown): Json {
  const copy = structuredClone(v);
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  Object.defineProperty(at, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Bodies that are not what a handler expects at all: deep, poisoned, malformed, large. Built once. */
const RAW_BODIES = [deep(50_000), deepObject(50_000), deep(65), deep(64), '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', "{", '{"a":1,}', "\u0000", "[]", "null", '"str"', "1e999", `{"name":"${"a".repeat(300_000)}"}`].map((s) =>
  Buffer.from(s),
);

const bodyArbs = new Map<CollectionName, fc.Arbitrary<Buffer>>();

/** A create or PATCH body: one field (or an unknown one) set to a hostile value, a hostile whole body, or raw text. */
const bodyArb = (c: CollectionName): fc.Arbitrary<Buffer> => {
  const cached = bodyArbs.get(c);
  if (cached) return cached;
  const t = template(c);
  const all = paths(t);
  const arb = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.nat({ max: all.length - 1 }), hostileValue).map(([i, v]) => Buffer.from(JSON.stringify(setPath(t, all[i]!, v)))) },
    { weight: 2, arbitrary: fc.tuple(fc.nat({ max: all.length - 1 }), fc.string({ maxLength: 20 }), hostileValue).map(([i, k, v]) => {
      const parent = all[i]!.slice(0, -1);
      return Buffer.from(JSON.stringify(setPath(t, [...parent, k], v)));
    }) },
    { weight: 1, arbitrary: hostileValue.map((v) => Buffer.from(JSON.stringify(v) ?? "null")) },
    {
      weight: 2,
      arbitrary: fc.oneof(fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)), fc.constantFrom(...RAW_BODIES)),
    },
  );
  bodyArbs.set(c, arb);
  return arb;
};

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  { weight: 1, arbitrary: fc.constantFrom("application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/json; charset=utf-16", "APPLICATION/JSON") },
);

/** Requests to the API port: any method on any path shape. */
const pathRequest = (): fc.Arbitrary<Req> =>
  fc
    .record({
      method: fc.constantFrom("GET", "GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD", "TRACE", "FOO"),
      api: fc.constantFrom("iam", "registry", "events", "vulnerabilities", "sts", "oidc", "_emulator", "", "IAM"),
      version: fc.constantFrom("v2beta1", "v2beta1", "v2", "v1", "v3", ""),
      collection: fc.oneof(fc.constantFrom(...COLLECTIONS.map(([c]) => c), ...MORE_COLLECTIONS), fc.string({ maxLength: 12 }).map(encodeURIComponent)),
      uid: fc.option(uidArb(), { nil: undefined }),
      query: queryArb(),
      auth: authArb(),
      body: fc.option(bodyArb("groups"), { nil: undefined }),
    })
    .map((r) => ({
      port: "api" as const,
      method: r.method,
      target: Buffer.from(`/${r.api}/${r.version}/${r.collection}${r.uid === undefined ? "" : `/${r.uid}`}${r.query}`),
      headers: { ...(r.auth ? { authorization: r.auth } : {}), ...(r.body ? { "content-type": "application/json" } : {}) },
      body: r.method === "GET" || r.method === "HEAD" ? Buffer.alloc(0) : r.body ?? Buffer.alloc(0),
    }));

/** A create or PATCH on a writable collection with one hostile field. */
const bodyRequest = (): fc.Arbitrary<Req> =>
  fc.constantFrom(...WRITABLE).chain((c) =>
    fc
      .record({
        patch: fc.boolean(),
        target: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...known[c]!, ...known["groups"]!) }, { weight: 1, arbitrary: uidArb() }),
        mask: fc.option(fc.oneof(fc.constantFrom("*", "name", "description,name", "claimMatch.subject", "oidc.clientSecret", "amazon.constructor", "amazon.__proto__", "a.b.c", "", "syncConfig", "sync_config.source", "customOverlay.environment"), fc.string({ maxLength: 30 }).map(encodeURIComponent)), { nil: undefined }),
        body: bodyArb(c),
        type: contentTypeArb,
      })
      .map((r) => ({
        port: "api" as const,
        method: r.patch ? "PATCH" : "POST",
        target: Buffer.from(`${base(c)}/${r.target}${r.patch && r.mask !== undefined ? `?updateMask=${r.mask}` : ""}`),
        headers: { authorization: `Bearer ${emu.token}`, "content-type": r.type },
        body: r.body,
      })),
  );

/** Raw bytes: non-ASCII or control bytes in the path, garbage request lines, oversized targets. */
const rawRequestArb = (): fc.Arbitrary<Req> =>
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => ({
      port: "api" as const,
      method: "GET",
      target: Buffer.concat([Buffer.from("/iam/v2beta1/groups/"), Buffer.from(bytes.filter((b) => b !== 0x20 && b !== 0x0d && b !== 0x0a))]),
      headers: { authorization: `Bearer ${emu.token}` },
      body: Buffer.alloc(0),
    })),
    fc.constantFrom(17_000, 40_000, 70_000).map((len) => ({ port: "api" as const, method: "GET", target: Buffer.from(`/iam/v2beta1/groups/${"a".repeat(len)}`), headers: {}, body: Buffer.alloc(0) })),
    fc.string({ maxLength: 30 }).map((m) => ({ port: "auth" as const, method: m.replace(/[\s]/g, "") || "X", target: Buffer.from("/sts/exchange"), headers: {}, body: Buffer.alloc(0) })),
  );

/** The token exchange and the test issuer on the auth port. */
const authRequest = (): fc.Arbitrary<Req> =>
  fc.oneof(
    fc.record({ q: queryArb(), auth: authArb(), aud: fc.constantFrom(emu.url, "", "x"), identity: fc.oneof(fc.constantFrom(...known["identities"]!), uidArb()) }).map((r) => ({
      port: "auth" as const,
      method: "GET",
      target: Buffer.from(`/sts/exchange?aud=${encodeURIComponent(r.aud)}&identity=${r.identity}${r.q.replace("?", "&")}`),
      headers: r.auth ? { authorization: r.auth } : {},
      body: Buffer.alloc(0),
    })),
    fc
      .record({ subject: fc.oneof(fc.constant("s"), hostileValue), audience: fc.option(hostileValue, { nil: undefined }), claims: fc.option(hostileValue, { nil: undefined }), ttlSeconds: fc.option(hostileValue, { nil: undefined }) })
      .map((b) => ({ port: "auth" as const, method: "POST", target: Buffer.from("/oidc/token"), headers: { "content-type": "application/json" }, body: Buffer.from(JSON.stringify(b)) })),
    fc.dictionary(fc.constantFrom("aud", "identity", "x", "__proto__", "constructor"), fc.string({ maxLength: 40 })).map((form) => ({
      port: "auth" as const,
      method: "POST",
      target: Buffer.from("/sts/exchange"),
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${forged[4]}` },
      body: Buffer.from(new URLSearchParams(form).toString()),
    })),
  );

const PATTERN_PIECES = ["(", ")", "a", "a+", "+", "*", "?", "|", "\\1", "(?=", "(?!", "(?<=", "[", "]", "[^a]", "{2,}", "{1001}", "\\d", "\\pL", "(?i)", ".", ".*", "^", "$", "\\", "b", "(?P<n>", "\\Q", "\\E", "\\C"];

/** An identity with a hostile pattern, then an exchange whose subject tries to make it backtrack. */
const patternCase = fc.record({
  field: fc.constantFrom("subjectPattern", "issuerPattern", "audiencePattern"),
  pattern: fc.oneof(fc.constantFrom("(a+)+$", "(a|aa)+$", "(.*a){12}", "^(a?){25}a{25}$", "((a*)*)*b"), fc.array(fc.constantFrom(...PATTERN_PIECES), { maxLength: 16 }).map((p) => p.join(""))),
  subject: fc.constantFrom(`${"a".repeat(40)}!`, "a".repeat(60), "repo:acme/x", "", "é".repeat(30)),
});

// ---- the property -------------------------------------------------------------------------------------------

function check(what: string, req: { method: string; target: Buffer }, res: RawRes, ms: number): void {
  const label = `${what} ${req.method} ${req.target.toString("latin1").slice(0, 120)} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, label).toBeLessThan(500);
  expect(ms, `${label} took ${ms} ms`).toBeLessThan(MAX_ANSWER_MS);
  if (res.status >= 400) {
    expect(res.headers["content-type"] ?? "", label).toMatch(/^application\/json/);
    if (req.method !== "HEAD") expect(isStatusBody(res.json), label).toBe(true);
  }
}

async function run(what: string, req: Req): Promise<void> {
  const started = Date.now();
  const res = await send(req);
  const ms = Date.now() - started;
  slowest = Math.max(slowest, ms);
  byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
  check(what, req, res, ms);
}

it(`fuzz: ${RUNS.toLocaleString("en-US")}+ seeded hostile requests get no 5xx, only google.rpc.Status errors, no stall, bounded memory; the server still answers`, async () => {
  const started = Date.now();
  const rssBefore = process.memoryUsage().rss;
  const g = known["groups"]![0]!;
  const request = fc.oneof(
    { weight: 4, arbitrary: pathRequest().map((r) => ["path", r] as const) },
    { weight: 8, arbitrary: bodyRequest().map((r) => ["body", r] as const) },
    { weight: 1, arbitrary: rawRequestArb().map((r) => ["raw", r] as const) },
    { weight: 2, arbitrary: authRequest().map((r) => ["auth", r] as const) },
    { weight: 1, arbitrary: patternCase.map((p) => ["pattern", p] as const) },
  );
  await fc.assert(
    fc.asyncProperty(request, async ([what, r]) => {
      if (what !== "pattern") return run(what, r as Req);
      const p = r as { field: string; pattern: string; subject: string };
      const claimMatch = { issuer: emu.issuer.url, subject: "x", [p.field]: p.pattern, ...(p.field === "subjectPattern" ? { subject: undefined } : {}), ...(p.field === "issuerPattern" ? { issuer: undefined } : {}) };
      const body = Buffer.from(JSON.stringify({ name: "fz-pattern", claimMatch }));
      const createReq: Req = { port: "api", method: "POST", target: Buffer.from(`${base("identities")}/${g}`), headers: { authorization: `Bearer ${emu.token}`, "content-type": "application/json" }, body };
      const t0 = Date.now();
      const created = await send(createReq);
      byStatus.set(created.status, (byStatus.get(created.status) ?? 0) + 1);
      check("pattern create", createReq, created, Date.now() - t0);
      if (created.status !== 200) return;
      const oidc = await emu.issuer.mint(p.subject, { audience: p.subject || "a" });
      await run("pattern exchange", { port: "auth", method: "GET", target: Buffer.from(`/sts/exchange?aud=${encodeURIComponent(emu.url)}&identity=${(created.json as Json).uid}`), headers: { authorization: `Bearer ${oidc}` }, body: Buffer.alloc(0) });
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );

  // Still serving, and memory bounded.
  const after = await api(emu, "GET", `${base("groups")}/${g}`);
  expect(after.status).toBe(200);
  const growth = process.memoryUsage().rss - rssBefore;
  const seconds = (Date.now() - started) / 1000;
  const statuses = [...byStatus].sort(([a], [b]) => a - b).map(([st, k]) => `${st}:${k}`).join(" ");
  process.stdout.write(`fuzz: ${sent} requests in ${seconds.toFixed(1)} s (seed ${SEED}; slowest answer ${slowest} ms; RSS growth ${(growth / 1048576).toFixed(0)} MiB; statuses ${statuses})\n`);
  expect(sent).toBeGreaterThanOrEqual(RUNS);
  expect(growth).toBeLessThan(MAX_RSS_GROWTH_BYTES);
}, 120_000);
