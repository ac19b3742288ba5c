/* global require, process, console */
"use strict";
// Summarizes plugin CPU profiles written by bench/profile/hook.js:
//   node bench/profile/summary.js /tmp/prof/*.cpuprofile
// Prints per profile the wall time, CPU and max RSS, the sampled time per package (this package's files as
// `ours:<file>`, Node's own as node-internal, idle as (idle)) and the busiest functions.
const fs = require("fs");
for (const f of process.argv.slice(2)) {
  const p = JSON.parse(fs.readFileSync(f));
  const info = JSON.parse(fs.readFileSync(f.replace(".cpuprofile", ".info")));
  const dt = new Map(); // node id -> self time
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) || 0) + (p.timeDeltas[i] || 0));
  const cat = (n) => {
    const u = n.callFrame.url || "";
    const fn = n.callFrame.functionName;
    if (!u) return fn.startsWith("(") ? fn : "(native/" + (fn || "anon") + ")";
    const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(u);
    if (m) { if (m[1] === "@pulumi/pulumi") { const s = /@pulumi\/pulumi\/([^/]+\/?[^/]*)/.exec(u); return "@pulumi/pulumi/" + (s ? s[1] : ""); } return m[1]; }
    if (u.includes("/dist/provider/")) return "ours:" + u.split("/dist/provider/")[1];
    if (u.startsWith("node:")) return "node-internal";
    return u;
  };
  const agg = new Map(); const fns = new Map();
  let total = 0;
  for (const [id, t] of dt) { const n = byId.get(id); const c = cat(n); agg.set(c, (agg.get(c) || 0) + t); total += t;
    const k = c + " " + n.callFrame.functionName + ":" + n.callFrame.lineNumber; fns.set(k, (fns.get(k) || 0) + t); }
  console.log(`== ${f}: wall ${info.ms} ms, cpu user ${(info.cpu.user/1000).toFixed(0)} ms sys ${(info.cpu.system/1000).toFixed(0)} ms, maxRSS ${(info.maxrss/1024).toFixed(0)} MB, sampled ${(total/1000).toFixed(0)} ms`);
  for (const [c, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log(`  ${(t/1000).toFixed(0).padStart(7)} ms  ${c}`);
  console.log("  top functions (non-idle):");
  for (const [c, t] of [...fns].filter(([k]) => !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${(t/1000).toFixed(0).padStart(7)} ms  ${c}`);
}
