/**
 * `platform-pulumi access` through the built bin and the real Pulumi CLI on the emulator, on ONE stack of the main
 * job's org (examples/org-setup/org.yaml) and the pull request it reviews: a CI identity (gitlab-release) bound
 * `editor` at a mid-level group (engineering/platform). (This file is the former access-command.test.ts and
 * access-query.test.ts, which each brought the same stack up.)
 *
 * - The review of the change: exactly the gained capabilities at that subtree, plus the escalations it opens;
 *   `--fail-on` and `--fail-severity` as a gate; the Markdown for a pull request; `--current`; the exit code 2 cases.
 * - The queries `--who-can` and `--can`: holders listed directly and by escalation with their shortest path, on the
 *   state (`--current`) and on the plan; `--can` exit 0 yes and 1 no; exit 2 with the flag, the value and what is
 *   allowed for bad input. The examples of docs/access.md (and README.md's) are this test's output.
 * - `no-new-access` inside `pulumi preview --policy-pack` gives the command's answer.
 *
 * Engine runs: each scenario that needs a plan runs the bin once (a preview); its other formats are rendered from
 * the report it wrote (`--json-out`, or the query's JSON) by the command's own formatters
 * (provider/access/report.ts `markdown`/`textTable`, provider/access/query.ts `formatWhoCan`), and checked equal to
 * what the bin printed where the bin printed them. `--current` reads the state only (no engine run).
 *
 * The queries read the stack and never change it (a preview writes nothing; `--current` exports the state), so the
 * blocks run at once (describe.concurrent, at most vitest's maxConcurrency, 5, tests at a time; assertions through
 * each test's own `expect`), and a test's independent runs of the bin at once (Promise.all, two or three). The one
 * test that changes the stack (it imports a state without the roles' names, then the saved one back) runs alone
 * after them: a block of its own, under the same title "platform-pulumi access", so its name is unchanged. The
 * no-new-access block has a stack, a backend and a program folder of its own, on the same emulator, which nothing
 * here writes to (a preview writes nothing) and no test reads the request log of.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { AccessJson } from "../provider/commands/access";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { formatWhoCan, type CanJson, type QueryHit, type WhoCanJson } from "../provider/access/query";
import { markdown, textTable } from "../provider/access/report";
import { dottedName } from "../provider/capabilities";
import { runEngine } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT, cliBinDir } from "../scripts/lib/pulumi";
import { readDocs } from "./harness/docs";
import { once } from "./harness/reports";
import { binOnStack, useReviewStack } from "./harness/stack";

const LONG = 300_000;
const STACK = "access-review";
const dotted = (caps: readonly string[]) => caps.map(dottedName).sort();
// README.md and docs/ (docs/access.md holds the examples; README.md quotes the --can "no").
const README = readDocs();

/** The main job's org deployed, and the pull request's org file (gitlab-release bound editor at engineering/platform). */
const rs = useReviewStack(STACK, LONG);

/** Runs the installed command (`dist/cli/main.js access …`) with the stack's environment. */
const access = binOnStack("access", { stack: STACK, cwd: REPO_ROOT, env: () => rs.env });

/**
 * The review of the pull request, run once: `access --format markdown --json-out <file>` with the default
 * `--fail-severity` (critical,high) and no `--fail-on`. Its JSON report (the file: what `--format json` prints),
 * its Markdown (stdout) and its exit code.
 */
const review = once(async () => {
  const jsonFile = path.join(rs.backend, "review.json");
  const r = await access(["--format", "markdown", "--json-out", jsonFile]);
  return { ...r, jsonFile, json: JSON.parse(readFileSync(jsonFile, "utf8")) as AccessJson };
});

