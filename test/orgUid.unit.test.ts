/** `orgUid()`: the root group's uid from stack config, then the environment, failing at once with what to set. */
import { describe, expect, it } from "vitest";
import { SettingsError } from "../provider/config";
import { orgUid } from "../provider/orgUid";

const ROOT = "0123456789abcdef0123456789abcdef01234567";
const config = (values: Record<string, string>) => ({ get: (k: string) => values[k], keys: () => Object.keys(values) });

describe("orgUid", () => {
  it("reads platform:orgUid, then PLATFORM_ORG_UID", () => {
    expect(orgUid(config({ "platform:orgUid": ROOT }), { PLATFORM_ORG_UID: "f".repeat(40) })).toBe(ROOT);
    expect(orgUid(config({}), { PLATFORM_ORG_UID: ROOT })).toBe(ROOT);
  });

  it("unset: names the key, the variable and a misspelled key beside it, as one marked line", () => {
    let caught: unknown;
    try {
      orgUid(config({ "platform:orgUID": ROOT, "platform:apiUrl": "http://x" }), {});
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    const err = caught as Error;
    expect(err.message).toBe(
      "the org's root group uid is not set: set stack config `platform:orgUid` (`pulumi config set platform:orgUid <root group uid>`) or the PLATFORM_ORG_UID environment variable " +
        "(unknown stack config key `platform:orgUID` is ignored: did you mean `platform:orgUid`?)",
    );
    expect(err.stack).toBe(`SettingsError: ${err.message}`); // no frames (client/reported.ts)
    expect((err as unknown as { __pulumiRunError?: boolean }).__pulumiRunError).toBe(true);
  });

  it("refuses a value that is not a root group uid, naming where it came from", () => {
    expect(() => orgUid(config({ "platform:orgUid": "root" }), {})).toThrow('stack config `platform:orgUid` "root" is not allowed: the org\'s root group uid, 40 lowercase hex characters');
    expect(() => orgUid(config({}), { PLATFORM_ORG_UID: `${ROOT}/0123456789abcdef` })).toThrow(`PLATFORM_ORG_UID "${ROOT}/0123456789abcdef" is not allowed`);
  });
});
