/**
 * Hints in the program's language (provider/programLanguage.ts), through the built bin against the emulator in
 * another process: `unmanaged` in a project of each runtime gives each row's "to manage it" line as that program
 * writes it, for objects under the stack's group and directly in the group its groups live in (an export's
 * --under group). No engine run: each stack's state is imported (`pulumi stack import`), never updated.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UnmanagedReport } from "../provider/commands/unmanaged";
import { PulumiCli } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { stackEnv } from "./harness/stack";
import { startStandalone, type StandaloneEmulator } from "./standalone";

let emu: StandaloneEmulator;
let dir: string;
afterAll(async () => {
  await emu?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeAll(async () => {
  emu = await startStandalone();
  dir = mkdtempSync(path.join(tmpdir(), "hints-language-"));
  mkdirSync(path.join(dir, "backend"));
}, 60_000);

/** An API call with the emulator's owner token; the answer's body. */
async function call(method: string, url: string, body?: unknown): Promise<Record<string, string>> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}${url}`, { method, headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect(r.status, `${method} ${url}`).toBe(200);
  return (await r.json()) as Record<string, string>;
}

const SPELLING: Record<string, (uid: string) => string> = {
  nodejs: (uid) => `adoptUid: "${uid}"`,
  python: (uid) => `adopt_uid="${uid}"`,
  go: (uid) => `AdoptUid: pulumi.String("${uid}")`,
  yaml: (uid) => `adoptUid: "${uid}" (under properties:)`,
};

describe.concurrent("unmanaged's adopt lines", () => {
  it.for(Object.keys(SPELLING))("in a %s project", { timeout: 120_000 }, async (runtime, { expect }) => {
    const project = path.join(dir, runtime);
    mkdirSync(path.join(project, "sub"), { recursive: true });
    writeFileSync(path.join(project, "Pulumi.yaml"), `name: hints-${runtime}\nruntime: ${runtime}\n`);
    const cli = new PulumiCli({ cwd: project, backendDir: path.join(dir, "backend"), stack: "s", env: { ...emu.env } });
    await cli.ok(["stack", "init", "s", "--no-select"]);
    // The stack holds one group (its state imported, as `pulumi stack import` writes it), in a department group it
    // does not hold (as an org file exported with --under places its groups); under the group, and directly in the
    // department, made outside Pulumi: objects no stack manages.
    const dept = await call("POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, { name: `dept-${runtime}`, description: "d" });
    const inDept = await call("POST", `/iam/v2beta1/identities/${dept.uid}`, { name: "dept-bot", description: "d", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/d:ref:refs/heads/main" } });
    const team = await call("POST", `/iam/v2beta1/groups/${dept.uid}`, { name: `team-${runtime}`, description: "d" });
    const legacy = await call("POST", `/iam/v2beta1/groups/${team.uid}`, { name: "legacy", description: "d" });
    const bot = await call("POST", `/iam/v2beta1/identities/${team.uid}`, { name: "bot-made-by-hand", description: "d", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" } });
    const state = JSON.parse((await cli.ok(["stack", "export"])).stdout) as { deployment: Record<string, unknown> };
    const urn = (t: string, n: string) => `urn:pulumi:s::hints-${runtime}::${t}::${n}`;
    state.deployment["resources"] = [
      { urn: urn("pulumi:pulumi:Stack", `hints-${runtime}-s`), custom: false, type: "pulumi:pulumi:Stack" },
      { urn: urn("pulumi:providers:platform", "default"), custom: true, id: "00000000-0000-0000-0000-000000000000", type: "pulumi:providers:platform", inputs: {}, outputs: {} },
      {
        urn: urn("platform:iam:Group", "team"),
        custom: true,
        id: team.uid,
        type: "platform:iam:Group",
        inputs: { parentUid: dept.uid, name: team.name },
        outputs: { uid: team.uid, parentUid: dept.uid, name: team.name, description: "d" },
        provider: `${urn("pulumi:providers:platform", "default")}::00000000-0000-0000-0000-000000000000`,
      },
    ];
    const file = path.join(project, "state.json");
    writeFileSync(file, JSON.stringify(state));
    await cli.ok(["stack", "import", "--file", file]);
    // From a subfolder, as the CLI finds the project.
    const r = await runBin(["unmanaged", "--stack", "s", "--cwd", path.join(project, "sub"), "--format", "json"], stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env }));
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(1);
    const { unmanaged: rows } = JSON.parse(r.stdout) as UnmanagedReport;
    expect(rows.map((o) => [o.kind, o.uid, o.adopt])).toEqual(
      expect.arrayContaining([
        ["Group", legacy.uid, SPELLING[runtime]!(legacy.uid as string)],
        ["Identity", bot.uid, SPELLING[runtime]!(bot.uid as string)],
        // Directly in the group the stack's groups live in: the stack's to report (docs/export.md, --under).
        ["Identity", inDept.uid, SPELLING[runtime]!(inDept.uid as string)],
      ]),
    );
    // The department itself is not the stack's: neither listed nor anything beside it in the root.
    expect(rows.map((o) => o.uid)).not.toContain(dept.uid);
  });
});
