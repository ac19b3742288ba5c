/**
 * `--format sarif` (docs/access.md "SARIF for code scanning") through the built bin and the real Pulumi CLI, against the
 * emulator in another process: `gate`, `access` and `drift` print SARIF 2.1.0 logs that validate against the OASIS
 * schema (the copy @microsoft/jest-sarif ships, checked with Ajv), and place each finding where it is declared:
 * a resource of the program at the line the engine recorded (test/programs/gate/index.js), a resource of `Org` at
 * its object's line in the org file. A finding keeps its fingerprint from one run to the next. The README's example
 * validates too, and a command that could not run says so in SARIF.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SarifLog, SarifResult } from "../provider/commands/sarif";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { readDocs } from "./harness/docs";
import { removeStack, stackEnv, upStack, withBinding } from "./harness/stack";
import { startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 600_000;
const STACK = "sarif";
const program = path.join(REPO_ROOT, "test", "programs", "gate");

/** The OASIS SARIF 2.1.0 schema (draft-04), as Microsoft's package ships it. */
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json"), "utf8")) as object;
// The schema's language-tag pattern is not valid under the `u` flag Ajv uses by default.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Parses `text` as SARIF and checks it against the schema (the errors in the failure message). */
function valid(text: string): SarifLog {
  const log = JSON.parse(text) as SarifLog;
  const ok = validate(log);
  expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  expect(log.version).toBe("2.1.0");
  return log;
}

/** The 1-based line of the first line of `file` containing `needle` (after line `after`). */
function lineOf(file: string, needle: string, after = 0): number {
  const lines = readFileSync(file, "utf8").split("\n");
  const i = lines.findIndex((l, n) => n >= after && l.includes(needle));
  expect(i, `${needle} in ${file}`).toBeGreaterThanOrEqual(0);
  return i + 1;
}

/** The 1-based line of the last line of `file` containing `needle`. */
function lastLineOf(file: string, needle: string): number {
  const lines = readFileSync(file, "utf8").split("\n");
  let i = lines.length - 1;
  while (i >= 0 && !lines[i]!.includes(needle)) i--;
  expect(i, `${needle} in ${file}`).toBeGreaterThanOrEqual(0);
  return i + 1;
}

let emu: StandaloneEmulator;
let dir: string;
let inRepo: string;
let cli: PulumiCli;
let env: NodeJS.ProcessEnv;
let base: string;
let changed: string;
let issuer: string;

const release = (name: string, subject: string) => ({ name, claimMatch: { issuer, subject }, role: "owner" });

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir, inRepo);
});

beforeAll(async () => {
  emu = await startStandalone();
  issuer = `${emu.env.PLATFORM_API_URL}/oidc`;
  dir = mkdtempSync(path.join(tmpdir(), "sarif-"));
  // The org files live in the repository, as a team's do: their findings get repository-relative URIs.
  mkdirSync(path.join(REPO_ROOT, ".pulumi-work"), { recursive: true });
  inRepo = mkdtempSync(path.join(REPO_ROOT, ".pulumi-work", "sarif-"));
  const text = readFileSync(path.join(REPO_ROOT, "test", "fixtures", "gate", "org.yaml"), "utf8").replaceAll("ISSUER", issuer);
  base = path.join(inRepo, "org.yaml");
  writeFileSync(base, text);
  // The pull request: the GitOps identity becomes editor of platform, above its group (critical, new).
  changed = path.join(inRepo, "org-changed.yaml");
  writeFileSync(changed, withBinding(text, { identity: "platform/argo/argo-sync", group: "platform", role: "editor" }));
  cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env, ORG_FILE: base, ROOT_IDENTITIES: JSON.stringify([release("release", "repo:my-org/release")]) } });
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
}, LONG);

/** Runs `platform-pulumi <command> --format sarif` on the stack with `file` as the org file and `roots` as root identities. */
function sarif(command: "gate" | "access" | "drift", file: string, roots: ReturnType<typeof release>[], args: string[] = []) {
  return runBin([command, "--cwd", program, "--stack", STACK, "--format", "sarif", ...args], { ...env, ORG_FILE: file, ROOT_IDENTITIES: JSON.stringify(roots) });
}

/** The physical location of a result: its repository-relative URI and line. */
const at = (r: SarifResult | undefined) => ({ uri: r?.locations[0]?.physicalLocation?.artifactLocation.uri, base: r?.locations[0]?.physicalLocation?.artifactLocation.uriBaseId, line: r?.locations[0]?.physicalLocation?.region.startLine });
const rel = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join("/");

