/**
 * Server text never runs as code, and never becomes a reference, in a program the export writes (docs/export.md,
 * "Server text in the export"), through the real CLI: an org whose descriptions and sinks are code in the languages
 * an export may land in (`harness/hostileText.ts`: a sink that ends a string literal and writes a canary file, a
 * description with `"""`, `'''` and line breaks, `${platform:token}` and `$${platform:token}`, a comment's end,
 * U+2028, bidirectional controls) and a group named `pulumi` is exported by the built bin, then run:
 *
 * - `--format pulumi-import`: every entry's name is an identifier, and the bin's note names the objects whose text
 *   Pulumi's generators may not write back (by kind, uid and field), never the text;
 * - `--format ts`: the project, installed against the packed tarball, is type-checked and `pulumi up` adopts it;
 * - `--format yaml`: the org file, in the org-setup program (`test/programs/org`), and `pulumi up` adopts it.
 *
 * In both, the canary file was never written, the `up` changes nothing and sends the API no write (so no
 * description is rewritten, with the token or anything else), every description and sink on the API is still the
 * text the org was made with, and the stack's state shows the program declared each with exactly that text (an
 * adopting `up` takes the server's object as it is, so a program that declared other text would differ only there
 * and at the next preview). The exact text of each format is proved against many more cases, without the engine, in
 * `export-hostile-text.unit.test.ts`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { IMPORT_NAME } from "../provider/export/pulumiImport";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runEngine } from "../scripts/lib/engine";
import { runBin as bin } from "./harness/bin";
import { seedHostile, type Hostile } from "./harness/hostileText";
import { apiEnv, installSet, upTiers, useExportFixture, writesSince, type ExportFixture } from "./harness/splitSet";
import { cleanEnv, tail } from "./consumer/toolchain";

/** The file the payloads' code would write, were any of it run: absolute, so whatever the program's folder. */
const CANARY = path.join(os.tmpdir(), `export-hostile-canary-${process.pid}-${Date.now()}`);
let made: Hostile;

const fx = useExportFixture("platform-pulumi-hostile-", "export hostile text", async (c, root) => {
  made = await seedHostile(c, root, CANARY);
});

/**
 * What the program declared is the org's own text: in the stack's state after its `up`, the inputs of each
 * resource that stands for a described group or a subscription (by its `uid` output) hold that object's exact
 * description or sink, every such object is there, and no input holds the token.
 */
async function declaredAsMade(cli: PulumiCli, token: string): Promise<void> {
  const seen = new Set<string>();
  for (const r of (await cli.exportState()).deployment.resources ?? []) {
    const inputs = (r["inputs"] ?? {}) as Record<string, unknown>;
    const uid = String(((r["outputs"] ?? {}) as Record<string, unknown>)["uid"] ?? "");
    if (made.descriptions.has(uid)) expect(inputs["description"], `${String(r["urn"])} description`).toBe(made.descriptions.get(uid));
    else if (made.sinks.has(uid)) expect(inputs["sink"], `${String(r["urn"])} sink`).toBe(made.sinks.get(uid));
    else continue;
    seen.add(uid);
    expect(JSON.stringify(inputs)).not.toContain(token);
  }
  expect([...seen].sort()).toEqual([...made.descriptions.keys(), ...made.sinks.keys()].sort());
}

/**
 * The API's objects are as the org was made (every description and sink its own text: none rewritten, the
 * token in none), and the canary file does not exist.
 */
function unchanged(org: ExportFixture): void {
  const rows = org.emu.dump() as Record<string, Array<Record<string, unknown>>>;
  const byUid = new Map(Object.values(rows).flat().map((r) => [String(r["uid"]), r]));
  for (const [uid, d] of made.descriptions) expect(byUid.get(uid)?.["description"], uid).toBe(d);
  for (const [uid, s] of made.sinks) expect(byUid.get(uid)?.["sink"], uid).toBe(s);
  for (const r of byUid.values()) for (const v of Object.values(r)) if (typeof v === "string") expect(v).not.toContain(org.emu.token);
  expect(existsSync(CANARY), CANARY).toBe(false);
}

