/**
 * The generated package schema bound by Pulumi's own schema binder (`tools/pulumi-schema`, pkg/v3
 * `codegen/schema.BindSpec`, built from the Go module proxy by `scripts/ensure-schema-tool`): no diagnostics, and
 * a broken schema refused (so the check can fail). Not in the unit tier: it builds and runs a Go program.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LOOKUPS } from "../provider/lookups/catalog";
import { packageSchema } from "../provider/schema/package";
import { KINDS } from "../provider/kinds/registry";

const root = path.resolve(__dirname, "..");
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const spec = packageSchema(version);

describe("Pulumi's schema binder (pkg/v3 codegen/schema.BindSpec)", () => {
  let tool = "";
  let dir = "";
  beforeAll(() => {
    tool = execFileSync("bash", [path.join(root, "scripts/ensure-schema-tool")], { encoding: "utf8" }).trim().split("\n").pop()!;
    dir = mkdtempSync(path.join(tmpdir(), "schema-"));
  }, 600_000);

  const bind = (s: unknown) => {
    const file = path.join(dir, `s${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(s));
    const r = spawnSync(tool, ["check", file], { encoding: "utf8" });
    return { status: r.status, report: JSON.parse(r.stdout || "{}") as { resources: number; functions: number; diagnostics: Array<{ severity: string; summary: string }> }, stderr: r.stderr };
  };

  it("binds the generated schema with no diagnostics", () => {
    const r = bind(spec);
    expect(r.report.diagnostics).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.report.resources).toBe(KINDS.length);
    expect(r.report.functions).toBe(LOOKUPS.length);
  });

  it("refuses a schema with a dangling type reference (the check can fail)", () => {
    const broken = structuredClone(spec);
    broken.resources["platform:iam:Group"]!.inputProperties["name"] = { $ref: "#/types/platform:iam:Missing", description: "x" };
    const r = bind(broken);
    expect(r.status).toBe(1);
    expect(r.report.diagnostics.some((d) => d.severity === "error")).toBe(true);
  });
});