describe.concurrent("platform-pulumi access", () => {
  it("--current lists each identity's grants once per subtree, with bindings and escalations", async ({ expect }) => {
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
    // Nobody in the stack reaches the root group; the org's owner (a user outside the org, bound owner at the root
    // when the org was made: docs/access.md "The whole org") does, and no stack manages it.
    const atRoot = json.grants!.filter((g) => g.group === "/");
    expect(atRoot.length).toBeGreaterThan(0);
    expect(new Set(atRoot.map((g) => `${g.identity.path} ${g.identity.managed}`))).toEqual(new Set(["/owner unmanaged"]));
    expect(ciBot[0]!.identity.managed).toBe("this stack");
  }, LONG);

  it("a change that binds a CI identity editor at a mid-level group shows exactly the gained capabilities at that subtree, plus the escalations it opens (JSON report; critical gains fail by default)", async ({ expect }) => {
    const r = await review();
    expect(r.code, r.err).toBe(1); // critical gains fail by default (--fail-severity critical,high), no --fail-on given
    const json = r.json;
    expect(json.stack).toBe(STACK);
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

  it("--fail-on turns it into a gate: exit 1 when a gained capability matches, 0 otherwise; --fail-severity none alone does not fail (table)", async ({ expect }) => {
    // --fail-severity none: the exit code 1 is the --fail-on match alone.
    // The two runs and the review's (each a preview of the stack) at once.
    const [hit, miss] = await Promise.all([
      access(["--fail-on", "iam.role_bindings.*,*.delete", "--fail-severity", "none"]),
      access(["--fail-on", "iam.nothing.*", "--fail-severity", "none"]),
      review(),
    ]);
    expect(hit.code, hit.err).toBe(1);
    expect(hit.out).toMatch(/--fail-on iam\.role_bindings\.\*,\*\.delete: gained .*groups\.delete.*role_bindings\.create/);
    // The table the bin printed is the review's rows, as the formatter writes them from the JSON report.
    expect(hit.out.startsWith(textTable((await review()).json.changes!, false)), hit.out).toBe(true);
    // Nothing matched and no failing severity: exit 0 (so --fail-severity none turns the default gate off).
    expect(miss.code, miss.err).toBe(0);
    expect(miss.out).toContain("--fail-on iam.nothing.*: nothing matched");
  }, LONG);

  it("--format markdown is one compact table grouped by identity, most severe first, capabilities said with roles", async ({ expect }) => {
    const r = await review();
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
    // The Markdown is the formatter's over the JSON report the same run wrote, then the verdict lines.
    expect(r.out.startsWith(markdown(STACK, r.json.changes!, false, { jsonFile: r.jsonFile })), r.out).toBe(true);
  }, LONG);

  it("the repository's example org passes the repository's gate unchanged; the pull request above fails it", async ({ expect }) => {
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
    // Two previews of the stack at once (a gate writes nothing but a folder of its own in the system's temp folder).
    const [same, pr] = await Promise.all([gate(path.join(REPO_ROOT, "examples", "org-setup", "org.yaml")), gate(rs.changed)]);
    expect(same.code, same.out).toBe(0);
    const report = JSON.parse(same.out) as { violations: Array<{ policy: string; severity: string; level: string; status: string }> };
    // ci-bot (editor above its group) and scanner (viewer above its group) were there before: listed, not failing;
    // scanner's low finding through the rule's advisory twin (docs/policy.md "One verdict from every door").
    expect(report.violations.filter((v) => v.policy === "identity-bound-above-its-group").map((v) => `${v.severity} ${v.level} ${v.status}`).sort()).toEqual([
      "critical mandatory already present",
      "low advisory already present",
    ]);
    expect(pr.code, pr.out).toBe(1);
  }, LONG);

  it("exits 2 when it cannot run: bad arguments, an unknown stack", async ({ expect }) => {
    const [yaml, comma, missing] = await Promise.all([
      access(["--format", "yaml"]),
      access(["--fail-on", ","]),
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist", "cli", "main.js"), "access", "--stack", "no-such-stack", "--cwd", REPO_ROOT, "--current"], { env: { ...process.env, ...rs.env }, stdio: "ignore" });
        child.on("close", (c) => resolve(c ?? -1));
      }),
    ]);
    expect(yaml.code).toBe(2);
    expect(comma.code).toBe(2);
    expect(missing).toBe(2);
  }, LONG);

});

