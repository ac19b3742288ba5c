/**
 * `platform-pulumi access --who-can` and `--can` through the built bin, on a real stack of the main job's org
 * (examples/org-setup/org.yaml) on the emulator in another process, with the real Pulumi CLI: holders listed
 * directly and by escalation with their shortest path, on the state (`--current`) and on the plan of a pull
 * request (`gitlab-release` bound `editor` at `/engineering/platform`); `--can` exit 0 yes and 1 no; exit 2 with
 * the flag, the value and what is allowed for bad input. The examples of docs/access.md (and README.md's) are this test's output.
 */
import { describe, expect, it } from "vitest";
import type { CanJson, WhoCanJson } from "../provider/access/query";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { readDocs } from "./harness/docs";
import { binOnStack, useReviewStack } from "./harness/stack";

const LONG = 300_000;
const STACK = "access-query";
// README.md and docs/ (docs/access.md holds the examples; README.md quotes the --can "no").
const README = readDocs();

/** The main job's org deployed, and the pull request's org file (gitlab-release bound editor at engineering/platform). */
const rs = useReviewStack(STACK, LONG);

/** `platform-pulumi access --stack access-query …` from the built bin, with the stack's environment. */
const access = binOnStack("access", { stack: STACK, cwd: REPO_ROOT, env: () => rs.env });

describe("platform-pulumi access --who-can", () => {
  it("lists direct holders (path length 0) and escalated ones with their shortest path, on the state", async () => {
    const r = await access(["--current", "--who-can", "groups.*", "--at", "/engineering/platform/ci-cd", "--format", "json"]);
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
    ]);
    const del = json.holders.find((h) => h.capability === "groups.delete")!;
    expect(del).toMatchObject({ severity: "high", via: { role: "owner", boundAt: "/engineering/platform" } });
    expect(del.via.steps).toEqual(['"ci-bot" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)']);
    expect(del.identity.uid).toMatch(/^[0-9a-f]{40}(\/[0-9a-f]{16})+$/);
    // A group outside every binding: nobody holds it there, and that is an answer (exit 0).
    const none = await access(["--current", "--who-can", "groups.delete", "--at", "/environments/staging"]);
    expect(none.code, none.err).toBe(0);
    expect(none.out).toBe("who can groups.delete at /environments/staging (now): 0 identities\n");
  }, LONG);

  it("on the plan by default: the pull request's new holder appears, with its path; the table and Markdown say the same", async () => {
    const plan = JSON.parse((await access(["--who-can", "groups.delete", "--at", "/engineering/platform", "--format", "json"])).out) as WhoCanJson;
    expect(plan.state).toBe("plan");
    expect(plan.holders.map((h) => `${h.identity.path} ${h.length}`)).toEqual(["/engineering/platform/ci-cd/ci-bot 1", "/engineering/platform/ci-cd/gitlab-release 1"]);
    const now = JSON.parse((await access(["--current", "--who-can", "groups.delete", "--at", "/engineering/platform", "--format", "json"])).out) as WhoCanJson;
    expect(now.holders.map((h) => h.identity.path)).toEqual(["/engineering/platform/ci-cd/ci-bot"]);

    const table = await access(["--who-can", "groups.delete", "--at", "/engineering/platform"]);
    expect(table.code, table.err).toBe(0);
    console.log(`$ platform-pulumi access --stack readme-demo --who-can groups.delete --at /engineering/platform\n${table.out}`);
    expect(table.out.split("\n").slice(0, 4)).toEqual([
      "who can groups.delete at /engineering/platform (after the change): 2 identities",
      "2 grant(s) held by 2 identities (2 high)",
      "[high] /engineering/platform/ci-cd/ci-bot  at /engineering/platform: groups.delete",
      '    1. "ci-bot" creates an invite to /engineering/platform with role "owner" and redeems it (group_invites.create)',
    ]);
    // The README's example is this output.
    expect(README.includes(`$ platform-pulumi access --stack readme-demo --who-can groups.delete --at /engineering/platform\n${table.out}`), "the README example").toBe(true);
    const md = await access(["--who-can", "groups.delete", "--at", "/engineering/platform", "--format", "markdown"]);
    expect(md.code, md.err).toBe(0);
    expect(md.out).toContain(`### Who can \`groups.delete\` at \`/engineering/platform\` (after the change): stack \`${STACK}\``);
    expect(md.out).toMatch(/\| high \| \*\*gitlab-release\*\* `\/engineering\/platform\/ci-cd\/gitlab-release` \| groups\\\.delete \| `\/engineering\/platform` \| "gitlab-release" creates an invite/);
  }, LONG);
});

