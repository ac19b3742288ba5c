/**
 * A local emulator of the Platform API v2: a real HTTP/JSON server (fastify) that follows the API contract
 * closely enough that the provider and its tests run against it over loopback exactly as against the real
 * service.
 *
 * At start it creates one org: a root group (40-hex uid), an owner identity bound to it with the built-in
 * `owner` role, the built-in roles, and seeded repos; and it mints an API token for the owner.
 *
 * @example
 * ```ts
 * import { startEmulator } from "platform-pulumi/emulator";
 * const emu = await startEmulator();           // free port on 127.0.0.1
 * console.log(emu.url, emu.orgUid);             // http://127.0.0.1:41234 <40 hex>
 * // ... talk to emu.url with `Authorization: Bearer ${emu.token}` ...
 * await emu.close();
 * ```
 */
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { TokenAuthority } from "./auth";
import { Code, StatusError, invalidArgument, noRoute } from "./errors";
import { timestamp, type HandlerContext } from "./handlers/common";
import { groups } from "./handlers/groups";
import { identities } from "./handlers/identities";
import { repos, seedRepos, DEFAULT_REPOS, type RepoSeed } from "./handlers/repos";
import { roleBindings } from "./handlers/roleBindings";
import { roles, seedBuiltinRoles } from "./handlers/roles";
import { Store } from "./store";
import { newChildUid, newRootUid } from "./uidp";

export { Code, StatusError } from "./errors";
export type { RepoSeed } from "./handlers/repos";
export { Store } from "./store";

/** Options for {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port to listen on; 0 (the default) picks a free port. */
  port?: number;
  /** Address to bind; default `127.0.0.1` (loopback only). */
  host?: string;
  /** Repos seeded under the root group; default a few well-known image names. */
  repos?: readonly RepoSeed[];
  /** Lifetime of minted API tokens, in seconds; default 3600 (the API's one hour). */
  tokenTtlSeconds?: number;
  /** API version segments served; default `["v2beta1", "v2"]` (the GA paths have the same shapes). */
  versions?: readonly string[];
  /** Log every request to stderr (fastify's logger); default false. */
  logRequests?: boolean;
}

/** One request the emulator served: method, path and query (never headers, so never a credential). */
export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/iam/v2beta1/groups/<uid>`. */
  path: string;
  /** Query parameters; a repeated parameter's values are joined with `,`. */
  query: Record<string, string>;
  /** HTTP status sent. */
  status: number;
}

/** How many requests {@link Emulator.requests} keeps (oldest dropped first). */
export const REQUEST_LOG_LIMIT = 10_000;

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  /** An API token for the org's owner identity (lasts `tokenTtlSeconds`). */
  token: string;
  /** The root group's uid (40 hex chars). */
  orgUid: string;
  /** The owner identity's uid (a user-style, single-segment uid outside the org). */
  ownerUid: string;
  /** The emulator's state, for tests that need to look behind the API. */
  store: Store;
  /** The last {@link REQUEST_LOG_LIMIT} API requests served, oldest first (tests assert what reached the server). */
  requests: RecordedRequest[];
  /**
   * Mints another API token for any identity uid.
   * @param ttlSeconds default: the emulator's token lifetime; zero or negative mints an already expired token.
   */
  mintToken(identityUid: string, ttlSeconds?: number): Promise<string>;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Builds the fastify app with every collection's routes; `auth` is consulted on each API request. */
export function buildApp(
  ctx: HandlerContext,
  auth: () => TokenAuthority | undefined,
  logRequests = false,
  requests: RecordedRequest[] = [],
): FastifyInstance {
  const app = Fastify({ logger: logRequests, routerOptions: { ignoreTrailingSlash: true }, bodyLimit: 1 << 20 });

  app.addHook("onResponse", async (req, reply) => {
    const [path = "", qs = ""] = req.url.split("?", 2);
    const query: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(qs)) query[k] = k in query ? `${query[k]},${v}` : v;
    requests.push({ method: req.method, path, query, status: reply.statusCode });
    if (requests.length > REQUEST_LOG_LIMIT) requests.splice(0, requests.length - REQUEST_LOG_LIMIT);
  });

  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
    const path = req.url.split("?")[0] ?? "";
    if (/^\/(iam|registry|vulnerabilities)\//.test(path)) {
      const authority = auth();
      if (!authority) throw new StatusError(Code.UNAVAILABLE, "emulator is starting");
      await authority.verify(req.headers.authorization);
    }
  });

  app.setErrorHandler((err: FastifyError | StatusError, _req, reply) => {
    let status: StatusError;
    if (err instanceof StatusError) status = err;
    else if (err.code?.startsWith("FST_ERR_CTP") || err.statusCode === 400) {
      status = invalidArgument([{ field: "body", description: err.message }]);
    } else {
      status = new StatusError(Code.INTERNAL, `Internal error: ${err.message}`);
    }
    void reply.code(status.httpStatus).type("application/json").send(status.toBody());
  });

  app.setNotFoundHandler((req, reply) => {
    const status = noRoute(req.method, req.url.split("?")[0] ?? "");
    void reply.code(status.httpStatus).send(status.toBody());
  });

  for (const handler of [groups, identities, roles, roleBindings, repos]) handler(app, ctx);
  return app;
}

/**
 * Starts an emulator on loopback with a fresh org.
 * @throws Error when the port cannot be bound (e.g. EADDRINUSE).
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const store = new Store();
  const ctx: HandlerContext = { store, now: () => new Date(), versions: options.versions ?? ["v2beta1", "v2"] };
  let authority: TokenAuthority | undefined;
  const requests: RecordedRequest[] = [];
  const app = buildApp(ctx, () => authority, options.logRequests ?? false, requests);

  const host = options.host ?? "127.0.0.1";
  await app.listen({ port: options.port ?? 0, host });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : options.port ?? 0;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  authority = await TokenAuthority.create(url);

  // The org: root group, built-in roles, an owner identity (user-style uid outside the org) bound as owner.
  const t = timestamp(ctx.now());
  const orgUid = newRootUid();
  store.groups.put({ uid: orgUid, name: "emulated-org", description: "Root group of the emulated organization", createTime: t, updateTime: t });
  const builtins = seedBuiltinRoles(store, t);
  const ownerUid = newRootUid();
  store.identities.put({ uid: ownerUid, name: "owner", description: "Organization owner (emulator bootstrap user)", createTime: t, updateTime: t });
  const ownerRole = builtins.get("owner");
  if (ownerRole) store.roleBindings.put({ uid: newChildUid(orgUid), identityUid: ownerUid, roleUid: ownerRole.uid, createTime: t });
  seedRepos(store, orgUid, options.repos ?? DEFAULT_REPOS, t);

  const ttl = options.tokenTtlSeconds;
  const token = await authority.mint(ownerUid, ttl);
  return {
    url,
    token,
    orgUid,
    ownerUid,
    store,
    requests,
    mintToken: (identityUid, ttlSeconds) => authority.mint(identityUid, ttlSeconds ?? ttl),
    close: async () => {
      await app.close();
    },
  };
}
