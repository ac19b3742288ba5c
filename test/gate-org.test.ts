/**
 * The review gate on the gate's org, as a team meets it in pull requests: the built bin (`platform-pulumi gate`,
 * `access`, `drift`) and the real Pulumi CLI with the shipped pack, against the emulator in another process
 * (`dist/emulator/cli.js --control`), on ONE stack of an org declared through `Org` (test/fixtures/gate/org.yaml:
 * gha-deployer editor at /platform, argo-sync editor at /platform/argo, two viewers; bindings and identities at the
 * root group from ROOT_BINDINGS and ROOT_IDENTITIES). This file is the former gate-change.test.ts, sarif.test.ts and
 * access-unused.test.ts, which each brought this org up on an emulator of its own.
 *
 * The stack: the org is created with the emulator's clock (its control surface's `clockOffsetMs`) set back 100
 * days, then the clock is set back to now and argo-sync exchanges a token. So gha-deployer holds critical access and
 * was never seen since its creation 100 days ago; argo-sync was seen today; the viewers hold only `low` reads. The
 * org files live in the repository (.pulumi-work/), as a team's do, so SARIF findings get repository-relative URIs.
 *
 * The order is the one the stack's story allows (vitest runs a file's tests in order):
 * 1. unused access and exclusions as code (docs/access.md, docs/policy.md), while gha-deployer has never been seen;
 * 2. the window on the emulator's clock: gha-deployer seen 95 days ago, then today (from then on the pack's advisory
 *    `unused-access` finds nobody in the org, as on an org created today);
 * 3. the gate judging each pull request (docs/policy.md "The gate", docs/access.md) against the stack's state: the
 *    org unchanged, a benign edit, severity from what is gained, a read-only role, owner at the root, a broad claim
 *    pattern, a preview that cannot run;
 * 4. `--format sarif` (docs/access.md "SARIF for code scanning") of gate, access and drift, validated against the
 *    OASIS schema (the copy @microsoft/jest-sarif ships, checked with Ajv), each finding where it is declared;
 * 5. the changes applied: the sibling-group takeover carried out with exchanged tokens; root identities up (the broad
 *    claim's exchange; a finding keeping its fingerprint once applied);
 * 6. an identity deleted outside Pulumi, for `access --unused`.
 *
 * Engine runs: each pull request is judged by ONE run of the bin with `--json-out`; the Markdown a reviewer reads is
 * `formatGate` (provider/commands/gate.ts) over that report, checked equal to what the bin printed whenever the bin
 * printed Markdown. A scenario several tests read is run once ({@link once}). Previews that change nothing and are
 * independent run at once, at most 3 ({@link atOnce}): those of one test, and the tests of "exclusions as code" and
 * "the gate judges the change" (describe.concurrent); what moves the clock or applies a change runs alone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyResource, StackValidationArgs } from "@pulumi/policy";
import type { SilencedFinding } from "../provider/access/exclusions";
import type { UnusedReport } from "../provider/access/unused";
import type { AccessJson } from "../provider/commands/access";
import { formatGate, type GateReport } from "../provider/commands/gate";
import type { SarifLog, SarifResult } from "../provider/commands/sarif";
import { stackObjects } from "../policies/access";
import { unusedAccessWith } from "../policies/unused";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { runBin } from "./harness/bin";
import { readDocs } from "./harness/docs";
import { once } from "./harness/reports";
import { removeStack, stackEnv, upStack, withBinding } from "./harness/stack";
import { startStandalone, type StandaloneEmulator } from "./standalone";
import { settled, slots } from "./harness/limit";

const LONG = 600_000;
const STACK = "gate-org";
const DAY = 86_400_000;
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
/** Temporary: the backend and the policy pack config files. */
let dir: string;
/** In the repository (.pulumi-work/): the org files. */
let inRepo: string;
let cli: PulumiCli;
let env: NodeJS.ProcessEnv;
let base: string;
/** The SARIF pull request: the GitOps identity becomes editor of platform, above its group (critical, new). */
let changed: string;
let issuer: string;
let uids: Record<string, string>;

/** A root identity bound owner at the root whose claimMatch is one subject. */
const release = (name: string, subject: string) => ({ name, claimMatch: { issuer, subject }, role: "owner" });
/** The broad claim pattern: a root identity bound owner at the root that every repository of my-org's tokens match. */
const broadRelease = () => ({ name: "release", claimMatch: { issuer, subjectPattern: "repo:my-org/.*" }, role: "owner" });

