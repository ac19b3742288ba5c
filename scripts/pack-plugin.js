#!/usr/bin/env node
// Writes the native provider plugin as a Pulumi plugin archive (docs/native.md "Install the plugin"):
// dist/plugin/pulumi-resource-platform-v<version>-<os>-<arch>.tar.gz, which
// `pulumi plugin install resource platform <version> --file <archive>` installs into the Pulumi home, where every
// program (Python, Go, YAML, .NET, Java; `pulumi import`) then finds it with no `plugins:` path in Pulumi.yaml.
//
// The archive needs only Node.js (20 or newer): the launcher `pulumi-resource-platform` (a Node.js script that loads
// its files from where it really is, symbolic links resolved, as Node.js does for a main module), the plugin's code
// with everything it uses (grpc-js, google-protobuf, @pulumi/pulumi's protocol files, undici, zod, …) bundled by
// esbuild into dist/provider/native/main.js, and the package.json (its version) and schema.json the plugin serves.
// The code is the same on every OS and architecture; the name carries this machine's, as `pulumi plugin install`
// expects (`linux-amd64`, `darwin-arm64`, …). `npm run build` builds it with the runtime bundles
// (scripts/bundle-runtime.js); run alone, this prints the archive's path.
/* global require, __dirname, process, module */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const esbuild = require("esbuild");
const { englishOnly } = require("./zod-english-only");

const root = path.join(__dirname, "..");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

/** Pulumi's names for this machine's OS and architecture (`pulumi plugin install` archive names). */
const OS = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform] ?? process.platform;
const ARCH = { x64: "amd64", arm64: "arm64" }[process.arch] ?? process.arch;

const LAUNCHER = `#!/usr/bin/env node
// platform-pulumi's native provider plugin (docs/native.md), as \`pulumi plugin install resource platform ${version}\`
// installs it: the bundled plugin beside this file (Node.js resolves this file's real folder, links followed).
"use strict";
require(require("node:path").join(__dirname, "dist", "provider", "native", "main.js"));
`;

/** The archive's path for `version` on this machine. */
function archivePath() {
  return path.join(root, "dist", "plugin", `pulumi-resource-platform-v${version}-${OS}-${ARCH}.tar.gz`);
}

/** Builds the archive ({@link archivePath}); resolves with its path. */
async function packPlugin() {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "platform-plugin-"));
  try {
    await esbuild.build({
      entryPoints: [path.join(root, "provider", "native", "main.ts")],
      outfile: path.join(staging, "dist", "provider", "native", "main.js"),
      tsconfig: path.join(root, "tsconfig.json"),
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      plugins: [englishOnly],
      // Reached only by npm's script runner inside @pulumi/pulumi's automation code, which the plugin never runs.
      external: ["node-gyp/bin/node-gyp.js"],
      legalComments: "eof",
      logLevel: "error",
    });
    fs.writeFileSync(path.join(staging, "pulumi-resource-platform"), LAUNCHER, { mode: 0o755 });
    fs.writeFileSync(path.join(staging, "package.json"), `${JSON.stringify({ name: "platform-pulumi-plugin", version, private: true }, null, 2)}\n`);
    fs.copyFileSync(path.join(root, "schema.json"), path.join(staging, "schema.json"));
    const out = archivePath();
    fs.mkdirSync(path.dirname(out), { recursive: true });
    for (const f of fs.readdirSync(path.dirname(out))) if (f.endsWith(".tar.gz")) fs.rmSync(path.join(path.dirname(out), f));
    execFileSync("tar", ["-czf", out, "-C", staging, "pulumi-resource-platform", "package.json", "schema.json", "dist"]);
    return out;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

module.exports = { archivePath, packPlugin, OS, ARCH };

if (require.main === module) packPlugin().then((out) => process.stdout.write(`${path.relative(process.cwd(), out)}\n`), (err) => {
  process.stderr.write(`pack-plugin: ${err.message}\n`);
  process.exit(1);
});
