/**
 * Workload identity: the token exchange and a test OIDC issuer.
 *
 * Token exchange (contract: the API description's token exchange): `GET {auth_url}/sts/exchange?aud=<API base>&identity=
 * <identity uid>` (or a form POST with the same fields) with `Authorization: Bearer <OIDC token>`. The OIDC
 * token's signature is verified against its issuer's JWKS (the emulator's own test issuer, or an issuer trusted
 * from a JWKS file); its claims are matched against the identity's `claimMatch` (exact values, or patterns
 * matched against the whole claim; audience defaults to the auth URL when the identity names none). The answer
 * is `{token, expiry}`: an API token for that identity, lasting the control's token lifetime (1 hour by default).
 *
 * Test issuer, at `{auth_url}/oidc`: `/.well-known/openid-configuration`, `/jwks`, and `POST /oidc/token`
 * `{subject, audience?, claims?, ttlSeconds?}` → `{id_token}`, so tests and examples can act as a CI system.
 */
import type { FastifyInstance } from "fastify";
import { SignJWT, createLocalJWKSet, decodeJwt, errors as joseErrors, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JSONWebKeySet, type JWTPayload } from "jose";
import type { TokenAuthority } from "./auth";
import { invalidArgument, permissionDenied, unauthenticated } from "./errors";
import type { HandlerContext } from "./handlers/common";
import { fullMatch } from "./patterns";

/** The emulator's own OIDC issuer (for tests that play a CI system). */
export class TestIssuer {
  private constructor(
    /** Issuer URL, `{auth_url}/oidc`. */
    readonly url: string,
    private readonly key: CryptoKey,
    /** The issuer's JWKS. */
    readonly jwks: JSONWebKeySet,
    private readonly now: () => Date,
  ) {}

  static async create(authUrl: string, now: () => Date): Promise<TestIssuer> {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "test-issuer-1", alg: "ES256", use: "sig" };
    return new TestIssuer(`${authUrl}/oidc`, privateKey, { keys: [jwk] }, now);
  }

  /**
   * Mints an OIDC identity token as this issuer.
   * @param audience default: the auth URL (what an identity without an audience rule expects).
   * @param ttlSeconds default 600.
   */
  async mint(subject: string, opts: { audience?: string | string[]; claims?: Record<string, unknown>; ttlSeconds?: number } = {}): Promise<string> {
    const now = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({ ...(opts.claims ?? {}) })
      .setProtectedHeader({ alg: "ES256", kid: "test-issuer-1", typ: "JWT" })
      .setIssuer(this.url)
      .setSubject(subject)
      .setAudience(opts.audience ?? this.url.replace(/\/oidc$/, ""))
      .setIssuedAt(now)
      .setExpirationTime(now + (opts.ttlSeconds ?? 600))
      .sign(this.key);
  }
}

function claimValue(payload: JWTPayload, name: string): string[] {
  const v = payload[name];
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v.map(String) : [typeof v === "object" ? JSON.stringify(v) : String(v)];
}

/** Why `payload` does not satisfy `claimMatch`, or undefined when it does. */
export function claimMismatch(cm: Record<string, unknown>, payload: JWTPayload, defaultAudience: string): string | undefined {
  const rule = (name: string, exact: unknown, pattern: unknown, values: string[]): string | undefined => {
    if (typeof exact === "string" && exact !== "") return values.includes(exact) ? undefined : `${name} does not equal the identity's ${name}`;
    if (typeof pattern === "string" && pattern !== "") return values.some((x) => fullMatch(pattern, x)) ? undefined : `${name} does not match the identity's ${name}Pattern`;
    return undefined;
  };
  const aud = claimValue(payload, "aud");
  const problems = [
    rule("issuer", cm["issuer"], cm["issuerPattern"], claimValue(payload, "iss")),
    rule("subject", cm["subject"], cm["subjectPattern"], claimValue(payload, "sub")),
    cm["audience"] || cm["audiencePattern"] ? rule("audience", cm["audience"], cm["audiencePattern"], aud) : aud.includes(defaultAudience) ? undefined : `audience must include ${defaultAudience}`,
  ];
  for (const [k, want] of Object.entries((cm["claims"] as Record<string, string> | undefined) ?? {})) {
    if (!claimValue(payload, k).includes(want)) problems.push(`claim ${k} does not equal the identity's value`);
  }
  for (const [k, pattern] of Object.entries((cm["claimPatterns"] as Record<string, string> | undefined) ?? {})) {
    if (!claimValue(payload, k).some((x) => fullMatch(pattern, x))) problems.push(`claim ${k} does not match the identity's pattern`);
  }
  return problems.find((p) => p !== undefined);
}

/** Options of {@link registerSts}. */
export interface StsOptions {
  ctx: HandlerContext;
  authority: () => TokenAuthority | undefined;
  issuer: () => TestIssuer | undefined;
  /** Issuers trusted besides the test issuer: issuer URL → JWKS. */
  trusted: Record<string, JSONWebKeySet>;
  /** The API's base URL: the only `aud` the exchange accepts, and the audience of the tokens it mints. */
  apiUrl: () => string;
  /** The auth URL: the default audience an OIDC token must carry. */
  authUrl: () => string;
}

