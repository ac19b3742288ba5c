/**
 * A pull request cannot steer its own review (docs/policy.md "What the gate trusts", "Least privilege", "After the
 * merge: verify what was applied"): the built bin's `gate` and the real CLI with the shipped pack, against the
 * emulator in another process, on one stack of test/programs/steer (a group and the CI identity `ci` at the root).
 *
 * Each pull request binds `ci` as owner or editor at the root; all but the honest one try to hide it:
 * - honest, judged with the owner's token and with a viewer's: the same verdict, and only the owner's run warns
 *   that the credentials can write;
 * - baseline: the program rewrites the file the gate's baseline is in; output: it replaces the pack's results after
 *   the pack wrote them and adds a file of its own. The gate refuses to judge (exit 2) and says why;
 * - dynamic: a raw dynamic resource makes the binding at `pulumi up`: `unreviewed-resource` fails the gate;
 * - write: the program calls the API itself during the preview: with a viewer's token the API refuses;
 * - dryrun: editor at the root declared only outside the preview. The gate passes (it cannot see it); the deploy
 *   job's `pulumi up --policy-pack` applies it, and `gate --verify` with the approved report fails on it;
 *   dryrun-owner: owner at the root the same way, stopped at `pulumi up` by the pack's `no-owner-at-root`.
 *
 * Engine runs: the up that makes the stack; one preview per pull request (7, at most 3 at once); two ups of the
 * deploy job. `gate --verify` runs no engine command.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateReport } from "../provider/commands/gate";
import type { VerifyReport } from "../provider/commands/gateVerify";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { slots } from "./harness/limit";
import { removeStack, stackEnv, upStack } from "./harness/stack";
import { startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 600_000;
const STACK = "gate-steer";
const program = path.join(REPO_ROOT, "test", "programs", "steer");
const PACK = path.join(REPO_ROOT, "policies");

let emu: StandaloneEmulator;
let dir: string;
let cli: PulumiCli;
let env: NodeJS.ProcessEnv;
let ciUid: string;
let viewerToken: string;

/** An API call with `token` (the owner's by default). */
async function call(method: string, url: string, body?: unknown, token = emu.env.PLATFORM_TOKEN): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}${url}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The uid of the built-in role `name`. */
async function roleUid(name: string): Promise<string> {
  return ((await call("GET", `/iam/v2beta1/roles?name=${name}`)).body["roles"] as Array<{ uid: string }>)[0]!.uid;
}

/** The roles `ci` is bound to at the root, by name, as the API has them now. */
async function ciRolesAtRoot(): Promise<string[]> {
  const rows = (await call("GET", `/iam/v2beta1/roleBindings?uidp.children_of=${emu.env.PLATFORM_ORG_UID}&page_size=200`)).body["roleBindings"] as Array<{ identity?: { uid: string }; role?: { name: string } }>;
  return rows.filter((b) => b.identity?.uid === ciUid).map((b) => b.role?.name ?? "?").sort();
}

const atOnce = slots(3);
let judged = 0;

/** Judges pull request `steer` with ONE `gate --format json --json-out` run; `token` replaces the job's API token. */
function gate(steer: string, token?: string, args: string[] = []) {
  return atOnce(async () => {
    const json = path.join(dir, `gate-${++judged}.json`);
    const r = await runBin(["gate", "--cwd", program, "--stack", STACK, "--format", "json", "--json-out", json, ...args], { ...env, STEER: steer, CI_UID: ciUid, ...(token ? { PLATFORM_TOKEN: token } : {}) });
    const report = JSON.parse(readFileSync(json, "utf8")) as GateReport;
    const gained = (report.access?.changes ?? []).filter((c) => c.change === "gained");
    console.log(`gate ${steer || "unchanged"} (${token ? "viewer" : "owner"} token): exit ${r.code}, ${gained.length} gains, ${report.violations.filter((v) => v.status === "new").length} new findings`);
    return { ...r, report, gained, json };
  });
}

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir);
});

