/**
 * Access answers for the whole org (docs/access.md "The whole org"), through the built bin against the emulator in
 * another process: a stack declares `eng`, `eng/team` and an identity `ybot` in `eng/team` (test/programs/org from
 * an org file); outside the stack, made through the API, identity `xbot` in group `ops` is bound owner at
 * `eng/team`. The stack alone says nobody can delete `eng/team`; the org says `xbot` and the org's owner can, each
 * marked unmanaged. A pull request binding `ybot` owner at `eng` shows what it opens for `xbot` (owner at
 * `eng/team` may update `ybot`, rewrite its claimMatch and assume it), marked as a path through an object no stack
 * manages.
 *
 * The gate judges the same pull request on the whole org too: it lists xbot's gain, the route marked.
 *
 * Also outside the stack, a fleet of identities trusting one workload, each bound viewer at a group of its own:
 * one class, listed once with its members (docs/access.md "Classes"), in JSON, Markdown and `--who-can`.
 *
 * Engine runs: the up that makes the stack, one preview (the pull request's plan), the gate's preview, and the
 * gate's preview whose org read fails (under a root group the API does not hold).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { AccessJson } from "../provider/commands/access";
import type { GateReport } from "../provider/commands/gate";
import type { WhoCanJson } from "../provider/access/query";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { removeStack, stackEnv, upStack } from "./harness/stack";
import { apiCall, startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 300_000;
/** Identities outside the stack that trust one workload: a class listed once (docs/access.md "Classes"). */
const FLEET = 12;
const STACK = "access-org";
const program = path.join(REPO_ROOT, "test", "programs", "org");

const ORG = `groups:
  - name: eng
    description: Engineering
    groups:
      - name: team
        description: A team
identities:
  - name: ybot
    group: eng/team
    description: the team's CI
    claimMatch:
      issuer: https://token.actions.githubusercontent.com
      subject: repo:my-org/team:ref:refs/heads/main
`;

let emu: StandaloneEmulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let base: string;
let changed: string;
let xbot: string;

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir);
});

beforeAll(async () => {
  emu = await startStandalone();
  dir = mkdtempSync(path.join(tmpdir(), "access-org-"));
  base = path.join(dir, "org.yaml");
  changed = path.join(dir, "org-changed.yaml");
  writeFileSync(base, ORG);
  writeFileSync(changed, `${ORG}bindings:\n  - identity: eng/team/ybot\n    group: eng\n    role: owner\n`);
  const cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env, ORG_FILE: base } });
  const groups = (await cli.outputs())["groupUids"] as Record<string, string>;
  // Outside the stack: ops/xbot, bound owner at eng/team.
  const ops = await apiCall(emu, "POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, { name: "ops", description: "made by hand" });
  xbot = (await apiCall(emu, "POST", `/iam/v2beta1/identities/${ops.uid}`, { name: "xbot", description: "made by hand", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/ops:ref:refs/heads/main" } })).uid!;
  const owner = ((await (await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/roles?name=owner`, { headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` } })).json()) as { roles: Array<{ uid: string }> }).roles[0]!.uid;
  await apiCall(emu, "POST", `/iam/v2beta1/roleBindings/${groups["eng/team"]}`, { identityUid: xbot, roleUid: owner });
  // Outside the stack too: a fleet of FLEET identities trusting one workload, each bound viewer at a group of its
  // own under ops (ops/fg0x …): one class (each presents for every other), so each can read every fleet group.
  const viewer = ((await (await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/roles?name=viewer`, { headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` } })).json()) as { roles: Array<{ uid: string }> }).roles[0]!.uid;
  for (let i = 0; i < FLEET; i++) {
    const g = await apiCall(emu, "POST", `/iam/v2beta1/groups/${ops.uid}`, { name: `fg${i}x`, description: "a fleet group" });
    const id = await apiCall(emu, "POST", `/iam/v2beta1/identities/${g.uid}`, { name: `fleet-${i}`, description: "a fleet workload", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/fleet:ref:refs/heads/main" } });
    await apiCall(emu, "POST", `/iam/v2beta1/roleBindings/${g.uid}`, { identityUid: id.uid, roleUid: viewer });
  }
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
}, LONG);

const access = (args: string[], orgFile = base) => runBin(["access", "--stack", STACK, "--cwd", program, ...args], { ...env, ORG_FILE: orgFile });

