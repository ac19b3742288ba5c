/**
 * The HTTP layer every emulator app shares (the API port and the separate auth port): one fastify instance
 * whose every error, from a handler's StatusError down to a request Node's HTTP parser rejects, reaches the
 * client as a google.rpc.Status with `content-type: application/json` (seed §7 "Errors": "Error bodies follow
 * the structure of AIP-193"). The emulator is shipped for users' own CI, so hostile input must be answered
 * like any bad request: never a 500, never a stall.
 *
 * | Where the error starts                              | HTTP | code                  |
 * |-----------------------------------------------------|------|-----------------------|
 * | a handler throws StatusError                        | map  | its code              |
 * | body not JSON / too large / wrong content type      | 400  | 3 INVALID_ARGUMENT    |
 * | body nested deeper than {@link MAX_JSON_DEPTH}        | 400  | 3 INVALID_ARGUMENT    |
 * | URL fastify cannot decode (`%zz`), param too long   | 400  | 3 INVALID_ARGUMENT    |
 * | Node's parser: request line + headers over 16 KB    | 431  | 3 INVALID_ARGUMENT    |
 * | Node's parser: request timeout                      | 408  | 4 DEADLINE_EXCEEDED   |
 * | Node's parser: anything else (raw non-ASCII, …)     | 400  | 3 INVALID_ARGUMENT    |
 * | no route                                            | 404  | 5 NOT_FOUND           |
 * | anything unexpected                                 | 500  | 13 INTERNAL           |
 */
import type { Socket } from "node:net";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { Code, StatusError, invalidArgument, noRoute, type CodeValue } from "./errors";

import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from "./limits";

export { BODY_LIMIT_BYTES, MAX_JSON_DEPTH };

/**
 * Whether `text` (JSON or not) nests `[`/`{` deeper than `max` outside string literals. One linear pass, no
 * allocation; a malformed document is left to the JSON parser to reject.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** A description short enough for an error message: at most `max` characters, with `…` when cut. */
function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The error a parse-level failure turns into: code, HTTP status, field and description. */
function clientErrorStatus(err: NodeJS.ErrnoException): { http: number; status: StatusError } {
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return { http: 408, status: new StatusError(Code.DEADLINE_EXCEEDED as CodeValue, "Deadline exceeded: the request was not received in time") };
  }
  if (err.code === "HPE_HEADER_OVERFLOW") {
    return { http: 431, status: invalidArgument([{ field: "headers", description: "the request line and headers exceed 16 KB" }]) };
  }
  return { http: 400, status: invalidArgument([{ field: "request", description: `not a valid HTTP/1.1 request (${err.code ?? "parse error"})` }]) };
}

/**
 * Answers a request Node's HTTP parser rejected (fastify's `clientErrorHandler`, i.e. the server's
 * `clientError` event) with a google.rpc.Status, then closes the connection.
 * @param domain ErrorInfo.domain (`iam.<service_domain>`).
 */
export function writeClientError(err: NodeJS.ErrnoException, socket: Socket, domain: string): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const { http, status } = clientErrorStatus(err);
  const body = JSON.stringify(status.toBody(domain));
  const reason = http === 431 ? "Request Header Fields Too Large" : http === 408 ? "Request Timeout" : "Bad Request";
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${http} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Maps any error fastify or a handler raised to the StatusError sent for it. */
export function toStatusError(err: FastifyError | StatusError | Error): StatusError {
  if (err instanceof StatusError) return err;
  const e = err as FastifyError;
  if (e.code?.startsWith("FST_ERR_CTP")) return invalidArgument([{ field: "body", description: clip(e.message) }]);
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return invalidArgument([{ field: "request", description: clip(e.message) }]);
  }
  return new StatusError(Code.INTERNAL, `Internal error: ${clip(e.message)}`);
}

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Log every request to stderr (fastify's logger). */
  logRequests: boolean;
  /** ErrorInfo.domain of every error this app sends, `iam.<service_domain>` (seed §7). */
  domain: string;
}

/**
 * A fastify app whose every error is a google.rpc.Status: handler errors, content-type and JSON errors (with a
 * nesting limit), URLs fastify cannot decode, unknown routes, and requests Node's HTTP parser rejects.
 * Accepts `application/json` and `application/x-www-form-urlencoded` bodies up to {@link BODY_LIMIT_BYTES}; a
 * DELETE or GET that says `application/json` and sends no body is taken as having none.
 */
export function createApp(o: AppOptions): FastifyInstance {
  const app = Fastify({
    // To stderr: the standalone emulator's stdout is its three KEY=value lines, which scripts source.
    logger: o.logRequests ? { level: "info", stream: process.stderr } : false,
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: BODY_LIMIT_BYTES,
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => writeClientError(err, socket, o.domain),
    // URLs the router cannot decode (`%zz`) or whose parameter is too long: a Status, not fastify's own shape.
    frameworkErrors: (err, _req, reply) => {
      void (reply as unknown as FastifyReply)
        .code(400)
        .type("application/json")
        .send(invalidArgument([{ field: "path", description: clip(err.message) }]).toBody(o.domain));
    },
  });
  const json = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    // Scripts send the header on every call, and an API gateway ignores the body of a request that has none to
    // give, as the real API does: an empty body of a DELETE or GET is no body, not a JSON error.
    if (body === "" && (req.method === "DELETE" || req.method === "GET")) {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(body as string, MAX_JSON_DEPTH)) {
      done(invalidArgument([{ field: "body", description: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` }]), undefined);
      return;
    }
    json(req, body as string, done);
  });
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.setErrorHandler((err: FastifyError | StatusError, _req, reply) => {
    const status = toStatusError(err);
    void reply.code(status.httpStatus).type("application/json").send(status.toBody(o.domain));
  });
  app.setNotFoundHandler((req, reply) => {
    const status = noRoute(req.method, clip(req.url.split("?")[0] ?? ""));
    void reply.code(status.httpStatus).type("application/json").send(status.toBody(o.domain));
  });
  return app;
}
