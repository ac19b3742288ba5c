/**
 * The review gate judges the change, as a team meets it in pull requests: the built bin (`platform-pulumi gate`,
 * `platform-pulumi access`) and the real Pulumi CLI, against the emulator in another process (`dist/emulator/cli.js`),
 * on an org declared through `Org` (test/fixtures/gate/org.yaml; bindings at the root group from ROOT_BINDINGS).
 *
 * The org is brought up once; each pull request is the program run with another org file (or root bindings), judged
 * by `gate` against the stack's state. Cases (docs/policy.md "The gate" and docs/access.md):
 * - the org unchanged passes, its findings already present (a deploy identity bound at its group's parent is
 *   critical but not new); `--all` judges the whole stack and fails;
 * - a description edited and a group added: passes, no access gained;
 * - a viewer bound above its group is low (passes), an editor there critical (fails);
 * - a read-only custom role bound to an identity that already reads: nothing gained (`--fail-on '*.delete'` too);
 * - owner at the root: fails, the gains said as "owner" in one row per route, the Markdown within 8,000 characters;
 * - a custom role with identity.update bound on a sibling group: fails, and the path is carried out with
 *   exchanged tokens after `up`;
 * - a broad claim pattern bound owner at the root: the identities whose own tokens match it gain owner there
 *   (`present`), and the exchange is carried out on the emulator;
 * - the preview cannot run (a rejected token): exit 2 with the reason in the Markdown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateReport } from "../provider/commands/gate";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { removeStack, stackEnv, upStack } from "./harness/stack";
import { startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 600_000;
const STACK = "gate-change";
const program = path.join(REPO_ROOT, "test", "programs", "gate");

let emu: StandaloneEmulator;
let dir: string;
let cli: PulumiCli;
let env: NodeJS.ProcessEnv;
let base: string;
let issuer: string;

/** An org file: the base org with `edit` applied to its text, the test issuer filled in. */
function orgFile(name: string, edit: (text: string) => string = (t) => t): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, edit(readFileSync(path.join(REPO_ROOT, "test", "fixtures", "gate", "org.yaml"), "utf8")).replaceAll("ISSUER", issuer));
  return file;
}

/** The stack's CLI with `extra` in the program's environment (another org file, root bindings). */
function cliWith(extra: NodeJS.ProcessEnv): PulumiCli {
  return new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, ...extra } });
}

/** Runs the bin's `command` on the stack with `file` as the program's org file. */
async function bin(command: "gate" | "access", file: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const r = await runBin([command, "--cwd", program, "--stack", STACK, ...args], { ...env, ORG_FILE: file, ...extra });
  return r;
}

/** The gate's JSON report for a pull request, with its exit code and the Markdown a reviewer reads. */
async function judge(file: string, extra: NodeJS.ProcessEnv = {}, args: string[] = []) {
  const json = path.join(dir, "gate.json");
  rmSync(json, { force: true });
  const md = await bin("gate", file, ["--format", "markdown", "--json-out", json, ...args], extra);
  const report = JSON.parse(readFileSync(json, "utf8")) as GateReport;
  const gained = (report.access?.changes ?? []).filter((c) => c.change === "gained");
  // The figures the closing note gives for each pull request.
  console.log(`gate ${path.basename(file)} ${JSON.stringify(extra)} ${args.join(" ")}: exit ${md.code}, ${gained.length} gained entries, Markdown ${md.stdout.length} characters`);
  return { code: md.code, markdown: md.stdout, stderr: md.stderr, report, gained };
}

