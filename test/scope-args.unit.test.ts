/**
 * `--scope` and `--with` of `access` and `gate` (docs/access.md "The whole org"): parsed in one place, each bad value
 * named with what is allowed.
 */
import { describe, expect, it } from "vitest";
import { scopeArgs } from "../provider/commands/access";

describe("scopeArgs", () => {
  it("defaults to the whole org and takes fully qualified stacks of other projects", () => {
    expect(scopeArgs({})).toEqual({ scope: "org", withStacks: [] });
    expect(scopeArgs({ scope: "stack" })).toEqual({ scope: "stack", withStacks: [] });
    expect(scopeArgs({ with: ["organization/org.engineering/dev", "acme/org-cross/prod"] })).toEqual({ scope: "org", withStacks: ["organization/org.engineering/dev", "acme/org-cross/prod"] });
  });
  it("names a bad scope, a --with that is not <org>/<project>/<stack>, and --with beside --scope stack", () => {
    expect(() => scopeArgs({ scope: "team" })).toThrow(`--scope: "team" is not one of org, stack`);
    expect(() => scopeArgs({ with: ["org.engineering"] })).toThrow(`--with "org.engineering" is not allowed: a fully qualified stack, <org>/<project>/<stack> (letters, digits, _, . and -)`);
    expect(() => scopeArgs({ scope: "stack", with: ["a/b/c"] })).toThrow(`--with "a/b/c" is not allowed with --scope stack: it marks where the org's objects are managed`);
  });
});