describe("platform-pulumi access --can", () => {
  it("yes (exit 0) with the path, by identity path or uid, dotted or wire capability names", async () => {
    const yes = await access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "/engineering/platform/ci-cd"]);
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
    const md = await access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "/engineering/platform/ci-cd", "--format", "markdown"]);
    expect(md.code, md.err).toBe(0);
    expect(md.out).toMatch(/^\*\*yes: .*ci-bot can groups\\\.delete at .* \(now\)\*\*\n\nheld at `\/engineering\/platform`, high:\n\n1\. "ci-bot" creates an invite/);
    // Paths as the org file writes them, without the leading slash, name the same identity and group.
    const orgFileWords = await access(["--current", "--can", "engineering/platform/ci-cd/ci-bot", "groups.delete", "--at", "engineering/platform/ci-cd"]);
    expect(orgFileWords.code, orgFileWords.err).toBe(0);
    expect(orgFileWords.out).toBe(yes.out);
    // A capability built-in roles hold that the package's capability list does not name.
    const events = await access(["--current", "--can", "/engineering/platform/ci-cd/ci-bot", "events_subscription.create", "--at", "/engineering/platform/ci-cd"]);
    expect(events.code, events.err).toBe(0);
    expect(events.out).toContain("editor bound at /engineering/platform");
    const scanner = (JSON.parse((await access(["--current", "--who-can", "groups.list", "--at", "/security", "--format", "json"])).out) as WhoCanJson).holders[0]!.identity;
    expect(scanner.path).toBe("/security/vuln-scanning/scanner");
    const byUid = await access(["--current", "--can", scanner.uid!, "CAP_IAM_GROUPS_LIST", "--at", "/environments/production", "--format", "json"]);
    expect(byUid.code, byUid.err).toBe(0);
    expect(JSON.parse(byUid.out) as CanJson).toMatchObject({ can: true, capability: "groups.list", at: "/environments/production", holder: { group: "/environments", length: 0, via: { kind: "binding", role: "viewer", boundAt: "/environments", steps: [] } } });
  }, LONG);

  it("no (exit 1), and on the plan the pull request turns a no into a yes", async () => {
    const no = await access(["--current", "--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform"]);
    expect(no.code, no.err).toBe(1);
    expect(no.out).toBe("no: /engineering/platform/ci-cd/gitlab-release cannot groups.delete at /engineering/platform (now)\n");
    expect(README.includes(`$ platform-pulumi access --stack readme-demo --current --can /engineering/platform/ci-cd/gitlab-release groups.delete --at /engineering/platform; echo "exit $?"\n${no.out}exit 1\n`), "the README example").toBe(true);
    const json = await access(["--current", "--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform", "--format", "json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ can: false, state: "current" });
    expect(JSON.parse(json.out)).not.toHaveProperty("holder");
    const plan = await access(["--can", "/engineering/platform/ci-cd/gitlab-release", "groups.delete", "--at", "/engineering/platform"]);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toMatch(/^yes: .* \(after the change\)\n/);
  }, LONG);
});

describe("bad input exits 2, naming the flag, the value and what is allowed", () => {
  it.each([
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
  ])("access --current %j", async (args, message) => {
    const r = await access(["--current", ...args]);
    expect(r.code, r.out).toBe(2);
    expect(r.err).toMatch(message);
  }, LONG);
});
