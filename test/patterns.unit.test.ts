/**
 * Identity patterns are RE2: the real service evaluates issuerPattern, subjectPattern,
 * audiencePattern and claimPatterns (and awsIdentity's arnPattern / userIdPattern) with Go's regexp. The
 * Identity provider's check rejects at preview, before any API call, every pattern RE2 rejects, naming the field,
 * its value and why; patterns RE2 accepts pass even where JavaScript's RegExp would refuse them; and no user
 * pattern is ever given to JavaScript's RegExp, in the provider or in the policy pack.
 */
import { describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import { identitySubjectNotWildcard, matchesAnything } from "../policies/rules";
import { identityKind, type IdentityInputs } from "../provider/kinds/identity";
import { useProviderEmulator } from "./harness/provider";

let emu: Emulator;
useProviderEmulator((started) => {
  emu = started;
});

const ISSUER = "https://token.actions.githubusercontent.com";

async function failures(claimMatch: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = await identityKind.provider.check({} as IdentityInputs, { parentUid: emu.orgUid, name: "bot", claimMatch, ...extra } as never);
  return r.failures ?? [];
}

/** Runs `fn` with every `new RegExp(...)` / `RegExp(...)` call recorded (literals in code are not calls). */
async function recordingRegExp(fn: () => Promise<void> | void): Promise<string[]> {
  const seen: string[] = [];
  const Original = globalThis.RegExp;
  globalThis.RegExp = new Proxy(Original, {
    construct(target, args) {
      seen.push(String(args[0]));
      return Reflect.construct(target, args);
    },
    apply(target, thisArg, args) {
      seen.push(String(args[0]));
      return Reflect.apply(target, thisArg, args);
    },
  });
  try {
    await fn();
  } finally {
    globalThis.RegExp = Original;
  }
  return seen;
}

describe("Identity check: patterns RE2 would reject", () => {
  it.each([
    ["subjectPattern", "^repo:(a)\\1$", "invalid escape sequence"],
    ["issuerPattern", "^https://(?=token)\\S+$", "invalid or unsupported Perl syntax"],
    ["audiencePattern", "^sts\\.amazonaws\\.com\\Z", "invalid escape sequence"],
    ["subjectPattern", "^repo:o/r:ref:refs/heads/(?<!x)main$", "invalid named capture"],
    ["subjectPattern", "^a{1001}$", "invalid repeat count"],
    ["subjectPattern", "^x*+$", "invalid nested repetition operator"],
  ])("rejects %s %s, naming the field, its value and why", async (field, pattern, why) => {
    const before = emu.requests.length;
    const cm = field === "issuerPattern" ? { issuerPattern: pattern, subject: "s" } : { issuer: ISSUER, subject: field === "subjectPattern" ? undefined : "s", [field]: pattern };
    const f = await failures(cm);
    expect(f).toEqual([{ property: `claimMatch.${field}`, reason: expect.stringContaining(JSON.stringify(pattern)) }]);
    expect(f[0]!.reason).toContain("RE2");
    expect(f[0]!.reason).toContain(why);
    expect(emu.requests.length).toBe(before);
  });

  it("rejects a claimPatterns entry RE2 would reject, naming the claim", async () => {
    const f = await failures({ issuer: ISSUER, subject: "s", claimPatterns: { repository_owner: "^my-org$", "https://example.com/ref": "^(main|(?=dev))$" } });
    expect(f).toEqual([{ property: 'claimMatch.claimPatterns["https://example.com/ref"]', reason: expect.stringContaining('"^(main|(?=dev))$" is not a valid RE2') }]);
  });

  it("rejects awsIdentity patterns RE2 would reject", async () => {
    const r = await identityKind.provider.check({} as IdentityInputs, {
      parentUid: emu.orgUid,
      name: "aws",
      awsIdentity: { awsAccount: "123456789012", arnPattern: "^arn:aws:iam::\\d+:role/(\\w+)-\\1$" },
    } as never);
    expect(r.failures).toEqual([{ property: "awsIdentity.arnPattern", reason: expect.stringContaining("RE2") }]);
  });

  it("accepts RE2 syntax that JavaScript's RegExp refuses ((?i), (?P<name>...), \\z)", async () => {
    expect(await failures({ issuer: ISSUER, subjectPattern: "(?i)^repo:my-org/(?P<repo>[a-z-]+):ref:refs/heads/main\\z" })).toEqual([]);
    const inlineFlag = "(?i)^x";
    expect(() => new RegExp(inlineFlag)).toThrow(); // JavaScript refuses what RE2 (and the service) accepts
  });

  it("never gives a user pattern to JavaScript's RegExp", async () => {
    const patterns = ["^repo:(a+)+$", "^(?i)x$", "^a\\1$"];
    const seen = await recordingRegExp(async () => {
      for (const p of patterns) await failures({ issuer: ISSUER, subjectPattern: p, claimPatterns: { c: p } });
    });
    expect(seen.filter((s) => patterns.some((p) => s.includes(p)))).toEqual([]);
  });
});

describe("policy identity-subject-not-wildcard runs patterns with RE2", () => {
  it("flags patterns that match anything, in RE2's syntax too", () => {
    expect(matchesAnything(".*")).toBe(true);
    expect(matchesAnything("(?s).*")).toBe(true);
    expect(matchesAnything("(?i).+|")).toBe(true);
    expect(matchesAnything("repo:my-org/.*")).toBe(false);
    expect(matchesAnything("(a)\\1")).toBe(false);
  });

  it("never gives a user pattern to JavaScript's RegExp", async () => {
    const pattern = "^(x+x+)+y$";
    const seen = await recordingRegExp(() => {
      const report: string[] = [];
      const args = { type: "pulumi-nodejs:dynamic/platform:Identity", props: { claimMatch: { subjectPattern: pattern } }, getConfig: () => ({}) };
      void (identitySubjectNotWildcard.validateResource as (a: unknown, r: (m: string) => void) => void)(args, (m) => report.push(m));
    });
    expect(seen.filter((s) => s.includes(pattern))).toEqual([]);
  });
});
