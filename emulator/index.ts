/**
 * A local emulator of the Platform API v2: a real HTTP/JSON server (fastify) that follows the API contract
 * closely enough that the provider and its tests run against it over loopback exactly as against the real
 * service.
 *
 * At start it creates one org: a root group (40-hex uid), an owner identity (a user-style single-segment uid)
 * bound to it with the built-in `owner` role, the built-in roles, and seeded repos, tags and advisories; and it
 * mints an API token for the owner.
 *
 * @example
 * ```ts
 * import { startEmulator } from "platform-pulumi/emulator";
 * const emu = await startEmulator();           // free port on 127.0.0.1
 * console.log(emu.url, emu.orgUid);             // http://127.0.0.1:41234 <40 hex>
 * emu.control.set({ errorRates: { "14": 0.1 } }); // 10% UNAVAILABLE from now on
 * await emu.close();
 * ```
 */
// First: a clear error naming the npm command when the server's optional peer dependencies are missing.
import "./server-deps";
import type { JSONWebKeySet } from "jose";
import { Access } from "./access";
import { TokenAuthority } from "./auth";
import { registerCollection, registerV1Collection } from "./collection";
import { Control, type ControlSettings } from "./control";
import { Code, DEFAULT_SERVICE_DOMAIN, StatusError, errorDomain, injectedFault, invalidArgument, permissionDenied } from "./errors";
import { timestamp, type HandlerContext } from "./handlers/common";
import { SPECS, TABLES, V1_SPECS } from "./handlers/index";
import { seedBuiltinRoles } from "./handlers/roles";
import { DEFAULT_SEED, seed, type SeedData } from "./seed";
import { Store, type Row } from "./store";
import { registerSts, TestIssuer } from "./sts";
import { createApp } from "./transport";
import { newChildUid, newRootUid } from "./uidp";
import { controlRefusal, isLoopbackName, routedPath } from "./origin";

export { Code, DEFAULT_SERVICE_DOMAIN, StatusError, errorDomain } from "./errors";
export { MAX_JSON_DEPTH } from "./limits";
export type { ControlSettings } from "./control";
export type { SeedData, RepoSeed, AdvisorySeed } from "./seed";
export { Store } from "./store";


/**
 * The emulator's own OIDC issuer, for tests that play a CI system (a plain interface, so the package's public
 * types never reach the server's framework types).
 */
export interface OidcTestIssuer {
  /** Issuer URL, `{authUrl}/oidc`. */
  readonly url: string;
  /** The issuer's JWKS (`{authUrl}/oidc/jwks`). */
  readonly jwks: { keys: Array<Record<string, unknown>> };
  /**
   * Mints an OIDC identity token (ES256) as this issuer.
   * @param opts.audience default: the auth URL; opts.claims: extra claims; opts.ttlSeconds: lifetime, default 600.
   */
  mint(subject: string, opts?: { audience?: string | string[]; claims?: Record<string, unknown>; ttlSeconds?: number }): Promise<string>;
}

/** Options for {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port to listen on; 0 (the default) picks a free port. */
  port?: number;
  /**
   * Address to bind; default `127.0.0.1` (loopback only). An address other than a loopback one (`127.0.0.0/8`,
   * `::1`, `localhost`) is refused unless {@link allowUnauthenticatedRemote} is set: the test issuer's
   * `POST /oidc/token` mints tokens for anyone, and the control surface answers anyone, without authentication.
   */
  host?: string;
  /**
   * Bind `host` even when it is not a loopback address, knowing that `/oidc/token` and the control surface
   * (with {@link control}) then answer anyone who can reach it, without authentication; default false.
   */
  allowUnauthenticatedRemote?: boolean;
  /** Serve the token exchange and test issuer on this separate port (0: a free one); default: on the API port. */
  authPort?: number;
  /** What to seed; default a few repos with tags and advisories ({@link DEFAULT_SEED}). */
  seed?: SeedData;
  /** Lifetime of minted API tokens, in seconds; default 3600 (the API's one hour). Same as `control.tokenTtlSeconds`. */
  tokenTtlSeconds?: number;
  /** API version segments served; default `["v2beta1", "v2"]` (the GA paths have the same shapes). */
  versions?: readonly string[];
  /** Serve the control surface over HTTP under `/_emulator/`; default false (the in-process `control` always works). */
  control?: boolean;
  /** Initial control settings (latency, error rates, …). */
  controlSettings?: Partial<ControlSettings>;
  /** OIDC issuers to trust besides the test issuer: issuer URL → JWKS. */
  trustedIssuers?: Record<string, JSONWebKeySet>;
  /** Log every request to stderr (fastify's logger); default false. */
  logRequests?: boolean;
  /**
   * The service domain errors name: every ErrorInfo.domain is `iam.<serviceDomain>` (seed §7 "Detail types");
   * default `platform.local` ({@link DEFAULT_SERVICE_DOMAIN}).
   */
  serviceDomain?: string;
}

