/**
 * The three workflows, as a user runs them, through the real Pulumi CLI on the emulator: the policy pack and the
 * policy gate (clean, mandatory and advisory cases), drift detection (human and --json), and workload identity.
 * (The org-setup workflow is the main job, run by commands.test.ts.)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";

const LONG = 180_000;

function node(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", script), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}

describe("policy pack and policy gate", () => {
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;
  const program = path.join(REPO_ROOT, "examples", "policy-gate", "program");
  let gateEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "gate-"));
    const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
    cli = new PulumiCli({ cwd: program, backendDir: backend, stack: "gate", env });
    await cli.initStack();
    gateEnv = { ...env, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
  }, LONG);
  afterAll(async () => {
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(program, "Pulumi.gate.yaml"), { force: true });
  });

  const gate = () => node("examples/policy-gate/gate.js", ["--cwd", program, "--stack", "gate"], gateEnv);

  it("passes a clean program", async () => {
    const r = await gate();
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/\| (mandatory|advisory) \|/);
    // The binding's group and identity are not known until apply: the access policies judge them by the
    // resources they come from (a new group is never the root; the identity lives in the group it is bound at).
    expect(r.out).not.toMatch(/not evaluated/);
    expect(r.out).toContain("policy gate: passed (0 advisory warning(s))");
  }, LONG);

  it("fails on mandatory violations, naming each policy and resource in the table", async () => {
    await cli.ok(["config", "set", "teamName", "Payments!"]);
    const bad = await gate();
    await cli.ok(["config", "rm", "teamName"]);
    expect(bad.code, bad.out).toBe(1);
    expect(bad.out).toMatch(/\| mandatory \| group-name-format \| Group::team \| Group name "Payments!" must match \^\[a-z0-9 \._-\]\{1,\}\$ \|/);
    expect(bad.out).toContain("policy gate: FAILED: 1 mandatory violation(s)");

    // A rule only the pack enforces: the provider accepts an unanchored issuerPattern.
    await cli.ok(["config", "set", "issuerPattern", "https://.*\\.example\\.com"]);
    const unanchored = await gate();
    await cli.ok(["config", "rm", "issuerPattern"]);
    expect(unanchored.code, unanchored.out).toBe(1);
    expect(unanchored.out).toMatch(/\| mandatory \| identity-issuer-https \| Identity::ci \| claimMatch.issuerPattern "https:\/\/.*" is not anchored/);
  }, LONG);

  it("warns on advisory violations without failing", async () => {
    await cli.ok(["config", "set", "subjectPattern", ".*"]);
    await cli.ok(["config", "set", "teamDescription", ""]);
    const r = await gate();
    await cli.ok(["config", "rm", "subjectPattern"]);
    await cli.ok(["config", "rm", "teamDescription"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\| advisory \| identity-subject-not-wildcard \| Identity::ci \|/);
    expect(r.out).toMatch(/\| advisory \| description-required \| Group::team \|/);
    expect(r.out).toContain("policy gate: passed (2 advisory warning(s))");
  }, LONG);

  it("applies the pack config: allowed-issuers becomes mandatory once issuers are listed", async () => {
    const r = await node("examples/policy-gate/gate.js", ["--cwd", program, "--stack", "gate", "--config", path.join(REPO_ROOT, "test", "programs", "policy-config.json")], gateEnv);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/\| mandatory \| allowed-issuers \| Identity::ci \| issuer "https:\/\/token.actions.githubusercontent.com" is not one of the allowed issuers: https:\/\/gitlab.com \|/);
  }, LONG);

  it("no-owner-at-root configured mandatory fails the preview of a new identity bound owner at the root (not left to `up`)", async () => {
    const config = path.join(backend, "owner-mandatory.json");
    writeFileSync(config, JSON.stringify({ "no-owner-at-root": { enforcementLevel: "mandatory" } }));
    await cli.ok(["config", "set", "ciRole", "owner"]);
    await cli.ok(["config", "set", "ciRoleAtRoot", "true"]);
    const r = await node("examples/policy-gate/gate.js", ["--cwd", program, "--stack", "gate", "--config", config], gateEnv);
    await cli.ok(["config", "rm", "ciRole"]);
    await cli.ok(["config", "rm", "ciRoleAtRoot"]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/\| mandatory \| no-owner-at-root \| RoleBinding::ci-editor \| the identity of role binding "ci-editor" \(created by this change\) is bound to the owner role at the root group [0-9a-f]{40};/);
    expect(r.out).toMatch(/\| mandatory \| identity-bound-above-its-group \| RoleBinding::ci-editor \| role binding "ci-editor": identity \/payments\/payments-ci lives in group \/payments but is granted role owner at \/, above it/);
    expect(r.out).not.toMatch(/not evaluated/);
  }, LONG);

  it("plain `pulumi preview --policy-pack policies` fails naming the policy and the resource", async () => {
    await cli.ok(["config", "set", "teamName", "x"]);
    const r = await runEngine(cli, "preview", ["--policy-pack", path.join(REPO_ROOT, "policies")]);
    await cli.ok(["config", "rm", "teamName"]);
    expect(r.code).not.toBe(0);
    const violation = r.policies.find((p) => p.enforcementLevel === "mandatory" && p.policyName === "group-name-format");
    expect(violation?.urn).toMatch(/::pulumi-nodejs:dynamic\/platform:Group::team$/);
    expect(violation?.message).toContain('Group name "x" must be 3-63 characters long (it has 1)');
  }, LONG);
});

describe("drift detection", () => {
  it("reports exactly the out-of-band edit and delete as JSON, then converges", async () => {
    const r = await node("examples/drift-detection/drift.js", ["--json"]);
    expect(r.code, r.out).toBe(0);
    const drift = JSON.parse(r.out.slice(r.out.indexOf("["), r.out.lastIndexOf("]") + 1)) as Array<Record<string, unknown>>;
    expect(drift).toEqual([
      { resource: "apps", type: "Group", field: "description", old: "Edited in the console", new: "Application teams" },
      { resource: "deployer", type: "Identity", field: "(resource)", old: null, new: "declared" },
    ]);
  }, LONG);

  it("shows the drift with pulumi preview --refresh --diff in human mode", async () => {
    const r = await node("examples/drift-detection/drift.js");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('~ description: "Edited in the console" => "Application teams"');
    // drift.js exits non-zero unless the engine's summary of that preview is exactly 1 create and 1 update.
    expect(r.out).toContain("==> the preview plans 1 create (the deleted identity) and 1 update (the edited description), nothing else");
    expect(r.out).toContain("==> converged: a preview shows no changes");
  }, LONG);
});

describe("drift report on an existing stack", () => {
  it("exits 0 with no drift and 1 with drift, listing it", async () => {
    const emu = await startEmulator();
    const backend = mkdtempSync(path.join(tmpdir(), "drift-report-"));
    const cwd = path.join(REPO_ROOT, "examples", "drift-detection", "program");
    const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
    const cli = new PulumiCli({ cwd, backendDir: backend, stack: "report", env });
    try {
      await cli.initStack();
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const runEnv = { ...env, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
      const clean = await node("examples/drift-detection/drift.js", ["report", "--stack", "report", "--cwd", cwd], runEnv);
      expect(clean.code, clean.out).toBe(0);
      expect(clean.out).toContain("no drift");
      const apps = ((await cli.outputs()) as Record<string, string>)["appsUid"]!;
      await fetch(`${emu.url}/iam/v2beta1/groups/${apps}?updateMask=description`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${emu.token}`, "content-type": "application/json" },
        body: JSON.stringify({ description: "changed by hand" }),
      });
      const drifted = await node("examples/drift-detection/drift.js", ["report", "--stack", "report", "--cwd", cwd], runEnv);
      expect(drifted.code, drifted.out).toBe(1);
      expect(drifted.out).toContain('| apps | Group | description | "changed by hand" | "Application teams" |');
    } finally {
      await emu.close();
      rmSync(backend, { recursive: true, force: true });
      rmSync(path.join(cwd, "Pulumi.report.yaml"), { force: true });
    }
  }, LONG);
});

describe("workload identity", () => {
  it("a program authenticated only by token exchange reads with its role and is refused a write", async () => {
    const r = await node("examples/workload-identity/run.js");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('read with the viewer role: ["release-notes"]');
    expect(r.out).toMatch(/refused: .*Permission denied: identity .* lacks CAP_IAM_GROUPS_CREATE/);
  }, LONG);
});
