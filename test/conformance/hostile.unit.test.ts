/**
 * Conformance: where the emulator departed from the API description, and hostile input that reached
 * code paths answering 500 or stalling the server. Each test here failed on the emulator before its fix.
 */
import { SignJWT, exportJWK, generateKeyPair, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { AccountAssociation, Empty, Group, Identity } from "../../provider/client/schemas";
import { ERROR_INFO, RFC3339_MS, api, base, create, expectInvalid, expectList, expectOk, expectPrecondition, expectStatus, http, mkGroup, qs, type Json, type StatusBody } from "./helpers";
import { isStatusBody, rawRequest } from "./raw";
import { startEmulator } from "../../emulator";
import { useEmulator } from "../harness/emulator";

const emu = useEmulator();
let n = 0;
const fresh = async () => (await mkGroup(emu, emu.orgUid, `hostile-${++n}`)).uid as string;

const errorInfoOf = (s: StatusBody) => s.details.find((d) => d["@type"] === ERROR_INFO) as Json;

describe("the emulator follows the API description", () => {
  it("§2 Group: every group response carries verified (false for a new group) and resourceLimits ({} when none set)", async () => {
    const g = await mkGroup(emu, emu.orgUid, "limits-and-verified");
    const shapes: Json[] = [
      g,
      expectOk(await api(emu, "GET", `${base("groups")}/${g.uid}`), Group),
      expectOk(await api(emu, "PATCH", `${base("groups")}/${g.uid}`, { description: "changed" }), Group),
      ...expectList(await api(emu, "GET", `${base("groups")}${qs({ "uidp.ids": [g.uid, emu.orgUid] })}`), "groups", Group).items,
    ];
    for (const s of shapes) {
      expect(s.verified, JSON.stringify(s)).toBe(false);
      expect(s.resourceLimits, JSON.stringify(s)).toEqual({});
    }
  });

  it("§2 Identity: lastSeenTime is in the create response and in reads, as an RFC 3339 timestamp", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, { name: "seen", claimMatch: { issuer: "https://i.example", subject: "s" } });
    expect(i.lastSeenTime).toMatch(RFC3339_MS);
    const got = expectOk(await api(emu, "GET", `${base("identities")}/${i.uid}`), Identity) as Json;
    expect(got.lastSeenTime).toMatch(RFC3339_MS);
  });

  it("§7: ErrorInfo domain has the shape iam.<service_domain>; the service domain is an emulator option", async () => {
    const s = expectStatus(await api(emu, "GET", `${base("groups")}/${emu.orgUid}/0123456789abcdef`), 5, 404);
    expect(errorInfoOf(s).domain).toMatch(/^iam\.[a-z0-9.-]+$/);
    const other = await startEmulator({ serviceDomain: "platform.example.test" });
    try {
      const t = expectStatus(await api(other, "POST", `${base("groups")}/${other.orgUid}`, {}), 3, 400);
      expect(errorInfoOf(t).domain).toBe("iam.platform.example.test");
    } finally {
      await other.close();
    }
  });

  it("§7 known case: deleting a group with children carries ErrorInfo reason FAILED_PRECONDITION and violation type RESOURCE_NOT_EMPTY", async () => {
    const g = await fresh();
    await mkGroup(emu, g, "child");
    const res = await api(emu, "DELETE", `${base("groups")}/${g}`);
    expectPrecondition(res, "RESOURCE_NOT_EMPTY");
    expect(errorInfoOf(res.body).reason).toBe("FAILED_PRECONDITION");
  });

  it("§7: every error's ErrorInfo reason is the name of its code (validation, not found, no route, auth, exists, unimplemented, preconditions)", async () => {
    const g = await fresh();
    await create(emu, "accountAssociations", g, { amazon: { account: "123456789012" } });
    const viewerRole = (await api(emu, "GET", `${base("roles")}${qs({ name: "viewer" })}`)).body.roles[0].uid as string;
    const cases: Array<[Promise<Json>, number, string]> = [
      [api(emu, "POST", `${base("groups")}/${g}`, {}), 3, "INVALID_ARGUMENT"],
      [api(emu, "GET", `${base("groups")}/${g}/0123456789abcdef`), 5, "NOT_FOUND"],
      [api(emu, "GET", "/iam/v2beta1/nothing-here"), 5, "NOT_FOUND"],
      [api(emu, "GET", base("groups"), undefined, null), 16, "UNAUTHENTICATED"],
      [api(emu, "POST", `${base("accountAssociations")}/${g}`, { amazon: { account: "123456789012" } }), 6, "ALREADY_EXISTS"],
      [api(emu, "PATCH", `${base("tags")}/${(await api(emu, "GET", base("tags"))).body.tags[0].uid}`, { deprecated: true }), 12, "UNIMPLEMENTED"],
      [api(emu, "DELETE", `${base("roles")}/${viewerRole}`), 9, "FAILED_PRECONDITION"],
      [api(emu, "DELETE", `${base("groups")}/${emu.orgUid}`), 9, "FAILED_PRECONDITION"],
    ];
    for (const [p, code, reason] of cases) {
      const res = await p;
      expect(res.body?.code, JSON.stringify(res.body)).toBe(code);
      expect(errorInfoOf(res.body)?.reason, JSON.stringify(res.body)).toBe(reason);
    }
    const stranger = await emu.mintToken("0".repeat(40));
    const denied = await api(emu, "GET", `${base("groups")}/${g}`, undefined, stranger);
    expect(denied.body.code).toBe(7);
    expect(errorInfoOf(denied.body).reason).toBe("PERMISSION_DENIED");
  });
});

