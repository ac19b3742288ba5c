/**
 * Unused access and exclusions as code (docs/access.md, docs/policy.md), as a team meets them: the
 * built bin (`platform-pulumi access --unused`, `platform-pulumi gate`) and the real Pulumi CLI with the shipped
 * pack, against the emulator in another process (`dist/emulator/cli.js --control`), on the gate's org
 * (test/fixtures/gate/org.yaml: gha-deployer editor at /platform, argo-sync editor at /platform/argo, two viewers).
 *
 * Time is the emulator's clock (its control surface's `clockOffsetMs`): the org is created with the clock set
 * back 100 days, then the clock is set back to now and argo-sync exchanges a token. So gha-deployer holds
 * critical access and was never seen since its creation 100 days ago; argo-sync was seen today; the viewers hold
 * only `low` reads.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SilencedFinding } from "../provider/access/exclusions";
import type { UnusedReport } from "../provider/access/unused";
import type { AccessJson } from "../provider/commands/access";
import type { GateReport } from "../provider/commands/gate";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { removeStack, stackEnv, upStack } from "./harness/stack";
import type { PolicyResource, StackValidationArgs } from "@pulumi/policy";
import { stackObjects } from "../policies/access";
import { unusedAccessWith } from "../policies/unused";
import { runBin } from "./harness/bin";
import { startStandalone, type StandaloneEmulator } from "./standalone";

const LONG = 600_000;
const STACK = "access-unused";
const DAY = 86_400_000;
const program = path.join(REPO_ROOT, "test", "programs", "gate");

let emu: StandaloneEmulator;
let dir: string;
let env: NodeJS.ProcessEnv;
let base: string;
let issuer: string;
let uids: Record<string, string>;

/** Sets the emulator's clock offset through its control surface. */
async function clock(offsetMs: number): Promise<void> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}/_emulator/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ clockOffsetMs: offsetMs }) });
  expect(r.status, await r.text()).toBe(200);
}

/** An org file: the gate's org with `edit` applied, the test issuer filled in. */
function orgFile(name: string, edit: (text: string) => string = (t) => t): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, edit(readFileSync(path.join(REPO_ROOT, "test", "fixtures", "gate", "org.yaml"), "utf8")).replaceAll("ISSUER", issuer));
  return file;
}

