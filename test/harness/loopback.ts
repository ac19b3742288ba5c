/**
 * HTTP servers a test file starts on loopback in its own process (a misbehaving API, a proxy), each on a free
 * port, all closed with their open connections after the file's tests.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll } from "vitest";

/**
 * Registers `afterAll` (destroys every open connection, then closes every server).
 * @returns `serve(handler)`: starts a server on a free loopback port and resolves to its base URL
 *   (`http://127.0.0.1:<port>`, no trailing slash).
 */
export function useLoopbackServers(): (handler: (req: IncomingMessage, res: ServerResponse) => void) => Promise<string> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  afterAll(async () => {
    for (const c of sockets) c.destroy();
    for (const s of servers) await new Promise((r) => s.close(r));
  });
  return async (handler) => {
    const s = createServer(handler);
    s.on("connection", (c) => {
      sockets.add(c);
      c.on("close", () => sockets.delete(c));
    });
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
}

/** What a {@link proxyTo} handler got back from upstream: its HTTP status, its body as text, the request's path (no query). */
export interface UpstreamAnswer {
  status: number;
  text: string;
  path: string;
}

/**
 * A request handler for {@link useLoopbackServers} that passes each request on to `upstream` (its method, headers
 * but Host, and body) and sends back, as `application/json`, the status and text `answer` makes of what came back.
 */
export function proxyTo(upstream: string, answer: (a: UpstreamAnswer) => { status: number; text: string }): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const headers = { ...req.headers };
    delete headers.host;
    const up = httpRequest(`${upstream}${req.url}`, { method: req.method, headers }, (got) => {
      const chunks: Buffer[] = [];
      got.on("data", (c: Buffer) => chunks.push(c));
      got.on("end", () => {
        const out = answer({ status: got.statusCode ?? 500, text: Buffer.concat(chunks).toString("utf8"), path: (req.url ?? "").split("?")[0]! });
        res.writeHead(out.status, { "content-type": "application/json", "content-length": Buffer.byteLength(out.text) });
        res.end(out.text);
      });
    });
    req.pipe(up);
  };
}
