#!/usr/bin/env node
// Makes `require("platform-pulumi/...")` resolve inside this repository, as it does in a user's project that
// installed the package. The serialized provider shim requires the runtime by package name from the program's
// folder (see provider/engine/shim.ts), and the repository's own programs (the root Pulumi.yaml, examples/,
// tests) run from here. npm links workspace packages but never the root package to itself, so `prepare` does.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const link = path.join(__dirname, "..", "node_modules", "platform-pulumi");
try {
  if (fs.readlinkSync(link) === "..") process.exit(0);
  fs.unlinkSync(link);
} catch (err) {
  if (err.code !== "ENOENT" && err.code !== "EINVAL") throw err;
  if (err.code === "EINVAL") fs.rmSync(link, { recursive: true, force: true });
}
fs.mkdirSync(path.dirname(link), { recursive: true });
fs.symlinkSync("..", link, "dir");
