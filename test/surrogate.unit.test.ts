/**
 * A lone surrogate in server text (`"\ud800"` is valid JSON, so the API can send one in an identity's subject or
 * claimMatch) reaching the engine: protobuf strings are UTF-8, google-protobuf writes a lone surrogate as the
 * three bytes of its code unit (`ED A0 80`: not UTF-8, the engine refuses the message, "invalid UTF-8") or, before
 * another character, garbles both. What the providers send is made well-formed first (provider/text.ts
 * `wellFormed`): the native provider's Structs (native/server.ts `structOf`) and the dynamic provider's results
 * (runtime.ts `wellFormedResults`, applied by `localProvider`). The replacement is U+FFFD, the same each time, so
 * the state holds it and the next refresh reads no drift from it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { structOf } from "../provider/native/server";
import { wellFormedResults } from "../provider/runtime";
import { wellFormed, wellFormedDeep } from "../provider/text";

const structProto = require("google-protobuf/google/protobuf/struct_pb") as { Struct: { deserializeBinary(b: Uint8Array): { toJavaScript(): unknown } } };

/** Strings with a lone surrogate at the end, the start, the middle, and in a key. */
const LONE = ["\ud800", "subject\ud800", "\udc00x", "a\ud800b", "x\udc00y", "repo:org/\udbff"];

/** True when `bytes` hold a UTF-8-encoded surrogate (ED A0..BF xx), which no UTF-8 decoder accepts. */
function holdsSurrogateBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0xed && bytes[i + 1]! >= 0xa0 && bytes[i + 1]! <= 0xbf) return true;
  return false;
}

describe("wellFormed", () => {
  it.each(LONE)("%j: each lone surrogate is U+FFFD, the rest kept, the same as toWellFormed", (s) => {
    const out = wellFormed(s);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(out).toContain("\ufffd");
    expect(out.replace(/\ufffd/g, "")).toBe(s.replace(/[\ud800-\udfff]/g, ""));
    const native = (s as unknown as { toWellFormed?: () => string }).toWellFormed;
    if (native) expect(out).toBe(native.call(s));
    expect(wellFormed(out)).toBe(out);
  });

  it("keeps pairs (emoji, astral characters) and other text as they are", () => {
    for (const s of ["😀", "𝔘nicode", "équipe 团队", ""]) expect(wellFormed(s)).toBe(s);
  });

  it("wellFormedDeep reaches strings at any depth, keys included, and keeps other values", () => {
    const v = { subject: "a\ud800", claimMatch: { claims: { ["k\udc00"]: ["x\ud800", 5, true, null] } }, n: 1, u: undefined };
    expect(wellFormedDeep(v)).toEqual({ subject: "a\ufffd", claimMatch: { claims: { ["k\ufffd"]: ["x\ufffd", 5, true, null] } }, n: 1, u: undefined });
  });
});

describe("the native provider's Structs", () => {
  it.each(LONE)("%j as a value and a key: valid UTF-8 on the wire, read back as the U+FFFD form", (s) => {
    const bytes = (structOf({ subject: s, claims: { [s]: s } }) as unknown as { serializeBinary(): Uint8Array }).serializeBinary();
    expect(holdsSurrogateBytes(bytes)).toBe(false);
    expect(structProto.Struct.deserializeBinary(bytes).toJavaScript()).toEqual({ subject: wellFormed(s), claims: { [wellFormed(s)]: wellFormed(s) } });
  });
});

describe("the dynamic provider's results", () => {
  it("create, read, update, check and diff results are well-formed; the same read twice gives the same outputs (no drift)", async () => {
    const api = { uid: "g/x", subject: "repo:org/x\ud800", claimMatch: { sub: "\udc00" } };
    const fake: pulumi.dynamic.ResourceProvider = {
      check: async (_o, news: Record<string, unknown>) => ({ inputs: { ...news, subject: api.subject } }),
      diff: async () => ({ changes: true, replaces: ["subject\ud800"] }),
      create: async () => ({ id: "g/x\ud800", outs: { ...api } }),
      read: async (id) => ({ id, props: { ...api } }),
      update: async () => ({ outs: { ...api } }),
      delete: async () => undefined,
    };
    const p = wellFormedResults(fake);
    const results = [await p.check!({}, {}), await p.diff!("g/x", {}, {}), await p.create!({}), await p.read!("g/x", {}), await p.update!("g/x", {}, {})];
    expect(JSON.stringify(results)).not.toMatch(/\\ud[89ab]/);
    const read = (await p.read!("g/x", {})) as { props: Record<string, unknown> };
    expect(read.props).toEqual({ uid: "g/x", subject: "repo:org/x\ufffd", claimMatch: { sub: "\ufffd" } });
    expect(await p.read!("g/x", {})).toEqual(read);
    expect(await p.delete!("g/x", {})).toBeUndefined();
  });
});
