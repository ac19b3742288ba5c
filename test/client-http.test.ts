import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

// Runs the compiled module (npm test builds first) in a fresh Node, so the module cache is Node's own.
const http = path.join(__dirname, "..", "dist", "provider", "client", "http.js");

describe("the client's undici loader", () => {
  it("gives Agent and request without loading undici's index (fetch, WebSocket, mocks)", () => {
    const out = execFileSync(process.execPath, [
      "-e",
      `const h = require(${JSON.stringify(http)});
       const loaded = Object.keys(require.cache);
       console.log(JSON.stringify({
         agent: typeof h.Agent, request: typeof h.request,
         index: loaded.some((f) => /[\\\\/]undici[\\\\/]index\\.js$/.test(f)),
         fetch: loaded.some((f) => /[\\\\/]undici[\\\\/]lib[\\\\/]web[\\\\/]fetch[\\\\/]/.test(f)),
       }));`,
    ]).toString();
    expect(JSON.parse(out)).toEqual({ agent: "function", request: "function", index: false, fetch: false });
  });

  it("falls back to undici's index when undici's own files are not where it looks (a later undici)", () => {
    // A resolver hook that makes the two inner paths unresolvable, as a moved file would be.
    const out = execFileSync(process.execPath, [
      "-e",
      `const Module = require("node:module");
       const resolve = Module._resolveFilename;
       Module._resolveFilename = function (req, ...rest) {
         if (req === "undici/lib/dispatcher/agent" || req === "undici/lib/api/api-request") throw Object.assign(new Error("moved"), { code: "MODULE_NOT_FOUND" });
         return resolve.call(this, req, ...rest);
       };
       const h = require(${JSON.stringify(http)});
       const undici = require("undici");
       console.log(JSON.stringify({ agent: h.Agent === undici.Agent, request: h.request === undici.request }));`,
    ], { cwd: path.join(__dirname, "..") }).toString();
    expect(JSON.parse(out)).toEqual({ agent: true, request: true });
  });

  it("sends a request through a dispatcher and reads the answer", async () => {
    const { Agent, request } = (await import("../provider/client/http")) as typeof import("../provider/client/http");
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => res.end(JSON.stringify({ method: req.method, url: req.url })));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const agent = new Agent();
    try {
      const res = await request(`http://127.0.0.1:${port}/a/b?x=1`, { dispatcher: agent, method: "DELETE" });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ method: "DELETE", url: "/a/b?x=1" });
      const get = await request(`http://127.0.0.1:${port}/c`, { dispatcher: agent });
      expect(await get.body.json()).toEqual({ method: "GET", url: "/c" });
    } finally {
      await agent.close();
      server.close();
    }
  });
});
