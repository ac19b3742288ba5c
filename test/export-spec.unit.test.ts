/**
 * The dependency spec `platform-pulumi export --format ts` writes for this package: the spec that installed the
 * package running the export (the package is not on the npm registry yet, so `^<version>` would answer 404).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ownDependencySpec } from "../provider/commands/export";
import { REPO_ROOT } from "../scripts/lib/pulumi";

function project(deps: Record<string, string>, field: "dependencies" | "devDependencies" = "dependencies"): string {
  const dir = mkdtempSync(path.join(tmpdir(), "export-spec-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "infra", [field]: deps }));
  mkdirSync(path.join(dir, "sub"));
  return dir;
}

describe("ownDependencySpec", () => {
  it("reuses the user's project's file: spec, relative to the folder written", () => {
    const dir = project({ "platform-pulumi": "file:vendor/platform-pulumi-0.1.0.tgz" });
    expect(ownDependencySpec(path.join(dir, "exported", "org"), path.join(dir, "sub"))).toBe("file:../../vendor/platform-pulumi-0.1.0.tgz");
  });

  it("keeps a git URL or registry range as written, from dependencies or devDependencies", () => {
    expect(ownDependencySpec("/tmp/out", project({ "platform-pulumi": "git+https://git.example.com/platform-pulumi.git#v0.1.0" }))).toBe(
      "git+https://git.example.com/platform-pulumi.git#v0.1.0",
    );
    expect(ownDependencySpec("/tmp/out", project({ "platform-pulumi": "^0.1.0" }, "devDependencies"))).toBe("^0.1.0");
  });

  it("points at the running package's own folder when no project names it and it is not under node_modules", () => {
    const out = mkdtempSync(path.join(tmpdir(), "export-spec-out-"));
    // tmpdir has no package.json naming the package; this package runs from the repository (a clone).
    expect(ownDependencySpec(out, out)).toBe(`file:${path.relative(out, REPO_ROOT)}`);
  });

  it("outside any project, takes the spec of the project that installed the running package (npx's cache keeps one)", () => {
    const installer = project({ "platform-pulumi": "file:vendor/platform-pulumi-0.1.0.tgz" });
    const own = { root: path.join(installer, "node_modules", "platform-pulumi"), version: "0.1.0" };
    const elsewhere = mkdtempSync(path.join(tmpdir(), "export-spec-elsewhere-"));
    const out = path.join(elsewhere, "exported");
    expect(ownDependencySpec(out, elsewhere, own)).toBe(`file:${path.relative(out, path.join(installer, "vendor", "platform-pulumi-0.1.0.tgz"))}`);
    // npx's cache records the absolute path it was given: kept as written.
    const npx = project({ "platform-pulumi": "file:/srv/vendor/platform-pulumi-0.1.0.tgz" });
    expect(ownDependencySpec(out, elsewhere, { root: path.join(npx, "node_modules", "platform-pulumi"), version: "0.1.0" })).toBe("file:/srv/vendor/platform-pulumi-0.1.0.tgz");
    // Installed where no package.json names it (a global install): the version range is all there is.
    const bare = mkdtempSync(path.join(tmpdir(), "export-spec-global-"));
    expect(ownDependencySpec(out, elsewhere, { root: path.join(bare, "lib", "node_modules", "platform-pulumi"), version: "0.1.0" })).toBe("^0.1.0");
  });
});
