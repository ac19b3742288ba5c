/**
 * Type tokens (provider/typeTokens.ts): a kind is recognised whether the dynamic provider or the native plugin
 * serves it, and nothing else is taken for one of this package's resources.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { isKindType, kindOfType } from "../provider/typeTokens";
import { KIND_NAMES } from "../provider/kinds/registry";

const schema = JSON.parse(readFileSync(path.join(__dirname, "..", "schema.json"), "utf8")) as { resources: Record<string, unknown>; functions: Record<string, unknown> };

describe("kindOfType", () => {
  it("names the kind of every resource token of the package schema and of every dynamic type", () => {
    const native = Object.keys(schema.resources).map(kindOfType).sort();
    expect(native).toEqual([...KIND_NAMES].sort());
    for (const k of KIND_NAMES) expect(kindOfType(`pulumi-nodejs:dynamic/platform:${k}`)).toBe(k);
  });

  it("takes no function token, provider, stack or other package's type for a kind", () => {
    for (const f of Object.keys(schema.functions)) expect(kindOfType(f), f).toBeUndefined();
    for (const t of ["pulumi:providers:platform", "pulumi:pulumi:Stack", "aws:s3/bucket:Bucket", "pulumi-nodejs:dynamic:Resource", "pulumi-nodejs:dynamic/platform:", "platform:iam", "platform::Group", "xplatform:iam:Group"]) {
      expect(kindOfType(t), t).toBeUndefined();
    }
  });

  it("isKindType compares the kind, either way it is served", () => {
    expect(isKindType("platform:iam:Group", "Group")).toBe(true);
    expect(isKindType("pulumi-nodejs:dynamic/platform:Group", "Group")).toBe(true);
    expect(isKindType("platform:iam:Group", "Identity")).toBe(false);
  });
});