beforeAll(async () => {
  emu = await startStandalone(["--control"]);
  dir = mkdtempSync(path.join(tmpdir(), "gate-steer-"));
  cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env } });
  ciUid = ((await cli.outputs())["ciUid"] as string) ?? "";
  expect(ciUid).toMatch(/^[0-9a-f]{40}\//);
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
  // A reviewer identity bound viewer at the root, and its token from the emulator's test issuer.
  const issuer = `${emu.env.PLATFORM_API_URL}/oidc`;
  const reviewer = await call("POST", `/iam/v2beta1/identities/${emu.env.PLATFORM_ORG_UID}`, { name: "reviewer", description: "review jobs", claimMatch: { issuer, subject: "repo:my-org/app:pull_request" } });
  expect(reviewer.status, JSON.stringify(reviewer.body)).toBe(200);
  expect((await call("POST", `/iam/v2beta1/roleBindings/${emu.env.PLATFORM_ORG_UID}`, { identityUid: reviewer.body["uid"], roleUid: await roleUid("viewer") })).status).toBe(200);
  const minted = (await (await fetch(`${issuer}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ subject: "repo:my-org/app:pull_request" }) })).json()) as { id_token: string };
  const ex = await fetch(`${emu.env.PLATFORM_API_URL}/sts/exchange?${new URLSearchParams({ aud: emu.env.PLATFORM_API_URL, identity: String(reviewer.body["uid"]) })}`, { headers: { authorization: `Bearer ${minted.id_token}` } });
  viewerToken = ((await ex.json()) as { token: string }).token;
  expect(viewerToken).toBeTruthy();
}, LONG);

describe.concurrent("a pull request judged by the gate", () => {
  it("honest: fails on its gains with the owner's token and a viewer's alike; only the owner's run warns that its credentials can write", async ({ expect }) => {
    const [owner, viewer] = await Promise.all([gate("honest"), gate("honest", viewerToken)]);
    expect(owner.code, owner.stderr).toBe(1);
    expect(viewer.code, viewer.stderr).toBe(1);
    expect(owner.gained.filter((g) => g.identity.name === "ci-deployer" && g.group === "/").length).toBeGreaterThan(10);
    expect(viewer.gained.length).toBe(owner.gained.length);
    expect(owner.report.violations.some((v) => v.policy === "no-owner-at-root" && v.status === "new")).toBe(true);
    expect(owner.stderr).toMatch(/warning: gate runs the program under review with API credentials that can write \(identity [0-9a-f]+: owner at /);
    expect(viewer.stderr).not.toMatch(/credentials that can write/);
    expect(viewer.stderr).not.toMatch(/could not check/);
  }, LONG);

  it("baseline: a program that rewrites the gate's baseline is refused (exit 2), not passed", async ({ expect }) => {
    const r = await gate("baseline");
    expect(r.code, r.stdout).toBe(2);
    expect(r.report.passed).toBe(false);
    expect(r.report.errors[0]).toMatch(/the gate's files were changed during the preview \(the baseline the pack judged against is not the one the gate wrote\)/);
    expect(r.report.access).toBeNull();
    expect(r.stderr).toContain("the change was not judged");
  }, LONG);

  it("output: a program that rewrites the pack's results or adds its own is refused (exit 2)", async ({ expect }) => {
    const r = await gate("output");
    expect(r.code, r.stdout).toBe(2);
    expect(r.report.errors[0]).toMatch(/the gate's files were changed during the preview \((silenced-no-new-access\.jsonl|access\.json) (was not written by the pack|differs from what the pack wrote)\)/);
    expect(r.report.silenced).toBeUndefined();
    expect(r.report.access).toBeNull();
  }, LONG);

  it("dynamic: a raw dynamic resource fails the gate as unreviewed (high, mandatory), and nothing reached the API", async ({ expect }) => {
    const r = await gate("dynamic");
    expect(r.code, r.stdout).toBe(1);
    const v = r.report.violations.find((x) => x.policy === "unreviewed-resource");
    expect(v).toMatchObject({ level: "mandatory", severity: "high", status: "new" });
    expect(v!.message).toMatch(/resource "sneak" of type pulumi-nodejs:dynamic:Resource: a dynamic resource runs its own code at `pulumi up`/);
    expect(await ciRolesAtRoot()).toEqual([]);
  }, LONG);

  it("write: the program's own API call during the preview is refused with a viewer's token", async ({ expect }) => {
    const r = await gate("write", viewerToken);
    expect(r.code, r.stderr).toBe(0);
    expect(await ciRolesAtRoot()).toEqual([]);
  }, LONG);
});

describe("after the merge", () => {
  it("dryrun: the gate passes what the preview cannot see; the deploy job's up applies it and gate --verify fails on it", async () => {
    const pr = await gate("dryrun");
    expect(pr.code, pr.stderr).toBe(0);
    expect(pr.gained).toEqual([]);
    expect(pr.report.baseline?.objects.some((o) => o.kind === "Identity" && o.props["name"] === "ci-deployer")).toBe(true);
    // Before the deploy, the stack gives nothing the review did not show.
    const before = await runBin(["gate", "--verify", pr.json, "--cwd", program, "--stack", STACK, "--format", "json"], env);
    expect(before.code, before.stderr).toBe(0);
    expect((JSON.parse(before.stdout) as VerifyReport).passed).toBe(true);
    // The deploy job: the pack enforced at up.
    const deploy = new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, STEER: "dryrun" } });
    await deploy.ok(["up", "--yes", "--skip-preview", "--policy-pack", PACK]);
    expect(await ciRolesAtRoot()).toEqual(["editor"]);
    const after = await runBin(["gate", "--verify", pr.json, "--cwd", program, "--stack", STACK], env);
    expect(after.code, after.stderr).toBe(1);
    expect(after.stdout).toMatch(/gate --verify: FAILED: \d+ capability gain\(s\) applied that the review did not show/);
    expect(after.stdout).toContain("ci-deployer");
    const json = await runBin(["gate", "--verify", pr.json, "--cwd", program, "--stack", STACK, "--format", "json"], env);
    const v = JSON.parse(json.stdout) as VerifyReport;
    expect(v.passed).toBe(false);
    expect(v.unshown.every((g) => g.identity.name === "ci-deployer" && g.group === "/")).toBe(true);
    expect(v.unshown.map((g) => g.capability)).toContain("groups.create");
    expect(v.unshown.some((g) => g.via.some((x) => x.role === "editor" && x.boundAt === "/"))).toBe(true);
  }, LONG);

  it("dryrun-owner: the pack enforced at the deploy job's up (no-owner-at-root mandatory) stops owner at the root before it reaches the API", async () => {
    const deploy = new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, STEER: "dryrun-owner" } });
    const config = path.join(dir, "deploy-policy.json");
    writeFileSync(config, JSON.stringify({ "no-owner-at-root": { enforcementLevel: "mandatory" } }));
    const r = await deploy.run(["up", "--yes", "--skip-preview", "--policy-pack", PACK, "--policy-pack-config", config]);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("no-owner-at-root");
    expect(await ciRolesAtRoot()).not.toContain("owner");
  }, LONG);
});
