/**
 * Every declared field of every kind is registered with the engine, set or not, so each has an Output on the
 * resource (an optional argument left out reads as undefined, never as a missing property); the compiler ties
 * the class's typed outputs to the kind's outputs (each kind's `XTies`, `provider/kinds/ties.ts`).
 */
import { describe, expect, it } from "vitest";
import { KINDS } from "../provider/kinds/registry";

describe("registered properties", () => {
  it.each(KINDS.map((k) => [k.kind, k] as const))("%s registers every declared field and uid, given none", (_kind, k) => {
    const registered = Object.keys(k.props({}));
    const declared = Object.keys(k.fields).filter((f) => f !== "createToken");
    expect(registered).toEqual(expect.arrayContaining(["uid", ...declared]));
  });
});