/** One request the emulator served: method, path and query (never headers, so never a credential). */
export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/iam/v2beta1/groups/<uid>`. */
  path: string;
  /** Query parameters; a repeated parameter's values are joined with `,`. */
  query: Record<string, string>;
  /** HTTP status sent (0 when the connection was reset instead). */
  status: number;
}

/** How many requests {@link Emulator.requests} keeps (oldest dropped first). */
export const REQUEST_LOG_LIMIT = 10_000;

/** A running emulator. */
export interface Emulator {
  /** Base URL of the API, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  /** Base URL of the token exchange and test issuer (the API URL unless `authPort` was given). */
  authUrl: string;
  /** An API token for the org's owner identity. */
  token: string;
  /** The root group's uid (40 hex chars). */
  orgUid: string;
  /** The owner identity's uid (a user-style, single-segment uid outside the org). */
  ownerUid: string;
  /** The emulator's state, for tests that need to look behind the API. */
  store: Store;
  /** The last {@link REQUEST_LOG_LIMIT} API requests served, oldest first (tests assert what reached the server). */
  requests: RecordedRequest[];
  /** Fault injection, token lifetime and clock. */
  control: Control;
  /** The test OIDC issuer (`{authUrl}/oidc`): mint identity tokens for the token exchange. */
  issuer: OidcTestIssuer;
  /**
   * Mints another API token for any identity uid.
   * @param ttlSeconds default: the control's token lifetime; zero or negative mints an already expired token.
   */
  mintToken(identityUid: string, ttlSeconds?: number): Promise<string>;
  /** Every row of every collection. */
  dump(): Record<string, Row[]>;
  /** Back to the state right after start (same org, owner and seeds) and default controls. */
  reset(): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Paths that need an API token: everything under the three API prefixes (seed §1 rule 1) and `/events/`, tested on
 * the path as the router sees it ({@link routedPath}: percent-decoded, lower-cased), so `/%69am/...` needs one too.
 */
const API_PATH = /^\/(iam|registry|events|vulnerabilities)(\/|$)/;
/** The control surface's paths, tested the same way. */
const CONTROL_PATH = /^\/_emulator(\/|$)/;
/** The test issuer and the token exchange, which mint tokens: loopback `Host` and `Origin` only, as the control surface. */
const ISSUER_PATH = /^\/(oidc|sts)(\/|$)/;

/** Whether `host` is a loopback address (or `localhost`), reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host);
}

/**
 * Starts an emulator on loopback with a fresh org.
 * @throws Error when a port cannot be bound (e.g. EADDRINUSE), or when `host` is not a loopback address and
 *   `allowUnauthenticatedRemote` is not set.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const bindHost = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(bindHost) && !options.allowUnauthenticatedRemote) {
    throw new Error(
      `refusing to listen on ${bindHost}, which is not a loopback address: the test issuer's POST /oidc/token mints tokens for anyone` +
        `${options.control ? " and the control surface (/_emulator/) answers anyone" : ""}, without authentication. ` +
        "Bind 127.0.0.1, or pass --allow-unauthenticated-remote (allowUnauthenticatedRemote: true) if every machine that can reach it may do that",
    );
  }
  const store = new Store(TABLES);
  const control = new Control({ ...(options.controlSettings ?? {}), ...(options.tokenTtlSeconds ? { tokenTtlSeconds: options.tokenTtlSeconds } : {}) });
  const ctx: HandlerContext = { store, access: new Access(store), control, orgUid: "", now: () => control.now(), versions: options.versions ?? ["v2beta1", "v2"] };
  let authority: TokenAuthority | undefined;
  let issuer: TestIssuer | undefined;
  let url = "";
  let authUrl = "";
  const requests: RecordedRequest[] = [];
  const logRequests = options.logRequests ?? false;

  const appOptions = { logRequests, domain: errorDomain(options.serviceDomain ?? DEFAULT_SERVICE_DOMAIN) };
  const app = createApp(appOptions);
  const authApp = options.authPort === undefined ? app : createApp(appOptions);

  /** Records a request whose connection was reset instead of answered (onResponse never runs for those). */
  const recordReset = (method: string, url: string) => {
    const [path = "", qs = ""] = url.split("?", 2);
    requests.push({ method, path, query: Object.fromEntries(new URLSearchParams(qs)), status: 0 });
  };
  ctx.onHijack = recordReset;

  for (const a of new Set([app, authApp])) {
    a.addHook("onRequest", async (req, reply) => {
      reply.header("x-request-id", req.id);
      // The path the router matches, decoded: the token check must see what the handlers serve.
      const path = routedPath(req.url);
      const toControl = CONTROL_PATH.test(path);
      if (toControl || ISSUER_PATH.test(path)) {
        const refused = controlRefusal(
          { method: req.method, host: req.headers.host, origin: req.headers.origin, contentType: req.headers["content-type"] },
          { anyHost: !isLoopbackHost(bindHost), jsonOnly: toControl },
        );
        if (refused?.field === "content-type") throw invalidArgument([refused]);
        if (refused) throw permissionDenied(`${refused.field}: ${refused.description}`);
        if (toControl) return undefined;
      }
      const api = API_PATH.test(path);
      if (!api && path !== "/sts/exchange") return;
      const latency = control.current.latencyMs;
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const fault = control.drawFault();
      if (fault && "reset" in fault) {
        recordReset(req.method, req.url);
        void reply.hijack();
        req.raw.socket.destroy();
        return reply;
      }
      if (fault) throw injectedFault(fault.code as (typeof Code)[keyof typeof Code]);
      if (api) {
        if (!authority) throw new StatusError(Code.UNAVAILABLE, "emulator is starting");
        (req as typeof req & { identityUid?: string }).identityUid = await authority.verify(req.headers.authorization);
      }
      return undefined;
    });
    a.addHook("onResponse", async (req, reply) => {
      const [path = "", qs = ""] = req.url.split("?", 2);
      const query: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(qs)) query[k] = k in query ? `${query[k]},${v}` : v;
      requests.push({ method: req.method, path, query, status: reply.raw.headersSent ? reply.statusCode : 0 });
      if (requests.length > REQUEST_LOG_LIMIT) requests.splice(0, requests.length - REQUEST_LOG_LIMIT);
    });
  }

  for (const spec of SPECS) registerCollection(app, ctx, spec);
  for (const spec of V1_SPECS) registerV1Collection(app, ctx, spec);
  registerSts(authApp, {
    ctx,
    authority: () => authority,
    issuer: () => issuer,
    trusted: options.trustedIssuers ?? {},
    apiUrl: () => url,
    authUrl: () => authUrl,
  });

  let snapshot: Record<string, Row[]> | undefined;
  if (options.control) {
    app.get("/_emulator/control", async () => control.get());
    app.post("/_emulator/control", async (req) => control.set((req.body ?? {}) as Partial<ControlSettings>));
    app.get("/_emulator/state", async () => store.dump());
    app.post("/_emulator/reset", async () => {
      if (snapshot) store.restore(snapshot);
      control.reset();
      return {};
    });
    app.post("/_emulator/tokens", async (req) => {
      const b = (req.body ?? {}) as { identity?: unknown; ttlSeconds?: unknown };
      if (typeof b.identity !== "string") throw invalidArgument([{ field: "identity", description: "is required" }]);
      return { token: await authority!.mint(b.identity, typeof b.ttlSeconds === "number" ? b.ttlSeconds : control.get().tokenTtlSeconds) };
    });
  }

  const host = bindHost;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  await app.listen({ port: options.port ?? 0, host });
  url = `http://${hostPart}:${(app.server.address() as { port: number }).port}`;
  if (authApp !== app) {
    await authApp.listen({ port: options.authPort ?? 0, host });
    authUrl = `http://${hostPart}:${(authApp.server.address() as { port: number }).port}`;
  } else authUrl = url;
  authority = await TokenAuthority.create(url, authUrl, ctx.now);
  issuer = await TestIssuer.create(authUrl, ctx.now);

  // The org: root group, built-in roles, an owner identity (user-style uid outside the org) bound as owner.
  const t = timestamp(ctx.now());
  const orgUid = newRootUid();
  ctx.orgUid = orgUid;
  store.groups.put({ uid: orgUid, name: "emulated-org", description: "Root group of the emulated organization", createTime: t, updateTime: t });
  const builtins = seedBuiltinRoles(store, t);
  const ownerUid = newRootUid();
  store.identities.put({ uid: ownerUid, name: "owner", description: "Organization owner (emulator bootstrap user)", email: "owner@example.com", createTime: t, updateTime: t, lastSeenTime: t });
  store.roleBindings.put({ uid: newChildUid(orgUid), identityUid: ownerUid, roleUid: builtins.get("owner")!, createTime: t });
  seed(store, orgUid, options.seed ?? DEFAULT_SEED, t);
  snapshot = structuredClone(store.dump());

  const token = await authority.mint(ownerUid, control.get().tokenTtlSeconds);
  return {
    url,
    authUrl,
    token,
    orgUid,
    ownerUid,
    store,
    requests,
    control,
    issuer,
    mintToken: (identityUid, ttlSeconds) => authority!.mint(identityUid, ttlSeconds ?? control.get().tokenTtlSeconds),
    dump: () => store.dump(),
    reset: () => {
      store.restore(snapshot!);
      control.reset();
    },
    close: async () => {
      await app.close();
      if (authApp !== app) await authApp.close();
    },
  };
}
