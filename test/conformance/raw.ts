/**
 * Raw HTTP/1.1 over a TCP socket, for requests an HTTP client refuses to send (malformed percent-encoding,
 * raw non-ASCII bytes in the path, a request line over Node's 16 KB header limit). Node's parser rejects
 * these before fastify sees them, so only a raw socket reaches the emulator's `clientError` handling.
 */
import { connect } from "node:net";

/** A raw HTTP answer: status, lower-cased headers and the body text (`json` when it parses). */
export interface RawRes {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

/**
 * Sends `head` (request line and headers, without the blank line) plus an optional body to `url`'s host and port,
 * reads until the server closes or a complete Content-Length body has arrived, and parses the answer.
 * @param head e.g. `GET /iam/v2beta1/groups/%zz HTTP/1.1\r\nHost: x`; a Buffer may carry raw bytes.
 * @throws Error when the connection fails or no status line arrives within `timeoutMs` (default 10 s).
 */
export function rawRequest(url: string, head: string | Buffer, body: Buffer | string = "", timeoutMs = 10_000): Promise<RawRes> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`rawRequest: no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString("latin1");
      const split = all.indexOf("\r\n\r\n");
      const [statusLine = "", ...headerLines] = (split < 0 ? all : all.slice(0, split)).split("\r\n");
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      if (!m) return reject(new Error(`rawRequest: no status line in ${JSON.stringify(all.slice(0, 200))}`));
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const text = split < 0 ? "" : Buffer.from(all.slice(split + 4), "latin1").toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(m[1]), headers, text, json });
    };
    const complete = (): boolean => {
      const all = Buffer.concat(chunks).toString("latin1");
      const split = all.indexOf("\r\n\r\n");
      if (split < 0) return false;
      const len = /\r\ncontent-length:\s*(\d+)/i.exec(all.slice(0, split));
      return len !== null && Buffer.byteLength(all.slice(split + 4), "latin1") >= Number(len[1]);
    };
    socket.on("data", (d) => {
      chunks.push(d);
      if (complete()) {
        socket.destroy();
        finish();
      }
    });
    socket.on("end", finish);
    socket.on("close", () => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(new Error("rawRequest: connection closed without an answer"));
      }
    });
    socket.on("error", (err) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.write(Buffer.concat([Buffer.isBuffer(head) ? head : Buffer.from(head, "latin1"), Buffer.from("\r\n\r\n"), Buffer.isBuffer(body) ? body : Buffer.from(body)]));
  });
}

/** Whether `v` is a google.rpc.Status body: numeric code, string message, details an array of objects with `@type`. */
export function isStatusBody(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s["code"] === "number" &&
    typeof s["message"] === "string" &&
    Array.isArray(s["details"]) &&
    s["details"].every((d) => typeof d === "object" && d !== null && typeof (d as Record<string, unknown>)["@type"] === "string")
  );
}