/** Sets the emulator's clock offset through its control surface. */
async function clock(offsetMs: number): Promise<void> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}/_emulator/control`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ clockOffsetMs: offsetMs }) });
  expect(r.status, await r.text()).toBe(200);
}

/** An org file in the repository: the gate's org with `edit` applied to its text, the test issuer filled in. */
function orgFile(name: string, edit: (text: string) => string = (t) => t): string {
  const file = path.join(inRepo, `${name}.yaml`);
  writeFileSync(file, edit(readFileSync(path.join(REPO_ROOT, "test", "fixtures", "gate", "org.yaml"), "utf8")).replaceAll("ISSUER", issuer));
  return file;
}

/** A policy pack config file with `json` in it. */
function config(name: string, json: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

/** The stack's CLI with `extra` in the program's environment (another org file, root bindings). */
function cliWith(extra: NodeJS.ProcessEnv): PulumiCli {
  return new PulumiCli({ ...cli.opts, env: { ...cli.opts.env, ...extra } });
}

/**
 * The previews of the stack a test (or a concurrent describe) starts together are of one stack on the file backend,
 * where a preview takes no lock (docs/cli.md, "When another update holds the stack's lock"): they overlap, at most 3
 * at once ({@link slots}).
 */
const atOnce = slots(3);

/** Runs the bin's `command` on the stack with `file` as the program's org file (at most 3 at once: {@link atOnce}). */
function bin(command: "gate" | "access" | "drift", file: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return atOnce(() => runBin([command, "--cwd", program, "--stack", STACK, ...args], { ...env, ORG_FILE: file, ...extra }));
}

/** Runs `platform-pulumi <command> --format sarif` on the stack with `file` as the org file and `roots` as root identities. */
function sarif(command: "gate" | "access" | "drift", file: string, roots: Array<ReturnType<typeof release> | ReturnType<typeof broadRelease>>, args: string[] = []) {
  return bin(command, file, ["--format", "sarif", ...args], { ROOT_IDENTITIES: JSON.stringify(roots) });
}

/** How many pull requests were judged: each {@link judge} writes its own `--json-out` file. */
let judged = 0;

/**
 * Judges a pull request with ONE run of `gate --json-out <file> --format <format>` (Markdown by default, SARIF for
 * the SARIF tests): the report (the file), the exit code, stdout and stderr, the gains, and the Markdown a reviewer
 * reads, which is `formatGate` over the report; when the bin printed Markdown, it is checked to be exactly that.
 */
async function judge(file: string, extra: NodeJS.ProcessEnv = {}, args: string[] = [], format: "markdown" | "sarif" = "markdown") {
  // A file of its own: judges run at once.
  const json = path.join(dir, `gate-${++judged}.json`);
  rmSync(json, { force: true });
  const r = await bin("gate", file, ["--format", format, "--json-out", json, ...args], extra);
  const report = JSON.parse(readFileSync(json, "utf8")) as GateReport;
  const markdown = formatGate(report, "markdown", r.code, { jsonFile: json });
  if (format === "markdown") expect(r.stdout, "the bin's Markdown is formatGate over the report it wrote").toBe(markdown);
  const gained = (report.access?.changes ?? []).filter((c) => c.change === "gained");
  // The figures the closing note gives for each pull request.
  console.log(`gate ${path.basename(file)} ${JSON.stringify(extra)} ${args.join(" ")}: exit ${r.code}, ${gained.length} gained entries, Markdown ${markdown.length} characters`);
  return { code: r.code, markdown, stdout: r.stdout, stderr: r.stderr, report, gained };
}

/** Mints an OIDC token for `subject` from the emulator's test issuer and exchanges it for `identity`'s API token. */
async function exchange(subject: string, identity: string): Promise<{ status: number; token?: string; body: unknown }> {
  const api = emu.env.PLATFORM_API_URL;
  const minted = (await (await fetch(`${issuer}/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ subject }) })).json()) as { id_token: string };
  const r = await fetch(`${api}/sts/exchange?${new URLSearchParams({ aud: api, identity })}`, { headers: { authorization: `Bearer ${minted.id_token}` } });
  const body = (await r.json()) as { token?: string };
  return { status: r.status, body, ...(body.token ? { token: body.token } : {}) };
}

/** An API call with `token`. */
async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${emu.env.PLATFORM_API_URL}${url}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const live = "2099-12-31";
const expired = "2020-01-31";

afterAll(async () => {
  await emu?.stop();
  removeStack(program, STACK, dir, inRepo);
});

beforeAll(async () => {
  emu = await startStandalone(["--control"]);
  issuer = `${emu.env.PLATFORM_API_URL}/oidc`;
  dir = mkdtempSync(path.join(tmpdir(), "gate-org-"));
  mkdirSync(path.join(REPO_ROOT, ".pulumi-work"), { recursive: true });
  inRepo = mkdtempSync(path.join(REPO_ROOT, ".pulumi-work", "gate-org-"));
  base = orgFile("org");
  changed = path.join(inRepo, "org-changed.yaml");
  writeFileSync(changed, withBinding(readFileSync(base, "utf8"), { identity: "platform/argo/argo-sync", group: "platform", role: "editor" }));
  cli = await upStack({ cwd: program, backendDir: path.join(dir, "backend"), stack: STACK, env: { ...emu.env, ORG_FILE: base } }, () => clock(-100 * DAY));
  await clock(0);
  uids = JSON.parse((await cli.ok(["stack", "output", "identityUids", "--json"])).stdout) as Record<string, string>;
  expect((await exchange("system:serviceaccount:argocd:argocd-application-controller", uids["platform/argo/argo-sync"]!)).status).toBe(200);
  env = stackEnv(path.join(dir, "backend"), { ...process.env, ...emu.env });
}, LONG);