describe.concurrent("platform-pulumi access --who-can", () => {
  it("lists direct holders (path length 0) and escalated ones with their shortest path, on the state", async ({ expect }) => {
    const [r, none] = await Promise.all([
      access(["--current", "--who-can", "groups.*", "--at", "/engineering/platform/ci-cd", "--format", "json"]),
      access(["--current", "--who-can", "groups.delete", "--at", "/environments/staging"]),
    ]);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as WhoCanJson;
    expect(json).toMatchObject({ stack: STACK, state: "current", whoCan: "groups.*", at: "/engineering/platform/ci-cd" });
    const rows = json.holders.map((h) => `${h.identity.path} ${h.capability} ${h.group} ${h.via.kind} ${h.length}`);
    expect(rows).toEqual([
      "/engineering/platform/ci-cd/ci-bot groups.create /engineering/platform binding 0",
      "/engineering/platform/ci-cd/ci-bot groups.delete /engineering/platform escalation 1",
      "/engineering/platform/ci-cd/ci-bot groups.list /engineering/platform binding 0",
      "/engineering/platform/ci-cd/ci-bot groups.update /engineering/platform binding 0",
      "/engineering/platform/ci-cd/gitlab-release groups.list /engineering/platform/ci-cd binding 0",
      // The whole org: the org's owner, bound owner at the root outside every stack.
      "/owner groups.create / binding 0",
      "/owner groups.delete / binding 0",
      "/owner groups.list / binding 0",
      "/owner groups.update / binding 0",
    ]);
    expect(json.holders.find((h) => h.identity.path === "/owner")!.identity.managed).toBe("unmanaged");
    const del = json.holders.find((h) => h.capability === "groups.delete")!;
    expect(del).toMatchObject({ severity: "high", via: { role: "owner", boundAt: "/engineering/platform" } });
    expect(del.via.steps).toEqual(['"ci-bot" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)']);
    expect(del.identity.uid).toMatch(/^[0-9a-f]{40}(\/[0-9a-f]{16})+$/);
    // A group outside every binding of the stack: only the org's owner holds it there (the stack alone said 0).
    expect(none.code, none.err).toBe(0);
    expect(none.out.split("\n").slice(0, 3)).toEqual(["who can groups.delete at /environments/staging (now): 1 identity", "1 grant(s) held by 1 identity (1 high)", "[high] /owner (unmanaged)  at /: groups.delete"]);
    const stackOnly = await access(["--current", "--scope", "stack", "--who-can", "groups.delete", "--at", "/environments/staging"]);
    expect(stackOnly.out).toBe("who can groups.delete at /environments/staging (now): 0 identities\n");
  }, LONG);

  it("on the plan by default: the pull request's new holder appears, with its path; the table and Markdown say the same", async ({ expect }) => {
    const [planRun, nowRun] = await Promise.all([
      access(["--who-can", "groups.delete", "--at", "/engineering/platform", "--format", "json"]),
      access(["--current", "--who-can", "groups.delete", "--at", "/engineering/platform", "--format", "json"]),
    ]);
    expect(planRun.code, planRun.err).toBe(0);
    const plan = JSON.parse(planRun.out) as WhoCanJson;
    expect(plan.state).toBe("plan");
    expect(plan.holders.map((h) => `${h.identity.path} ${h.length}`)).toEqual(["/engineering/platform/ci-cd/ci-bot 1", "/engineering/platform/ci-cd/gitlab-release 1", "/owner 0"]);
    const now = JSON.parse(nowRun.out) as WhoCanJson;
    expect(now.holders.map((h) => h.identity.path)).toEqual(["/engineering/platform/ci-cd/ci-bot", "/owner"]);

    // The table and the Markdown of the same answer: formatWhoCan (what the command prints) over the plan's JSON,
    // which reads each hit's holder only. Its JSON form is byte for byte what the bin printed.
    const hits = plan.holders.map((holder) => ({ holder }) as QueryHit);
    const form = (format: "table" | "json" | "markdown") => formatWhoCan(STACK, false, plan.whoCan, plan.at, hits, format);
    expect(form("json")).toBe(planRun.out);
    const table = form("table");
    console.log(`$ platform-pulumi access --stack readme-demo --who-can groups.delete --at /engineering/platform\n${table}`);
    expect(table.split("\n").slice(0, 4)).toEqual([
      "who can groups.delete at /engineering/platform (after the change): 3 identities",
      "3 grant(s) held by 3 identities (3 high)",
      "[high] /engineering/platform/ci-cd/ci-bot  at /engineering/platform: groups.delete",
      '    1. "ci-bot" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)',
    ]);
    // The README's example is this output.
    expect(README.includes(`$ platform-pulumi access --stack readme-demo --who-can groups.delete --at /engineering/platform\n${table}`), "the README example").toBe(true);
    const md = form("markdown");
    expect(md).toContain(`### Who can \`groups.delete\` at \`/engineering/platform\` (after the change): stack \`${STACK}\``);
    expect(md).toMatch(/\| high \| \*\*gitlab-release\*\* `\/engineering\/platform\/ci-cd\/gitlab-release` \| groups\\\.delete \| `\/engineering\/platform` \| "gitlab-release" creates an invite/);
  }, LONG);
});

