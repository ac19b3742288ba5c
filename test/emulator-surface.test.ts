/**
 * The standalone emulator (its own process, `--control`) authenticates the path it routes, and its control
 * surface refuses what a web page could send it (docs/emulator.md): raw requests over a socket, so the test
 * controls every byte of the request line and the `Host` header.
 *
 * - Every API prefix, with any of its letters percent-encoded (upper or lower hex, or encoded twice), needs a
 *   token: 401 UNAUTHENTICATED as a google.rpc.Status, never a handler's answer.
 * - `/_emulator/` answers only a loopback `Host`, no foreign `Origin`, and POST bodies declared
 *   `application/json`; the test issuer and the token exchange only a loopback `Host` and no foreign `Origin`; no
 *   answer carries a CORS header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlRefusal, routedPath } from "../emulator/origin";
import { isStatusBody, rawRequest, type RawRes } from "./conformance/raw";
import { startStandalone, type StandaloneEmulator } from "./standalone";

let emu: StandaloneEmulator;
let url: string;
let port: string;

beforeAll(async () => {
  emu = await startStandalone(["--control"]);
  url = emu.env.PLATFORM_API_URL;
  port = new URL(url).port;
});
afterAll(async () => {
  await emu?.stop();
});

/** One raw request; `headers` are sent as given, after the request line (Host defaults to the emulator's address). */
function send(method: string, target: string, headers: Record<string, string> = {}, body = ""): Promise<RawRes> {
  const all: Record<string, string> = { Host: `127.0.0.1:${port}`, Connection: "close", ...headers };
  if (body !== "" || method === "POST") all["Content-Length"] = String(Buffer.byteLength(body));
  const head = [`${method} ${target} HTTP/1.1`, ...Object.entries(all).map(([k, v]) => `${k}: ${v}`)].join("\r\n");
  return rawRequest(url, head, body);
}

/** The GET paths of one collection per API prefix and version the emulator serves. */
const PATHS = [
  "/iam/v2beta1/roles",
  "/iam/v2/groups",
  "/iam/v1/roles",
  "/registry/v2beta1/repos",
  "/registry/v1/repos",
  "/events/v2beta1/subscriptions",
  "/vulnerabilities/v2beta1/advisories",
];

