/**
 * The engine-run budget's own machinery (test/harness/engine-runs.ts): the counting wrapper in front of a stand-in
 * CLI (a script that prints its arguments), the count per file, and the verdict the summary reporter prints; and
 * the engine and consumer projects' refusal of a stale build (test/harness/global-setup.ts), on a folder laid out
 * as the repository.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installCountingCli, judgeEngineRuns, readEngineRuns } from "./harness/engine-runs";
import { staleBuild } from "./harness/global-setup";

const work = mkdtempSync(path.join(tmpdir(), "engine-runs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the counting pulumi wrapper", () => {
  const real = path.join(work, "real");
  const wrap = path.join(work, "wrap");
  const log = path.join(work, "runs.log");
  execFileSync("mkdir", ["-p", real]);
  writeFileSync(path.join(real, "pulumi"), '#!/bin/sh\necho "real: $*"\n', { mode: 0o755 });
  writeFileSync(path.join(real, "pulumi-language-nodejs"), "#!/bin/sh\necho host\n", { mode: 0o755 });
  installCountingCli(real, wrap, log);
  const pulumi = (args: string[], file?: string): string => {
    const env = { ...process.env };
    delete env["PLATFORM_ENGINE_FILE"];
    if (file !== undefined) env["PLATFORM_ENGINE_FILE"] = file;
    return execFileSync(path.join(wrap, "pulumi"), args, { encoding: "utf8", env });
  };

  it("runs the real CLI with the arguments unchanged, and links the CLI's other binaries beside it", () => {
    expect(pulumi(["up", "--yes", "--stack", "a b"], "test/a.test.ts")).toBe("real: up --yes --stack a b\n");
    expect(execFileSync(path.join(wrap, "pulumi-language-nodejs"), { encoding: "utf8" })).toBe("host\n");
  });

  it("logs each engine command (after global flags and their values) against the file named in PLATFORM_ENGINE_FILE, and nothing else", () => {
    pulumi(["preview", "--diff"], "test/a.test.ts");
    pulumi(["--cwd", "up", "refresh", "--yes"], "test/b.test.ts"); // `up` here is --cwd's value
    pulumi(["stack", "output", "--json"], "test/b.test.ts");
    pulumi(["config", "set", "up", "x"], "test/b.test.ts");
    pulumi(["destroy", "--yes"]);
    const runs = readEngineRuns(log);
    expect(Object.fromEntries([...runs].map(([f, r]) => [f, r.byCommand]))).toEqual({
      "test/a.test.ts": { up: 1, preview: 1 },
      "test/b.test.ts": { refresh: 1 },
      "(unattributed)": { destroy: 1 },
    });
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toHaveLength(4);
  });
});

describe("the budget's verdict", () => {
  const runs = new Map([
    ["test/a.test.ts", { total: 5, byCommand: { up: 3, preview: 2 } }],
    ["test/b.test.ts", { total: 2, byCommand: { refresh: 2 } }],
  ]);

  it("prints the total against the budget and each file's runs against its own, most first", () => {
    const v = judgeEngineRuns(runs, { total: 10, files: { "test/a.test.ts": 5, "test/b.test.ts": 2 } });
    expect(v.over).toEqual([]);
    expect(v.lines[0]).toBe("engine runs: 7 (budget 10)");
    expect(v.lines[1]).toMatch(/^\s+5 \/\s+5 {2}test\/a\.test\.ts \(up 3, preview 2\)$/);
    expect(v.lines[2]).toMatch(/test\/b\.test\.ts \(refresh 2\)$/);
  });

  it("fails a file over its budget, a file with no budget, and a total over the cap", () => {
    const v = judgeEngineRuns(runs, { total: 6, files: { "test/a.test.ts": 4 } });
    expect(v.over).toEqual([
      { file: "test/a.test.ts", runs: 5, budget: 4 },
      { file: "test/b.test.ts", runs: 2, budget: 0 },
      { file: "(total)", runs: 7, budget: 6 },
    ]);
    expect(v.lines.filter((l) => l.startsWith("engine runs over budget"))).toHaveLength(3);
  });

  it("caps a partial run at the sum of the budgets of the files that ran", () => {
    const v = judgeEngineRuns(new Map([["test/a.test.ts", runs.get("test/a.test.ts")!]]), { total: 100, files: { "test/a.test.ts": 5, "test/b.test.ts": 2 } }, ["test/a.test.ts"]);
    expect(v.lines[0]).toBe("engine runs: 5 (budget 5)");
    expect(v.over).toEqual([]);
  });
});

describe("the build check of the engine and consumer projects", () => {
  const root = path.join(work, "repo");
  const mark = path.join(root, "dist", "provider", "index.bundle.js");
  execFileSync("mkdir", ["-p", path.join(root, "provider", "kinds"), path.join(root, "tools"), path.join(root, "notes"), path.dirname(mark)]);
  // The folders checked are tsconfig.json's `include` (a comment in it, as tsc allows), not a list of the test's.
  writeFileSync(path.join(root, "tsconfig.json"), '{\n  // what npm run build compiles\n  "include": ["provider", "tools"]\n}\n');
  const at = (file: string, seconds: number) => {
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    utimesSync(file, t, t);
  };

  it("passes a build newer than every source, and names the newer source and the command otherwise", () => {
    writeFileSync(path.join(root, "provider", "kinds", "group.ts"), "export {};\n");
    writeFileSync(path.join(root, "provider", "kinds", "group.d.ts"), "export {};\n"); // declarations are not sources
    writeFileSync(mark, "");
    at(path.join(root, "provider", "kinds", "group.ts"), 10);
    at(path.join(root, "provider", "kinds", "group.d.ts"), 30);
    at(mark, 20);
    expect(staleBuild(root, mark)).toBeUndefined();
    at(path.join(root, "provider", "kinds", "group.ts"), 25);
    expect(staleBuild(root, mark)).toMatch(/^dist\/ is older than provider\/kinds\/group\.ts \(changed 2026-01-01T00:00:25\.000Z, built 2026-01-01T00:00:20\.000Z\): run npm run build$/);
    at(path.join(root, "provider", "kinds", "group.ts"), 10);
    // A folder of tsconfig.json's include is checked; one outside it is not.
    writeFileSync(path.join(root, "notes", "draft.ts"), "export {};\n");
    at(path.join(root, "notes", "draft.ts"), 40);
    expect(staleBuild(root, mark)).toBeUndefined();
    writeFileSync(path.join(root, "tools", "gen.ts"), "export {};\n");
    at(path.join(root, "tools", "gen.ts"), 40);
    expect(staleBuild(root, mark)).toMatch(/^dist\/ is older than tools\/gen\.ts /);
    at(path.join(root, "tools", "gen.ts"), 10);
  });

  it("names the missing build", () => {
    rmSync(mark);
    expect(staleBuild(root, mark)).toBe("no build in dist/ (dist/provider/index.bundle.js is missing): run npm run build");
  });
});
