/**
 * API tokens: JWTs the emulator signs (ES256, jose), audience = the API's base URL, subject = the
 * identity's uid, lasting one hour by default (contract: "The API token lasts 1 hour; its audience is the API
 * base address"). Every API request must carry one as `Authorization: Bearer <token>`; a missing, malformed,
 * badly signed, wrong-audience or expired token is UNAUTHENTICATED (code 16).
 */
import { SignJWT, errors as joseErrors, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from "jose";
import { StatusError, unauthenticated } from "./errors";

/** Default API token lifetime in seconds (1 hour). */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/** How many verified tokens {@link TokenAuthority.verify} remembers (cleared when full). */
const VERIFIED_CACHE_LIMIT = 10_000;

/** Signs and verifies the emulator's API tokens. */
export class TokenAuthority {
  private readonly verified = new Map<string, { sub: string; exp: number }>();

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    /** The public key as a JWK, for a JWKS document. */
    readonly publicJwk: JWK,
    /** `aud` of every token: the API's base URL. */
    readonly baseUrl: string,
    /** `iss` of every token: the auth URL (the API URL unless the exchange runs on its own port). */
    readonly issuer: string,
    private readonly now: () => Date,
  ) {}

  /**
   * Creates an authority with a fresh ES256 key pair.
   * @param now the emulator's clock (token `iat`/`exp` and verification follow it).
   */
  static async create(baseUrl: string, issuer = baseUrl, now: () => Date = () => new Date()): Promise<TokenAuthority> {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const publicJwk = { ...(await exportJWK(publicKey)), kid: "emulator-1", alg: "ES256", use: "sig" };
    return new TokenAuthority(privateKey, publicKey, publicJwk, baseUrl, issuer, now);
  }

  /**
   * Mints an API token for `identityUid`.
   * @param ttlSeconds lifetime in seconds; default 3600.
   */
  async mint(identityUid: string, ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS): Promise<string> {
    const now = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "emulator-1", typ: "JWT" })
      .setIssuer(this.issuer)
      .setAudience(this.baseUrl)
      .setSubject(identityUid)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.privateKey);
  }

  /**
   * Verifies an `Authorization` header value and returns the caller's identity uid.
   * Only ES256, the emulator's own algorithm, is accepted: a token signed with anything else (HS256, HS256 keyed
   * with a public key, RS256, `alg: none`) is UNAUTHENTICATED like any bad signature (it was a 500).
   * @throws StatusError UNAUTHENTICATED when the header is missing or not `Bearer <jwt>`, or the token does not
   *   verify (algorithm, signature, issuer, audience, expiry). The token itself never appears in the message.
   */
  async verify(authorization: string | undefined): Promise<string> {
    if (!authorization) throw unauthenticated("missing Authorization header");
    const m = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!m?.[1]) throw unauthenticated("Authorization header is not \"Bearer <token>\"");
    // A signature checked once stays valid; only the expiry is re-checked, on the emulator's (movable) clock.
    const cached = this.verified.get(m[1]);
    if (cached) {
      if (cached.exp * 1000 <= this.now().getTime()) throw unauthenticated("token expired");
      return cached.sub;
    }
    try {
      const { payload } = await jwtVerify(m[1], this.publicKey, { algorithms: ["ES256"], issuer: this.issuer, audience: this.baseUrl, currentDate: this.now() });
      if (!payload.sub) throw unauthenticated("token has no subject");
      if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
      this.verified.set(m[1], { sub: payload.sub, exp: payload.exp ?? 0 });
      return payload.sub;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated("token expired");
      if (err instanceof StatusError) throw err;
      // Whatever else a hostile token makes the JOSE library throw (e.g. a TypeError for a key of the wrong
      // kind) is a token that does not verify, never an internal error.
      throw unauthenticated(`token rejected (${err instanceof joseErrors.JOSEError ? err.code : "invalid token"})`);
    }
  }
}
