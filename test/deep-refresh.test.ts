/**
 * Parsing is bounded in depth through the real Pulumi CLI (docs/security.md "Against a misbehaving server"): a stack made
 * against the emulator, then read through a proxy that adds 20,000-deep JSON to every answer: `pulumi refresh`
 * fails naming the request and the limit, not with "Maximum call stack size exceeded".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { MAX_RESPONSE_DEPTH } from "../provider/client/errors";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { proxyTo, useLoopbackServers } from "./harness/loopback";

const LONG = 240_000;
const STACK = "deepjson";
const cwd = path.join(REPO_ROOT, "examples", "drift-detection", "program");
const DEEP = 20_000;
const deepObject = '{"a":'.repeat(DEEP) + "1" + "}".repeat(DEEP);

let emu: Emulator;
let backend: string;
let proxyUrl: string;
/** The proxy's server, closed after the file. */
const serve = useLoopbackServers();

beforeAll(async () => {
  emu = await startEmulator();
  backend = mkdtempSync(path.join(tmpdir(), "deep-json-"));
  const cli = new PulumiCli({ cwd, backendDir: backend, stack: STACK, env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid } });
  await cli.initStack();
  await cli.ok(["up", "--yes", "--skip-preview"]);
  // Passes every request on; every 200 JSON object answer gets a 20,000-deep field (valid JSON, an unknown key).
  proxyUrl = await serve(
    proxyTo(emu.url, ({ status, text }) => ({ status, text: status === 200 && text.startsWith("{") && text !== "{}" ? `{"deep":${deepObject},${text.slice(1)}` : text })),
  );
}, LONG);

afterAll(async () => {
  await emu?.close();
  if (backend) rmSync(backend, { recursive: true, force: true });
  rmSync(path.join(cwd, `Pulumi.${STACK}.yaml`), { force: true });
});

const REASON = new RegExp(`GET /(iam|registry|events)/v2beta1/[A-Za-z]+(/[0-9a-f/]+)?: unexpected response \\(HTTP 200\\): the JSON body nests arrays and objects deeper than the ${MAX_RESPONSE_DEPTH} levels the client parses`);

describe("20,000-deep JSON through the real CLI", () => {
  it("pulumi refresh fails naming the request and the limit", async () => {
    const cli = new PulumiCli({ cwd, backendDir: backend, stack: STACK, env: { PLATFORM_API_URL: proxyUrl, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid, PLATFORM_RETRY_MAX_ATTEMPTS: "1" } });
    const r = await cli.run(["refresh", "--yes", "--skip-preview"]);
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.code, out).not.toBe(0);
    expect(out).not.toContain("Maximum call stack size exceeded");
    expect(out).toMatch(REASON);
  }, LONG);
});
