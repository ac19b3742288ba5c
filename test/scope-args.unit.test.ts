/**
 * `--scope` and `--with` of `access` and `gate` (docs/access.md "The whole org"), parsed in one place, each bad value
 * named with what is allowed; and the JSON access report past what one string holds.
 */
import { describe, expect, it } from "vitest";
import { jsonReport, scopeArgs } from "../provider/commands/access";
import type { ReportGrant } from "../provider/access/report";
import type { StackCommandError } from "../provider/commands/stack";

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

describe("the JSON access report (access.ts jsonReport)", () => {
  it("prints the rows, and past what one string holds says how many grants and what to use instead", () => {
    expect(JSON.parse(jsonReport("s", true, [], undefined))).toEqual({ stack: "s", grants: [] });
    // A row whose serialization runs past V8's longest string, as 1,000 identities presenting for each other do.
    const huge = { toJSON: () => { throw new RangeError("Invalid string length"); } } as unknown as ReportGrant;
    expect(() => jsonReport("s", true, [huge, huge], undefined)).toThrow(/^the access report holds 2 capability grant\(s\), more than one JSON document can hold \(Invalid string length\)\n/);
    try {
      jsonReport("s", true, [huge], undefined);
    } catch (err) {
      expect((err as StackCommandError).hint).toContain("--format markdown or table");
    }
  });
});