describe("tokens signed with another algorithm are UNAUTHENTICATED, never 500", () => {
  const claims = () => ({ sub: emu.ownerUid, aud: emu.url, iss: emu.url });
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

  const forged = async (): Promise<Array<[string, string]>> => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = (alg: string) => new SignJWT(claims()).setProtectedHeader({ alg, kid: "emulator-1", typ: "JWT" }).setIssuedAt(now).setExpirationTime(now + 600);
    const rsa = await generateKeyPair("RS256");
    // The emulator's public keys are public: an attacker can HMAC with their bytes (algorithm confusion).
    const jwks = (await http(`${emu.authUrl}/oidc/jwks`)).body as Json;
    const publicJwkBytes = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    const ecPublic = await exportJWK((await generateKeyPair("ES256")).publicKey);
    return [
      ["HS256 with a random secret", await jwt("HS256").sign(new TextEncoder().encode("any-secret-at-all-32-bytes-long!"))],
      ["HS256 keyed with a public JWK", await jwt("HS256").sign(publicJwkBytes)],
      ["HS256 keyed with an EC public key's x", await jwt("HS256").sign(await importJWK({ kty: "oct", k: ecPublic.x! }, "HS256"))],
      ["RS256", await jwt("RS256").sign(rsa.privateKey)],
      ["alg none", `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims(), iat: now, exp: now + 600 })}.`],
      ["alg none with a signature", `${b64({ alg: "none" })}.${b64(claims())}.c2ln`],
      ["unknown alg", `${b64({ alg: "XX999" })}.${b64(claims())}.c2ln`],
      // Found by the fuzz suite: an EdDSA header made jose throw about the key type (a 500).
      ["EdDSA header", `${b64({ alg: "EdDSA", kid: "emulator-1" })}.${b64(claims())}.c2ln`],
      ["PS256 header", `${b64({ alg: "PS256", kid: "emulator-1" })}.${b64(claims())}.c2ln`],
    ];
  };

  it("API requests: HS256, HS256 keyed with a public key, RS256, alg none, unknown alg -> 401 code 16", async () => {
    for (const [what, token] of await forged()) {
      const res = await api(emu, "GET", base("groups"), undefined, token);
      expect({ what, status: res.status, code: res.body?.code }, JSON.stringify(res.body)).toEqual({ what, status: 401, code: 16 });
      expectStatus(res, 16, 401);
    }
  });

  it("the token exchange: the same forged OIDC tokens -> 401 code 16", async () => {
    for (const [what, token] of await forged()) {
      const res = await http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: emu.ownerUid })}`, { token });
      expect({ what, status: res.status, code: res.body?.code }, JSON.stringify(res.body)).toEqual({ what, status: 401, code: 16 });
    }
  });
});

describe("identity patterns are RE2 (linear time, no backreferences or lookaround)", () => {
  it("subjectPattern (a+)+$ against 'a'x29 + '!' is answered at once and never stalls other requests", async () => {
    const g = await fresh();
    const ident = await create(emu, "identities", g, { name: "redos", claimMatch: { issuer: emu.issuer.url, subjectPattern: "(a+)+$" } });
    const oidc = await emu.issuer.mint(`${"a".repeat(29)}!`);
    const started = Date.now();
    const [exchange, other] = await Promise.all([
      http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: ident.uid })}`, { token: oidc }),
      (async () => {
        await new Promise((r) => setTimeout(r, 20));
        return api(emu, "GET", `${base("groups")}/${g}`);
      })(),
    ]);
    const ms = Date.now() - started;
    expectStatus(exchange, 7, 403);
    expect(other.status).toBe(200);
    expect(ms, "both answers within 1.5 s").toBeLessThan(1500);
    // The same pattern still matches what it should (full match).
    const ok = await http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: ident.uid })}`, { token: await emu.issuer.mint("a".repeat(40)) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it.each([
    ["claimMatch.subjectPattern", { claimMatch: { issuer: "https://i.example", subjectPattern: "(a)\\1" } }],
    ["claimMatch.subjectPattern", { claimMatch: { issuer: "https://i.example", subjectPattern: "a(?=b)" } }],
    ["claimMatch.issuerPattern", { claimMatch: { issuerPattern: "(?<=https://)x", subject: "s" } }],
    ["claimMatch.audiencePattern", { claimMatch: { issuer: "https://i.example", subject: "s", audiencePattern: "a(?!b)" } }],
    ["claimMatch.claimPatterns.ref", { claimMatch: { issuer: "https://i.example", subject: "s", claimPatterns: { ref: "(x)\\1" } } }],
    ["awsIdentity.arnPattern", { awsIdentity: { arnPattern: "arn(?=:)", awsAccount: "123456789012" } }],
    ["claimMatch.subjectPattern", { claimMatch: { issuer: "https://i.example", subjectPattern: "(" } }],
  ])("create with a pattern RE2 rejects is INVALID_ARGUMENT naming %s", async (field, body) => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${base("identities")}/${g}`, { name: "bad-pattern", ...body }), [field]);
  });

  it("PATCH with a pattern RE2 rejects is INVALID_ARGUMENT naming the field, and the identity is unchanged", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, { name: "patch-pattern", claimMatch: { issuer: "https://i.example", subjectPattern: "repo:.*" } });
    const res = await api(emu, "PATCH", `${base("identities")}/${i.uid}`, { claimMatch: { issuer: "https://i.example", subjectPattern: "(repo)\\1" } });
    expectInvalid(res, ["claimMatch.subjectPattern"]);
    expect((await api(emu, "GET", `${base("identities")}/${i.uid}`)).body.claimMatch.subjectPattern).toBe("repo:.*");
  });

  it("RE2 syntax JavaScript lacks is accepted and matched as a whole ((?i) flags, \\pL classes)", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, { name: "re2-syntax", claimMatch: { issuer: emu.issuer.url, subjectPattern: "(?i)repo:ACME/\\pL+" } });
    const exchange = async (sub: string) => http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: i.uid })}`, { token: await emu.issuer.mint(sub) });
    expect((await exchange("repo:acme/über")).status).toBe(200);
    expect((await exchange("xrepo:acme/x")).status, "anchored at the start").toBe(403);
    expect((await exchange("repo:acme/x1")).status, "anchored at the end").toBe(403);
  });
});

describe("every error is a google.rpc.Status, down to Node's HTTP parser", () => {
  const expectRawStatus = (res: { status: number; headers: Record<string, string>; json: unknown; text: string }, httpStatus: number, code: number) => {
    expect(res.status, res.text).toBe(httpStatus);
    expect(res.headers["content-type"] ?? "").toMatch(/^application\/json/);
    expect(isStatusBody(res.json), res.text).toBe(true);
    expect((res.json as Json).code).toBe(code);
  };

  it("GET /iam/v2beta1/groups/%zz (malformed percent-encoding) is INVALID_ARGUMENT", async () => {
    const res = await http(`${emu.url}/iam/v2beta1/groups/%zz`, { token: emu.token });
    expect(res.status).toBe(400);
    expect(isStatusBody(res.body), JSON.stringify(res.body)).toBe(true);
    expect(res.body.code).toBe(3);
  });

  it("a request line over 16 KB gets a Status (HTTP 431), not Node's bare answer", async () => {
    const res = await rawRequest(emu.url, `GET /iam/v2beta1/groups/${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close`);
    expectRawStatus(res, 431, 3);
  });

  it("raw non-ASCII bytes in the path get a Status (HTTP 400)", async () => {
    const head = Buffer.concat([Buffer.from("GET /iam/v2beta1/groups/"), Buffer.from([0xc3, 0xa9, 0xff, 0x00]), Buffer.from(" HTTP/1.1\r\nHost: x\r\nConnection: close")]);
    expectRawStatus(await rawRequest(emu.url, head), 400, 3);
  });

  it("a request Node cannot parse at all gets a Status (HTTP 400)", async () => {
    expectRawStatus(await rawRequest(emu.url, "BLAH\x01 / HTTP/9.9\r\nHost: x"), 400, 3);
  });

  it("the auth port's app answers the same way (bad URL, header overflow)", async () => {
    const split = await startEmulator({ authPort: 0 });
    try {
      const bad = await http(`${split.authUrl}/sts/exchange/%zz`);
      expect(isStatusBody(bad.body), JSON.stringify(bad.body)).toBe(true);
      expect(bad.body.code).toBe(3);
      expectRawStatus(await rawRequest(split.authUrl, `GET /sts/exchange?${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close`), 431, 3);
      const missing = await http(`${split.authUrl}/nothing`);
      expect(isStatusBody(missing.body), JSON.stringify(missing.body)).toBe(true);
    } finally {
      await split.close();
    }
  });
});

describe("odd bodies are INVALID_ARGUMENT, never 500", () => {
  it("a body nested 50,000 levels deep is INVALID_ARGUMENT naming the body", async () => {
    const g = await fresh();
    const deep = `{"name":"deep","description":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const res = await http(`${emu.url}${base("groups")}/${g}`, { method: "POST", token: emu.token, raw: deep });
    expectInvalid(res, ["body"]);
    const deepObj = `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`;
    expectInvalid(await http(`${emu.url}${base("groups")}/${g}`, { method: "PATCH", token: emu.token, raw: deepObj }), ["body"]);
  });

  it("/oidc/token with audience {} (or a list holding a non-string) is INVALID_ARGUMENT naming audience", async () => {
    expectInvalid(await http(`${emu.authUrl}/oidc/token`, { method: "POST", json: { subject: "s", audience: {} } }), ["audience"]);
    expectInvalid(await http(`${emu.authUrl}/oidc/token`, { method: "POST", json: { subject: "s", audience: ["a", 1] } }), ["audience"]);
  });

  it("an unknown nested field of an account association (amazon.x) is INVALID_ARGUMENT naming it", async () => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${base("accountAssociations")}/${g}`, { amazon: { account: "123456789012", x: { y: 1 } } }), ["amazon.x"]);
    expectInvalid(await api(emu, "POST", `${base("accountAssociations")}/${g}`, { google: { projectId: "p", extra: true } }), ["google.extra"]);
    await create(emu, "accountAssociations", g, { amazon: { account: "123456789012" } });
    expectInvalid(await api(emu, "PATCH", `${base("accountAssociations")}/${g}`, { amazon: { account: "123456789012", x: 1 } }), ["amazon.x"]);
  });

  it("awsIdentity.awsAccount must be a 12-digit string, not an object", async () => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${base("identities")}/${g}`, { name: "aws-obj", awsIdentity: { arn: "arn:aws:iam::123456789012:role/x", awsAccount: {} } }), ["awsIdentity.awsAccount"]);
    expectInvalid(await api(emu, "POST", `${base("identities")}/${g}`, { name: "aws-num", awsIdentity: { arn: "arn:aws:iam::123456789012:role/x", awsAccount: 123456789012 } }), ["awsIdentity.awsAccount"]);
    expectInvalid(await api(emu, "POST", `${base("identities")}/${g}`, { name: "aws-arn", awsIdentity: { arn: ["x"], awsAccount: "123456789012" } }), ["awsIdentity.arn"]);
  });

  // Seed §4 rule 4: "Deleting a group that still has child resources (for example repos) fails with a precondition
  // failure"; the vendor's DeleteGroup: "Fails if the group has child repos, child groups, or other child IAM
  // resources". An account association is an IAM resource of that group, so it blocks the delete like any child.
  it("§4 rule 4: a group with an account association cannot be deleted (RESOURCE_NOT_EMPTY naming accountAssociations) until the association is", async () => {
    const g = await fresh();
    expectOk(await api(emu, "POST", `${base("accountAssociations")}/${g}`, { amazon: { account: "123456789012" } }), AccountAssociation);
    const v = expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${g}`), "RESOURCE_NOT_EMPTY");
    expect(v.find((x) => x.type === "RESOURCE_NOT_EMPTY")!.description).toContain("accountAssociations");
    expect((await api(emu, "GET", `${base("accountAssociations")}/${g}`)).status).toBe(200);
    expectOk(await api(emu, "DELETE", `${base("accountAssociations")}/${g}`), Empty);
    expectOk(await api(emu, "DELETE", `${base("groups")}/${g}`), Empty);
    expect((await api(emu, "GET", `${base("accountAssociations")}/${g}`)).status).toBe(404);
  });
});

describe("found by the fuzz suite", () => {
  it("a method the emulator does not route on a collection path is code 12 with HTTP 405, never a 5xx", async () => {
    const g = await fresh();
    const invite = await create(emu, "groupInvites", g, { roleUid: (await api(emu, "GET", `${base("roles")}${qs({ name: "viewer" })}`)).body.roles[0].uid, ttl: "3600s" });
    expectStatus(await api(emu, "PATCH", `${base("groupInvites")}/${invite.uid}`, { email: "a@example.com" }), 12, 405);
    expectStatus(await api(emu, "PATCH", `${base("tags")}/${emu.orgUid}/0123456789abcdef/0123456789abcdef`, { deprecated: true }), 12, 405);
    expectStatus(await api(emu, "PUT", `/iam/v1/groups/${g}`, { name: "v1-put" }), 12, 405);
  });

  it("a PATCH mask path into Object.prototype (amazon.constructor) is refused or ignored, never a 500", async () => {
    const g = await fresh();
    await create(emu, "accountAssociations", g, { amazon: { account: "123456789012" } });
    for (const mask of ["amazon.constructor", "amazon.__proto__", "amazon.toString"]) {
      const res = await api(emu, "PATCH", `${base("accountAssociations")}/${g}?updateMask=${mask}`, { amazon: { account: "123456789012" } });
      expect(res.status, `${mask}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
    }
    expect((await api(emu, "GET", `${base("accountAssociations")}/${g}`)).body.amazon).toEqual({ account: "123456789012" });
  });

  it("a repeated updateMask parameter is read as one comma-separated mask, not a 500", async () => {
    const g = await fresh();
    const res = await api(emu, "PATCH", `${base("groups")}/${g}?updateMask=description&updateMask=name`, { name: "two-masks", description: "both" });
    const body = expectOk(res, Group);
    expect([body.name, body.description]).toEqual(["two-masks", "both"]);
  });
});
