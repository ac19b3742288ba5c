/**
 * `present` between two patterns (docs/access.md "The model"): whether an identity whose own `claimMatch`
 * is a pattern presents for another, decided on the two patterns' languages (provider/access/languages.ts, refa),
 * and the decisions it must leave alone: exact values as before, claims the actor does not constrain, patterns it
 * cannot decide (RE2 rejects them, a construct it refuses, over the size or state limits). The same steps carried
 * out on the emulator with exchanged tokens: `test/conformance/access-agreement.unit.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { PATTERN_LIMIT, commonWord, presentedToken, wholeMatch } from "../provider/access/languages";
import { OrgIndex, effectiveAccess, holds, presents, type AccessOrg, type AccessRole, type ClaimMatch } from "../provider/access/model";

const gh = "https://token.actions.githubusercontent.com";
const sub = (subjectPattern: string): ClaimMatch => ({ issuer: gh, subjectPattern });

describe("present between two patterns", () => {
  it("the usual GitHub setup: a branch pattern beside an org-wide pattern present for each other", () => {
    const branch = sub("repo:org/x:ref:refs/heads/.*");
    const org = sub("repo:org/.*");
    expect(presents(branch, org)).toBe(true);
    expect(presents(org, branch)).toBe(true);
    const t = presentedToken(branch, org)!;
    expect(t).toEqual({ issuer: gh, subject: "repo:org/x:ref:refs/heads/", audience: undefined, claims: {} });
    expect(wholeMatch("repo:org/x:ref:refs/heads/.*", t.subject) && wholeMatch("repo:org/.*", t.subject)).toBe(true);
    // Anchors written out, a class, an alternation: the same language question.
    expect(presents(sub("^repo:org/(x|y):ref:refs/heads/[a-z]+$"), sub("repo:org/y:.*"))).toBe(true);
    expect(presentedToken(sub("^repo:org/(x|y):ref:refs/heads/[a-z]+$"), sub("repo:org/y:.*"))!.subject).toBe("repo:org/y:ref:refs/heads/a");
  });

  it("disjoint patterns present for nobody", () => {
    expect(presents(sub("repo:org/x:.*"), sub("repo:other/.*"))).toBe(false);
    expect(presents(sub("repo:org/x:ref:refs/heads/main"), sub("repo:org/x:ref:refs/tags/.*"))).toBe(false);
    expect(presents(sub("repo:org/[a-c]+:.*"), sub("repo:org/[d-f]+:.*"))).toBe(false);
    expect(presents(sub("[0-9]{3}"), sub("[0-9]{4}"))).toBe(false);
    // The same subjects under another issuer pattern.
    expect(presents({ issuerPattern: "https://gitlab\\.com", subjectPattern: ".*" }, sub(".*"))).toBe(false);
    expect(presents({ issuerPattern: "https://token\\.actions\\.githubusercontent\\.com", subjectPattern: "repo:org/.*" }, sub(".*"))).toBe(true);
  });

  it("audience and other claims: patterns on both sides meet, a claim the actor does not constrain is unknown", () => {
    const a: ClaimMatch = { issuer: gh, subjectPattern: "repo:org/.*", audiencePattern: "sts\\.(example|test)", claimPatterns: { ref: "refs/heads/.*" } };
    const b: ClaimMatch = { issuer: gh, subjectPattern: "repo:org/x:.*", audience: "sts.test", claimPatterns: { ref: "refs/heads/release-[0-9]+" } };
    expect(presentedToken(a, b)).toEqual({ issuer: gh, subject: "repo:org/x:", audience: "sts.test", claims: { ref: "refs/heads/release-0" } });
    expect(presents(a, { ...b, audience: "sts.prod" })).toBe(false);
    expect(presents(a, { ...b, claimPatterns: { ref: "refs/tags/.*" } })).toBe(false);
    // The target constrains a claim the actor says nothing of: its value is not known, no step.
    expect(presents(a, { ...b, claimPatterns: { ...b.claimPatterns, environment: ".*" } })).toBe(false);
    // The target has an audience rule and the actor none (or the other way round): as before, no step.
    expect(presents(sub(".*"), { ...sub(".*"), audiencePattern: ".*" })).toBe(false);
    expect(presents({ ...sub(".*"), audiencePattern: ".*" }, sub(".*"))).toBe(false);
    // An issuer or subject the actor does not constrain at all: no step.
    expect(presents({ issuer: gh }, sub(".*"))).toBe(false);
    expect(presents({ subjectPattern: ".*" }, sub(".*"))).toBe(false);
  });

  it("exact values decide as before: equal, or matched by the other side's pattern", () => {
    expect(presents({ issuer: gh, subject: "repo:org/x:ref:refs/heads/main" }, sub("repo:org/.*"))).toBe(true);
    expect(presents({ issuer: gh, subject: "repo:other/x:ref:refs/heads/main" }, sub("repo:org/.*"))).toBe(false);
    expect(presents({ issuer: gh, subject: "s" }, { issuer: gh, subject: "s" })).toBe(true);
    expect(presents({ issuer: gh, subject: "s" }, { issuer: gh, subject: "t" })).toBe(false);
    expect(presents({ issuer: gh, subject: "s", claims: { ref: "main" } }, { issuer: gh, subject: "s", claimPatterns: { ref: "ma.*" } })).toBe(true);
    expect(presents({ issuer: gh, subject: "s" }, { issuer: gh, subject: "s", claims: { ref: "main" } })).toBe(false);
    // A pattern actor against an exact target: the exact value is the common one when the pattern admits it.
    expect(presentedToken(sub("repo:org/.*"), { issuer: gh, subject: "repo:org/x" })?.subject).toBe("repo:org/x");
    expect(presents(sub("repo:org/.*"), { issuer: gh, subject: "repo:other/x" })).toBe(false);
    // An exact value takes precedence over a pattern beside it, as the exchange decides.
    expect(presents({ issuer: gh, subject: "repo:org/x", subjectPattern: "nothing" }, sub("repo:org/.*"))).toBe(true);
  });

  it("patterns it cannot decide decide nothing: RE2 rejects them, a construct refused, over the limits", () => {
    expect(presents(sub("(a)\\1"), sub(".*"))).toBe(false); // a backreference: RE2 rejects it
    expect(presents(sub("(?=a)a"), sub(".*"))).toBe(false); // lookahead: RE2 rejects it
    expect(presents(sub("(?i)repo:org/.*"), sub("repo:org/.*"))).toBe(false); // case folding: refused
    expect(presents(sub("\\pL+"), { issuer: gh, subject: "a" })).toBe(true); // against an exact value RE2 decides (the value is the common one)
    expect(presents(sub("\\pL+"), sub("a.*"))).toBe(false); // Unicode classes: refused between patterns
    expect(presents(sub(`repo:org/${"x".repeat(PATTERN_LIMIT)}.*`), sub("repo:org/.*"))).toBe(false); // over the size limit
    expect(presents(sub("(?:[ab]{1000}){1000}"), sub(".*"))).toBe(false); // RE2 rejects the repeat count
    expect(presents(sub("[a-z]{1000}[0-9]{1000}[a-z]{1000}[0-9]{1000}x"), sub(".*x"))).toBe(false); // over the state limit
    expect(commonWord(["a{1000}", "a{999}"])).toBeUndefined(); // disjoint (and within the limits)
  });

  it("RE2 syntax JavaScript reads otherwise is rewritten to the same language", () => {
    const cases: Array<[string, string, string | undefined]> = [
      ["\\Qa.b\\E", "a.b", "a.b"], ["\\Qa.b\\E", "axb", undefined], // quoted text
      ["[[:digit:]]{3}", "1.*", "100"], // POSIX class
      ["a{,2}", "a\\{,2\\}", "a{,2}"], // `{,2}` is literal in RE2
      ["\\s", "[ \\v]", " "], ["\\s", "\\v", undefined], // RE2's `\s` has no \v (JavaScript's has)
      ["\\S+", "[\\t ]", undefined],
      ["(?P<n>a)b", "ab", "ab"], ["\\x41\\x{42}", "AB", "AB"], ["\\101", "A", "A"],
      ["a\\b", "a", "a"], ["a\\bb", "ab", undefined], ["\\Aab\\z", "a.", "ab"], ["a^b", ".*", undefined],
      ["(?s:a.)", "ab", "ab"], [".*", "\\n", "\n"], // `.` matches a newline, as the model matches
      ["[\\d-]+", "-1", "-1"], ["(?U)a+?", "aa", "aa"],
    ];
    for (const [a, b, want] of cases) expect(commonWord([a, b]), `${a} ∩ ${b}`).toBe(want);
  });

  it("the model takes the step through a common value and says which; a disjoint or undecidable pair gives none", () => {
    const builtins: AccessRole[] = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));
    const o: AccessOrg = {
      groups: [{ id: "root", name: "acme" }, { id: "ci", parentId: "root", name: "ci" }],
      identities: [
        { id: "release", name: "release", groupId: "root", claimMatch: sub("repo:my-org/.*") },
        { id: "x-deploy", name: "x-deploy", groupId: "ci", claimMatch: sub("repo:my-org/x:ref:refs/heads/.*") },
        { id: "outside", name: "outside", groupId: "ci", claimMatch: sub("repo:other-org/.*") },
        { id: "folded", name: "folded", groupId: "ci", claimMatch: sub("(?i)repo:my-org/.*") },
      ],
      roles: builtins,
      bindings: [
        { identityId: "release", roleId: "role:owner", groupId: "root" },
        { identityId: "x-deploy", roleId: "role:viewer", groupId: "ci" },
      ],
    };
    const ix = new OrgIndex(o);
    const closed = effectiveAccess(o);
    expect(holds(ix, closed, "x-deploy", "CAP_IAM_GROUPS_DELETE", "root")?.via[0]!.steps).toEqual([
      `"x-deploy"'s own workload token matches the claimMatch of identity "release" (/release) (a token with subject "repo:my-org/x:ref:refs/heads/" matches both), so it exchanges that token for it`,
    ]);
    expect(holds(ix, closed, "outside", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
    expect(holds(ix, closed, "folded", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
    expect(holds(ix, effectiveAccess(o, { escalations: [] }), "x-deploy", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
  });

  it("an identity taken over does not present its own workload's token for the taker: the taker holds another token", () => {
    const builtins: AccessRole[] = Object.entries(BUILTIN_ROLE_CAPABILITIES).map(([name, capabilities]) => ({ id: `role:${name}`, name, capabilities }));
    const o: AccessOrg = {
      groups: [{ id: "root", name: "acme" }, { id: "ci", parentId: "root", name: "ci" }],
      identities: [
        { id: "admin", name: "admin", groupId: "ci", claimMatch: { issuer: gh, subject: "repo:my-org/admin:ref:refs/heads/main" } },
        { id: "broad", name: "broad", groupId: "ci", claimMatch: sub("repo:my-org/.*") },
        { id: "prod", name: "prod", groupId: "root", claimMatch: { issuer: gh, subject: "repo:my-org/prod:environment:production" } },
      ],
      roles: [...builtins, { id: "updater", name: "updater", groupId: "ci", capabilities: ["CAP_IAM_IDENTITY_UPDATE"] }],
      bindings: [
        { identityId: "admin", roleId: "updater", groupId: "ci" },
        { identityId: "prod", roleId: "role:owner", groupId: "root" },
      ],
    };
    const ix = new OrgIndex(o);
    const closed = effectiveAccess(o);
    // broad's own workloads include prod's (a token with prod's subject): broad presents for prod.
    expect(holds(ix, closed, "broad", "CAP_IAM_GROUPS_DELETE", "root")?.via[0]!.path.map((s) => s.kind)).toEqual(["present"]);
    // admin takes broad over (rewriting its claimMatch, or presenting its own token, which broad accepts), but the
    // token it holds then is its own, not prod's.
    expect(holds(ix, closed, "admin", "CAP_IAM_IDENTITY_UPDATE", "ci")).toBeDefined();
    expect(holds(ix, closed, "admin", "CAP_IAM_GROUPS_DELETE", "root")).toBeUndefined();
  });
});
