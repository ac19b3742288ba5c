// `platform-pulumi/runtime` as the dynamic-provider plugin loads it (docs/performance.md,
// "Plugin start"): one esbuild bundle of provider/runtime.ts behind a small entry, which must keep the runtime's
// contract with stored state (provider/engine/shim.ts) and behave as the sources do. Runs against dist/ (built by
// `npm run build`, as the engine tests are).
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as source from "../provider/runtime";
import * as mainSource from "../provider/index";
import { REPO_ROOT } from "../scripts/lib/pulumi";

// Resolved from the repository's root, where `platform-pulumi` is linked to itself as a user's project installs it.
const req = createRequire(path.join(REPO_ROOT, "index.js"));
const dist = path.join(REPO_ROOT, "dist", "provider");
type Runtime = typeof source;

describe("platform-pulumi/runtime", () => {
  beforeEach(() => {
    vi.stubEnv("PLATFORM_PULUMI_ENGINE_WATCH", "off");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is the bundle behind its entry, not the ~150 modules of tsc's output", () => {
    expect(req.resolve("platform-pulumi/runtime")).toBe(path.join(dist, "runtimeEntry.js"));
    const before = new Set(Object.keys(req.cache));
    req("platform-pulumi/runtime");
    const loaded = Object.keys(req.cache).filter((k) => !before.has(k));
    expect(loaded).toContain(path.join(dist, "runtime.bundle.js"));
    expect(loaded.filter((k) => k.startsWith(dist))).toEqual(expect.not.arrayContaining([path.join(dist, "runtime.js"), path.join(dist, "kinds", "group", "index.js")]));
  });

  it("keeps the runtime's contract: the same exports, kinds and provider methods as the sources", () => {
    const bundle = req("platform-pulumi/runtime") as Runtime;
    expect(Object.keys(bundle).sort()).toEqual(Object.keys(source).sort());
    expect(Object.keys(bundle.providers).sort()).toEqual(Object.keys(source.providers).sort());
    for (const kind of Object.keys(source.providers) as Array<keyof Runtime["providers"]>) {
      expect(Object.keys(bundle.provider(kind)).sort(), kind).toEqual(Object.keys(source.localProvider(kind)).sort());
      expect(typeof bundle.providers[kind].read, kind).toBe("function");
    }
  });

  it("fails a bad input with the same messages as the sources", async () => {
    vi.stubEnv("PLATFORM_API_URL", "http://127.0.0.1:9");
    vi.stubEnv("PLATFORM_TOKEN", "t0k3n-for-check-only");
    const bundle = req("platform-pulumi/runtime") as Runtime;
    const bad = { parentUid: "not a uid", name: "", description: 7, claimMatch: { issuer: "http://x" } };
    for (const kind of ["Group", "Identity", "RoleBinding"] as const) {
      const ours = await bundle.provider(kind).check!({}, bad);
      const theirs = await source.localProvider(kind).check!({}, bad);
      expect(ours.failures?.length, kind).toBeGreaterThan(0);
      expect(ours.failures, kind).toEqual(theirs.failures);
    }
  });
});

describe("platform-pulumi (the main entry a program loads)", () => {
  it("is one bundle, not tsc's output: a fresh process that requires it loads none of the package's other files", () => {
    expect(req.resolve("platform-pulumi")).toBe(path.join(dist, "index.bundle.js"));
    const script = [
      'require("@pulumi/pulumi");',
      "const before = new Set(Object.keys(require.cache));",
      'const m = require("platform-pulumi");',
      "const added = Object.keys(require.cache).filter((k) => !before.has(k));",
      "process.stdout.write(JSON.stringify({ added, group: typeof m.Group }));",
    ].join("\n");
    const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8" })) as { added: string[]; group: string };
    expect(out.group).toBe("function");
    expect(out.added.filter((k) => k.startsWith(path.join(REPO_ROOT, "dist")))).toEqual([path.join(dist, "index.bundle.js")]);
    // zod, yaml and jose are inside; undici's index only on the rare path the bundle leaves outside (client/http.ts).
    expect(out.added.filter((k) => /node_modules[/\\](zod|yaml|jose)[/\\]/.test(k))).toEqual([]);
  });

  it("exports what the sources export, with the same kinds of values", () => {
    const bundle = req("platform-pulumi") as Record<string, unknown>;
    const src = mainSource as Record<string, unknown>;
    expect(Object.keys(bundle).sort()).toEqual(Object.keys(src).sort());
    for (const k of Object.keys(src)) expect(typeof bundle[k], k).toBe(typeof src[k]);
  });

  it("checks a lookup's arguments with the same message as the sources", async () => {
    const bundle = req("platform-pulumi") as typeof mainSource;
    const bad = { childrenOf: "", nme: "x" } as never;
    const theirs = await mainSource.getGroups(bad).then(() => "no error", (e: Error) => e.message);
    const ours = await bundle.getGroups(bad).then(() => "no error", (e: Error) => e.message);
    expect(theirs).not.toBe("no error");
    expect(ours).toBe(theirs);
  });
});

describe("the bundle's zod", () => {
  it("gives zod's English messages, as zod loaded from its package does, though its locale table is cut to English", async () => {
    const { englishOnly } = req("./scripts/bundle-runtime.js") as { englishOnly: import("esbuild").Plugin };
    const esbuild = req("esbuild") as typeof import("esbuild");
    const probe = [
      'import { z } from "zod";',
      "const s = z.object({ uid: z.string(), page: z.number().int().min(1), kind: z.enum([\"a\", \"b\"]), tags: z.array(z.string()).max(1) });",
      "const r = s.safeParse({ uid: 7, page: 0.5, kind: \"c\", tags: [\"x\", \"y\"] });",
      "process.stdout.write(JSON.stringify({ issues: r.error.issues.map((i) => i.message), locales: Object.keys(z.locales) }));",
    ].join("\n");
    const out = await esbuild.build({ stdin: { contents: probe, resolveDir: REPO_ROOT, loader: "ts" }, bundle: true, write: false, platform: "node", format: "cjs", plugins: [englishOnly] });
    // In a fresh process: zod keeps its configuration (the locale included) on globalThis, which this test's zod shares.
    const mod = { exports: JSON.parse(execFileSync(process.execPath, ["-"], { input: out.outputFiles[0]!.text, encoding: "utf8" })) as { issues: string[]; locales: string[] } };
    const { z } = req("zod") as typeof import("zod");
    const plain = z.object({ uid: z.string(), page: z.number().int().min(1), kind: z.enum(["a", "b"]), tags: z.array(z.string()).max(1) }).safeParse({ uid: 7, page: 0.5, kind: "c", tags: ["x", "y"] });
    expect(mod.exports.locales).toEqual(["en"]);
    expect(mod.exports.issues).toEqual(plain.error!.issues.map((i) => i.message));
    expect(mod.exports.issues[0]).toMatch(/expected string, received number/);
  });
});
