/**
 * The two parts of undici this package uses, `Agent` and `request`, loaded from undici's own files rather than its
 * index. The index also loads fetch, WebSocket, EventSource, cookies, the mock and cache layers: 101 ms of the
 * dynamic-provider plugin's start on 2 cores, against about 38 ms for these two (the plugin loads this
 * package's runtime in every `pulumi up`, `refresh` and `destroy`, and the no-op floor loads nothing). `request`
 * keeps undici's contract for the calls made here (a URL string and a `dispatcher`); without a dispatcher, or
 * when undici's files move in a later 7.x, it is undici's own (the index is then loaded, as before).
 */
import type * as Undici from "undici";
import { MAX_RESPONSE_DEPTH, ResponseTooDeepError, ResponseTooLargeError, type RequestInfo } from "./errors";

/** What this module exports besides {@link readBody}: undici's `Agent` class and `request` function. */
export interface Http {
  /** undici's keep-alive `Agent`. */
  Agent: typeof Undici.Agent;
  /** undici's `request(url, opts)`; resolves with the response once its headers arrived. */
  request: typeof Undici.request;
}

type ApiRequest = (this: Undici.Dispatcher, opts: Record<string, unknown>) => Promise<Undici.Dispatcher.ResponseData>;

/** Loads the lean parts, or undici's index when they are not where undici 7.16–7.30 keeps them. */
function load(): Http {
  const full = (): typeof Undici => require("undici") as typeof Undici;
  try {
    const Agent = require("undici/lib/dispatcher/agent") as typeof Undici.Agent;
    const apiRequest = require("undici/lib/api/api-request") as ApiRequest;
    if (typeof Agent !== "function" || typeof apiRequest !== "function") return full();
    const request = ((url: string | URL, opts?: Record<string, unknown> & { dispatcher?: Undici.Dispatcher }) => {
      // As undici's index does (makeDispatcher), for a URL and a dispatcher; anything else goes to undici itself.
      if (!opts?.dispatcher || opts["path"] != null || (typeof url !== "string" && !(url instanceof URL))) return full().request(url, opts as never);
      const u = typeof url === "string" ? new URL(url) : url;
      return apiRequest.call(opts.dispatcher, {
        ...opts,
        origin: u.origin,
        path: u.search ? `${u.pathname}${u.search}` : u.pathname,
        method: (opts["method"] as string | undefined) || (opts["body"] ? "PUT" : "GET"),
      });
    }) as typeof Undici.request;
    return { Agent, request };
  } catch {
    return full();
  }
}

/** undici's `Agent` and `request`, without loading the rest of undici (see the module comment). */
export const { Agent, request }: Http = load();

/**
 * Reads a response body as UTF-8, at most `maxBytes` bytes: a larger `content-length` is refused before reading,
 * a smaller one is read whole (the framing bounds it), and a body without one that grows past the cap is not read
 * further (the stream is destroyed, which closes the connection).
 * `read.bytes` counts the bytes read so far, for the caller's errors (e.g. when a deadline aborts the read).
 * @throws ResponseTooLargeError over the cap (naming `info`); the stream's own error when the connection breaks or
 *   the request's signal aborts it.
 */
export async function readBody(res: Undici.Dispatcher.ResponseData, info: RequestInfo, maxBytes: number, read: { bytes: number } = { bytes: 0 }): Promise<string> {
  const length = res.headers["content-length"];
  const announced = typeof length === "string" && /^\d+$/.test(length) ? Number(length) : undefined;
  if (announced !== undefined && announced > maxBytes) {
    res.body.destroy();
    throw new ResponseTooLargeError(info, res.statusCode, maxBytes, announced, true);
  }
  // A body framed by its content-length cannot run longer (undici's parser reads exactly that many bytes): read
  // it whole, undici's fastest way. Only a body without one (chunked, or until close) is counted as it arrives.
  if (announced !== undefined) {
    const text = await res.body.text();
    read.bytes = announced;
    return text;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    read.bytes += chunk.length;
    if (read.bytes > maxBytes) {
      res.body.destroy();
      throw new ResponseTooLargeError(info, res.statusCode, maxBytes, read.bytes, false);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
}

/**
 * Whether `text` (JSON or not) nests `[`/`{` deeper than `max` outside string literals: one linear pass without
 * recursion or allocation (text of `max` characters or fewer cannot, and is not scanned).
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  if (text.length <= max) return false;
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

/**
 * Parses a response body as JSON, bounded in depth.
 * @returns the value, or undefined when the body is not JSON (`empty` for an empty body).
 * @throws ResponseTooDeepError (naming `info`, `httpStatus` and the limit) when it nests deeper than
 *   {@link MAX_RESPONSE_DEPTH} levels, before parsing it.
 */
export function parseBody(text: string, info: RequestInfo, httpStatus: number, empty: unknown): unknown {
  if (text === "") return empty;
  if (jsonDepthExceeds(text, MAX_RESPONSE_DEPTH)) throw new ResponseTooDeepError(info, httpStatus, MAX_RESPONSE_DEPTH);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An abort signal that fires after a total deadline, and the way to stop its timer once the request is done. */
export interface Deadline {
  /** Aborted (with a `TimeoutError` DOMException) once the deadline passes. */
  signal: AbortSignal;
  /** Stops the timer; call it when the request has ended, so no timer outlives it. */
  clear(): void;
}

/**
 * A total deadline of `ms` milliseconds for one request, for undici's `signal` option: undici's own timers
 * (`headersTimeout`, `bodyTimeout`) are idle timers that restart at every chunk. Unlike `AbortSignal.timeout`,
 * the timer is cleared as soon as the request ends, so thousands of quick requests leave no thousands of pending
 * timers behind. The timer is unref'd: it never keeps the process alive.
 */
export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`the request deadline of ${ms} ms passed`, "TimeoutError")), ms);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
