/**
 * HTTP servers a test file starts on loopback in its own process (a misbehaving API, a proxy), each on a free
 * port, all closed with their open connections after the file's tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
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