describe.concurrent("platform-pulumi access --can", () => {
  it("yes (exit 0) with the path, by identity path or uid, dotted or wire capability names", async ({ expect }) => {
    // Five reads of the state, three then two at once; the last needs the scanner's uid.
    const [yes, md, orgFileWords] = await Promise.all([
      access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "/engineering/platform/ci-cd"]),
      access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "/engineering/platform/ci-cd", "--format", "markdown"]),
      access(["--current", "--can", "engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "engineering/platform/ci-cd"]),
    ]);
    const [events, scannerRun] = await Promise.all([
      access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "events_subscription.create", "--at", "/engineering/platform/ci-cd"]),
      access(["--current", "--who-can", "groups.list", "--at", "/security", "--format", "json"]),
    ]);
    expect(yes.code, yes.err).toBe(0);
    console.log(`$ platform-pulumi access --stack readme-demo --current --can /engineering/platform/ci-cd/ci-bot groups.delete --at /engineering/platform/ci-cd\n${yes.out}`);
    expect(yes.out).toBe(
      [
        "yes: /engineering/platform/ci-cd/ci-bot can groups.delete at /engineering/platform/ci-cd (now)",
        "  held at /engineering/platform [high]",
        '    1. "ci-bot" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)',
        "",
      ].join("\n"),
    );
    expect(README.includes(`$ platform-pulumi access --stack readme-demo --current --can /engineering/platform/ci-cd/ci-bot groups.delete --at /engineering/platform/ci-cd\n${yes.out}`), "the README example").toBe(true);
    expect(md.code, md.err).toBe(0);
    expect(md.out).toMatch(/^\*\*yes: .*ci-bot can groups\\\.delete at .* \(now\)\*\*\n\nheld at `\/engineering\/platform`, high:\n\n1\. "ci-bot" creates an invite/);
    // Paths as the org file writes them, without the leading slash, name the same identity and group.
    expect(orgFileWords.code, orgFileWords.err).toBe(0);
    expect(orgFileWords.out).toBe(yes.out);
    // A capability built-in roles hold that the package's capability list does not name.
    expect(events.code, events.err).toBe(0);
    expect(events.out).toContain("editor bound at /engineering/platform");
    const scanner = (JSON.parse(scannerRun.out) as WhoCanJson).holders.find((h) => h.identity.name === "scanner")!.identity;
    expect(scanner.path).toBe("/security/vuln-scanning/scanner");
    const byUid = await access(["--current", "--can", scanner.uid!, "CAP_IAM_GROUPS_LIST", "--at", "/environments/production", "--format", "json"]);
    expect(byUid.code, byUid.err).toBe(0);
    expect(JSON.parse(byUid.out) as CanJson).toMatchObject({ can: true, capability: "groups.list", at: "/environments/production", holder: { group: "/environments", length: 0, via: { kind: "binding", role: "viewer", boundAt: "/environments", steps: [] } } });
  }, LONG);

  it("no (exit 1), and on the plan the pull request turns a no into a yes", async ({ expect }) => {
    // The two reads of the state and the plan's run (a preview) at once.
    const [no, json, plan] = await Promise.all([
      access(["--current", "--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform"]),
      access(["--current", "--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform", "--format", "json"]),
      access(["--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform"]),
    ]);
    expect(no.code, no.err).toBe(1);
    expect(no.out).toBe("no: /engineering/platform/ci-cd/gitlab-release cannot groups.delete at /engineering/platform (now)\n");
    expect(README.includes(`$ platform-pulumi access --stack readme-demo --current --can /engineering/platform/ci-cd/gitlab-release groups.delete --at /engineering/platform; echo "exit $?"\n${no.out}exit 1\n`), "the README example").toBe(true);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ can: false, state: "current" });
    expect(JSON.parse(json.out)).not.toHaveProperty("holder");
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toMatch(/^yes: .* \(after the change\)\n/);
  }, LONG);
});

