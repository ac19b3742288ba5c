/**
 * `platform-pulumi access` through the real Pulumi CLI on the emulator, on the main job's org
 * (examples/org-setup/org.yaml): effective access now (`--current`), the change a pull request makes (a CI
 * identity bound `editor` at a mid-level group: exactly the gained capabilities at that subtree, plus the
 * escalations it opens), `--fail-on` as a gate, the Markdown for a pull request, and the exit code 2 cases.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccessJson } from "../provider/commands/access";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { dottedName } from "../provider/capabilities";
import { runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { binOnStack, useReviewStack } from "./harness/stack";

const LONG = 300_000;
const STACK = "access-review";
const dotted = (caps: readonly string[]) => caps.map(dottedName).sort();

/** The main job's org deployed, and the pull request's org file (gitlab-release bound editor at engineering/platform). */
const rs = useReviewStack(STACK, LONG);

/** Runs the installed command (`dist/cli/main.js access …`) with the stack's environment. */
const access = binOnStack("access", { stack: STACK, cwd: REPO_ROOT, env: () => rs.env });

describe("platform-pulumi access", () => {
  it("--current lists each identity's grants once per subtree, with bindings and escalations", async () => {
    const r = await access(["--current", "--format", "json"], { ORG_FILE: path.join(REPO_ROOT, "examples", "org-setup", "org.yaml") });
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as AccessJson;
    expect(json.stack).toBe(STACK);
    const ciBot = json.grants!.filter((g) => g.identity.name === "ci-bot");
    expect(ciBot[0]!.identity.path).toBe("/engineering/platform/ci-cd/ci-bot");
    expect(ciBot[0]!.identity.uid).toMatch(/^[0-9a-f]{40}(\/[0-9a-f]{16})+$/);
    const direct = ciBot.filter((g) => g.via.some((v) => v.kind === "binding"));
    expect(direct.map((g) => g.capability).sort()).toEqual(dotted(BUILTIN_ROLE_CAPABILITIES.editor));
    expect(new Set(direct.map((g) => g.group))).toEqual(new Set(["/engineering/platform"]));
    expect(direct[0]!.via).toEqual([{ kind: "binding", role: "editor", boundAt: "/engineering/platform", steps: [] }]);
    // The scanner is viewer at /security and /environments: two subtrees, each listed at its root.
    const scanner = json.grants!.filter((g) => g.identity.name === "scanner" && g.capability === "groups.list");
    expect(scanner.map((g) => g.group).sort()).toEqual(["/environments", "/security"]);
    // Nobody in the stack reaches the root group.
    expect(json.grants!.filter((g) => g.group === "/")).toEqual([]);
  }, LONG);

  it("a change that binds a CI identity editor at a mid-level group shows exactly the gained capabilities at that subtree, plus the escalations it opens", async () => {
    const r = await access(["--format", "json"]);
    expect(r.code, r.err).toBe(1); // critical gains fail by default (--fail-severity critical,high)
    expect((await access(["--format", "json", "--fail-severity", "none"])).code).toBe(0);
    const json = JSON.parse(r.out) as AccessJson;
    const changes = json.changes!;
    expect(new Set(changes.map((c) => `${c.change} ${c.identity.path} ${c.group}`))).toEqual(new Set(["gained /engineering/platform/ci-cd/gitlab-release /engineering/platform"]));
    const byBinding = changes.filter((c) => c.via[0]!.kind === "binding");
    expect(byBinding.map((c) => c.capability).sort()).toEqual(dotted(BUILTIN_ROLE_CAPABILITIES.editor));
    for (const c of byBinding) expect(c.via[0]).toEqual({ kind: "binding", role: "editor", boundAt: "/engineering/platform", steps: [] });
    expect(byBinding.find((c) => c.capability === "identity.update")?.severity).toBe("critical");
    expect(byBinding.find((c) => c.capability === "groups.list")?.severity).toBe("low");
    // The escalations editor opens there: every other capability, through an owner invite at the same group (and
    // a custom role it then creates, for those no built-in role holds), and nothing outside it.
    const escalated = changes.filter((c) => c.via[0]!.kind === "escalation");
    const ownerOnly = BUILTIN_ROLE_CAPABILITIES.owner.filter((c) => !BUILTIN_ROLE_CAPABILITIES.editor.includes(c));
    const builtin = new Set(Object.values(BUILTIN_ROLE_CAPABILITIES).flat().map(dottedName));
    expect(escalated.filter((c) => builtin.has(c.capability)).map((c) => c.capability).sort()).toEqual([...dotted(ownerOnly), "repo_blobs.get"].sort());
    const created = escalated.filter((c) => !builtin.has(c.capability));
    expect(created.map((c) => c.capability)).toContain("scim.manage");
    for (const c of created) expect(c.via[0]!.steps.at(-1)).toMatch(/"gitlab-release" creates a custom role at \/engineering\/platform with .* \(roles.create\) and binds itself to it at \/engineering\/platform/);
    const del = escalated.find((c) => c.capability === "groups.delete")!;
    expect(del.via[0]).toMatchObject({
      kind: "escalation",
      role: "owner",
      boundAt: "/engineering/platform",
      steps: ['"gitlab-release" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)'],
    });
    expect(changes[0]!.identity.uid).toMatch(/^[0-9a-f]{40}\//);
  }, LONG);

  it("--fail-on turns it into a gate: exit 1 when a gained capability matches, 0 otherwise", async () => {
    const hit = await access(["--fail-on", "iam.role_bindings.*,*.delete"]);
    expect(hit.code, hit.err).toBe(1);
    expect(hit.out).toMatch(/--fail-on iam\.role_bindings\.\*,\*\.delete: gained .*groups\.delete.*role_bindings\.create/);
    const miss = await access(["--fail-on", "iam.nothing.*", "--fail-severity", "none"]);
    expect(miss.code, miss.err).toBe(0);
    expect(miss.out).toContain("--fail-on iam.nothing.*: nothing matched");
  }, LONG);

  it("--format markdown is one compact table grouped by identity, most severe first, capabilities said with roles", async () => {
    const r = await access(["--format", "markdown"]);
    expect(r.code, r.err).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toBe(`### Access changes: stack \`${STACK}\``);
    expect(lines[2]).toBe("**61 capability grant(s) gained by 1 identity (10 critical, 33 high, 18 low), 0 lost**");
    expect(lines[4]).toBe("| severity | identity | change | gains or loses | at | how |");
    expect(lines[6]).toMatch(/^\| critical \| \*\*gitlab-release\*\* `\/engineering\/platform\/ci-cd\/gitlab-release` \| \+ gained \| editor \| `\/engineering\/platform` \| editor bound at \/engineering\/platform \|$/);
    const rows = lines.slice(7).filter((l) => l.startsWith("|"));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((l) => /^\| (critical|high|low) \| {2}\| \+ gained \|/.test(l))).toBe(true);
    expect(r.out).toContain("--fail-severity critical,high: 43 capability grant(s) gained by 1 identity");
    expect(r.out.length).toBeLessThan(3_000);
  }, LONG);

  it("the repository's example org passes the repository's gate unchanged; the pull request above fails it", async () => {
    const gate = (orgFile: string) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "gate", "--stack", STACK, "--cwd", REPO_ROOT, "--format", "json"], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...rs.env, ORG_FILE: orgFile },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d));
        child.on("close", (code) => resolve({ code: code ?? -1, out }));
      });
    const same = await gate(path.join(REPO_ROOT, "examples", "org-setup", "org.yaml"));
    expect(same.code, same.out).toBe(0);
    const report = JSON.parse(same.out) as { violations: Array<{ policy: string; severity: string; status: string }> };
    // ci-bot (editor above its group) and scanner (viewer above its group) were there before: listed, not failing.
    expect(report.violations.filter((v) => v.policy === "identity-bound-above-its-group").map((v) => `${v.severity} ${v.status}`).sort()).toEqual(["critical already present", "low already present"]);
    const pr = await gate(rs.changed);
    expect(pr.code, pr.out).toBe(1);
  }, LONG);

  it("exits 2 when it cannot run: bad arguments, an unknown stack", async () => {
    expect((await access(["--format", "yaml"])).code).toBe(2);
    expect((await access(["--fail-on", ","])).code).toBe(2);
    const missing = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "access", "--stack", "no-such-stack", "--cwd", REPO_ROOT, "--current"], { env: { ...process.env, ...rs.env }, stdio: "ignore" });
      child.on("close", (c) => resolve(c ?? -1));
    });
    expect(missing).toBe(2);
  }, LONG);

  it("exits 2, naming the role, when a bound role can be described neither by the API nor by its hydrated name", async () => {
    const state = await rs.cli.exportState();
    const saved = JSON.stringify(state);
    const bindings = state.deployment.resources!.filter((r) => String(r["type"]).endsWith(":RoleBinding"));
    const roleUid = (bindings[0]!["outputs"] as Record<string, unknown>)["roleUid"] as string;
    // Every binding of that role loses its hydrated name (another one would name the role).
    for (const b of bindings) {
      const outputs = b["outputs"] as Record<string, unknown>;
      if (outputs["roleUid"] === roleUid) delete outputs["role"];
    }
    const file = path.join(rs.backend, "state.json");
    writeFileSync(file, JSON.stringify(state));
    await rs.cli.ok(["stack", "import", "--file", file]);
    try {
      const r = await access(["--current"], { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" });
      expect(r.code, r.out).toBe(2);
      expect(r.err).toContain(`the stack binds role(s) ${roleUid} that it does not declare, and no API settings describe them`);
      // With the API, the same state is described.
      expect((await access(["--current"])).code).toBe(0);
    } finally {
      writeFileSync(file, saved);
      await rs.cli.ok(["stack", "import", "--file", file]);
    }
  }, LONG);
});

