#!/usr/bin/env node
// Removes compiled files from dist/ whose source is gone. tsc never deletes outputs, and Node resolves
// `./lookups` to a stale `dist/provider/lookups.js` before the new `dist/provider/lookups/index.js`, so a
// checkout that built before a module became a folder would run the old module.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const dist = path.join(root, "dist");
const OUT = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

function walk(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(full);
    else if (OUT.test(e.name)) {
      const base = path.join(root, path.relative(dist, full)).replace(OUT, "");
      if (![".ts", ".js", ".mts", ".tsx"].some((x) => fs.existsSync(base + x))) fs.rmSync(full);
    }
  }
}
walk(dist);
