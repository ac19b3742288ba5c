/**
 * Which path a request reaches, and whether a request to the control surface (`/_emulator/`) may come from where
 * it comes from.
 *
 * The router decodes percent-encoding before it matches a route (`/%69am/v2beta1/roles` reaches the `/iam/...`
 * handlers), so the token check must look at the decoded path, not the raw one: {@link routedPath} decodes until
 * nothing is left to decode, and the API and control checks both test that form.
 *
 * The control surface has no authentication (it is a test tool), so it must not be reachable from a web page a
 * developer happens to open: a page may send "simple" cross-site requests (a `text/plain` or form POST) without a
 * preflight, and through DNS rebinding it may even read the answers under its own host name.
 * {@link controlRefusal} admits only requests whose `Host` names a loopback address, whose `Origin`, when sent, is
 * such a host too, and whose POST body is declared `application/json` (which a page can only send after a CORS
 * preflight, which the emulator never grants: it sends no CORS headers at all). The test issuer's token endpoint
 * and the token exchange get the same `Host` and `Origin` checks (they take form posts, as OAuth endpoints do), so
 * a rebound page cannot mint itself an API token either.
 */

/** Most rounds of percent-decoding {@link routedPath} applies (`%2569` is two rounds). */
const MAX_DECODE_ROUNDS = 8;

/**
 * The request path (no query) as the router and any later decoding could see it: percent-decoded until stable
 * (at most {@link MAX_DECODE_ROUNDS} rounds; a malformed escape stops the decoding, and the router rejects such a
 * URL anyway), repeated slashes collapsed, lower-cased.
 * @example routedPath("/%2569AM/v2beta1/roles?x=1") === "/iam/v2beta1/roles"
 */
export function routedPath(url: string): string {
  let p = url.split("?", 1)[0] ?? "";
  for (let i = 0; i < MAX_DECODE_ROUNDS && p.includes("%"); i++) {
    let next: string;
    try {
      next = decodeURIComponent(p);
    } catch {
      break;
    }
    if (next === p) break;
    p = next;
  }
  return p.replace(/[/\\]+/g, "/").toLowerCase();
}

/** Whether `host` (a host name or address, IPv6 with or without brackets) is loopback: 127.0.0.0/8, `::1`, `localhost`. */
export function isLoopbackName(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** The host part of a `Host` header value (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `[::1]`), or undefined when malformed. */
export function hostOfHeader(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  return m?.[1];
}

/** What {@link controlRefusal} looks at in a request. */
export interface ControlRequest {
  method: string;
  /** The `Host` header (HTTP/1.1 requires one). */
  host: string | undefined;
  /** The `Origin` header, when sent (browsers send it on every cross-site POST). */
  origin: string | undefined;
  /** The `Content-Type` header. */
  contentType: string | undefined;
}

/** Options of {@link controlRefusal}. */
export interface RefusalOptions {
  /**
   * Accept any `Host` and `Origin`: the emulator listens on a non-loopback address because it was started with
   * `allowUnauthenticatedRemote`, whose callers use whatever name reaches it (they were told it answers anyone).
   */
  anyHost: boolean;
  /** Require an `application/json` body on requests other than GET and HEAD (the control surface); default true. */
  jsonOnly?: boolean;
}

/**
 * Why a request to the control surface (or the test issuer, without `jsonOnly`) is refused, or undefined when it
 * may be served.
 * @returns `{ field, description }` for the google.rpc.Status: `host` or `origin` (PERMISSION_DENIED), or
 *   `content-type` (INVALID_ARGUMENT).
 */
export function controlRefusal(req: ControlRequest, o: RefusalOptions): { field: "host" | "origin" | "content-type"; description: string } | undefined {
  const allowed = (h: string | undefined) => o.anyHost || (h !== undefined && isLoopbackName(h));
  const host = req.host === undefined ? undefined : hostOfHeader(req.host);
  if (!allowed(host)) {
    return { field: "host", description: `the control surface answers only requests addressed to a loopback host (127.0.0.0/8, localhost, [::1]), got Host ${JSON.stringify(req.host ?? "")}` };
  }
  if (req.origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(req.origin).hostname;
    } catch {
      originHost = undefined;
    }
    if (!allowed(originHost)) return { field: "origin", description: `the control surface refuses requests from web pages; got Origin ${JSON.stringify(req.origin)}` };
  }
  if ((o.jsonOnly ?? true) && req.method !== "GET" && req.method !== "HEAD") {
    const type = (req.contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      return { field: "content-type", description: `the control surface takes only application/json bodies, got ${JSON.stringify(req.contentType ?? "")}` };
    }
  }
  return undefined;
}