describe("no-new-access inside `pulumi preview --policy-pack` gives the command's answer", () => {
  const program = path.join(REPO_ROOT, "examples", "policy-gate", "program");
  const stack = "no-new-access";
  let pcli: PulumiCli;
  let penv: NodeJS.ProcessEnv;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "no-new-access-"));
    const platform = { PLATFORM_API_URL: rs.emu.url, PLATFORM_TOKEN: rs.emu.token, PLATFORM_ORG_UID: rs.emu.orgUid };
    pcli = new PulumiCli({ cwd: program, backendDir: dir, stack, env: platform });
    await pcli.initStack();
    penv = { ...platform, PULUMI_BACKEND_URL: `file://${dir}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
  }, LONG);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(program, `Pulumi.${stack}.yaml`), { force: true });
  });

  it("on a new stack (group, identity and binding not created yet): the same identity, capability and group, judged by path", async () => {
    const config = path.join(dir, "policy-config.json");
    writeFileSync(config, JSON.stringify({ "no-new-access": { capabilities: ["groups.delete"] } }));
    const preview = await runEngine(pcli, "preview", ["--policy-pack", path.join(REPO_ROOT, "policies"), "--policy-pack-config", config]);
    const found = preview.policies.filter((p) => p.policyName === "no-new-access");
    expect(found.map((p) => p.enforcementLevel)).toEqual(["mandatory"]);
    expect(found[0]!.message).toContain(
      'identity /payments/payments-ci would hold groups.delete at /payments (escalation: 1. "payments-ci" creates an invite to /payments with role "owner" and redeems it (group_invites.create))',
    );
    expect(preview.policies.filter((p) => /can't run policy/.test(p.message))).toEqual([]);

    const cmd = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "access", "--stack", stack, "--cwd", program, "--format", "json", "--fail-on", "groups.delete"], { env: { ...process.env, ...penv }, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d));
      child.on("close", (c) => resolve({ code: c ?? -1, out }));
    });
    expect(cmd.code).toBe(1);
    const gained = (JSON.parse(cmd.out) as AccessJson).changes!.filter((c) => c.capability === "groups.delete");
    expect(gained.map((c) => ({ identity: c.identity, group: c.group, steps: c.via[0]!.steps }))).toEqual([
      {
        identity: { name: "payments-ci", path: "/payments/payments-ci", uid: null },
        group: "/payments",
        steps: ['"payments-ci" creates an invite to /payments with role "owner" and redeems it (group_invites.create)'],
      },
    ]);
  }, LONG);
});