/** The org unchanged, judged once with `--format sarif`: its report (the gate's tests) and its SARIF (the fingerprint of a finding already present). */
const unchanged = once(() => judge(base, {}, [], "sarif"));
/** The SARIF pull request (argo-sync editor of platform) with two root identities bound owner at the root, judged once with `--format sarif`. */
const changedWithRoots = once(() => judge(changed, { ROOT_IDENTITIES: JSON.stringify([release("release", "repo:my-org/release"), release("release2", "repo:my-org/release2")]) }, [], "sarif"));
/** The root identities applied by `up --refresh` (the broad claim pattern's `release`, and `release2`), which also puts back the org file and what was changed outside Pulumi. */
const rootsApplied = once(async () => {
  await cliWith({ ORG_FILE: base, ROOT_IDENTITIES: JSON.stringify([broadRelease(), release("release2", "repo:my-org/release2")]) }).ok(["up", "--yes", "--skip-preview", "--refresh"]);
});

// ---- 1. access-unused.test.ts: unused access and exclusions as code (gha-deployer never seen) ----

describe("platform-pulumi access --unused", () => {
  it("reports the identity holding critical access that exchanged no token in the window, not the one that did", async () => {
    // Four reads of the API and the state, at once.
    const [r, table, md, long] = await settled([
      bin("access", base, ["--unused", "--days", "90", "--format", "json"]),
      bin("access", base, ["--unused"]),
      bin("access", base, ["--unused", "--format", "markdown"]),
      bin("access", base, ["--unused", "--days", "365", "--format", "json"]),
    ]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.days).toBe(90);
    expect(json.unused.map((u) => u.identity.path)).toEqual(["/platform/ci-cd/gha-deployer"]);
    const deployer = json.unused[0]!;
    expect(deployer).toMatchObject({ severity: "critical", neverSeen: true, identity: { uid: uids["platform/ci-cd/gha-deployer"] } });
    expect(deployer.idleDays).toBeGreaterThanOrEqual(99);
    expect(deployer.holds.find((h) => h.group === "/platform" && h.how[0] === "editor bound at /platform")?.gives).toBe("editor");
    expect(json.unreadable).toEqual([]);

    expect(table.code).toBe(1);
    console.log(`access --unused (table):\n${table.stdout}`);
    expect(table.stdout).toMatch(/^1 identity holds high or critical access and was not seen in the last 90 days/);
    expect(table.stdout).toMatch(/\[critical\] \/platform\/ci-cd\/gha-deployer {2}never seen since its creation on \d{4}-\d\d-\d\d \(\d+ days ago\)\n {4}at \/platform: editor \(editor bound at \/platform\)/);
    expect(table.stdout).not.toContain("argo-sync");
    expect(md.stdout).toMatch(/\| critical \| `\/platform\/ci-cd\/gha-deployer` \| never seen since its creation/);

    // A window longer than the org's age: gha-deployer, made 100 days ago and never seen, has not had 365 days to
    // be used, so nobody is reported (an identity a pull request adds today is not unused access either).
    expect(long.code, long.stderr).toBe(0);
    expect((JSON.parse(long.stdout) as UnusedReport).unused).toEqual([]);
  }, LONG);

  it("--days is validated: the flag, its value and what is allowed; exit 2. Without API settings, exit 2; the window may come from --config", async () => {
    const values = ["0", "-3", "ninety", "1.5"];
    const [none, fromConfig, ...bad] = await settled([
      bin("access", base, ["--unused"], { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" }),
      bin("access", base, ["--unused", "--format", "json", "--config", config("days", { "unused-access": { days: 200 } })]),
      ...values.map((v) => bin("access", base, ["--unused", `--days=${v}`])),
    ]);
    expect(none!.code).toBe(2);
    // The whole org (access's default scope) is read from the API first: without its settings, that says so.
    expect(none!.stderr).toContain("the whole org is read from the API under its root: no API settings or no root group uid");
    expect((JSON.parse(fromConfig!.stdout) as UnusedReport).days).toBe(200);
    for (const [i, v] of values.entries()) {
      const r = bad[i]!;
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--days: "${v}" is not a positive whole number of days`);
    }
  }, LONG);
});

// Its tests only read (the stack, the API), each with config files of its own: they run at once (their bin runs
// at most 3 at once, atOnce).
describe.concurrent("exclusions as code", () => {
  // Written once: two tests read it at once.
  let prFile: string | undefined;
  const pr = () => (prFile ??= orgFile("pr", (t) => `${t.trimEnd()}\n  - identity: platform/ci-cd/gha-pr-checks\n    group: platform/argo\n    role: editor\n`));
  const prChecks = (expires: string) => ({ identity: "/platform/ci-cd/gha-pr-checks", capability: "*", group: "/platform/argo", reason: "PR checks deploy docs to argo; reviewed by security (SEC-12)", expires });
  const deployer = (expires: string) => ({ identity: uids["platform/ci-cd/gha-deployer"], capability: "*", group: "/platform", reason: "break-glass deployer, used yearly; reviewed by security", expires });

  it("access --unused: a live exclusion silences the finding and lists it with its reason; an expired one fails and says so", async ({ expect }) => {
    const liveConfig = config("unused-live", { "unused-access": { exclusions: [deployer(live)] } });
    const [r, table, old] = await settled([
      bin("access", base, ["--unused", "--format", "json", "--config", liveConfig]),
      bin("access", base, ["--unused", "--config", liveConfig]),
      bin("access", base, ["--unused", "--config", config("unused-expired", { "unused-access": { exclusions: [deployer(expired)] } })]),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.unused).toEqual([]);
    expect(json.silenced.length).toBeGreaterThan(0);
    expect(new Set(json.silenced.map((s) => `${s.policy} ${s.identity.path} ${s.reason} ${s.expires}`))).toEqual(new Set([`unused-access /platform/ci-cd/gha-deployer ${deployer(live).reason} ${live}`]));
    expect(table.stdout).toMatch(/silenced by exclusions:\n {2}unused-access: \/platform\/ci-cd\/gha-deployer at \/platform: \d+ grant\(s\) .* silenced until 2099-12-31: break-glass deployer/);

    expect(old.code, old.stderr).toBe(1);
    expect(old.stdout).toContain("[critical] /platform/ci-cd/gha-deployer");
    expect(old.stdout).toMatch(/exclusion of \* for [0-9a-f/]+ at \/platform expired on 2020-01-31 \("break-glass deployer, used yearly; reviewed by security"\): its \d+ finding\(s\) count again/);
  }, LONG);

  it("access (the change): a live exclusion of no-new-access silences the gained rows (exit 0, JSON silenced); expired, it fails", async ({ expect }) => {
    const file = pr();
    // Three previews of the change at once.
    const [bare, r, old] = await settled([
      bin("access", file, ["--format", "json"]),
      bin("access", file, ["--format", "json", "--config", config("nna-live", { "no-new-access": { exclusions: [prChecks(live)] } })]),
      bin("access", file, ["--config", config("nna-expired", { "no-new-access": { exclusions: [prChecks(expired)] } })]),
    ]);
    expect(bare.code, bare.stderr).toBe(1);
    expect((JSON.parse(bare.stdout) as AccessJson).silenced).toBeUndefined();
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as AccessJson;
    expect(json.changes!.filter((c) => c.change === "gained")).toEqual([]);
    expect(json.silenced!.length).toBe((JSON.parse(bare.stdout) as AccessJson).changes!.filter((c) => c.change === "gained").length);
    expect(json.silenced!.every((s) => s.policy === "no-new-access" && s.identity.path === "/platform/ci-cd/gha-pr-checks" && s.reason === prChecks(live).reason)).toBe(true);
    expect(old.code).toBe(1);
    expect(old.stdout).toContain("exclusion of * for /platform/ci-cd/gha-pr-checks at /platform/argo expired on 2020-01-31");
  }, LONG);

  it("the gate and the real pack: a live exclusion passes and is listed as silenced with its reason; expired, the finding fails and says so", async ({ expect }) => {
    const file = pr();
    const gate = (cfg: string | undefined) => judge(file, {}, cfg ? ["--config", cfg] : []);
    // Three previews of the change at once.
    const [bare, ok, old] = await settled([
      gate(undefined),
      gate(config("gate-live", { "no-new-access": { exclusions: [prChecks(live)] } })),
      gate(config("gate-expired", { "no-new-access": { exclusions: [prChecks(expired)] } })),
    ]);
    expect(bare.code, bare.markdown).toBe(1);
    expect(ok.code, ok.markdown + ok.stderr).toBe(0);
    const silenced = ok.report.silenced as SilencedFinding[];
    expect(silenced.length).toBeGreaterThan(0);
    expect(new Set(silenced.map((s) => `${s.policy} ${s.identity.path} ${s.group} ${s.reason}`))).toEqual(new Set([`no-new-access /platform/ci-cd/gha-pr-checks /platform/argo ${prChecks(live).reason}`]));
    expect(ok.report.violations.filter((v) => v.policy === "no-new-access")).toEqual([]);
    expect(ok.markdown).toContain("Silenced by exclusions (until they expire):");
    expect(ok.markdown).toMatch(/no-new-access: \/platform\/ci-cd\/gha-pr-checks at \/platform\/argo: \d+ grant\(s\) .* silenced until 2099-12-31: PR checks deploy docs/);

    expect(old.code, old.markdown).toBe(1);
    const nna = old.report.violations.filter((v) => v.policy === "no-new-access");
    expect(nna.length).toBeGreaterThan(0);
    expect(nna.some((v) => v.message.includes('exclusion of * for /platform/ci-cd/gha-pr-checks at /platform/argo expired on 2020-01-31 ("PR checks deploy docs'))).toBe(true);
    expect(old.report.silenced).toBeUndefined();
  }, LONG);

  it("unused-access in the pack reads lastSeenTime from the API: mandatory, it fails on the deployer; a live exclusion silences it", async ({ expect }) => {
    const run = (name: string, cfg: unknown) => judge(base, {}, ["--config", config(name, cfg)]);
    // Two previews at once, each with its config file.
    const [bare, ok] = await settled([
      run("gate-unused", { "unused-access": { enforcementLevel: "mandatory", days: 90 } }),
      run("gate-unused-excluded", { "unused-access": { enforcementLevel: "mandatory", days: 90, exclusions: [deployer(live)] } }),
    ]);
    expect(bare.code, JSON.stringify(bare.report.violations) + bare.stderr).toBe(1);
    const found = bare.report.violations.filter((v) => v.policy === "unused-access");
    expect(found.map((v) => [v.severity, v.status, v.resource])).toEqual([["critical", "new", "Identity::org/platform/ci-cd/gha-deployer"]]);
    expect(found[0]!.message).toMatch(/^identity \/platform\/ci-cd\/gha-deployer holds owner \+ 17 more: .* at \/platform and was never seen since its creation on .*, outside the 90-day window/);
    expect(ok.code, JSON.stringify(ok.report.violations)).toBe(0);
    expect(ok.report.violations.filter((v) => v.policy === "unused-access")).toEqual([]);
    expect(new Set((ok.report.silenced ?? []).map((s) => `${s.policy} ${s.identity.path}`))).toEqual(new Set(["unused-access /platform/ci-cd/gha-deployer"]));
  }, LONG);

  it("a malformed exclusion exits 2 naming the field, its value and what is allowed (access and gate)", async ({ expect }) => {
    const bad = config("bad", { "no-new-access": { exclusions: [{ ...prChecks(live), expires: "2026-02-30" }] } });
    const missing = config("missing", { "unused-access": { exclusions: [{ identity: "/x", capability: "*", group: "platform", expires: live, until: 1 }] } });
    const [a, g, m] = await settled([bin("access", base, ["--current", "--config", bad]), bin("gate", base, ["--config", bad]), bin("access", base, ["--unused", "--config", missing])]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('no-new-access.exclusions[0].expires: "2026-02-30" must be a date YYYY-MM-DD');
    expect(g.code).toBe(2);
    expect(g.stderr + g.stdout).toContain('no-new-access.exclusions[0].expires: "2026-02-30" must be a date YYYY-MM-DD');
    expect(m.code).toBe(2);
    expect(m.stderr).toContain("unused-access.exclusions[0]: unknown field(s) until");
    expect(m.stderr).toContain('unused-access.exclusions[0].group: "platform" must be a group path starting with /');
    expect(m.stderr).toContain("unused-access.exclusions[0].reason: (missing) must be a string");
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

// ---- 2. access-unused.test.ts: the window on the emulator's clock (after it, gha-deployer was seen today) ----

describe("the window, on the emulator's clock", () => {
  it("seen 95 days ago: reported with --days 90 (last seen, not never), not with --days 100; seen today: exit 0", async () => {
    const deployerUid = uids["platform/ci-cd/gha-deployer"]!;
    await clock(-95 * DAY);
    try {
      expect((await exchange("repo:my-org/deploy:ref:refs/heads/main", deployerUid)).status).toBe(200);
    } finally {
      await clock(0);
    }
    const r = await bin("access", base, ["--unused", "--days", "90", "--format", "json"]);
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout) as UnusedReport;
    expect(json.unused.map((u) => [u.identity.path, u.neverSeen, u.idleDays])).toEqual([["/platform/ci-cd/gha-deployer", false, 95]]);
    expect((await bin("access", base, ["--unused", "--days", "100"])).code).toBe(0);

    expect((await exchange("repo:my-org/deploy:ref:refs/heads/main", deployerUid)).status).toBe(200);
    const now = await bin("access", base, ["--unused", "--format", "json"]);
    expect(now.code, now.stderr).toBe(0);
    expect((JSON.parse(now.stdout) as UnusedReport).unused).toEqual([]);
  }, LONG);
});

// ---- 3. gate-change.test.ts: the gate judges each pull request against the stack's state ----

// Each test previews its own pull request of the stack (nothing applied, the clock left alone): they run at once
// (their previews at most 3 at once, atOnce).
describe.concurrent("the gate judges the change", () => {
  it("the org unchanged passes: its findings are listed as already present; --all judges the whole stack", async ({ expect }) => {
    const [r, all] = await settled([unchanged(), judge(base, {}, ["--all"])]);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    const above = r.report.violations.filter((v) => v.policy === "identity-bound-above-its-group");
    expect(above.map((v) => [v.severity, v.status, v.message.match(/identity (\S+)/)?.[1]]).sort()).toEqual([
      ["critical", "already present", "/platform/ci-cd/gha-deployer"],
      ["low", "already present", "/payments/payments-api/payments-api-bot"],
    ]);
    expect(r.gained).toEqual([]);
    expect(r.markdown).toContain("policy gate: passed");
    expect(r.markdown).toMatch(/2 finding\(s\) already present before this change/);

    expect(all.code, all.markdown).toBe(1);
    expect(all.markdown).toMatch(/FAILED: 1 mandatory finding\(s\) \(1 critical\) at critical or high/);
  }, LONG);

  it("a description edited and a group added: passes, no access gained", async ({ expect }) => {
    const file = orgFile("benign", (t) => t.replace("description: Payments API", "description: Payments API (v2)").replace("        description: GitOps\n", "        description: GitOps\n      - name: docs\n        description: Docs site\n"));
    const r = await judge(file);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    expect(r.gained).toEqual([]);
    expect(r.report.violations.filter((v) => v.status === "new")).toEqual([]);
  }, LONG);

  it("severity from what is gained: a new identity bound viewer above its group is low and passes; editor there is critical and fails", async ({ expect }) => {
    const add = (role: string) => (t: string) =>
      t.replace("bindings:\n", "bindings:\n  - identity: payments/payments-api/payments-cron\n    group: payments\n    role: " + role + "\n").replace(
        "bindings:\n",
        "  - name: payments-cron\n    group: payments/payments-api\n    description: nightly job\n    claimMatch:\n      issuer: ISSUER\n      subject: system:serviceaccount:payments:cron\nbindings:\n",
      );
    const [viewer, editor] = await settled([judge(orgFile("viewer-above", add("viewer"))), judge(orgFile("editor-above", add("editor")))]);
    expect(viewer.code, viewer.markdown + viewer.stderr).toBe(0);
    const v = viewer.report.violations.find((x) => x.policy === "identity-bound-above-its-group" && x.message.includes("payments-cron"));
    expect(v).toMatchObject({ severity: "low", status: "new" });
    expect(new Set(viewer.gained.map((g) => g.severity))).toEqual(new Set(["low"]));

    expect(editor.code, editor.markdown).toBe(1);
    expect(editor.report.violations.find((x) => x.policy === "identity-bound-above-its-group" && x.message.includes("payments-cron"))).toMatchObject({ severity: "critical", status: "new" });
  }, LONG);

  it("a read-only custom role bound to an identity that already reads: nothing gained, for gate and access (access: JSON report and SARIF, nothing gained: no results)", async ({ expect }) => {
    const file = orgFile("read-only-role", (t) =>
      t.replace("bindings:\n", "roles:\n  - name: repo-reader\n    group: platform\n    description: reads repos\n    capabilities: [repo.list, tag.list]\nbindings:\n  - identity: platform/ci-cd/gha-deployer\n    group: platform/ci-cd\n    role: repo-reader\n"),
    );
    // The gate and one run of access, at once. Access: its JSON report (--json-out) and its SARIF (stdout).
    const json = path.join(dir, "access.json");
    const [r, a] = await settled([judge(file), bin("access", file, ["--format", "sarif", "--json-out", json, "--fail-on", "*.delete"])]);
    expect(r.code, r.markdown + r.stderr).toBe(0);
    expect(r.gained).toEqual([]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect((JSON.parse(readFileSync(json, "utf8")) as AccessJson).changes!.filter((c) => c.change === "gained")).toEqual([]);
    // (sarif.test.ts) Nothing gained: no results.
    expect(valid(a.stdout).runs[0]!.results).toEqual([]);
  }, LONG);

  it("owner at the root: fails; the gains said as owner in a few rows, the Markdown within 8,000 characters; each step credited to the identity that takes it", async ({ expect }) => {
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

  it("a broad claim pattern bound owner at the root: every identity whose own token matches it gains owner there (judged; the exchange is carried out once applied, below)", async ({ expect }) => {
    const r = await judge(base, { ROOT_IDENTITIES: JSON.stringify([broadRelease()]) });
    expect(r.code, r.markdown + r.stderr).toBe(1);
    const via = (p: string) => r.gained.find((g) => g.identity.path === p && g.capability === "groups.delete" && g.group === "/");
    expect(via("/platform/ci-cd/gha-pr-checks")?.via[0]!.steps[0]).toMatch(/"gha-pr-checks"'s own workload token matches the claimMatch of identity "release"/);
    expect(r.markdown).toMatch(/gha-pr-checks.*\+ gained \| owner/);
    expect(via("/platform/ci-cd/gha-deployer")).toBeDefined();
    expect(via("/platform/argo/argo-sync")).toBeUndefined(); // its subject is a service account, not a repository
  }, LONG);

  it("a preview that cannot run: exit 2, the reason in the Markdown and on stderr, no reassurance", async ({ expect }) => {
    const r = await bin("gate", base, ["--format", "markdown"], { PLATFORM_TOKEN: "not-a-token" });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/FAILED: the preview did not complete/);
    expect(r.stdout).toMatch(/UNAUTHENTICATED|401|token/i);
    expect(r.stdout).not.toMatch(/No new policy findings/);
    expect(r.stderr).toMatch(/UNAUTHENTICATED|401|token/i);
  }, LONG);
});

// ---- 4. sarif.test.ts: --format sarif of gate, access and drift ----

/** The physical location of a result: its repository-relative URI and line. */
const at = (r: SarifResult | undefined) => ({ uri: r?.locations[0]?.physicalLocation?.artifactLocation.uri, base: r?.locations[0]?.physicalLocation?.artifactLocation.uriBaseId, line: r?.locations[0]?.physicalLocation?.region.startLine });
const rel = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join("/");
const indexJs = path.join(program, "index.js");
// The RoleBinding of a root identity: `new RoleBinding(` in the ROOT_IDENTITIES loop of the program.
const rootBindingLine = () => lineOf(indexJs, "new RoleBinding(`root-${i.name}-${i.role}`");
/** The no-owner-at-root result of the root binding of `release2` in a SARIF log. */
const release2Owner = (text: string) => valid(text).runs[0]!.results.find((x) => x.ruleId === "no-owner-at-root" && x.message.text.includes("root-release2-owner"))!;

describe("--format sarif", () => {
  // This test and the next preview at once (it.concurrent); the drift test after them changes a group.
  it.concurrent("gate: validates; a program resource at its line in index.js, an Org binding at its org file line; fingerprints stable across runs", async ({ expect }) => {
    const [r, again] = await settled([changedWithRoots(), unchanged()]);
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
    // One already present (in the state): its org file line, and the same fingerprint as in a run without the change
    // (the org unchanged, judged with --format sarif above).
    const deployer = (l: SarifLog) => l.runs[0]!.results.find((x) => x.ruleId === "identity-bound-above-its-group" && x.message.text.includes("gha-deployer@platform#editor"));
    expect(at(deployer(log))).toMatchObject({ uri: rel(changed), line: lineOf(changed, "- identity: platform/ci-cd/gha-deployer") });
    expect(deployer(log)!.baselineState).toBe("unchanged");
    expect(again.code, again.stderr).toBe(0);
    const logAgain = valid(again.stdout);
    expect(deployer(logAgain)!.partialFingerprints).toEqual(deployer(log)!.partialFingerprints);
    expect(Object.keys(deployer(log)!.partialFingerprints)).toEqual(["platformPulumiFinding/v1"]);
    console.log(`sarif gate result: ${JSON.stringify(above)}`);
  }, LONG);

  it.concurrent("access: a result per identity, scope and route (the Markdown's rows), its rule by how it is held; a binding at its declaring line (program or org file)", async ({ expect }) => {
    const [r, current] = await settled([sarif("access", changed, [release("release", "repo:my-org/release"), release("release2", "repo:my-org/release2")]), sarif("access", base, [], ["--current"])]);
    expect(r.code, r.stderr).toBe(1);
    const run = valid(r.stdout).runs[0]!;
    const ids = run.tool.driver.rules.map((x) => x.id);
    expect(ids).toContain("access/binding");
    expect(ids.every((id) => /^access\/(binding|escalation\/(assume|bind|rebind|editRole|invite|identityProvider|createRole|present))$/.test(id))).toBe(true);
    /** The result of `identity`'s route `route` (its first step) at `group`. */
    const routeOf = (results: SarifResult[], identity: string, group: string, route: string) => results.find((x) => x.properties["identity"] === identity && x.properties["group"] === group && (x.properties["route"] as string[])[0] === route);
    // One result per identity, scope and route: no two share a fingerprint.
    expect(new Set(run.results.map((x) => JSON.stringify(x.partialFingerprints))).size).toBe(run.results.length);
    const ownerGain = routeOf(run.results, "/release2", "/", "owner bound at /");
    expect(ownerGain).toMatchObject({ ruleId: "access/binding", level: "error", message: { text: "/release2 gains owner at /, through a binding: owner bound at /" }, properties: { severity: "critical", status: "gained", gives: "owner" } });
    expect(ownerGain!.properties["capabilities"]).toContain("role_bindings.create");
    expect(at(ownerGain)).toEqual({ uri: rel(indexJs), base: "%SRCROOT%", line: rootBindingLine() });
    const argo = routeOf(run.results, "/platform/argo/argo-sync", "/platform", "editor bound at /platform");
    expect(argo, run.results.map((x) => x.message.text).filter((t) => t.includes("argo-sync")).join("\n")).toMatchObject({ ruleId: "access/binding", level: "error", properties: { severity: "critical" } });
    expect(argo!.properties["capabilities"]).toContain("groups.create");
    expect(at(argo)).toEqual({ uri: rel(changed), base: "%SRCROOT%", line: lastLineOf(changed, "- identity: platform/argo/argo-sync") });
    // Reads gained are notes.
    expect(run.results.filter((x) => x.properties["severity"] === "low").every((x) => x.level === "note")).toBe(true);
    // --current: what is held now, each at its binding (here the org file's line of gha-deployer's).
    expect(current.code, current.stderr).toBe(0);
    const held = routeOf(valid(current.stdout).runs[0]!.results, "/platform/ci-cd/gha-deployer", "/platform", "editor bound at /platform");
    expect(held).toMatchObject({ ruleId: "access/binding", level: "error", properties: { status: "held", severity: "critical", gives: "editor" } });
    expect(held!.properties["capabilities"]).toContain("groups.create");
    expect(held!.baselineState).toBeUndefined();
    expect(at(held)).toEqual({ uri: rel(base), base: "%SRCROOT%", line: lineOf(base, "- identity: platform/ci-cd/gha-deployer") });
    // Nothing gained, no results: the read-only role's access run above (the gate's tests).
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
    const r = await sarif("drift", base, []);
    expect(r.code, r.stderr).toBe(1);
    const run = valid(r.stdout).runs[0]!;
    const changedGroup = run.results.find((x) => x.ruleId === "drift/changed");
    expect(changedGroup).toMatchObject({ level: "error", properties: { status: "drifted", change: "changed", fields: ["description"] } });
    expect(changedGroup!.message.text).toContain("changed by hand");
    expect(at(changedGroup)).toEqual({ uri: rel(base), base: "%SRCROOT%", line: lineOf(base, "  - name: payments") });
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

// ---- 5. the changes applied (each `up` is followed by the next one, which puts the org file back) ----

describe("the changes applied", () => {
  it("(gate-change) a custom role with identity.update bound on a sibling group fails, and the path it opens is carried out with exchanged tokens", async () => {
    const file = orgFile("sibling", (t) =>
      t.replace("bindings:\n", "roles:\n  - name: id-maintainer\n    group: platform\n    description: maintains identities\n    capabilities: [identity.list, identity.update]\nbindings:\n  - identity: platform/ci-cd/gha-pr-checks\n    group: platform/argo\n    role: id-maintainer\n"),
    );
    const r = await judge(file);
    expect(r.code, r.markdown + r.stderr).toBe(1);
    expect(new Set(r.gained.map((g) => g.identity.path))).toEqual(new Set(["/platform/ci-cd/gha-pr-checks"]));
    const takeover = r.gained.find((g) => g.capability === "groups.create" && g.group === "/platform/argo");
    expect(takeover?.via[0]!.steps[0]).toMatch(/"gha-pr-checks" rewrites the claimMatch of identity "argo-sync"/);
    expect(r.gained.some((g) => g.capability === "role_bindings.create" && g.group === "/platform/argo")).toBe(true);

    // Applied, the path works: pr-checks rewrites argo-sync's claimMatch, exchanges a token for it and creates a group
    // there. (The next test's `up --refresh` puts the org file and argo-sync's claimMatch back.)
    await cliWith({ ORG_FILE: file }).ok(["up", "--yes", "--skip-preview"]);
    const argo = uids["platform/argo/argo-sync"]!;
    const argoGroup = argo.slice(0, argo.lastIndexOf("/"));
    const pr = await exchange("repo:my-org/app:pull_request", uids["platform/ci-cd/gha-pr-checks"]!);
    expect(pr.status, JSON.stringify(pr.body)).toBe(200);
    expect((await call("POST", `/iam/v2beta1/groups/${argoGroup}`, pr.token!, { name: "before-takeover" })).status).toBe(403);
    expect((await call("PATCH", `/iam/v2beta1/identities/${argo}`, pr.token!, { claimMatch: { issuer, subject: "taken-by-pr-checks" } })).status).toBe(200);
    const taken = await exchange("taken-by-pr-checks", argo);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect((await call("POST", `/iam/v2beta1/groups/${argoGroup}`, taken.token!, { name: "after-takeover" })).status).toBe(200);
  }, LONG);

  it("(gate-change) a broad claim pattern bound owner at the root, applied: the identities it matches hold owner there (access --current), and the exchange works", async () => {
    await rootsApplied();
    const current = await bin("access", base, ["--current", "--format", "json"]);
    expect(current.code, current.stderr).toBe(0);
    const grants = (JSON.parse(current.stdout) as { grants: Array<{ identity: { path: string }; capability: string; group: string; via: Array<{ kind: string }> }> }).grants;
    expect(grants.some((g) => g.identity.path === "/platform/ci-cd/gha-pr-checks" && g.capability === "groups.delete" && g.group === "/")).toBe(true);
    // The deployer's direct grant (editor at /platform) is still listed beside the escalation to owner at /.
    const upd = grants.filter((g) => g.identity.path === "/platform/ci-cd/gha-deployer" && g.capability === "groups.update").map((g) => `${g.group} ${g.via[0]!.kind}`);
    expect(upd.sort()).toEqual(["/ escalation", "/platform binding"]);
    const releaseIdentity = (await call("GET", `/iam/v2beta1/identities?${new URLSearchParams({ "uidp.children_of": emu.env.PLATFORM_ORG_UID, name: "release" })}`, emu.env.PLATFORM_TOKEN)).body["identities"] as Array<{ uid: string }>;
    const asRelease = await exchange("repo:my-org/app:pull_request", releaseIdentity[0]!.uid);
    expect(asRelease.status, JSON.stringify(asRelease.body)).toBe(200);
    expect((await call("POST", `/iam/v2beta1/groups/${emu.env.PLATFORM_ORG_UID}`, asRelease.token!, { name: "made-by-pr-checks" })).status).toBe(200);
  }, LONG);

  it("(sarif) a finding keeps its fingerprint once its change is applied (new, then already present, message changed)", async () => {
    // Before: release2's root binding judged new (the SARIF pull request above); after: applied, already present.
    const before = release2Owner((await changedWithRoots()).stdout);
    expect(before.baselineState).toBe("new");
    await rootsApplied();
    const after = release2Owner((await sarif("gate", base, [broadRelease(), release("release2", "repo:my-org/release2")])).stdout);
    expect(after.baselineState).toBe("unchanged");
    expect(after.message.text).not.toBe(before.message.text);
    expect(after.partialFingerprints).toEqual(before.partialFingerprints);
    expect(at(after)).toEqual(at(before));
  }, LONG);
});

// ---- 6. access-unused.test.ts: an identity deleted outside Pulumi (last: the org is not whole after it) ----

describe("the window, on the emulator's clock: an identity deleted outside Pulumi", () => {
  it("(the state still holds it): said, not judged; nothing reported, so exit 2", async () => {
    const argo = uids["platform/argo/argo-sync"]!;
    const del = await fetch(`${emu.env.PLATFORM_API_URL}/iam/v2beta1/identities/${argo}`, { method: "DELETE", headers: { authorization: `Bearer ${emu.env.PLATFORM_TOKEN}` } });
    expect(del.status, await del.text()).toBe(200);
    const gone = await bin("access", base, ["--unused"]);
    expect(gone.code, gone.stderr).toBe(2);
    expect(gone.stdout).toContain(`could not read /platform/argo/argo-sync (${argo}) from the API:`);
  }, LONG);
});
