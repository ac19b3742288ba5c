/**
 * The workflows, as a user runs them, through the real Pulumi CLI on the emulator: the policy pack and the
 * policy gate (clean, mandatory and advisory cases), `platform-pulumi drift` (drift, pending and unmanaged apart;
 * every format; exit codes), and workload identity.
 * (The org-setup workflow is the main job, run by commands.test.ts.)
 *
 * `drift` runs the engine (a preview): each state of the stack is checked by one run of the bin (`--format json`),
 * and the table and Markdown of that state are `formatDrift` (what the bin prints) over that report.
 *
 * The three blocks share nothing (an emulator, a file backend and a program folder each) and run at once
 * (describe.concurrent), assertions through each test's own `expect`. The gate's tests edit the stack's config
 * (one `Pulumi.gate.yaml` per program folder), so they run in two lanes, each in turn (it.sequential): one in the
 * example's folder, one in a second working copy of it, as a pull request's checkout is: the same project, stack
 * and backend (so the same state, deployed once), a config file of its own. Two gates at once on one stack are
 * two previews, and a preview writes nothing (provider/commands/gate.ts).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { driftExitCode, formatDrift, type DriftReport } from "../provider/commands/drift";
import { runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { runDist } from "./harness/bin";

const LONG = 180_000;

describe.concurrent("policy pack and policy gate", () => {
  let emu: Emulator;
  let backend: string;
  const program = path.join(REPO_ROOT, "examples", "policy-gate", "program");
  /** The second working copy of `program` (in the repository's .pulumi-work/, so it finds the package as `program` does). */
  let copy: string;
  /** The stack's CLI in the example's folder, and in the copy: one stack, two config files. */
  let cli: PulumiCli;
  let inCopy: PulumiCli;
  let gateEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "gate-"));
    const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
    cli = new PulumiCli({ cwd: program, backendDir: backend, stack: "gate", env });
    await cli.initStack();
    // The gate judges a change against the stack's state: the clean program is what is deployed.
    await cli.ok(["up", "--yes", "--skip-preview"]);
    gateEnv = { ...env, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
    // The working copy: the program's files and the stack's config file as the up left it (its encryption salt,
    // no key set), not the other stacks' config files.
    mkdirSync(path.join(REPO_ROOT, ".pulumi-work"), { recursive: true });
    copy = mkdtempSync(path.join(REPO_ROOT, ".pulumi-work", "policy-gate-copy-"));
    cpSync(program, copy, { recursive: true, filter: (src) => !/Pulumi\.[^/]+\.yaml$/.test(src) || path.basename(src) === "Pulumi.gate.yaml" });
    inCopy = new PulumiCli({ cwd: copy, backendDir: backend, stack: "gate", env });
  }, LONG);
  afterAll(async () => {
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    if (copy) rmSync(copy, { recursive: true, force: true });
    rmSync(path.join(program, "Pulumi.gate.yaml"), { force: true });
  });

  // The package's bin, with the pack it ships (no --pack): the markdown table is the one a pull request shows.
  // Markdown output is matched as a reader sees it: the backslashes that keep server text from being markup
  // (provider/text.ts) removed. `at` is the lane's CLI: the gate runs in its folder.
  const gate = async (at: PulumiCli, args: string[] = ["--format", "markdown"]) => {
    const r = await runDist("cli/main.js", ["gate", "--cwd", at.opts.cwd, "--stack", "gate", ...args], gateEnv);
    return args.includes("markdown") ? { ...r, out: r.out.replace(/\\([\\`*_[\]<>|~&:./@])/g, "$1") } : r;
  };
  /** Sets the stack config `values` in `at`'s folder (one command), runs `fn`, and removes them again whatever it did. */
  const withConfig = async <T>(at: PulumiCli, values: Record<string, string>, fn: () => Promise<T>): Promise<T> => {
    await at.ok(["config", "set-all", ...Object.entries(values).flatMap(([k, v]) => ["--plaintext", `${k}=${v}`])]);
    try {
      return await fn();
    } finally {
      await at.ok(["config", "rm-all", ...Object.keys(values)]);
    }
  };

  describe("in the example's folder", () => {
    it.sequential("passes the deployed program unchanged", async ({ expect }) => {
      const r = await gate(cli);
      expect(r.code, r.out).toBe(0);
      expect(r.out).not.toMatch(/\| (mandatory|advisory) \|/);
      expect(r.out).not.toMatch(/not evaluated/);
      expect(r.out).toContain("policy gate: passed (nothing new at critical or high)");
      expect(r.out).toContain("No access gained or lost.");
    }, LONG);

    it.sequential("fails on mandatory violations, naming each policy and resource in the table", async ({ expect }) => {
      const bad = await withConfig(cli, { teamName: "Payments!" }, () => gate(cli));
      expect(bad.code, bad.out).toBe(1);
      expect(bad.out).toMatch(/\| high \| mandatory \| group-name-format \| Group::team \| Group name "Payments!" must match \^\[a-z0-9 \._-\]\{1,\}\$ \|/);
      expect(bad.out).toMatch(/policy gate: FAILED: 1 new mandatory finding\(s\) \(1 (critical|high)\)( and \d+ access gain\(s\) \([^)]*\))? at critical or high/);

      // A rule only the pack enforces: the provider accepts an unanchored issuerPattern.
      const unanchored = await withConfig(cli, { issuerPattern: "https://.*\\.example\\.com" }, () => gate(cli));
      expect(unanchored.code, unanchored.out).toBe(1);
      expect(unanchored.out).toMatch(/\| high \| mandatory \| identity-issuer-https \| Identity::ci \| claimMatch.issuerPattern "https:\/\/.*" is not anchored/);
    }, LONG);

    it.sequential("warns on advisory violations without failing", async ({ expect }) => {
      const r = await withConfig(cli, { subjectPattern: ".*", teamDescription: "" }, () => gate(cli));
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/\| \w+ \| advisory \| identity-subject-not-wildcard \| Identity::ci \|/);
      expect(r.out).toMatch(/\| low \| advisory \| description-required \| Group::team \|/);
      expect(r.out).toContain("policy gate: passed (nothing new at critical or high; 3 new finding(s) below it or advisory)");
      expect(r.out).toMatch(/\| high \| advisory \| identity-subject-not-wildcard \| Identity::ci \| claimMatch.subjectPattern ".\*" admits tokens of GitHub Actions: any workflow of any repository on GitHub/);
    }, LONG);

    it.sequential("--format json prints one object: findings with severity and status, the policies not evaluated apart, access changes, errors", async ({ expect }) => {
      const r = await withConfig(cli, { teamDescription: "" }, () => gate(cli, ["--format", "json"]));
      expect(r.code, r.out).toBe(0);
      // The job runs with the emulator's owner token: stderr's first line says so (docs/policy.md "Least privilege").
      const [warning, ...json] = r.out.split("\n");
      expect(warning).toMatch(/^warning: gate runs the program under review with API credentials that can write/);
      const report = JSON.parse(json.join("\n")) as Record<string, unknown>;
      // `baseline`: the stack's objects the review judged against, for `gate --verify` after the update.
      expect(Object.keys(report)).toEqual(["stack", "scope", "passed", "failSeverities", "all", "violations", "notEvaluated", "access", "errors", "baseline"]);
      // The access review read the whole org (docs/access.md "The whole org").
      expect(report["scope"]).toBe("org");
      expect(report["failSeverities"]).toEqual(["critical", "high"]);
      expect(report["access"]).toEqual({ changes: [] });
      expect(report["stack"]).toBe("gate");
      expect(report["passed"]).toBe(true);
      expect(report["violations"]).toEqual([
        {
          level: "advisory",
          severity: "low",
          status: "new",
          policy: "description-required",
          pack: "platform",
          urn: "urn:pulumi:gate::policy-gate-sample::pulumi-nodejs:dynamic/platform:Group::team",
          resource: "Group::team",
          message: 'Group "payments" has no description',
          description: "Resources of the configured kinds have a non-empty description.",
        },
      ]);
      // The access policies decide at preview from the resources an unknown value comes from: none is left to apply.
      expect(report["notEvaluated"]).toEqual([]);
      expect(report["errors"]).toEqual([]);
    }, LONG);
  });

  // The gate exiting 2 with the reason on stderr when the preview fails otherwise (`gate --stack no-such-stack`:
  // exit 2, "no stack named 'no-such-stack'" on stderr, no usage) is test/cli-frame.test.ts's "a failure", which
  // runs that very command (a preview) for every command that reads a stack.

  describe("in a second working copy of the program", () => {
    it.sequential("applies the pack config: allowed-issuers becomes mandatory once issuers are listed; a finding the stack already had fails only with --all", async ({ expect }) => {
      const config = path.join(REPO_ROOT, "test", "programs", "policy-config.json");
      const present = await gate(inCopy, ["--format", "markdown", "--config", config]);
      expect(present.code, present.out).toBe(0);
      expect(present.out).toMatch(/1 finding\(s\) already present before this change/);
      const r = await gate(inCopy, ["--format", "markdown", "--config", config, "--all"]);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/\| high \| mandatory \| allowed-issuers \| Identity::ci \| issuer "https:\/\/token.actions.githubusercontent.com" is not one of the allowed issuers: https:\/\/gitlab.com \|/);
    }, LONG);

    it.sequential("no-owner-at-root configured mandatory fails the preview of an identity bound owner at the root (not left to `up`)", async ({ expect }) => {
      const config = path.join(backend, "owner-mandatory.json");
      writeFileSync(config, JSON.stringify({ "no-owner-at-root": { enforcementLevel: "mandatory" } }));
      const r = await withConfig(inCopy, { ciRole: "owner", ciRoleAtRoot: "true" }, () => gate(inCopy, ["--format", "markdown", "--config", config]));
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/\| critical \| mandatory \| no-owner-at-root \| RoleBinding::ci-editor \| identity \/\S+ is bound to the owner role at the root group \/ \(uid [0-9a-f]{40}\);/);
      expect(r.out).toMatch(/\| critical \| mandatory \| identity-bound-above-its-group \| RoleBinding::ci-editor \| role binding "ci-editor": identity \/payments\/payments-ci lives in group \/payments but is granted role owner at \/, above it/);
      expect(r.out).toMatch(/\| critical \| \*\*payments-ci\*\* .*\| \+ gained \| owner/);
      expect(r.out).not.toMatch(/not evaluated/);
    }, LONG);

    it.sequential("plain `pulumi preview --policy-pack policies` fails naming the policy and the resource", async ({ expect }) => {
      const r = await withConfig(inCopy, { teamName: "x" }, () => runEngine(inCopy, "preview", ["--policy-pack", path.join(REPO_ROOT, "policies")]));
      expect(r.code).not.toBe(0);
      const violation = r.policies.find((p) => p.enforcementLevel === "mandatory" && p.policyName === "group-name-format");
      expect(violation?.urn).toMatch(/::pulumi-nodejs:dynamic\/platform:Group::team$/);
      expect(violation?.message).toContain('Group name "x" must be 3-63 characters long (it has 1)');
    }, LONG);
  });
});

/**
 * `platform-pulumi drift` (the package's bin, compiled) on an existing stack. The check that cannot run (a stack
 * that does not exist, a format that is not one) runs beside the long test: it reaches neither the stack nor the
 * emulator, whose request log that test reads.
 */
describe.concurrent("platform-pulumi drift", () => {
  const cwd = path.join(REPO_ROOT, "examples", "drift-detection", "program");
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;
  let runEnv: NodeJS.ProcessEnv;
  const drift = (args: string[]) => runDist("cli/main.js", ["drift", "--stack", "drift", "--cwd", cwd, ...args], runEnv);
  const driftJson = async (args: string[] = []) => {
    const r = await drift(["--format", "json", ...args]);
    return { code: r.code, out: r.out, report: JSON.parse(r.out.slice(r.out.indexOf("{"), r.out.lastIndexOf("}") + 1)) as Record<string, unknown> };
  };
  let client: PlatformClient;

  beforeAll(async () => {
    emu = await startEmulator();
    client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    backend = mkdtempSync(path.join(tmpdir(), "drift-"));
    const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid };
    cli = new PulumiCli({ cwd, backendDir: backend, stack: "drift", env });
    await cli.initStack();
    await cli.ok(["up", "--yes", "--skip-preview"]);
    runEnv = { ...env, PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: "platform-pulumi-local", PATH: `${cliBinDir()}${path.delimiter}${process.env["PATH"]}` };
  }, LONG);
  afterAll(async () => {
    await client?.close();
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(cwd, "Pulumi.drift.yaml"), { force: true });
  });

  it("tells drift, pending and unmanaged apart, changes nothing, exits 1 on drift and 0 after converging", async ({ expect }) => {
    const clean = await driftJson(["--unmanaged"]);
    expect(clean.code, clean.out).toBe(0);
    expect(clean.report).toEqual({ stack: "drift", drifted: [], pending: [], unmanaged: [] });

    const out = (await cli.outputs()) as Record<string, string>;
    const apps = out["appsUid"]!;
    const deployer = out["deployerUid"]!;
    await client.groups.patch(apps, { description: "Edited in the console" }, ["description"]);
    await client.identities.delete(deployer);
    const handmade = (await client.groups.create(apps, { name: "handmade", description: "made by hand" })).uid;
    await cli.ok(["config", "set", "dataDescription", "Data team"]); // a program edit not yet applied

    const stateBefore = (await cli.ok(["stack", "export"])).stdout;
    const seen = emu.requests.length;
    const r = await driftJson(["--unmanaged"]);
    expect(r.code, r.out).toBe(1);
    const urn = (kind: string, name: string) => `urn:pulumi:drift::drift-detection-sample::pulumi-nodejs:dynamic/platform:${kind}::${name}`;
    expect(r.report).toEqual({
      stack: "drift",
      drifted: [
        { urn: urn("Group", "apps"), type: "Group", name: "apps", uid: apps, change: "changed", fields: [{ path: "description", state: "Application teams", live: "Edited in the console" }] },
        { urn: urn("Identity", "deployer"), type: "Identity", name: "deployer", uid: deployer, change: "deleted", fields: [] },
      ],
      pending: [
        { urn: urn("Group", "apps"), type: "Group", name: "apps", op: "update", fields: ["description"] },
        { urn: urn("Group", "data"), type: "Group", name: "data", op: "update", fields: ["description"] },
        { urn: urn("Identity", "deployer"), type: "Identity", name: "deployer", op: "create", fields: [] },
      ],
      unmanaged: [{ type: "Group", uid: handmade, name: "handmade", parentUid: apps }],
    });
    // The check changed nothing: the same state, and only reads reached the API.
    expect((await cli.ok(["stack", "export"])).stdout).toBe(stateBefore);
    expect(emu.requests.slice(seen).filter((q) => q.method !== "GET")).toEqual([]);

    // The table and the Markdown of the same check: formatDrift (what the bin prints) over the report above. The
    // table is the run without --unmanaged: the same drift and pending, no unmanaged part (exit 1: drift).
    const report = r.report as unknown as DriftReport;
    expect(formatDrift(report, "json", true).trimEnd()).toBe(r.out.slice(r.out.indexOf("{"), r.out.lastIndexOf("}") + 1)); // the report read back is the one the bin printed
    const withoutUnmanaged: DriftReport = { ...report, unmanaged: [] };
    expect(driftExitCode(withoutUnmanaged)).toBe(1);
    const table = formatDrift(withoutUnmanaged, "table", false);
    expect(table).toContain("stack drift: 2 drifted, 3 pending\n");
    expect(table).toMatch(/Group\s+apps\s+\S+\s+changed\s+description\s+"Application teams"\s+"Edited in the console"/);
    const md = formatDrift(report, "markdown", true);
    expect(md).toContain(`| Identity | deployer | ${deployer} | deleted |  |  |  |`);
    expect(md).toContain("| Group | data | update | description |");
    expect(md).toContain(`| Group | handmade | ${handmade} | ${apps} |`);

    // Converge: the drift is undone, the edit applied, the hand-made group removed.
    await cli.ok(["up", "--refresh", "--yes", "--skip-preview"]);
    await client.groups.delete(handmade);
    const converged = await driftJson(["--unmanaged"]);
    expect(converged.code, converged.out).toBe(0);
    expect(converged.report).toEqual({ stack: "drift", drifted: [], pending: [], unmanaged: [] });

    // Pending changes alone exit 0.
    await cli.ok(["config", "set", "dataDescription", "Data platform"]);
    const pendingOnly = await driftJson();
    expect(pendingOnly.code, pendingOnly.out).toBe(0);
    expect(pendingOnly.report["drifted"]).toEqual([]);
    expect(pendingOnly.report["pending"]).toEqual([{ urn: urn("Group", "data"), type: "Group", name: "data", op: "update", fields: ["description"] }]);
  }, LONG);

  it("exits 2 with the reason on stderr when the check cannot run", async ({ expect }) => {
    const r = await runDist("cli/main.js", ["drift", "--stack", "no-such-stack", "--cwd", cwd], runEnv);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/platform-pulumi drift: pulumi [a-z -]+ --stack no-such-stack failed: .*no stack named 'no-such-stack'/);
    const bad = await runDist("cli/main.js", ["drift", "--stack", "drift", "--format", "yaml"], runEnv);
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('--format: "yaml" is not one of table, json, markdown');
  }, LONG);
});

describe.concurrent("workload identity", () => {
  it("a program authenticated only by token exchange reads with its role and is refused a write", async ({ expect }) => {
    const r = await runDist("examples/workload-identity/run.js");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('read with the viewer role: ["release-notes"]');
    expect(r.out).toMatch(/refused: .*Permission denied: identity .* lacks CAP_IAM_GROUPS_CREATE/);
  }, LONG);
});