/** Registers `/sts/exchange` and the test issuer's routes. */
export function registerSts(app: FastifyInstance, o: StsOptions): void {
  const exchange = async (authorization: string | undefined, fields: Record<string, unknown>) => {
    const authority = o.authority();
    const issuer = o.issuer();
    if (!authority || !issuer) throw unauthenticated("emulator is starting");
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
    if (!m?.[1]) throw unauthenticated("missing Authorization: Bearer <OIDC token>");
    const identityUid = typeof fields["identity"] === "string" ? fields["identity"] : "";
    const aud = typeof fields["aud"] === "string" ? fields["aud"] : "";
    const bad = [];
    if (!identityUid) bad.push({ field: "identity", description: "is required: the uid of the identity to assume" });
    if (aud !== o.apiUrl()) bad.push({ field: "aud", description: `must be the API base URL ${o.apiUrl()}, got "${aud}"` });
    if (bad.length > 0) throw invalidArgument(bad);

    let iss: string | undefined;
    try {
      iss = decodeJwt(m[1]).iss;
    } catch {
      throw unauthenticated("the bearer token is not a JWT");
    }
    const jwks = iss === issuer.url ? issuer.jwks : typeof iss === "string" && Object.hasOwn(o.trusted, iss) ? o.trusted[iss] : undefined;
    if (!jwks) throw unauthenticated(`issuer ${String(iss)} is not trusted by this emulator`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(m[1], createLocalJWKSet(jwks), { currentDate: o.ctx.now() }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated("the OIDC token has expired");
      throw unauthenticated(`the OIDC token does not verify (${err instanceof joseErrors.JOSEError ? err.code : "invalid"})`);
    }
    const identity = o.ctx.store.identities.get(identityUid);
    const cm = identity?.["claimMatch"] as Record<string, unknown> | undefined;
    if (!identity || !cm) throw permissionDenied(`the token may not assume identity ${identityUid}`);
    const why = claimMismatch(cm, payload, o.authUrl());
    if (why) throw permissionDenied(`the token may not assume identity ${identityUid}: ${why}`);
    // Seed §2 Identity lastSeenTime: "When the identity was last federated" (the vendor's field description).
    o.ctx.store.identities.put({ ...identity, lastSeenTime: o.ctx.now().toISOString() });
    const ttl = o.ctx.control.get().tokenTtlSeconds;
    return { token: await authority.mint(identityUid, ttl), expiry: new Date(o.ctx.now().getTime() + ttl * 1000).toISOString() };
  };

  app.get("/sts/exchange", async (req) => exchange(req.headers.authorization, req.query as Record<string, unknown>));
  app.post("/sts/exchange", async (req) => {
    const fields = { ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown> | undefined) ?? {}) };
    return exchange(req.headers.authorization, fields);
  });

  app.get("/oidc/.well-known/openid-configuration", async () => {
    const url = o.issuer()?.url ?? "";
    return {
      issuer: url,
      jwks_uri: `${url}/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    };
  });
  app.get("/oidc/jwks", async () => o.issuer()?.jwks ?? { keys: [] });
  app.post("/oidc/token", async (req) => {
    if (req.body !== undefined && (typeof req.body !== "object" || req.body === null || Array.isArray(req.body))) {
      throw invalidArgument([{ field: "body", description: "must be a JSON object" }]);
    }
    const b = (req.body as Record<string, unknown> | undefined) ?? {};
    const v = [];
    if (typeof b["subject"] !== "string" || b["subject"] === "") v.push({ field: "subject", description: "is required" });
    const aud = b["audience"];
    if (aud !== undefined && typeof aud !== "string" && !(Array.isArray(aud) && aud.every((a) => typeof a === "string"))) {
      v.push({ field: "audience", description: "must be a string or a list of strings" });
    }
    if (b["claims"] !== undefined && (typeof b["claims"] !== "object" || b["claims"] === null || Array.isArray(b["claims"]))) v.push({ field: "claims", description: "must be an object" });
    if (b["ttlSeconds"] !== undefined && (typeof b["ttlSeconds"] !== "number" || b["ttlSeconds"] <= 0)) v.push({ field: "ttlSeconds", description: "must be a positive number" });
    if (v.length > 0) throw invalidArgument(v);
    const token = await o.issuer()!.mint(b["subject"] as string, {
      ...(b["audience"] !== undefined ? { audience: b["audience"] as string | string[] } : {}),
      ...(b["claims"] !== undefined ? { claims: b["claims"] as Record<string, unknown> } : {}),
      ...(b["ttlSeconds"] !== undefined ? { ttlSeconds: b["ttlSeconds"] as number } : {}),
    });
    return { id_token: token };
  });
}