describe.concurrent("bad input exits 2, naming the flag, the value and what is allowed", () => {
  it.for<[string[], RegExp]>([
    [["--who-can", "grops.*", "--at", "/"], /--who-can: "grops\.\*" matches no capability.*; globs run over dotted names \(groups\.create, iam\.groups\.\*, \*\.delete\)/],
    [["--who-can", ",", "--at", "/"], /--who-can: "," has an empty capability pattern/],
    [["--who-can", "groups.*", "--at", "/engineering/platfrom"], /--at: no group "\/engineering\/platfrom" in the stack; did you mean "\/engineering\/platform"\?; give a group path \(/],
    [["--who-can", "groups.*"], /--who-can needs --at <group>/],
    [["--can", "/engineering/ci-bot", "groups.list", "--at", "/"], /--can: no identity "\/engineering\/ci-bot" in the stack; .*give an identity path \(\/engineering\/platform\/ci-cd\/ci-bot, /],
    [["--can", "/engineering/platform/ci-cd/ci-bot", "groups.craete", "--at", "/"], /--can: "groups\.craete" is not a capability; did you mean "groups\.create"\?; capabilities of groups: groups\.create, groups\.delete, groups\.list, groups\.update/],
    [["--can", "/engineering/platform/ci-cd/ci-bot", "--at", "/"], /--can "\/engineering\/platform\/ci-cd\/ci-bot" needs a capability after the identity/],
    [["--who-can", "groups.*", "--at", "/", "--fail-on", "iam.*"], /--fail-on judges the review/],
    [["--who-can", "groups.*", "--at", "/", "--format", "sarif"], /--format: "sarif" is for the review/],
    [["stray"], /unexpected argument "stray"/],
  ])("access --current %j", { timeout: LONG }, async ([args, message], { expect }) => {
    const r = await access(["--current", ...args]);
    expect(r.code, r.out).toBe(2);
    expect(r.err).toMatch(message);
  });
});

describe.concurrent("no-new-access inside `pulumi preview --policy-pack` gives the command's answer", () => {
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

  it("on a new stack (group, identity and binding not created yet): the same identity, capability and group, judged by path", async ({ expect }) => {
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
        identity: { name: "payments-ci", path: "/payments/payments-ci", uid: null, managed: "this stack" },
        group: "/payments",
        steps: ['"payments-ci" creates an invite to /payments with role "owner" and redeems it (group_invites.create)'],
      },
    ]);
  }, LONG);
});

/**
 * The test that changes the stack (a state import, then the saved state back): alone, after every block above has
 * ended (its block is not concurrent, so vitest starts it only then), under the title of the block it was in.
 */
describe("platform-pulumi access", () => {
  it("exits 2, naming the role, when a bound role can be described neither by the API nor by its hydrated name", async ({ expect }) => {
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
      // The stack's objects alone (--scope stack): the whole org would need the API to be read at all.
      const r = await access(["--current", "--scope", "stack"], { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" });
      expect(r.code, r.out).toBe(2);
      expect(r.err).toContain(`the stack binds role(s) ${roleUid} that it does not declare, and no API settings describe them`);
      const org = await access(["--current"], { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" });
      expect(org.code, org.out).toBe(2);
      expect(org.err).toContain("the whole org is read from the API under its root: no API settings or no root group uid");
      // With the API, the same state is described.
      expect((await access(["--current"])).code).toBe(0);
    } finally {
      writeFileSync(file, saved);
      await rs.cli.ok(["stack", "import", "--file", file]);
    }
  }, LONG);
});
