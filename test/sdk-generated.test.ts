/**
 * The committed SDKs (sdk/go/platform, sdk/python) are what Pulumi's SDK generators (`tools/pulumi-sdkgen`, pkg/v3
 * `codegen/{go,python}.GeneratePackage`, built from the Go module proxy by `scripts/ensure-sdkgen`) write from the
 * current schema.json: a change of a kind's declaration that is not followed by `npm run gen:sdk` fails here
 * (docs/native.md "SDKs"). Beside test/schema-binder.test.ts: it builds and runs a Go program (about a second once
 * built).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");

describe("the committed SDKs (npm run gen:sdk)", () => {
  let tool = "";
  beforeAll(() => {
    tool = execFileSync("bash", [path.join(root, "scripts/ensure-sdkgen")], { encoding: "utf8" }).trim().split("\n").pop()!;
  }, 600_000);

  const check = (schemaPath: string) => spawnSync(tool, ["check", schemaPath, path.join(root, "sdk"), "go", "python"], { encoding: "utf8" });

  it("are what the generators write from schema.json", () => {
    const r = check(path.join(root, "schema.json"));
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().split("\n").filter(Boolean), "run `npm run gen:sdk` and commit sdk/").toEqual([]);
    expect(r.status).toBe(0);
  });

  it("are found stale when the schema changes (the check can fail)", () => {
    const schema = JSON.parse(readFileSync(path.join(root, "schema.json"), "utf8")) as {
      resources: Record<string, { inputProperties: Record<string, { description?: string }> }>;
    };
    schema.resources["platform:iam:Group"]!.inputProperties["name"]!.description = "A changed description.";
    const file = path.join(mkdtempSync(path.join(tmpdir(), "sdkgen-")), "schema.json");
    writeFileSync(file, JSON.stringify(schema));
    const r = check(file);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("differs go/platform/iam/group.go");
    expect(r.stdout).toContain("differs python/platform_pulumi/iam/group.py");
  });
});
