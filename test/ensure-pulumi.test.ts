/**
 * `scripts/ensure-pulumi` rebuilds exactly the project-built binaries whose sources changed (a fix to the
 * front must reach machines that already have one). Runs the script from a scratch copy of the repository layout
 * with a temporary PULUMI_HOME and a fake `go` that logs what it is asked to build and writes stand-in binaries,
 * so no test ever builds the real CLI (the real build path is what `npm test` runs first).
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../scripts/lib/pulumi";

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules/@pulumi/pulumi/package.json"), "utf8")) as { version: string }).version;

/** A stand-in binary: answers `version` like the CLI. */
const fakeBinary = (version = `v${VERSION}`) => `#!/bin/sh\necho ${version}\n`;

let dir = "";
let repo = "";
let bin = "";
let goLog = "";

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ensure-"));
  repo = path.join(dir, "repo");
  bin = path.join(dir, "home", "versions", VERSION, "bin");
  goLog = path.join(dir, "go.log");
  mkdirSync(path.join(repo, "scripts"), { recursive: true });
  cpSync(path.join(REPO_ROOT, "scripts", "ensure-pulumi"), path.join(repo, "scripts", "ensure-pulumi"));
  cpSync(path.join(REPO_ROOT, "tools"), path.join(repo, "tools"), { recursive: true });
  mkdirSync(path.join(repo, "node_modules", "@pulumi"), { recursive: true });
  symlinkSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi"), path.join(repo, "node_modules", "@pulumi", "pulumi"));
  const fakeGo = path.join(dir, "fake-go-bin", "go");
  mkdirSync(path.dirname(fakeGo));
  writeFileSync(
    fakeGo,
    `#!/bin/sh
echo "$(basename "$(pwd)") $1" >> "${goLog}"
case "$1" in
  env) echo go1.26.8 ;;
  build) while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
    printf '${fakeBinary().replace(/\n/g, "\\n")}' > "$out"; chmod +x "$out" ;;
esac
`,
  );
  chmodSync(fakeGo, 0o755);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the script; returns its stderr and the module folders `go build` ran in. */
function ensure(): { stderr: string; built: string[] } {
  rmSync(goLog, { force: true });
  const r = spawnSync("bash", [path.join(repo, "scripts", "ensure-pulumi")], {
    env: { ...process.env, PATH: `${path.join(dir, "fake-go-bin")}${path.delimiter}${process.env["PATH"]}`, PULUMI_HOME: path.join(dir, "home"), PULUMI_ENSURE_NO_PATH: "1" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`ensure-pulumi exited ${r.status}:\n${r.stderr}`);
  expect(r.stdout.trim()).toBe(bin);
  const built = existsSync(goLog) ? readFileSync(goLog, "utf8").split("\n").filter((l) => l.endsWith(" build")).map((l) => l.split(" ")[0]!) : [];
  return { stderr: r.stderr, built: built.sort() };
}

/** Installs stand-ins for the three binaries, as a machine set up before stamps has them. */
function preStampInstall(cliVersion = `v${VERSION}`): void {
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "pulumi"), fakeBinary(cliVersion), { mode: 0o755 });
  for (const name of ["pulumi-language-nodejs", "pulumi-language-nodejs-vendor", "pulumi-resource-pulumi-nodejs"]) {
    writeFileSync(path.join(bin, name), "#!/bin/sh\necho old\n", { mode: 0o755 });
  }
}

const FRONT = "pulumi-language-nodejs-front";
const VENDOR = "pulumi-language-nodejs";
const CLI = "pulumi-cli";

describe("ensure-pulumi stamps", () => {
  it("a folder from before stamps gets the language host rebuilt once, and keeps its CLI", () => {
    preStampInstall();
    const first = ensure();
    expect(first.built).toEqual([VENDOR, FRONT]);
    expect(first.stderr).toContain("built before stamps");
    expect(readFileSync(path.join(bin, "pulumi-language-nodejs"), "utf8")).not.toContain("old");
    expect(readFileSync(path.join(bin, "platform-pulumi.stamp"), "utf8")).toMatch(/^pulumi [0-9a-f]{64}\npulumi-language-nodejs-vendor [0-9a-f]{64}\npulumi-language-nodejs [0-9a-f]{64}\n$/);
    const again = ensure();
    expect(again.built).toEqual([]);
    expect(again.stderr).toContain(`using ${bin}/pulumi`);
  });

  it("a change to the front's sources rebuilds the front only", () => {
    preStampInstall();
    ensure();
    appendFileSync(path.join(repo, "tools", FRONT, "main.go"), "\n// changed\n");
    writeFileSync(path.join(repo, "tools", FRONT, "notes.txt"), "not a Go source: ignored");
    const r = ensure();
    expect(r.built).toEqual([FRONT]);
    expect(r.stderr).toContain("tools/pulumi-language-nodejs-front changed since it was built");
    expect(ensure().built).toEqual([]);
  });

  it("a change to the CLI's module rebuilds the CLI only; to the vendor host's, the vendor host only", () => {
    preStampInstall();
    ensure();
    appendFileSync(path.join(repo, "tools", CLI, "go.sum"), "\n");
    expect(ensure().built).toEqual([CLI]);
    appendFileSync(path.join(repo, "tools", VENDOR, "go.mod"), "\n");
    expect(ensure().built).toEqual([VENDOR]);
  });

  it("a pre-stamp CLI of another version is rebuilt too", () => {
    preStampInstall("v3.100.0");
    const r = ensure();
    expect(r.built).toEqual([CLI, VENDOR, FRONT]);
    expect(r.stderr).toContain("it reports v3.100.0");
  });

  it("an empty folder gets all three binaries and the plugin shim", () => {
    const r = ensure();
    expect(r.built).toEqual([CLI, VENDOR, FRONT]);
    for (const name of ["pulumi", "pulumi-language-nodejs", "pulumi-language-nodejs-vendor", "pulumi-resource-pulumi-nodejs", "platform-pulumi.stamp"]) {
      expect(existsSync(path.join(bin, name)), name).toBe(true);
    }
    expect(ensure().built).toEqual([]);
  });
});