const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${upper ? h.toUpperCase() : h.toLowerCase()}`;
};

/**
 * Percent-encoded forms of `path`: each character of its API prefix alone encoded in upper hex, in lower hex, and
 * encoded twice (`%2569`), and then the whole prefix encoded each of those ways.
 */
function variants(path: string): string[] {
  const [, prefix, rest] = /^\/([^/]+)(\/.*)$/.exec(path)!;
  const forms = [(c: string) => hex(c, true), (c: string) => hex(c, false), (c: string) => `%25${hex(c, true).slice(1)}`];
  const out: string[] = [];
  for (const enc of forms) {
    for (let i = 0; i < prefix!.length; i++) out.push(`/${prefix!.slice(0, i)}${enc(prefix![i]!)}${prefix!.slice(i + 1)}${rest}`);
    out.push(`/${[...prefix!].map(enc).join("")}${rest}`);
  }
  return out;
}

describe("the emulator authenticates the path it routes", () => {
  it("each API path as sent plainly answers 200 with the token and 401 without (the baseline)", async () => {
    for (const p of PATHS) {
      expect((await send("GET", p, { Authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` })).status, p).toBe(200);
      expect((await send("GET", p)).status, p).toBe(401);
    }
  });

  it("every percent-encoded form of every API prefix (upper, lower, double) is 401 UNAUTHENTICATED as a google.rpc.Status without a token", async () => {
    const answers: Array<[string, number, unknown]> = [];
    for (const p of PATHS) {
      for (const v of variants(p)) {
        const r = await send("GET", v);
        answers.push([v, r.status, (r.json as { code?: unknown } | undefined)?.code]);
        expect(isStatusBody(r.json), `${v}: ${r.text.slice(0, 200)}`).toBe(true);
      }
    }
    expect(answers.length).toBeGreaterThan(150);
    expect(answers.filter(([, status, code]) => status !== 401 || code !== 16)).toEqual([]);
  });

  it("with the token, a singly encoded prefix still reaches its handler (the router decodes it)", async () => {
    const r = await send("GET", "/%69am/v2beta1/roles", { Authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` });
    expect(r.status).toBe(200);
    expect((r.json as { roles?: unknown[] }).roles?.length).toBeGreaterThan(0);
  });
});

describe("the control surface refuses cross-site requests", () => {
  const groupsOf = async (): Promise<number> => {
    const r = await send("GET", "/_emulator/state");
    expect(r.status, r.text).toBe(200);
    return (r.json as { groups: unknown[] }).groups.length;
  };
  const mkGroup = async (name: string) => {
    const body = JSON.stringify({ name });
    const r = await send("POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, { Authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "Content-Type": "application/json" }, body);
    expect(r.status, r.text).toBe(200);
  };

  it("a simple text/plain POST to /_emulator/reset (what any web page may send) is refused and wipes nothing", async () => {
    await mkGroup("kept-after-text-plain");
    const before = await groupsOf();
    for (const target of ["/_emulator/reset", "/%5Femulator/reset", "/_%65mulator/reset"]) {
      const r = await send("POST", target, { "Content-Type": "text/plain", Origin: "null" }, "{}");
      expect(r.status, `${target}: ${r.text}`).toBeGreaterThanOrEqual(400);
      expect(isStatusBody(r.json), r.text).toBe(true);
      // Same-host text/plain without an Origin too: the content type alone is refused.
      const plain = await send("POST", target, { "Content-Type": "text/plain" }, "{}");
      expect({ status: plain.status, code: (plain.json as { code: number }).code }).toEqual({ status: 400, code: 3 });
      expect(plain.text).toContain("application/json");
    }
    expect(await groupsOf()).toBe(before);
  });

  it("a form POST to /_emulator/tokens mints no token", async () => {
    const form = `identity=${emu.env.PLATFORM_ORG_UID}`;
    for (const headers of [{ "Content-Type": "application/x-www-form-urlencoded" }, { "Content-Type": "multipart/form-data; boundary=x" }, {}]) {
      const r = await send("POST", "/_emulator/tokens", headers, form);
      expect(r.status, r.text).toBe(400);
      expect(isStatusBody(r.json), r.text).toBe(true);
      expect(r.text).not.toMatch(/"token"/);
    }
  });

  it("a foreign Host (DNS rebinding) is refused on every control path, reads and writes alike", async () => {
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`, `localhost.evil.example`, `[::2]:${port}`, ""]) {
      for (const [method, target, body] of [["GET", "/_emulator/state", ""], ["GET", "/_emulator/control", ""], ["POST", "/_emulator/tokens", JSON.stringify({ identity: emu.env.PLATFORM_ORG_UID })], ["POST", "/_emulator/reset", "{}"]] as const) {
        const r = await send(method, target, { Host: host, ...(method === "POST" ? { "Content-Type": "application/json" } : {}) }, body);
        expect({ host, target, status: r.status, code: (r.json as { code?: number } | undefined)?.code }).toEqual({ host, target, status: 403, code: 7 });
        expect(r.text).not.toMatch(/"token"|"groups"/);
      }
    }
  });

  it("a JSON POST carrying a foreign Origin (a page that got past the preflight) is refused", async () => {
    const r = await send("POST", "/_emulator/tokens", { "Content-Type": "application/json", Origin: "http://evil.example" }, JSON.stringify({ identity: emu.env.PLATFORM_ORG_UID }));
    expect({ status: r.status, code: (r.json as { code?: number }).code }).toEqual({ status: 403, code: 7 });
  });

  it("a loopback Host (127.0.0.0/8, localhost, [::1], with or without port) with a JSON body is served", async () => {
    for (const host of [`127.0.0.1:${port}`, `127.5.6.7:${port}`, `localhost:${port}`, "localhost", `[::1]:${port}`, "[::1]"]) {
      const r = await send("POST", "/_emulator/tokens", { Host: host, "Content-Type": "application/json; charset=utf-8", Origin: `http://${host}` }, JSON.stringify({ identity: emu.env.PLATFORM_ORG_UID }));
      expect(r.status, `${host}: ${r.text}`).toBe(200);
      expect(typeof (r.json as { token?: unknown }).token).toBe("string");
    }
  });

  it("the test issuer and the token exchange (which mint tokens) refuse a foreign Host or Origin too, and serve loopback", async () => {
    const mint = (headers: Record<string, string>) => send("POST", "/oidc/token", { "Content-Type": "application/x-www-form-urlencoded", ...headers }, "subject=repo:evil");
    for (const headers of [{ Host: `evil.example:${port}` }, { Origin: "http://evil.example" }]) {
      const r = await mint(headers);
      expect({ headers, status: r.status, code: (r.json as { code?: number }).code }).toEqual({ headers, status: 403, code: 7 });
      expect(r.text).not.toContain("id_token");
      const x = await send("GET", `/sts/exchange?aud=${encodeURIComponent(url)}&identity=${emu.env.PLATFORM_ORG_UID}`, { Authorization: "Bearer x", ...headers });
      expect({ headers, status: x.status, code: (x.json as { code?: number }).code }).toEqual({ headers, status: 403, code: 7 });
    }
    const ok = await mint({});
    expect(ok.status, ok.text).toBe(200);
    expect(typeof (ok.json as { id_token?: unknown }).id_token).toBe("string");
  });

  it("no answer carries a CORS header, a preflight included", async () => {
    const answers = [
      await send("OPTIONS", "/_emulator/reset", { Origin: "http://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" }),
      await send("GET", "/_emulator/state", { Origin: `http://127.0.0.1:${port}` }),
      await send("POST", "/_emulator/reset", { "Content-Type": "text/plain", Origin: "http://evil.example" }, "{}"),
    ];
    for (const r of answers) expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});

describe("the rules behind it", () => {
  it("an emulator deliberately remote (allowUnauthenticatedRemote on another address) accepts any Host and Origin, still JSON only", () => {
    const req = { method: "POST", host: "emulator.ci.internal:8080", origin: "http://emulator.ci.internal:8080", contentType: "application/json" };
    expect(controlRefusal(req, { anyHost: true })).toBeUndefined();
    expect(controlRefusal(req, { anyHost: false })?.field).toBe("host");
    expect(controlRefusal({ ...req, contentType: "text/plain" }, { anyHost: true })?.field).toBe("content-type");
    expect(controlRefusal({ ...req, contentType: "text/plain" }, { anyHost: true, jsonOnly: false })).toBeUndefined();
  });

  it("the routed path is decoded until stable, slashes collapsed, lower-cased", () => {
    expect(["/%69am/v2beta1/roles", "/%2569AM/v2beta1/roles?x", "//IAM//v2beta1/roles", "/iam%2Fv2beta1%2Froles", "/%zz/iam"].map(routedPath)).toEqual([
      "/iam/v2beta1/roles",
      "/iam/v2beta1/roles",
      "/iam/v2beta1/roles",
      "/iam/v2beta1/roles",
      "/%zz/iam",
    ]);
  });
});