/** A policy pack config file with `json` in it. */
function config(name: string, json: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

/** Runs the bin's `command` on the stack with `file` as the program's org file. */
function bin(command: "gate" | "access", args: string[], file = base, extra: NodeJS.ProcessEnv = {}) {
  return runBin([command, "--cwd", program, "--stack", STACK, ...args], { ...env, ORG_FILE: file, ...extra });
}

/** Mints an OIDC token for `subject` from the emulator's test issuer and exchanges it for `identity`'s API token. */
async function exchange(subject: string, identity: string): Promise<number> {
  const api = emu.env.PLATFORM_API_URL;
  const minted = (await (await fetch(`${issuer}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ subject }) })).json()) as { id_token: string };
  return (await fetch(`${api}/sts/exchange?${new URLSearchParams({ aud: api, identity })}`, { headers: { authorization: `Bearer ${minted.id_token}` } })).status;
}

const live = "2099-12-31";
const expired = "2020-01-31";

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir);
});

beforeAll(async () => {
  emu = await startStandalone(["--control"]);
  issuer = `${emu.env.PLATFORM_API_URL}/oidc`;
  dir = mkdtempSync(path.join(tmpdir(), "access-unused-"));
  base = orgFile("base");
  const cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env, ORG_FILE: base } }, () => clock(-100 * DAY));
  await clock(0);
  uids = JSON.parse((await cli.ok(["stack", "output", "identityUids", "--json"])).stdout) as Record<string, string>;
  expect(await exchange("system:serviceaccount:argocd:argocd-application-controller", uids["platform/argo/argo-sync"]!)).toBe(200);
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
}, LONG);

describe("platform-pulumi access --unused", () => {
  it("reports the identity holding critical access that exchanged no token in the window, not the one that did", async () => {
    const r = await bin("access", ["--unused", "--days", "90", "--format", "json"]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.days).toBe(90);
    expect(json.unused.map((u) => u.identity.path)).toEqual(["/platform/ci-cd/gha-deployer"]);
    const deployer = json.unused[0]!;
    expect(deployer).toMatchObject({ severity: "critical", neverSeen: true, identity: { uid: uids["platform/ci-cd/gha-deployer"] } });
    expect(deployer.idleDays).toBeGreaterThanOrEqual(99);
    expect(deployer.holds.find((h) => h.group === "/platform" && h.how[0] === "editor bound at /platform")?.gives).toBe("editor");
    expect(json.unreadable).toEqual([]);

    const table = await bin("access", ["--unused"]);
    expect(table.code).toBe(1);
    console.log(`access --unused (table):\n${table.stdout}`);
    expect(table.stdout).toMatch(/^1 identity holds high or critical access and was not seen in the last 90 days/);
    expect(table.stdout).toMatch(/\[critical\] \/platform\/ci-cd\/gha-deployer {2}never seen since its creation on \d{4}-\d\d-\d\d \(\d+ days ago\)\n {4}at \/platform: editor \(editor bound at \/platform\)/);
    expect(table.stdout).not.toContain("argo-sync");
    const md = await bin("access", ["--unused", "--format", "markdown"]);
    expect(md.stdout).toMatch(/\| critical \| `\/platform\/ci-cd\/gha-deployer` \| never seen since its creation/);

    // A window longer than the org's age: gha-deployer, made 100 days ago and never seen, has not had 365 days to
    // be used, so nobody is reported (an identity a pull request adds today is not unused access either).
    const long = await bin("access", ["--unused", "--days", "365", "--format", "json"]);
    expect(long.code, long.stderr).toBe(0);
    expect((JSON.parse(long.stdout) as UnusedReport).unused).toEqual([]);
  }, LONG);

  it("--days is validated: the flag, its value and what is allowed; exit 2. Without API settings, exit 2; the window may come from --config", async () => {
    const none = await bin("access", ["--unused"], base, { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--unused reads each identity's lastSeenTime from the API, and no API settings were found");
    const fromConfig = await bin("access", ["--unused", "--format", "json", "--config", config("days", { "unused-access": { days: 200 } })]);
    expect((JSON.parse(fromConfig.stdout) as UnusedReport).days).toBe(200);
    for (const v of ["0", "-3", "ninety", "1.5"]) {
      const r = await bin("access", ["--unused", `--days=${v}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--days: "${v}" is not a positive whole number of days`);
    }
  }, LONG);
});

describe("exclusions as code", () => {
  const pr = () => orgFile("pr", (t) => `${t.trimEnd()}\n  - identity: platform/ci-cd/gha-pr-checks\n    group: platform/argo\n    role: editor\n`);
  const prChecks = (expires: string) => ({ identity: "/platform/ci-cd/gha-pr-checks", capability: "*", group: "/platform/argo", reason: "PR checks deploy docs to argo; reviewed by security (SEC-12)", expires });
  const deployer = (expires: string) => ({ identity: uids["platform/ci-cd/gha-deployer"], capability: "*", group: "/platform", reason: "break-glass deployer, used yearly; reviewed by security", expires });

  it("access --unused: a live exclusion silences the finding and lists it with its reason; an expired one fails and says so", async () => {
    const r = await bin("access", ["--unused", "--format", "json", "--config", config("unused-live", { "unused-access": { exclusions: [deployer(live)] } })]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.unused).toEqual([]);
    expect(json.silenced.length).toBeGreaterThan(0);
    expect(new Set(json.silenced.map((s) => `${s.policy} ${s.identity.path} ${s.reason} ${s.expires}`))).toEqual(new Set([`unused-access /platform/ci-cd/gha-deployer ${deployer(live).reason} ${live}`]));
    const table = await bin("access", ["--unused", "--config", config("unused-live", { "unused-access": { exclusions: [deployer(live)] } })]);
    expect(table.stdout).toMatch(/silenced by exclusions:\n {2}unused-access: \/platform\/ci-cd\/gha-deployer at \/platform: \d+ grant\(s\) .* silenced until 2099-12-31: break-glass deployer/);

    const old = await bin("access", ["--unused", "--config", config("unused-expired", { "unused-access": { exclusions: [deployer(expired)] } })]);
    expect(old.code, old.stderr).toBe(1);
    expect(old.stdout).toContain("[critical] /platform/ci-cd/gha-deployer");
    expect(old.stdout).toMatch(/exclusion of \* for [0-9a-f/]+ at \/platform expired on 2020-01-31 \("break-glass deployer, used yearly; reviewed by security"\): its \d+ finding\(s\) count again/);
  }, LONG);

  it("access (the change): a live exclusion of no-new-access silences the gained rows (exit 0, JSON silenced); expired, it fails", async () => {
    const file = pr();
    const bare = await bin("access", ["--format", "json"], file);
    expect(bare.code, bare.stderr).toBe(1);
    expect((JSON.parse(bare.stdout) as AccessJson).silenced).toBeUndefined();
    const r = await bin("access", ["--format", "json", "--config", config("nna-live", { "no-new-access": { exclusions: [prChecks(live)] } })], file);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as AccessJson;
    expect(json.changes!.filter((c) => c.change === "gained")).toEqual([]);
    expect(json.silenced!.length).toBe((JSON.parse(bare.stdout) as AccessJson).changes!.filter((c) => c.change === "gained").length);
    expect(json.silenced!.every((s) => s.policy === "no-new-access" && s.identity.path === "/platform/ci-cd/gha-pr-checks" && s.reason === prChecks(live).reason)).toBe(true);
    const old = await bin("access", ["--config", config("nna-expired", { "no-new-access": { exclusions: [prChecks(expired)] } })], file);
    expect(old.code).toBe(1);
    expect(old.stdout).toContain("exclusion of * for /platform/ci-cd/gha-pr-checks at /platform/argo expired on 2020-01-31");
  }, LONG);

  it("the gate and the real pack: a live exclusion passes and is listed as silenced with its reason; expired, the finding fails and says so", async () => {
    const file = pr();
    const gate = async (cfg: string | undefined) => {
      const json = path.join(dir, "gate.json");
      rmSync(json, { force: true });
      const md = await bin("gate", ["--format", "markdown", "--json-out", json, ...(cfg ? ["--config", cfg] : [])], file);
      return { code: md.code, markdown: md.stdout, stderr: md.stderr, report: JSON.parse(readFileSync(json, "utf8")) as GateReport };
    };
    const bare = await gate(undefined);
    expect(bare.code, bare.markdown).toBe(1);
    const ok = await gate(config("gate-live", { "no-new-access": { exclusions: [prChecks(live)] } }));
    expect(ok.code, ok.markdown + ok.stderr).toBe(0);
    const silenced = ok.report.silenced as SilencedFinding[];
    expect(silenced.length).toBeGreaterThan(0);
    expect(new Set(silenced.map((s) => `${s.policy} ${s.identity.path} ${s.group} ${s.reason}`))).toEqual(new Set([`no-new-access /platform/ci-cd/gha-pr-checks /platform/argo ${prChecks(live).reason}`]));
    expect(ok.report.violations.filter((v) => v.policy === "no-new-access")).toEqual([]);
    expect(ok.markdown).toContain("Silenced by exclusions (until they expire):");
    expect(ok.markdown).toMatch(/no-new-access: \/platform\/ci-cd\/gha-pr-checks at \/platform\/argo: \d+ grant\(s\) .* silenced until 2099-12-31: PR checks deploy docs/);

    const old = await gate(config("gate-expired", { "no-new-access": { exclusions: [prChecks(expired)] } }));
    expect(old.code, old.markdown).toBe(1);
    const nna = old.report.violations.filter((v) => v.policy === "no-new-access");
    expect(nna.length).toBeGreaterThan(0);
    expect(nna.some((v) => v.message.includes('exclusion of * for /platform/ci-cd/gha-pr-checks at /platform/argo expired on 2020-01-31 ("PR checks deploy docs'))).toBe(true);
    expect(old.report.silenced).toBeUndefined();
  }, LONG);

  it("unused-access in the pack reads lastSeenTime from the API: mandatory, it fails on the deployer; a live exclusion silences it", async () => {
    const run = async (cfg: unknown) => {
      const json = path.join(dir, "gate-unused.json");
      rmSync(json, { force: true });
      const r = await bin("gate", ["--format", "json", "--json-out", json, "--config", config("gate-unused", cfg)]);
      return { code: r.code, report: JSON.parse(readFileSync(json, "utf8")) as GateReport, stderr: r.stderr };
    };
    const bare = await run({ "unused-access": { enforcementLevel: "mandatory", days: 90 } });
    expect(bare.code, JSON.stringify(bare.report.violations) + bare.stderr).toBe(1);
    const found = bare.report.violations.filter((v) => v.policy === "unused-access");
    expect(found.map((v) => [v.severity, v.status, v.resource])).toEqual([["critical", "new", "Identity::org/platform/ci-cd/gha-deployer"]]);
    expect(found[0]!.message).toMatch(/^identity \/platform\/ci-cd\/gha-deployer holds owner \+ 17 more: .* at \/platform and was never seen since its creation on .*, outside the 90-day window/);
    const ok = await run({ "unused-access": { enforcementLevel: "mandatory", days: 90, exclusions: [deployer(live)] } });
    expect(ok.code, JSON.stringify(ok.report.violations)).toBe(0);
    expect(ok.report.violations.filter((v) => v.policy === "unused-access")).toEqual([]);
    expect(new Set((ok.report.silenced ?? []).map((s) => `${s.policy} ${s.identity.path}`))).toEqual(new Set(["unused-access /platform/ci-cd/gha-deployer"]));
  }, LONG);

  it("a malformed exclusion exits 2 naming the field, its value and what is allowed (access and gate)", async () => {
    const bad = config("bad", { "no-new-access": { exclusions: [{ ...prChecks(live), expires: "2026-02-30" }] } });
    const a = await bin("access", ["--current", "--config", bad]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('no-new-access.exclusions[0].expires: "2026-02-30" must be a date YYYY-MM-DD');
    const g = await bin("gate", ["--config", bad]);
    expect(g.code).toBe(2);
    expect(g.stderr + g.stdout).toContain('no-new-access.exclusions[0].expires: "2026-02-30" must be a date YYYY-MM-DD');
    const missing = config("missing", { "unused-access": { exclusions: [{ identity: "/x", capability: "*", group: "platform", expires: live, until: 1 }] } });
    const m = await bin("access", ["--unused", "--config", missing]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("unused-access.exclusions[0]: unknown field(s) until");
    expect(m.stderr).toContain('unused-access.exclusions[0].group: "platform" must be a group path starting with /');
    expect(m.stderr).toContain("unused-access.exclusions[0].reason: (missing) must be a string");
  }, LONG);
});

describe("the window, on the emulator's clock", () => {
  it("seen 95 days ago: reported with --days 90 (last seen, not never), not with --days 100; seen today: exit 0", async () => {
    const deployerUid = uids["platform/ci-cd/gha-deployer"]!;
    await clock(-95 * DAY);
    try {
      expect(await exchange("repo:my-org/deploy:ref:refs/heads/main", deployerUid)).toBe(200);
    } finally {
      await clock(0);
    }
    const r = await bin("access", ["--unused", "--days", "90", "--format", "json"]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.unused.map((u) => [u.identity.path, u.neverSeen, u.idleDays])).toEqual([["/platform/ci-cd/gha-deployer", false, 95]]);
    expect((await bin("access", ["--unused", "--days", "100"])).code).toBe(0);

    expect(await exchange("repo:my-org/deploy:ref:refs/heads/main", deployerUid)).toBe(200);
    const now = await bin("access", ["--unused", "--format", "json"]);
    expect(now.code, now.stderr).toBe(0);
    expect((JSON.parse(now.stdout) as UnusedReport).unused).toEqual([]);

    // An identity deleted outside Pulumi (the state still holds it): said, not judged; nothing reported, so exit 2.
    const argo = uids["platform/argo/argo-sync"]!;
    const del = await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/identities/${argo}`, { method: "DELETE", headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` } });
    expect(del.status, await del.text()).toBe(200);
    const gone = await bin("access", ["--unused"]);
    expect(gone.code, gone.stderr).toBe(2);
    expect(gone.stdout).toContain(`could not read /platform/argo/argo-sync (${argo}) from the API:`);
  }, LONG);
});

describe("unused-access without API settings reads the identities' outputs", () => {
  it("reports an identity whose outputs say it was never seen, not one seen today", async () => {
    const root = "a".repeat(40);
    const res = (kind: string, name: string, props: Record<string, unknown>) => ({ type: `pulumi-nodejs:dynamic/platform:${kind}`, urn: `urn:pulumi:s::p::pulumi-nodejs:dynamic/platform:${kind}::${name}`, name, props, opts: {}, dependencies: [], propertyDependencies: {} }) as unknown as PolicyResource;
    const old = new Date(Date.now() - 120 * DAY).toISOString();
    const resources = [
      res("Identity", "old", { uid: `${root}/1111111111111111`, name: "old", parentUid: root, createTime: old, lastSeenTime: old }),
      res("Identity", "fresh", { uid: `${root}/2222222222222222`, name: "fresh", parentUid: root, createTime: old, lastSeenTime: new Date().toISOString() }),
      res("RoleBinding", "b1", { identityUid: `${root}/1111111111111111`, roleUid: "r-editor", groupUid: root, role: { name: "editor" } }),
      res("RoleBinding", "b2", { identityUid: `${root}/2222222222222222`, roleUid: "r-editor", groupUid: root, role: { name: "editor" } }),
    ];
    const policy = unusedAccessWith(() => ({ role: async () => undefined, identity: undefined }), stackObjects);
    const found: string[] = [];
    const args = { resources, getConfig: () => ({ days: 90 }), stackTags: new Map(), notApplicable: () => undefined as never } as unknown as StackValidationArgs;
    await (policy.validateStack as (a: StackValidationArgs, r: (m: string) => void) => Promise<void>)(args, (m) => found.push(m));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^\[critical\] identity \/old holds owner \+ 17 more: .* at \/ and was never seen since its creation on .* \(120 days ago\), outside the 90-day window/);
  });
});