describe.concurrent("the whole org", () => {
  it("who can delete eng/team: xbot (bound there outside the stack) and the org's owner, each marked unmanaged; the stack alone says nobody", async ({ expect }) => {
    const [org, stackOnly] = await Promise.all([
      access(["--current", "--who-can", "groups.delete", "--at", "/eng/team", "--format", "json"]),
      access(["--current", "--scope", "stack", "--who-can", "groups.delete", "--at", "/eng/team"]),
    ]);
    expect(org.code, org.stderr).toBe(0);
    const holders = (JSON.parse(org.stdout) as WhoCanJson).holders.map((h) => `${h.identity.path} ${h.identity.managed} ${h.group} ${h.via.kind}`);
    expect(holders).toEqual(["/ops/xbot unmanaged /eng/team binding", "/owner unmanaged / binding"]);
    expect(stackOnly.stdout).toBe("who can groups.delete at /eng/team (now): 0 identities\n");
  }, LONG);

  it("a pull request binding ybot owner at eng shows what it opens for xbot: owner at eng by assuming ybot, through an object no stack manages", async ({ expect }) => {
    const r = await access(["--format", "json"], changed);
    expect(r.code, r.stderr).toBe(1);
    const changes = (JSON.parse(r.stdout) as AccessJson).changes!;
    const x = changes.filter((c) => c.change === "gained" && c.identity.uid === xbot && c.group === "/eng");
    expect(x.length, JSON.stringify(changes.map((c) => `${c.identity.path} ${c.group}`))).toBeGreaterThan(10);
    expect(x[0]!.identity).toMatchObject({ path: "/ops/xbot", managed: "unmanaged" });
    const del = x.find((c) => c.capability === "groups.delete")!;
    expect(del.via[0]!.kind).toBe("escalation");
    expect(del.via[0]!.steps.join(" ")).toMatch(/"xbot" .*ybot/);
    // ybot's own gain is there too, marked as this stack's.
    expect(changes.some((c) => c.identity.path === "/eng/team/ybot" && c.identity.managed === "this stack" && c.group === "/eng")).toBe(true);
  }, LONG);

  it("the gate judges the same pull request on the whole org: it fails, and lists xbot's gain at /eng through ybot, the route marked as going through an identity no stack manages", async ({ expect }) => {
    const json = path.join(dir, "gate.json");
    const r = await runBin(["gate", "--stack", STACK, "--cwd", program, "--format", "markdown", "--json-out", json], { ...env, ORG_FILE: changed });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(json, "utf8")) as GateReport;
    expect(report.scope).toBe("org");
    const x = report.access!.changes.filter((c) => c.change === "gained" && c.identity.uid === xbot && c.group === "/eng");
    expect(x.length, JSON.stringify(report.access!.changes.map((c) => `${c.identity.path} ${c.group}`))).toBeGreaterThan(10);
    expect(x[0]!.identity).toMatchObject({ path: "/ops/xbot", managed: "unmanaged" });
    expect(x.find((c) => c.capability === "groups.delete")!.via[0]).toMatchObject({ kind: "escalation", outside: ["/ops/xbot (unmanaged)"] });
    // The pull request comment says what was read and marks the route.
    expect(r.stdout).toContain("#### Access this change gives and takes (the whole org)");
    expect(r.stdout).toMatch(/\| \*\*xbot\*\* `\/ops\/xbot` \(unmanaged\) \| \+ gained \| owner \| `\/eng` \| "xbot" rewrites the claimMatch of identity "ybot" .*<br>\*through objects outside this stack: \/ops\/xbot \(unmanaged\)\* \|/);
    // The pack's own finding names it too, as a reviewer of a plain preview would read it.
    expect(report.violations.some((v) => v.policy === "no-new-access" && v.message.startsWith("identity /ops/xbot gains owner at /eng") && v.message.includes("through objects outside this stack: /ops/xbot (unmanaged)"))).toBe(true);
  }, LONG);

  it(`a fleet of ${FLEET} identities trusting one workload is listed once, as a class with its members: JSON, Markdown and --who-can`, async ({ expect }) => {
    const [json, md, who] = await Promise.all([
      access(["--current", "--format", "json"]),
      access(["--current", "--format", "markdown"]),
      access(["--current", "--who-can", "groups.list", "--at", "/ops/fg3x", "--format", "json"]),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as AccessJson & { classes: Array<{ id: string; members: Array<{ path: string; managed: string }> }> };
    expect(report.classes).toHaveLength(1);
    const fleet = report.classes[0]!;
    expect(fleet.members.map((m) => m.path).sort()).toEqual(Array.from({ length: FLEET }, (_, i) => `/ops/fg${i}x/fleet-${i}`).sort());
    expect(fleet.members.every((m) => m.managed === "unmanaged")).toBe(true);
    // What the class holds, once: viewer's reads at each fleet group, by presenting as the member bound there.
    const rows = report.grants!.filter((g) => (g.identity as { class?: string }).class === fleet.id);
    expect(new Set(rows.map((g) => g.group))).toEqual(new Set(Array.from({ length: FLEET }, (_, i) => `/ops/fg${i}x`)));
    expect(rows.every((g) => (g.identity as { size?: number }).size === FLEET && g.via[0]!.steps[0]!.startsWith("each identity of the class presents as identity"))).toBe(true);
    // Member by member, each of the 12 would list all 12 groups' reads: 12 times as many rows.
    const own = report.grants!.filter((g) => g.identity.path.startsWith("/ops/fg") && (g.identity as { class?: string }).class === undefined);
    const caps = new Set(rows.map((g) => g.capability)).size;
    expect(rows.length + own.length).toBe(2 * FLEET * caps);
    // Named by its first member (in the org's order), with how many more.
    expect(md.stdout).toMatch(/\*\*fleet-(\d+)\*\* `\/ops\/fg\1x\/fleet-\1` and 11 more identities that present for each other \(unmanaged\)/);
    // --who-can names every member that holds it, each its own row.
    const holders = (JSON.parse(who.stdout) as WhoCanJson).holders.filter((h) => h.identity.path.startsWith("/ops/fg")).map((h) => h.identity.path);
    expect(holders).toHaveLength(FLEET);
  }, LONG);

  it("the gate whose org read fails while its preview runs: the pack does not wait forever, and the gate says why it could not judge (exit 2)", async ({ expect }) => {
    // A root group the API does not hold: the org read under it fails; the preview itself runs.
    const r = await runBin(["gate", "--stack", STACK, "--cwd", program, "--format", "json"], { ...env, ORG_FILE: base, PLATFORM_ORG_UID: "0123456789abcdef0123456789abcdef01234567" });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const report = JSON.parse(r.stdout) as GateReport;
    expect(report.errors.some((e) => e.startsWith("the whole org could not be read from the API"))).toBe(true);
    expect(report.scope).toBe("stack");
  }, LONG);
});