/** Mints an OIDC token for `subject` from the emulator's test issuer and exchanges it for `identity`'s API token. */
async function exchange(subject: string, identity: string): Promise<{ status: number; token?: string; body: unknown }> {
  const api = env["PLATFORM_API_URL"]!;
  const minted = (await (await fetch(`${issuer}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ subject }) })).json()) as { id_token: string };
  const r = await fetch(`${api}/sts/exchange?${new URLSearchParams({ aud: api, identity })}`, { headers: { authorization: `Bearer ${minted.id_token}` } });
  const body = (await r.json()) as { token?: string };
  return { status: r.status, body, ...(body.token ? { token: body.token } : {}) };
}

/** An API call with `token`. */
async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${env["PLATFORM_API_URL"]}${url}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir);
});

beforeAll(async () => {
  emu = await startStandalone();
  issuer = `${emu.env.PLATFORM_API_URL}/oidc`;
  dir = mkdtempSync(path.join(tmpdir(), "gate-change-"));
  base = orgFile("base");
  cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env, ORG_FILE: base } });
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
}, LONG);

describe("the gate judges the change", () => {
  it("the org unchanged passes: its findings are listed as already present; --all judges the whole stack", async () => {
    const r = await judge(base);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    const above = r.report.violations.filter((v) => v.policy === "identity-bound-above-its-group");
    expect(above.map((v) => [v.severity, v.status, v.message.match(/identity (\S+)/)?.[1]]).sort()).toEqual([
      ["critical", "already present", "/platform/ci-cd/gha-deployer"],
      ["low", "already present", "/payments/payments-api/payments-api-bot"],
    ]);
    expect(r.gained).toEqual([]);
    expect(r.markdown).toContain("policy gate: passed");
    expect(r.markdown).toMatch(/2 finding\(s\) already present before this change/);

    const all = await judge(base, {}, ["--all"]);
    expect(all.code, all.markdown).toBe(1);
    expect(all.markdown).toMatch(/FAILED: 1 mandatory finding\(s\) at critical or high \(1 critical\)/);
  }, LONG);

  it("a description edited and a group added: passes, no access gained", async () => {
    const file = orgFile("benign", (t) => t.replace("description: Payments API", "description: Payments API (v2)").replace("        description: GitOps\n", "        description: GitOps\n      - name: docs\n        description: Docs site\n"));
    const r = await judge(file);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    expect(r.gained).toEqual([]);
    expect(r.report.violations.filter((v) => v.status === "new")).toEqual([]);
  }, LONG);

  it("severity from what is gained: a new identity bound viewer above its group is low and passes; editor there is critical and fails", async () => {
    const add = (role: string) => (t: string) =>
      t.replace("bindings:\n", "bindings:\n  - identity: payments/payments-api/payments-cron\n    group: payments\n    role: " + role + "\n").replace(
        "bindings:\n",
        "  - name: payments-cron\n    group: payments/payments-api\n    description: nightly job\n    claimMatch:\n      issuer: ISSUER\n      subject: system:serviceaccount:payments:cron\nbindings:\n",
      );
    const viewer = await judge(orgFile("viewer-above", add("viewer")));
    expect(viewer.code, viewer.markdown + viewer.stderr).toBe(0);
    const v = viewer.report.violations.find((x) => x.policy === "identity-bound-above-its-group" && x.message.includes("payments-cron"));
    expect(v).toMatchObject({ severity: "low", status: "new" });
    expect(new Set(viewer.gained.map((g) => g.severity))).toEqual(new Set(["low"]));

    const editor = await judge(orgFile("editor-above", add("editor")));
    expect(editor.code, editor.markdown).toBe(1);
    expect(editor.report.violations.find((x) => x.policy === "identity-bound-above-its-group" && x.message.includes("payments-cron"))).toMatchObject({ severity: "critical", status: "new" });
  }, LONG);

  it("a read-only custom role bound to an identity that already reads: nothing gained, for gate and access", async () => {
    const file = orgFile("read-only-role", (t) =>
      t.replace("bindings:\n", "roles:\n  - name: repo-reader\n    group: platform\n    description: reads repos\n    capabilities: [repo.list, tag.list]\nbindings:\n  - identity: platform/ci-cd/gha-deployer\n    group: platform/ci-cd\n    role: repo-reader\n"),
    );
    const r = await judge(file);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    expect(r.gained).toEqual([]);
    const a = await bin("access", file, ["--format", "json", "--fail-on", "*.delete"]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { changes: unknown[] }).changes.filter((c) => (c as { change: string }).change === "gained")).toEqual([]);
  }, LONG);

  it("owner at the root: fails; the gains said as owner in a few rows, the Markdown within 8,000 characters; each step credited to the identity that takes it", async () => {
    const r = await judge(base, { ROOT_BINDINGS: JSON.stringify([{ identity: "platform/ci-cd/gha-deployer", role: "owner" }]) });
    expect(r.code, r.markdown + r.stderr).toBe(1);
    expect(r.markdown.length).toBeLessThanOrEqual(8_000);
    const who = new Set(r.gained.map((g) => g.identity.path));
    expect([...who].sort()).toEqual(["/platform/ci-cd/gha-deployer"]);
    expect(r.gained.every((g) => g.group === "/")).toBe(true);
    // owner's every capability at the root, directly; the rest by a new custom role
    expect(r.markdown).toMatch(/\| critical \| \*\*gha-deployer\*\* .*\| \+ gained \| owner \|/);
    expect(r.markdown).toMatch(/owner bound at \//);
    for (const g of r.gained) for (const v of g.via) expect(new Set(v.steps).size, v.steps.join(" | ")).toBe(v.steps.length);
  }, LONG);

  it("a custom role with identity.update bound on a sibling group fails, and the path it opens is carried out with exchanged tokens", async () => {
    const file = orgFile("sibling", (t) =>
      t.replace("bindings:\n", "roles:\n  - name: id-maintainer\n    group: platform\n    description: maintains identities\n    capabilities: [identity.list, identity.update]\nbindings:\n  - identity: platform/ci-cd/gha-pr-checks\n    group: platform/argo\n    role: id-maintainer\n"),
    );
    const r = await judge(file);
    expect(r.code, r.markdown + r.stderr).toBe(1);
    expect(new Set(r.gained.map((g) => g.identity.path))).toEqual(new Set(["/platform/ci-cd/gha-pr-checks"]));
    const takeover = r.gained.find((g) => g.capability === "groups.create" && g.group === "/platform/argo");
    expect(takeover?.via[0]!.steps[0]).toMatch(/"gha-pr-checks" rewrites the claimMatch of identity "argo-sync"/);
    expect(r.gained.some((g) => g.capability === "role_bindings.create" && g.group === "/platform/argo")).toBe(true);

    // Applied, the path works: pr-checks rewrites argo-sync's claimMatch, exchanges a token for it and creates a group there.
    await cliWith({ ORG_FILE: file }).ok(["up", "--yes", "--skip-preview"]);
    try {
      const uids = JSON.parse((await cli.ok(["stack", "output", "identityUids", "--json"])).stdout) as Record<string, string>;
      const argo = uids["platform/argo/argo-sync"]!;
      const argoGroup = argo.slice(0, argo.lastIndexOf("/"));
      const pr = await exchange("repo:my-org/app:pull_request", uids["platform/ci-cd/gha-pr-checks"]!);
      expect(pr.status, JSON.stringify(pr.body)).toBe(200);
      expect((await call("POST", `/iam/v2beta1/groups/${argoGroup}`, pr.token!, { name: "before-takeover" })).status).toBe(403);
      expect((await call("PATCH", `/iam/v2beta1/identities/${argo}`, pr.token!, { claimMatch: { issuer, subject: "taken-by-pr-checks" } })).status).toBe(200);
      const taken = await exchange("taken-by-pr-checks", argo);
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
      expect((await call("POST", `/iam/v2beta1/groups/${argoGroup}`, taken.token!, { name: "after-takeover" })).status).toBe(200);
    } finally {
      await cliWith({ ORG_FILE: base }).ok(["up", "--yes", "--skip-preview", "--refresh"]);
    }
  }, LONG);

  it("a broad claim pattern bound owner at the root: every identity whose own token matches it gains owner there, and the exchange works", async () => {
    const file = base;
    const root = { ROOT_IDENTITIES: JSON.stringify([{ name: "release", claimMatch: { issuer, subjectPattern: "repo:my-org/.*" }, role: "owner" }]) };
    const r = await judge(file, root);
    expect(r.code, r.markdown + r.stderr).toBe(1);
    const via = (p: string) => r.gained.find((g) => g.identity.path === p && g.capability === "groups.delete" && g.group === "/");
    expect(via("/platform/ci-cd/gha-pr-checks")?.via[0]!.steps[0]).toMatch(/"gha-pr-checks"'s own workload token matches the claimMatch of identity "release"/);
    expect(r.markdown).toMatch(/gha-pr-checks.*\+ gained \| owner/);
    expect(via("/platform/ci-cd/gha-deployer")).toBeDefined();
    expect(via("/platform/argo/argo-sync")).toBeUndefined(); // its subject is a service account, not a repository

    await cliWith({ ORG_FILE: file, ...root }).ok(["up", "--yes", "--skip-preview"]);
    try {
      const current = await bin("access", file, ["--current", "--format", "json"], root);
      expect(current.code, current.stderr).toBe(0);
      const grants = (JSON.parse(current.stdout) as { grants: Array<{ identity: { path: string }; capability: string; group: string; via: Array<{ kind: string }> }> }).grants;
      expect(grants.some((g) => g.identity.path === "/platform/ci-cd/gha-pr-checks" && g.capability === "groups.delete" && g.group === "/")).toBe(true);
      // The deployer's direct grant (editor at /platform) is still listed beside the escalation to owner at /.
      const upd = grants.filter((g) => g.identity.path === "/platform/ci-cd/gha-deployer" && g.capability === "groups.update").map((g) => `${g.group} ${g.via[0]!.kind}`);
      expect(upd.sort()).toEqual(["/ escalation", "/platform binding"]);
      const release = (await call("GET", `/iam/v2beta1/identities?${new URLSearchParams({ "uidp.children_of": emu.env.PLATFORM_ORG_UID, name: "release" })}`, emu.env.PLATFORM_TOKEN)).body["identities"] as Array<{ uid: string }>;
      const asRelease = await exchange("repo:my-org/app:pull_request", release[0]!.uid);
      expect(asRelease.status, JSON.stringify(asRelease.body)).toBe(200);
      expect((await call("POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, asRelease.token!, { name: "made-by-pr-checks" })).status).toBe(200);
    } finally {
      await cliWith({ ORG_FILE: base }).ok(["up", "--yes", "--skip-preview", "--refresh"]);
    }
  }, LONG);

  it("a preview that cannot run: exit 2, the reason in the Markdown and on stderr, no reassurance", async () => {
    const r = await bin("gate", base, ["--format", "markdown"], { PLATFORM_TOKEN: "not-a-token" });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/FAILED: the preview did not complete/);
    expect(r.stdout).toMatch(/UNAUTHENTICATED|401|token/i);
    expect(r.stdout).not.toMatch(/No new policy findings/);
    expect(r.stderr).toMatch(/UNAUTHENTICATED|401|token/i);
  }, LONG);
});
