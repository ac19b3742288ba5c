/**
 * The checks before anything is read or declared: `platform-pulumi export`'s options (`checkExportOptions`), and
 * the org file's and `Org`'s outside references (docs/org.md "`Org` in a split layout"), which the split YAML export
 * writes. Each bad input's error names the field, its value and what is allowed.
 */
import { describe, expect, it } from "vitest";
import { EXPORT_USAGE, checkExportOptions } from "../provider/commands/export";
import { Org, OrgFileError, parseOrgFile } from "../provider/org";
import { builtinRoleNames } from "../provider/org/file";

const ORG = "a".repeat(40);

describe("checkExportOptions", () => {
  const base = { org: ORG, out: "out" };
  it("takes --layout split with --format yaml, and --stack with it", () => {
    expect(() => checkExportOptions({ ...base, layout: "split", format: "yaml" })).not.toThrow();
    expect(() => checkExportOptions({ ...base, layout: "split", format: "yaml", stack: "dev", children: "2" })).not.toThrow();
    expect(() => checkExportOptions({ ...base, layout: "split", format: "ts", stack: "dev" })).not.toThrow();
  });
  it("the synopsis says --stack does not go with the one org file, as the check refuses it", () => {
    expect(EXPORT_USAGE.split("\n").slice(0, 2).join("\n")).toContain("[--stack <name> (not with one org file: --format yaml --layout one)]");
  });
  it("refuses --stack with the one org file, --children without split, an unknown layout", () => {
    expect(() => checkExportOptions({ ...base, format: "yaml", stack: "dev" })).toThrow('--stack "dev" is not allowed: only with --format ts or --layout split');
    expect(() => checkExportOptions({ ...base, format: "yaml", layout: "one", stack: "dev" })).toThrow('--stack "dev" is not allowed');
    expect(() => checkExportOptions({ ...base, format: "yaml", children: "2" })).toThrow('--children "2" is not allowed: only with --layout split');
    expect(() => checkExportOptions({ ...base, format: "yaml", layout: "split", children: "0" })).toThrow('--children "0" is not allowed: a whole number from 1 to 9999');
    expect(() => checkExportOptions({ ...base, layout: "tree" })).toThrow('--layout "tree" is not allowed: one or split');
  });
});

const CLAIM = "claimMatch: { issuer: https://token.actions.githubusercontent.com, subject: repo:o/r:ref:refs/heads/main }";

describe("org file: outside groups, identities and roles", () => {
  it("places groups under an outside group, and binds outside identities and roles by path", () => {
    const text = [
      "groups:",
      "  - name: engineering",
      "    outside: true",
      "    groups: [{ name: apps }]",
      "bindings:",
      "  - { identity: operations/infra/ops-bot, group: engineering/apps, role: releaser }",
    ].join("\n");
    const org = parseOrgFile(text, "org.yaml", new Set(["viewer"]), { identities: ["operations/infra/ops-bot"], roles: ["engineering/releaser"] });
    expect(org.groups.map((g) => [g.path, g.outside ?? false])).toEqual([["engineering", true], ["engineering/apps", false]]);
    // Without the program's outside identity and role, the same file names an unknown identity and role.
    expect(() => parseOrgFile(text, "org.yaml", new Set(["viewer"]))).toThrow(/bindings\[0\]\.identity: no identity at path "operations\/infra\/ops-bot".*\n.*bindings\[0\]\.role: no role named "releaser"/);
    // An outside role is visible at its group and below only, like the file's own.
    const above = text.replace("group: engineering/apps", "group: engineering").replace("engineering/releaser", "x");
    expect(() => parseOrgFile(above, "org.yaml", new Set(["viewer"]), { identities: ["operations/infra/ops-bot"], roles: ["engineering/apps/releaser"] })).toThrow(
      /bindings\[0\]\.role: role "releaser" is defined at engineering\/apps, not at "engineering" or above it/,
    );
    expect(builtinRoleNames({ bindings: [{ role: "releaser" }, { role: "viewer" }] }, ["engineering/releaser"])).toEqual(["viewer"]);
  });

  it("an outside group holds only name and groups, at the top or under another outside group", () => {
    const text = [
      "groups:",
      "  - name: engineering",
      "    outside: true",
      "    uid: x",
      "  - name: ops",
      "    groups: [{ name: infra, outside: true }]",
      "identities:",
      `  - { name: bot, group: engineering, ${CLAIM} }`,
    ].join("\n");
    let err: unknown;
    try {
      parseOrgFile(text, "org.yaml");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OrgFileError);
    expect((err as OrgFileError).problems).toEqual([
      'org.yaml:4:10: groups[0].uid: an outside group is declared elsewhere; it holds only name and groups, got uid "x"',
      'org.yaml:6:38: groups[1].groups[0].outside: group "ops/infra" is outside but its parent "ops" is declared here; an outside group is allowed at the top or under another outside group',
    ]);
  });
});

describe("Org: outside references are checked before anything is declared", () => {
  const spec = { groups: [{ name: "engineering", outside: true, groups: [{ name: "apps" }] }] };
  it("outside.groups names exactly the file's outside groups, each with a uid", () => {
    expect(() => new Org("team", { spec })).toThrow('Org "team": outside.groups["engineering"] is required: the org file marks group "engineering" outside (declared in another stack), so its uid comes from here');
    expect(() => new Org("team", { spec, outside: { groups: { engineering: "u", security: "v" } } })).toThrow(
      'Org "team": outside.groups["security"] is not allowed: the org has no group marked outside at that path; outside groups: engineering',
    );
    expect(() => new Org("team", { spec, outside: { groups: { engineering: "" } } })).toThrow('Org "team": outside.groups["engineering"] "" is not allowed: the group\'s uid');
    expect(() => new Org("team", { spec, outside: { groups: { engineering: "u" }, identities: { "ops/bot": "" } } })).toThrow('Org "team": outside.identities["ops/bot"] "" is not allowed: the uid of the identity at that path');
  });
  it("with no parentUid, a top-level group goes under the file's parentUid, else orgUid(), which names what to set", () => {
    const saved = process.env["PLATFORM_ORG_UID"];
    delete process.env["PLATFORM_ORG_UID"];
    try {
      expect(() => new Org("org", { spec: { groups: [{ name: "security" }] } })).toThrow("the org's root group uid is not set: set stack config `platform:orgUid`");
    } finally {
      if (saved !== undefined) process.env["PLATFORM_ORG_UID"] = saved;
    }
  });
  it("refuses a parentUid other than the one the file records, naming both", () => {
    const recorded = `${ORG}/${"b".repeat(16)}`;
    expect(() => new Org("org", { parentUid: ORG, spec: { parentUid: recorded, groups: [{ name: "security" }] } })).toThrow(
      `Org "org": parentUid "${ORG}" is not allowed: spec records parentUid "${recorded}", the group its top-level groups live under`,
    );
  });
});
