/* global require, process, setTimeout */
"use strict";
// Profiles the dynamic-provider plugin alone. Load it with
//   NODE_OPTIONS="--require $PWD/bench/profile/hook.js" PROFILE_DIR=/tmp/prof pulumi up ...
// Every Node process of the run loads it, but only the one whose script is @pulumi/pulumi's cmd/dynamic-provider
// starts V8's CPU profiler (0.5 ms sampling); on exit it writes <PROFILE_DIR>/<pid>.cpuprofile (open it in Chrome
// DevTools, or summarize it with bench/profile/summary.js) and <pid>.info (wall ms, CPU, max RSS). A plain
// `--cpu-prof` in NODE_OPTIONS would also reach the language host's own `node` checks, which then fail.
if ((process.argv[1] || "").includes("dynamic-provider")) {
  const dir = process.env.PROFILE_DIR || "/tmp/prof";
  require("fs").mkdirSync(dir, { recursive: true });
  const inspector = require("inspector");
  const fs = require("fs");
  const s = new inspector.Session();
  s.connect();
  s.post("Profiler.enable");
  s.post("Profiler.setSamplingInterval", { interval: 500 });
  s.post("Profiler.start");
  const t0 = Date.now();
  let done = false;
  const stop = () => {
    if (done) return; done = true;
    s.post("Profiler.stop", (err, { profile }) => {
      fs.writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(profile));
      fs.writeFileSync(`${dir}/${process.pid}.info`, JSON.stringify({ ms: Date.now() - t0, rss: process.memoryUsage().rss, maxrss: process.resourceUsage().maxRSS, cpu: process.cpuUsage() }));
    });
  };
  process.on("SIGINT", () => { stop(); setTimeout(() => process.exit(0), 200); });
  process.on("SIGTERM", () => { stop(); setTimeout(() => process.exit(0), 200); });
  process.on("beforeExit", stop);
  process.on("exit", stop);
}
