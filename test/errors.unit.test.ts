/**
 * What errors say: a failed create names its POST first, not the lookup its recovery made; the
 * configured token, the OIDC token and every exchanged token are scrubbed by exact value wherever a server echoes
 * them, whatever their shape; and everything the package throws on purpose is a PlatformError.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { PlatformClient } from "../provider/client/client";
import { ApiError, ConnectionError, PlatformError, redact, UnauthenticatedError } from "../provider/client/errors";
import { resolveSettings, SettingsError } from "../provider/config";
import { CredentialError, TokenExchangeError, tokenSource } from "../provider/credentials";
import { LookupError } from "../provider/lookups";
import { groupKind } from "../provider/kinds/group";
import { getClient, setConfigLookup } from "../provider/state";

const servers: Server[] = [];
afterAll(async () => {
  await Promise.resolve().then(() => getClient().close()).catch(() => undefined); // not configured when filtered
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** An HTTP server on a free loopback port answering with `handler`; resolves to its base URL. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const ORG = "0123456789abcdef0123456789abcdef01234567";

describe("a create that cannot reach the API", () => {
  it("names the POST (method and path) first, then what the recovery lookup saw", async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    const config: Record<string, string> = { "platform:apiUrl": apiUrl, "platform:token": "plat_live_closedport123", "platform:retryMaxAttempts": "2", "platform:retryBaseDelayMs": "1", "platform:retryMaxDelayMs": "2" };
    setConfigLookup((k) => config[k]);
    const err = (await groupKind.provider.create({ parentUid: ORG, name: "unreachable", description: "" }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).request).toEqual({ method: "POST", path: `/iam/v2beta1/groups/${ORG}` });
    expect(err.message).toMatch(new RegExp(`^POST /iam/v2beta1/groups/${ORG}: could not reach the Platform API: .*ECONNREFUSED`));
    expect(err.message).toContain("looking for it afterwards failed too (GET /iam/v2beta1/groups: could not reach the Platform API");
    expect(String(err.stack).split("\n")[0]).toContain(`POST /iam/v2beta1/groups/${ORG}`);
  });
});

describe("redaction by exact value", () => {
  const STATIC = "plat_live_7Hq2ZxK9mW4pR8sT";

  it("scrubs a configured non-JWT token a server echoes, in the message, the status and its details", async () => {
    const url = await serve((req, res) =>
      json(res, 401, {
        code: 16,
        message: `token ${String(req.headers.authorization).slice("Bearer ".length)} is not valid for this org`,
        details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "token", description: `got ${STATIC}` }] }],
      }),
    );
    const client = new PlatformClient({ apiUrl: url, token: STATIC });
    const err = (await client.groups.get(ORG).catch((e: unknown) => e)) as ApiError;
    await client.close();
    expect(err).toBeInstanceOf(UnauthenticatedError);
    expect(err.message).toBe(`GET /iam/v2beta1/groups/${ORG}: token [REDACTED] is not valid for this org (code 16, HTTP 401)`);
    expect(JSON.stringify(err.status)).not.toContain(STATIC);
    expect(err.fieldViolations).toEqual([{ field: "token", description: "got [REDACTED]" }]);
  });

  it("scrubs the exchanged API token and the OIDC token, whatever their shape", async () => {
    const OIDC = "oidc_opaque_Yb3Nc8Vd1Fe6";
    const EXCHANGED = "plat_exch_Qw5Er7Ty9Ui2";
    const url = await serve((req, res) => {
      if (req.url?.startsWith("/sts/exchange")) return json(res, 200, { token: EXCHANGED });
      json(res, 403, { code: 7, message: `caller ${EXCHANGED} (from ${OIDC}) may not list groups` });
    });
    const source = tokenSource({ apiUrl: url, identity: `${ORG}/0123456789abcdef`, identityToken: OIDC });
    const client = new PlatformClient({ apiUrl: url, token: () => source.getToken(), retry: { maxAttempts: 1 } });
    const err = (await client.groups.list().collect().catch((e: unknown) => e)) as Error;
    await client.close();
    expect(err.message).toBe("GET /iam/v2beta1/groups: caller [REDACTED] (from [REDACTED]) may not list groups (code 7, HTTP 403)");
  });

  it("scrubs the OIDC token a failing token exchange echoes", async () => {
    const OIDC = "oidc_opaque_Zx4Cv6Bn8Mm0";
    const url = await serve((_req, res) => json(res, 401, { code: 16, message: `untrusted token ${OIDC}` }));
    const source = tokenSource({ apiUrl: url, identity: `${ORG}/0123456789abcdef`, identityToken: OIDC });
    const err = (await source.getToken().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TokenExchangeError);
    expect(err.message).toContain("untrusted token [REDACTED]");
    expect(err.message).not.toContain(OIDC);
  });

  it("leaves the caller's text alone and still scrubs JWT and Bearer shapes", async () => {
    await new PlatformClient({ apiUrl: "http://127.0.0.1:9", token: STATIC }).close(); // a client registers its token
    const text = `Bearer abc.def and eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig and ${STATIC}`;
    expect(redact(text)).toBe("[REDACTED] and [REDACTED] and [REDACTED]");
    expect(text).toContain(STATIC);
  });
});

describe("one root error class", () => {
  it("every error the package throws on purpose is a PlatformError", async () => {
    const port = await closedPort();
    const client = new PlatformClient({ apiUrl: `http://127.0.0.1:${port}`, token: "t", retry: { maxAttempts: 1 } });
    const conn = await client.groups.get(ORG).catch((e: unknown) => e);
    await client.close();
    const errors: unknown[] = [
      conn,
      (() => { try { resolveSettings(() => undefined, {}); } catch (e) { return e; } })(),
      (() => { try { tokenSource({ apiUrl: "http://x" }); } catch (e) { return e; } })(),
      new LookupError("NO_MATCH", "getGroup", ["group", "groups"], { name: "x" }, 0, []),
      ApiError.from({ code: 5, message: "gone", details: [] }, 404, { method: "GET", path: "/x" }),
    ];
    expect(errors.map((e) => (e as Error).name)).toEqual(["ConnectionError", "SettingsError", "CredentialError", "LookupError", "NotFoundError"]);
    for (const e of errors) expect(e).toBeInstanceOf(PlatformError);
    expect(errors[1]).toBeInstanceOf(SettingsError);
    expect(errors[2]).toBeInstanceOf(CredentialError);
  });
});