describe("export of an org whose text is code", () => {
  it("--format pulumi-import: every name is an identifier, and the note names the objects whose text the host may not write back, never the text", async () => {
    const out = path.join(fx.work, "import");
    const r = await bin(["export", "--org", fx.emu.orgUid, "--out", out, "--format", "pulumi-import"], cleanEnv(undefined, apiEnv(fx)));
    expect(r.code, tail(r)).toBe(0);
    const file = JSON.parse(readFileSync(path.join(out, "import.json"), "utf8")) as { resources: Array<Record<string, string>> };
    for (const e of file.resources) expect(Object.keys(e).sort(), JSON.stringify(e)).toEqual(["id", "name", "type"]);
    for (const e of file.resources) expect(e["name"]).toMatch(IMPORT_NAME);
    console.log(`import names: ${file.resources.map((e) => e["name"]).join(", ")}`);
    const note = /^note: .*$/m.exec(r.stdout)?.[0] ?? "";
    expect(note, r.stdout).toMatch(/^note: \d+ fields hold text .*--generate-code=false/);
    for (const p of [...made.descriptions.values(), ...made.sinks.values()]) expect(r.stdout).not.toContain(p);
  }, 120_000);

  it("--format ts: the project compiles, its up adopts everything with no write, and no payload ran", async () => {
    const out = path.join(fx.work, "ts");
    const r = await bin(["export", "--org", fx.emu.orgUid, "--out", path.join(out, "org"), "--stack", "dev"], cleanEnv(undefined, apiEnv(fx)));
    expect(r.code, tail(r)).toBe(0);
    const work = path.join(fx.work, "ts-work");
    mkdirSync(work);
    const clis = await installSet({ tarball: await fx.tarball, out, projects: ["org"], work, env: apiEnv(fx) });
    const mark = fx.emu.requests.length;
    const ok = await upTiers([["org"]], clis);
    if (!ok) fx.keep = true;
    expect(existsSync(CANARY), `${CANARY}: a payload ran as code`).toBe(false);
    expect(writesSince(fx, mark)).toEqual([]);
    unchanged(fx);
    await declaredAsMade(clis.get("org")!, fx.emu.token);
  }, 900_000);

  it("--format yaml: the org file runs in the org-setup program, its up adopts everything with no write, and no payload ran", async () => {
    const out = path.join(fx.work, "yaml");
    const r = await bin(["export", "--org", fx.emu.orgUid, "--out", out, "--format", "yaml"], cleanEnv(undefined, apiEnv(fx)));
    expect(r.code, tail(r)).toBe(0);
    const program = path.join(REPO_ROOT, "test", "programs", "org");
    const backend = path.join(fx.work, "yaml-state");
    mkdirSync(backend);
    const cli = new PulumiCli({ cwd: program, backendDir: backend, stack: "hostile", env: { ...apiEnv(fx), PLATFORM_ORG_UID: fx.emu.orgUid, ORG_FILE: path.join(out, "org.yaml") } });
    try {
      await cli.initStack();
      const mark = fx.emu.requests.length;
      const up = await runEngine(cli, "up", ["--yes"]);
      expect(existsSync(CANARY), `${CANARY}: a payload ran as code`).toBe(false);
      expect(up.code, tail(up, 60)).toBe(0);
      expect(up.summary).toMatchObject({ update: 0, delete: 0, replace: 0 });
      expect(writesSince(fx, mark)).toEqual([]);
      unchanged(fx);
      await declaredAsMade(cli, fx.emu.token);
    } finally {
      rmSync(path.join(program, "Pulumi.hostile.yaml"), { force: true });
    }
  }, 600_000);
});