describe("--format sarif", () => {
  const indexJs = path.join(program, "index.js");
  // The RoleBinding of a root identity: `new RoleBinding(` in the ROOT_IDENTITIES loop of the program.
  const rootBindingLine = () => lineOf(indexJs, "new RoleBinding(`root-${i.name}-${i.role}`");

  it("gate: validates; a program resource at its line in index.js, an Org binding at its org file line; fingerprints stable across runs", async () => {
    const r = await sarif("gate", changed, [release("release", "repo:my-org/release"), release("release2", "repo:my-org/release2")]);
    expect(r.code, r.stderr).toBe(1);
    const log = valid(r.stdout);
    const run = log.runs[0]!;
    expect(run.tool.driver).toMatchObject({ name: "platform-pulumi", version: JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version });
    const ids = run.tool.driver.rules.map((x) => x.id);
    expect(ids).toEqual(expect.arrayContaining(["no-owner-at-root", "identity-bound-above-its-group"]));
    for (const res of run.results) expect(run.tool.driver.rules[res.ruleIndex]!.id).toBe(res.ruleId);
    expect(run.tool.driver.rules.find((x) => x.id === "no-owner-at-root")!.help.text).toMatch(/owner role at the organization's root group/);

    // The new root binding (declared in the program): at the line the engine recorded, from the plan.
    const owner = run.results.find((x) => x.ruleId === "no-owner-at-root" && x.message.text.includes("root-release2-owner"));
    expect(at(owner)).toEqual({ uri: rel(indexJs), base: "%SRCROOT%", line: rootBindingLine() });
    expect(owner!.baselineState).toBe("new");
    // An advisory policy's critical finding is a warning.
    expect(owner).toMatchObject({ level: "warning", properties: { severity: "critical", enforcementLevel: "advisory" } });
    // A stack policy's finding (no-new-access): the stack's URN, at the project's Pulumi.yaml line 1.
    const stackWide = run.results.find((x) => x.ruleId === "no-new-access");
    expect(at(stackWide)).toEqual({ uri: rel(path.join(program, "Pulumi.yaml")), base: "%SRCROOT%", line: 1 });
    expect(stackWide!.locations[0]!.logicalLocations?.[0]?.fullyQualifiedName).toMatch(/::pulumi:pulumi:Stack::/);
    // The binding the pull request adds to the org file: at its line there, critical, so an error.
    const above = run.results.find((x) => x.ruleId === "identity-bound-above-its-group" && x.message.text.includes("argo-sync@platform#editor"));
    expect(at(above)).toEqual({ uri: rel(changed), base: "%SRCROOT%", line: lastLineOf(changed, "- identity: platform/argo/argo-sync") });
    expect(above).toMatchObject({ level: "error", baselineState: "new", properties: { severity: "critical", status: "new" } });
    // One already present (in the state): its org file line, and the same fingerprint as in a run without the change.
    const deployer = (l: SarifLog) => l.runs[0]!.results.find((x) => x.ruleId === "identity-bound-above-its-group" && x.message.text.includes("gha-deployer@platform#editor"));
    expect(at(deployer(log))).toMatchObject({ uri: rel(changed), line: lineOf(changed, "- identity: platform/ci-cd/gha-deployer") });
    expect(deployer(log)!.baselineState).toBe("unchanged");
    const again = await sarif("gate", base, [release("release", "repo:my-org/release")]);
    expect(again.code, again.stderr).toBe(0);
    const logAgain = valid(again.stdout);
    expect(deployer(logAgain)!.partialFingerprints).toEqual(deployer(log)!.partialFingerprints);
    expect(Object.keys(deployer(log)!.partialFingerprints)).toEqual(["platformPulumiFinding/v1"]);
    console.log(`sarif gate result: ${JSON.stringify(above)}`);
  }, LONG);

  it("access: each gain a result, its rule by how it is held; a binding at its declaring line (program or org file)", async () => {
    const r = await sarif("access", changed, [release("release", "repo:my-org/release"), release("release2", "repo:my-org/release2")]);
    expect(r.code, r.stderr).toBe(1);
    const run = valid(r.stdout).runs[0]!;
    const ids = run.tool.driver.rules.map((x) => x.id);
    expect(ids).toContain("access/binding");
    expect(ids.every((id) => /^access\/(binding|escalation\/(assume|bind|rebind|editRole|invite|identityProvider|createRole|present))$/.test(id))).toBe(true);
    const ownerGain = run.results.find((x) => x.ruleId === "access/binding" && x.message.text.startsWith("/release2 gains role_bindings.create at /"));
    expect(ownerGain).toMatchObject({ level: "error", properties: { severity: "critical", status: "gained", identity: "/release2" } });
    expect(at(ownerGain)).toEqual({ uri: rel(indexJs), base: "%SRCROOT%", line: rootBindingLine() });
    const argo = run.results.find((x) => x.ruleId === "access/binding" && x.message.text.startsWith("/platform/argo/argo-sync gains groups.create at /platform "));
    expect(argo, run.results.map((x) => x.message.text).filter((t) => t.includes("argo-sync")).join("\n")).toMatchObject({ level: "error", properties: { severity: "high" } });
    expect(at(argo)).toEqual({ uri: rel(changed), base: "%SRCROOT%", line: lastLineOf(changed, "- identity: platform/argo/argo-sync") });
    // Reads gained are notes.
    expect(run.results.filter((x) => x.properties["severity"] === "low").every((x) => x.level === "note")).toBe(true);
    // --current: what is held now, each at its binding (here the org file's line of gha-deployer's).
    const current = await sarif("access", base, [release("release", "repo:my-org/release")], ["--current"]);
    expect(current.code, current.stderr).toBe(0);
    const held = valid(current.stdout).runs[0]!.results.find((x) => x.message.text.startsWith("/platform/ci-cd/gha-deployer holds groups.create at /platform "));
    expect(held).toMatchObject({ ruleId: "access/binding", level: "error", properties: { status: "held", severity: "high" } });
    expect(held!.baselineState).toBeUndefined();
    expect(at(held)).toEqual({ uri: rel(base), base: "%SRCROOT%", line: lineOf(base, "- identity: platform/ci-cd/gha-deployer") });
    // Nothing gained: no results.
    const none = await sarif("access", base, [release("release", "repo:my-org/release")]);
    expect(none.code, none.stderr).toBe(0);
    expect(valid(none.stdout).runs[0]!.results).toEqual([]);
  }, LONG);

  it("drift: a group changed outside Pulumi is an error at its group's line in the org file", async () => {
    const state = JSON.parse((await cli.ok(["stack", "export"], { echo: false })).stdout) as { deployment: { resources: Array<{ urn: string; id?: string }> } };
    const payments = state.deployment.resources.find((x) => x.urn.endsWith("::org/payments"))!.id!;
    const patched = await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/groups/${payments}?updateMask=description`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ description: "changed by hand" }),
    });
    expect(patched.status).toBe(200);
    const r = await sarif("drift", base, [release("release", "repo:my-org/release")]);
    expect(r.code, r.stderr).toBe(1);
    const run = valid(r.stdout).runs[0]!;
    const changedGroup = run.results.find((x) => x.ruleId === "drift/changed");
    expect(changedGroup).toMatchObject({ level: "error", properties: { status: "drifted", change: "changed", fields: ["description"] } });
    expect(changedGroup!.message.text).toContain("changed by hand");
    expect(at(changedGroup)).toEqual({ uri: rel(base), base: "%SRCROOT%", line: lineOf(base, "  - name: payments") });
  }, LONG);

  it("a finding keeps its fingerprint once its change is applied (new, then already present, message changed)", async () => {
    const roots = [release("release", "repo:my-org/release"), release("release2", "repo:my-org/release2")];
    const ownerOf = (text: string) => valid(text).runs[0]!.results.find((x) => x.ruleId === "no-owner-at-root" && x.message.text.includes("root-release2-owner"))!;
    const before = ownerOf((await sarif("gate", base, roots)).stdout);
    expect(before.baselineState).toBe("new");
    await new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, ROOT_IDENTITIES: JSON.stringify(roots) } }).ok(["up", "--yes", "--skip-preview", "--refresh"]);
    const after = ownerOf((await sarif("gate", base, roots)).stdout);
    expect(after.baselineState).toBe("unchanged");
    expect(after.message.text).not.toBe(before.message.text);
    expect(after.partialFingerprints).toEqual(before.partialFingerprints);
    expect(at(after)).toEqual(at(before));
  }, LONG);

  it("a command that could not run prints SARIF saying so (exit 2)", async () => {
    const r = await runBin(["drift", "--cwd", program, "--stack", "no-such-stack", "--format", "sarif"], { ...env, ORG_FILE: base });
    expect(r.code).toBe(2);
    const run = valid(r.stdout).runs[0]!;
    expect(run.results).toEqual([]);
    expect(run.invocations?.[0]?.executionSuccessful).toBe(false);
    expect(run.invocations?.[0]?.toolExecutionNotifications[0]?.message.text).toMatch(/no-such-stack/);
  }, LONG);

  it("the documented example (docs/access.md, \"SARIF for code scanning\") validates against the schema", () => {
    const readme = readDocs();
    const heading = /^#+ SARIF for code scanning$/m.exec(readme);
    expect(heading, "a \"SARIF for code scanning\" heading in README.md or docs/").not.toBeNull();
    const section = readme.slice(heading!.index);
    const example = /```json\n([\s\S]*?)\n```/.exec(section);
    expect(example, "a json block in the SARIF section").not.toBeNull();
    const log = valid(example![1]!);
    expect(log.runs[0]!.results.length).toBeGreaterThan(0);
  });
});
