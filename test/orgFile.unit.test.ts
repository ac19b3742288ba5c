/** The org file format: the shared fixture's layout, and errors that name file, line and path. */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { OrgFileError, checkOrgSpec, parseOrgFile } from "../provider/org/file";

const fixture = readFileSync(path.join(__dirname, "..", "examples", "org-setup", "org.yaml"), "utf8");
const roles = new Set(["viewer", "editor", "owner", "registry.pull"]);

function problems(text: string, known = roles): string[] {
  try {
    parseOrgFile(text, "org.yaml", known);
  } catch (err) {
    if (err instanceof OrgFileError) return err.problems;
    throw err;
  }
  throw new Error("expected an OrgFileError");
}

describe("org file", () => {
  it("flattens the example org: 13 groups (parents first), 4 identities, 5 bindings", () => {
    const org = parseOrgFile(fixture, "org.yaml", roles);
    expect(org.groups).toHaveLength(13);
    expect(org.identities).toHaveLength(4);
    expect(org.bindings).toHaveLength(5);
    expect(org.groups.map((g) => g.path)).toContain("engineering/platform/ci-cd");
    const index = new Map(org.groups.map((g, i) => [g.path, i]));
    for (const g of org.groups) if (g.parentPath) expect(index.get(g.parentPath)!).toBeLessThan(index.get(g.path)!);
  });

  it("reports a bad group name with its line and path", () => {
    const p = problems("groups:\n  - name: ok-name\n  - name: Bad_Name\n");
    expect(p).toEqual([expect.stringMatching(/^org\.yaml:3:11: groups\[1\]\.name: group name "Bad_Name" must match/)]);
  });

  it("reports unknown fields and missing ones", () => {
    const p = problems("groups:\n  - name: eng\n    colour: red\nidentities:\n  - name: bot\n    group: eng\n");
    expect(p.join("\n")).toMatch(/groups\[0\]: Unrecognized key: "colour"/);
    expect(p.join("\n")).toMatch(/org\.yaml:5:\d+: identities\[0\]\.claimMatch: /);
  });

  it("reports references to unknown groups, identities and roles, all at once", () => {
    const p = problems(
      [
        "groups: [{ name: eng }]",
        "identities:",
        "  - { name: bot, group: eng/nope, claimMatch: { issuer: 'https://i', subject: s } }",
        "bindings:",
        "  - { identity: eng/ghost, group: ops, role: admin }",
      ].join("\n"),
    );
    expect(p).toHaveLength(4);
    expect(p[0]).toMatch(/^org\.yaml:3:\d+: identities\[0\]\.group: no group at path "eng\/nope"; known: eng$/);
    expect(p.slice(1).join("\n")).toMatch(/bindings\[0\]\.identity.*bindings\[0\]\.group.*bindings\[0\]\.role: no role named "admin"/s);
  });

  it("places an unclosed { at its own line, not at the line after it", () => {
    const text = [
      "groups: [{ name: eng }]",
      "identities:",
      "  - { name: bot, group: eng, description: 'it''s {here', claimMatch: { issuer: 'https://i', subject: s }",
      "bindings:",
      "  - { identity: eng/bot, group: eng, role: viewer }",
    ].join("\n");
    const p = problems(text);
    expect(p[0]).toMatch(/^org\.yaml:3:5: YAML: .*end with a \} \(the "\{" here is not closed\)$/);
  });

  it("says a binding at the group the top-level groups live under (group: /) is declared beside Org", () => {
    const p = problems("groups: [{ name: eng }]\nidentities:\n  - { name: bot, group: eng, claimMatch: { issuer: 'https://i', subject: s } }\nbindings:\n  - { identity: eng/bot, group: /, role: viewer }\n");
    expect(p).toEqual([expect.stringMatching(/^org\.yaml:5:\d+: bindings\[0\]\.group: "\/" is not allowed: a path names a group this file declares, .*RoleBinding with groupUid: orgUid\(\)/)]);
  });

  it("an unknown role: did you mean, among only the roles visible at the binding's group", () => {
    const text = [
      "groups: [{ name: eng }, { name: ops }]",
      "identities:",
      "  - { name: bot, group: eng, claimMatch: { issuer: 'https://i', subject: s } }",
      "roles:",
      "  - { name: operator, group: ops, capabilities: [groups.list] }",
      "  - { name: releaser, group: eng, capabilities: [groups.list] }",
      "bindings:",
      "  - { identity: eng/bot, group: eng, role: edtor }",
    ].join("\n");
    expect(problems(text)).toEqual([`org.yaml:8:44: bindings[0].role: no role named "edtor"; did you mean "editor"?; roles at "eng": viewer, editor, owner, registry.pull, releaser`]);
  });

  it("records the group its top-level groups live under (parentUid), which must be a group uid", () => {
    const uid = `${"a".repeat(40)}/${"b".repeat(16)}`;
    expect(parseOrgFile(`parentUid: "${uid}"\ngroups: [{ name: eng }]\n`, "org.yaml", roles).parentUid).toBe(uid);
    expect(problems("parentUid: nope\ngroups: [{ name: eng }]\n")).toEqual([expect.stringMatching(/^org\.yaml:1:12: parentUid: "nope" is not a group uid/)]);
  });

  it("requires https issuers", () => {
    const p = problems("groups: [{ name: eng }]\nidentities:\n  - { name: bot, group: eng, claimMatch: { issuer: 'http://i', subject: s } }\n");
    expect(p[0]).toMatch(/claimMatch\.issuer: issuer must be an https URL/);
  });

  it("reports YAML syntax errors with their line", () => {
    const p = problems("groups:\n  - name: [unclosed\n");
    expect(p[0]).toMatch(/^org\.yaml:\d+:\d+: YAML: /);
  });

  it("rejects duplicate group paths, which could not be referenced", () => {
    const p = problems("groups:\n  - name: eng\n  - name: eng\n");
    expect(p[0]).toMatch(/duplicate group path "eng"/);
  });

  it("keeps the fixture valid with the new sections absent (they default to empty)", () => {
    const org = parseOrgFile(fixture, "org.yaml", roles);
    expect(org).toMatchObject({ roles: [], repos: [], subscriptions: [] });
  });

  const layout = [
    "groups: [{ name: eng, groups: [{ name: web }] }]",
    "identities:",
    "  - { name: bot, group: eng/web, claimMatch: { issuer: 'https://i', subject: s } }",
  ];

  it("reads custom roles, repos (synced and with a README) and subscriptions; a binding may name a file role", () => {
    const org = parseOrgFile(
      [
        ...layout,
        "roles:",
        "  - { name: image-pusher, group: eng, capabilities: [repo.list, CAP_TAG_CREATE, tag.create] }",
        "bindings:",
        "  - { identity: eng/web/bot, group: eng/web, role: image-pusher }",
        "repos:",
        "  - { name: web-app, group: eng/web, readme: '# web' }",
        "  - { name: nginx, group: eng, syncConfig: { source: chainguard/nginx } }",
        "subscriptions:",
        "  - { group: eng, sink: 'https://hooks.example.com/eng' }",
      ].join("\n"),
      "org.yaml",
      roles,
    );
    expect(org.roles).toEqual([{ name: "image-pusher", group: "eng", capabilities: ["CAP_REPO_LIST", "CAP_TAG_CREATE"], path: "eng/image-pusher" }]);
    expect(org.repos.map((r) => r.path)).toEqual(["eng/web/web-app", "eng/nginx"]);
    expect(org.repos[1]!.syncConfig).toEqual({ source: "chainguard/nginx" });
    expect(org.subscriptions).toEqual([{ group: "eng", sink: "https://hooks.example.com/eng" }]);
  });

  it("reports every problem in the new sections with its line and path", () => {
    const p = problems(
      [
        ...layout,
        "roles:",
        "  - { name: pusher, group: eng/web, capabilities: [repo.fly] }",
        "bindings:",
        "  - { identity: eng/web/bot, group: eng, role: pusher }",
        "repos:",
        "  - { name: Web App, group: eng }",
        "  - { name: mirror, group: nope, syncConfig: { source: chainguard/nginx }, readme: hi }",
        "  - { name: dup, group: eng }",
        "  - { name: dup, group: eng }",
        "subscriptions:",
        "  - { group: eng, sink: 'http://hooks.example.com' }",
      ].join("\n"),
    );
    expect(p).toEqual([
      expect.stringMatching(/^org\.yaml:5:\d+: roles\[0\]\.capabilities\[0\]: "repo\.fly" is not a capability/),
      expect.stringMatching(/^org\.yaml:7:\d+: bindings\[0\]\.role: role "pusher" is defined at eng\/web, not at "eng" or above it$/),
      expect.stringMatching(/^org\.yaml:9:\d+: repos\[0\]\.name: repo name "Web App" must be an OCI repository name/),
      expect.stringMatching(/^org\.yaml:10:\d+: repos\[1\]\.group: no group at path "nope"/),
      expect.stringMatching(/^org\.yaml:10:\d+: repos\[1\]\.readme: a repo with a syncConfig has its README synced from the source/),
      expect.stringMatching(/^org\.yaml:12:\d+: repos\[3\]\.name: duplicate repo "eng\/dup"/),
      expect.stringMatching(/^org\.yaml:14:\d+: subscriptions\[0\]\.sink: sink "http:\/\/hooks\.example\.com" must use the https scheme, not http$/),
    ]);
  });

  it("reports unknown keys in a repo's syncConfig", () => {
    const p = problems([...layout, "repos:", "  - { name: m, group: eng, syncConfig: { source: a/b, gracePeriod: true } }"].join("\n"));
    expect(p[0]).toMatch(/repos\[0\]\.syncConfig: Unrecognized key: "gracePeriod"/);
  });
});

describe("org spec (the org as an object)", () => {
  it("flattens the same layout as the file it was parsed from", () => {
    const fromFile = parseOrgFile(fixture, "org.yaml", roles);
    const spec = (JSON.parse(JSON.stringify(parseYaml(fixture))) ?? {}) as Parameters<typeof checkOrgSpec>[0];
    expect(checkOrgSpec(spec, "spec", roles)).toEqual(fromFile);
  });

  it("places every problem by path after the source's name", () => {
    let caught: unknown;
    try {
      checkOrgSpec({ groups: [{ name: "team" }, { name: "Bad" }], bindings: [{ identity: "team/ghost", group: "team", role: "admin" }] }, "spec", roles);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OrgFileError);
    expect((caught as OrgFileError).problems).toEqual([
      expect.stringMatching(/^spec: groups\[1\]\.name: group name "Bad" must match/),
      'spec: bindings[0].identity: no identity at path "team/ghost"; known: ',
      expect.stringMatching(/^spec: bindings\[0\]\.role: no role named "admin"; roles at "team": viewer, editor, owner, registry\.pull$/),
    ]);
  });
});
