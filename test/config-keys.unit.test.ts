/**
 * Stack config keys and the errors a program is told: the known keys are exactly the ones `resolveSettings` reads,
 * a misspelled `platform:*` key is named with the key it is near, every malformed value names its config key and
 * environment variable, and this package's errors reach a failing program as their message alone.
 */
import * as util from "node:util";
import { describe, expect, it } from "vitest";
import { PlatformClient } from "../provider/client/client";
import { ApiError, PlatformError } from "../provider/client/errors";
import { markReported } from "../provider/client/reported";
import { CONFIG_KEYS, describeUnknownConfigKey, resolveSettings, SettingsError, unknownConfigKeys } from "../provider/config";
import { getGroups, getRole } from "../provider/lookups";

const ENV = { PLATFORM_API_URL: "http://127.0.0.1:9", PLATFORM_TOKEN: "t" };

describe("the known stack config keys", () => {
  it("are exactly the keys resolveSettings reads", () => {
    const asked = new Set<string>();
    resolveSettings((k) => {
      asked.add(k);
      return undefined;
    }, ENV);
    expect([...asked].sort()).toEqual(CONFIG_KEYS.map((k) => `platform:${k}`).sort());
  });

  it("names each misspelled platform:* key with the known key nearest to it, and ignores other namespaces", () => {
    expect(unknownConfigKeys(["platform:apiurl", "platform:readahead", "platform:retryMaxAttemps", "platform:apiUrl", "aws:region"])).toEqual([
      { key: "platform:apiurl", suggestion: "platform:apiUrl" },
      { key: "platform:readahead", suggestion: "platform:readAhead" },
      { key: "platform:retryMaxAttemps", suggestion: "platform:retryMaxAttempts" },
    ]);
  });

  it("offers no suggestion for a key near none, and lists the known keys instead", () => {
    const [u] = unknownConfigKeys(["platform:somethingElseEntirely"]);
    expect(u).toEqual({ key: "platform:somethingElseEntirely", suggestion: undefined });
    expect(describeUnknownConfigKey(u!)).toContain("platform:apiUrl, platform:token");
  });

  it("adds the misspelled key to the error it explains", () => {
    expect(() => resolveSettings(() => undefined, {}, ["platform:apiurl"])).toThrow(
      "the Platform API URL is not set: set stack config `platform:apiUrl` or the PLATFORM_API_URL environment variable (unknown stack config key `platform:apiurl` is ignored: did you mean `platform:apiUrl`?)",
    );
    // Without the stack's keys, the message is the plain one.
    expect(() => resolveSettings(() => undefined, {})).toThrow(/environment variable$/);
  });
});

describe("a malformed setting", () => {
  const cases: Array<[string, string, string]> = [
    ["apiUrl", "PLATFORM_API_URL", "ftp://x"],
    ["authUrl", "PLATFORM_AUTH_URL", "nope"],
    ["apiVersion", "PLATFORM_API_VERSION", "2"],
    ["retryMaxAttempts", "PLATFORM_RETRY_MAX_ATTEMPTS", "abc"],
    ["retryBaseDelayMs", "PLATFORM_RETRY_BASE_DELAY_MS", "-1"],
    ["retryMaxDelayMs", "PLATFORM_RETRY_MAX_DELAY_MS", "1.5"],
    ["readAhead", "PLATFORM_READ_AHEAD", "yes"],
    ["requestDeadlineMs", "PLATFORM_REQUEST_DEADLINE_MS", "0"],
    ["maxResponseBytes", "PLATFORM_MAX_RESPONSE_BYTES", "many"],
    ["maxPages", "PLATFORM_MAX_PAGES", "-3"],
    ["maxWalkBytes", "PLATFORM_MAX_WALK_BYTES", "0"],
  ];
  it.each(cases)("platform:%s names its environment variable %s and the value", (key, envName, value) => {
    expect(() => resolveSettings((k) => (k === `platform:${key}` ? value : undefined), ENV)).toThrow(SettingsError);
    expect(() => resolveSettings((k) => (k === `platform:${key}` ? value : undefined), ENV)).toThrow(`platform:${key} (${envName})`);
    expect(() => resolveSettings(() => undefined, { ...ENV, [envName]: value })).toThrow(`"${value}"`);
  });
});

describe("an error of this package in a failing program", () => {
  it("is marked as Pulumi's RunError (message alone) and has no frames, for every PlatformError", () => {
    const e = ApiError.from({ code: 16, message: "Unauthenticated: token rejected", details: [] }, 401, { method: "GET", path: "/iam/v2beta1/roles" });
    expect(e).toBeInstanceOf(PlatformError);
    expect((e as unknown as { __pulumiRunError?: boolean }).__pulumiRunError).toBe(true);
    expect(e.stack).toBe(`${e.name}: ${e.message}`);
    expect(Object.keys(e)).not.toContain("__pulumiRunError");
  });

  it("keeps its stack with PLATFORM_ERROR_STACKS=1", () => {
    process.env["PLATFORM_ERROR_STACKS"] = "1";
    try {
      const e = markReported(new Error("x"));
      expect(e.stack).toMatch(/\n\s+at /);
    } finally {
      delete process.env["PLATFORM_ERROR_STACKS"];
    }
  });

  it("is inspected at once even with the frame Pulumi's source maps produce inside an apply", () => {
    // The frame that makes Node 20.19.6+'s util.inspect(err, {colors: true}) loop (nodejs/node#64011). A frameless
    // stack never reaches that code.
    const e = markReported(new Error("boom"));
    expect(util.inspect(e, { colors: true })).toContain("boom");
    expect(e.stack).not.toContain("node_modules");
  });

  it("includes a lookup's bad arguments", async () => {
    // A client that is never called: the arguments are checked first.
    const client = new PlatformClient({ apiUrl: "http://127.0.0.1:9", token: "t" });
    const err = await getGroups({ nosuch: "x" } as never, client).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as { __pulumiRunError?: boolean }).__pulumiRunError).toBe(true);
    const both = await getRole({ uid: "a", name: "b" }, client).catch((x: unknown) => x);
    expect(String((both as Error).stack)).toBe("TypeError: getRole: give either uid or filters (name, parentUid), not both; got uid and name");
  });
});
