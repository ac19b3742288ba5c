/**
 * What the gate believes (docs/policy.md "What the gate trusts", "Least privilege"): the digests the pack reports
 * through the engine and the gate's check of its files (provider/access/gateChannel.ts, policies/change.ts
 * `gate-inputs`, provider/commands/gate.ts `trustPackResults`); `unreviewed-resource` (policies/rules.ts); the
 * credentials check (provider/commands/privilege.ts). test/gate-steer.test.ts runs the attacks through the bin.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { ResourceValidationArgs, StackValidationArgs } from "@pulumi/policy";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { BASELINE_ENV, GATE_OUT_ENV, ORG_ENV, parseGateInputs, sha256 } from "../provider/access/gateChannel";
import { gateInputs, loadBaseline, loadOrg, writeGateFile } from "../policies/change";
import { typeMatcher, unreviewedResource } from "../policies/rules";
import { POLICY_PEER_HINT, canResolvePolicy, trustPackResults, withPackHints } from "../provider/commands/gate";
import { callerOf, privilegeWarning, readsOnly, writeGrants } from "../provider/commands/privilege";
import { formatVerify } from "../provider/commands/gateVerify";
import type { PlatformClient } from "../provider/client/client";

const dirs: string[] = [];
function folder(): string {
  const d = mkdtempSync(path.join(tmpdir(), "gate-trust-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  delete process.env[BASELINE_ENV];
  delete process.env[GATE_OUT_ENV];
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What `gate-inputs` reports with the environment as it is. */
async function reported(): Promise<string[]> {
  const out: string[] = [];
  await gateInputs.validateStack({ resources: [], getConfig: () => ({}) } as unknown as StackValidationArgs, (m) => out.push(m));
  return out;
}

describe("gate-inputs and the gate's check", () => {
  it("is silent outside the gate", async () => {
    expect(await reported()).toEqual([]);
  });

  it("reports the digest of the baseline the pack judged against and of every file it wrote; the gate trusts them when they match", async () => {
    const dir = folder();
    const out = path.join(dir, "out");
    require("node:fs").mkdirSync(out);
    const text = JSON.stringify({ objects: [{ kind: "Group", urn: `urn:x:${dir}`, name: "g", props: { uid: "a".repeat(40) } }] });
    writeFileSync(path.join(dir, "baseline.json"), text);
    process.env[BASELINE_ENV] = path.join(dir, "baseline.json");
    process.env[GATE_OUT_ENV] = out;
    writeGateFile("access.json", '{"changes":[1]}');
    writeGateFile("silenced-x.jsonl", "a\n", true);
    writeGateFile("silenced-x.jsonl", "b\n", true);
    const [message] = await reported();
    const inputs = parseGateInputs(`The gate's integrity check.\n${message}`)!;
    expect(inputs.baseline).toBe(sha256(text));
    expect(inputs.files).toMatchObject({ "access.json": sha256('{"changes":[1]}'), "silenced-x.jsonl": sha256("a\nb\n") });
    expect(trustPackResults(out, sha256(text), inputs, { shipped: true, completed: true })).toEqual({ ok: true });
    // The baseline was read once: rewriting the file afterwards changes neither what the pack judges nor its digest.
    writeFileSync(path.join(dir, "baseline.json"), JSON.stringify({ objects: [] }));
    expect(loadBaseline()!.objects).toHaveLength(1);
  });

  it("refuses (tampered) a baseline other than the gate's, a changed, extra or removed file, and the shipped pack's silence", () => {
    const out = folder();
    writeFileSync(path.join(out, "access.json"), "{}");
    const inputs = { baseline: "b".repeat(64), files: { "access.json": sha256("{}") } };
    const opts = { shipped: true, completed: true };
    expect(trustPackResults(out, "b".repeat(64), inputs, opts).ok).toBe(true);
    expect(trustPackResults(out, "c".repeat(64), inputs, opts).tampered).toMatch(/the baseline the pack judged against is not the one the gate wrote/);
    writeFileSync(path.join(out, "access.json"), '{"changes":[]}');
    expect(trustPackResults(out, "b".repeat(64), inputs, opts).tampered).toMatch(/access\.json differs from what the pack wrote/);
    writeFileSync(path.join(out, "access.json"), "{}");
    writeFileSync(path.join(out, "silenced-no-new-access.jsonl"), "{}\n");
    expect(trustPackResults(out, "b".repeat(64), inputs, opts).tampered).toMatch(/silenced-no-new-access\.jsonl was not written by the pack/);
    rmSync(path.join(out, "silenced-no-new-access.jsonl"));
    rmSync(path.join(out, "access.json"));
    expect(trustPackResults(out, "b".repeat(64), inputs, opts).tampered).toMatch(/access\.json removed/);
    expect(trustPackResults(out, "b".repeat(64), undefined, opts).tampered).toMatch(/the pack did not confirm what it read and wrote/);
    // Another pack that never confirms: not trusted, not tampered; a preview that stopped early: the same.
    expect(trustPackResults(out, "b".repeat(64), undefined, { shipped: false, completed: true })).toEqual({ ok: false });
    expect(trustPackResults(out, "b".repeat(64), undefined, { shipped: true, completed: false })).toEqual({ ok: false });
  });

  it("reads the digests only from a JSON line of the right shape", () => {
    expect(parseGateInputs("description\nnot json")).toBeUndefined();
    expect(parseGateInputs('d\n{"baseline":1,"files":{}}')).toBeUndefined();
    expect(parseGateInputs('d\n{"baseline":null,"files":{"a":"x"}}')).toEqual({ baseline: null, org: null, files: { a: "x" } });
    expect(parseGateInputs('d\n{"baseline":null,"org":5,"files":{}}')).toBeUndefined();
  });

  it("waits for the org the gate reads while the preview runs, confirms its digest, and refuses another", async () => {
    const dir = folder();
    const out = path.join(dir, "out");
    require("node:fs").mkdirSync(out);
    writeFileSync(path.join(dir, "baseline.json"), '{"objects":[]}');
    process.env[BASELINE_ENV] = path.join(dir, "baseline.json");
    process.env[GATE_OUT_ENV] = out;
    process.env[ORG_ENV] = path.join(dir, "org.json");
    try {
      const text = JSON.stringify({ outside: [{ kind: "Identity", urn: "uid:x", name: "xbot", props: { uid: "x".repeat(40) } }], managed: { ["x".repeat(40)]: "unmanaged" } });
      // Not there yet: the pack waits; the gate renames the whole file into place.
      const waiting = loadOrg(5_000);
      await new Promise((r) => setTimeout(r, 120));
      writeFileSync(path.join(dir, "org.part"), text);
      renameSync(path.join(dir, "org.part"), path.join(dir, "org.json"));
      expect((await waiting)!.outside).toHaveLength(1);
      // (The files earlier tests wrote through this module are left out: this test wrote none.)
      const inputs = { ...parseGateInputs(`d\n${(await reported())[0]}`)!, files: {} };
      expect(inputs.org).toBe(sha256(text));
      const opts = { shipped: true, completed: true };
      expect(trustPackResults(out, sha256('{"objects":[]}'), inputs, { ...opts, orgDigest: sha256(text) })).toEqual({ ok: true });
      // The program under review wrote an org of its own first: the digest is not the gate's.
      expect(trustPackResults(out, sha256('{"objects":[]}'), inputs, { ...opts, orgDigest: "f".repeat(64) }).tampered).toMatch(/the org the pack judged with is not the one the gate wrote/);
      // A pack that read no org (no-new-access turned off) judged nothing with it.
      expect(trustPackResults(out, sha256('{"objects":[]}'), { ...inputs, org: null }, { ...opts, orgDigest: sha256(text) }).ok).toBe(true);
      // A file that never comes: the pack says so, naming it.
      process.env[ORG_ENV] = path.join(dir, "never.json");
      await expect(loadOrg(200)).rejects.toThrow(/PLATFORM_GATE_ORG=.*never\.json: the gate did not write the org within 0 s/);
    } finally {
      delete process.env[ORG_ENV];
    }
  });
});

describe("unreviewed-resource", () => {
  async function findings(type: string, opts: { provider?: boolean; config?: Record<string, unknown> } = {}): Promise<string[]> {
    const out: string[] = [];
    const args = {
      type,
      name: "sneak",
      urn: `urn:pulumi:s::p::${type}::sneak`,
      props: {},
      ...(opts.provider === false ? {} : { provider: { type: `pulumi:providers:${type.split(":")[0]}`, props: {}, urn: "u", name: "default" } }),
      getConfig: () => opts.config ?? {},
    } as unknown as ResourceValidationArgs;
    await (unreviewedResource.validateResource as (a: ResourceValidationArgs, r: (m: string) => void) => void)(args, (m) => out.push(m));
    return out;
  }

  it("reports a raw dynamic resource and another provider's resource, high by default, and names what to do", async () => {
    expect(await findings("pulumi-nodejs:dynamic:Resource")).toEqual([expect.stringMatching(/^\[high\] resource "sneak" of type pulumi-nodejs:dynamic:Resource: a dynamic resource runs its own code at `pulumi up`.*allowedTypes/)]);
    expect(await findings("command:local:Command")).toEqual([expect.stringMatching(/^\[high\] resource "sneak" of type command:local:Command: provider "command" acts outside the package's kinds/)]);
    expect(await findings("command:local:Command", { config: { severity: "critical" } })).toEqual([expect.stringMatching(/^\[critical\] /)]);
  });

  it("passes the package's kinds (dynamic and native), components, providers, the stack and allowed types", async () => {
    expect(await findings("pulumi-nodejs:dynamic/platform:RoleBinding")).toEqual([]);
    expect(await findings("platform:iam:RoleBinding")).toEqual([]);
    expect(await findings("platform:index:Org", { provider: false })).toEqual([]);
    expect(await findings("pulumi:providers:platform")).toEqual([]);
    expect(await findings("pulumi:pulumi:Stack")).toEqual([]);
    expect(await findings("random:index/randomPet:RandomPet", { config: { allowedTypes: ["random:*"] } })).toEqual([]);
    expect(await findings("random:index/randomPet:RandomPet", { config: { allowedTypes: ["aws:*"] } })).toHaveLength(1);
  });

  it("compiles type globs literally but for `*`, and refuses an empty or oversized one naming it", () => {
    expect(typeMatcher(["a.b:*"])("a.b:x")).toBe(true);
    expect(typeMatcher(["a.b:*"])("aXb:x")).toBe(false);
    expect(() => typeMatcher([""])).toThrow(/unreviewed-resource\.allowedTypes\[0\]: "" is not a type glob of 1 to 256 characters/);
    expect(() => typeMatcher(["x".repeat(1_000_000)])).toThrow(/allowedTypes\[0\]/);
  });
});

describe("the credentials check", () => {
  const bindings = (rows: unknown[]) =>
    ({
      roleBindings: { list: () => ({ collect: async () => rows }) },
      roles: { get: async () => ({ name: "custom", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_UPDATE"] }) },
    }) as unknown as PlatformClient;
  const root = "a".repeat(40);
  const me = `${root}/${"b".repeat(16)}`;

  it("names the caller from workload identity, else the token's subject; an opaque token names none", async () => {
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(me).sign(new Uint8Array(32));
    expect(callerOf({ identity: "x", token: jwt })).toBe("x");
    expect(callerOf({ identity: undefined, token: jwt })).toBe(me);
    expect(callerOf({ identity: undefined, token: "opaque" })).toBeUndefined();
    expect(readsOnly("CAP_REPO_BLOBS_GET")).toBe(true);
    expect(readsOnly("CAP_IAM_ROLE_BINDINGS_CREATE")).toBe(false);
  });

  it("finds the caller's bindings that write, built-in roles by name and custom roles by their capabilities; a viewer warns nothing", async () => {
    const s = { identity: me, token: undefined, orgUid: undefined };
    const viewer = await writeGrants(bindings([{ uid: `${root}/1`, identityUid: me, role: { uid: "1", name: "viewer" } }, { uid: `${root}/2`, identityUid: "other", role: { uid: "3", name: "owner" } }]), s);
    expect(viewer).toEqual({ identity: me, grants: [] });
    expect(privilegeWarning("gate", viewer)).toBeUndefined();
    const writer = await writeGrants(bindings([{ uid: `${root}/1`, identityUid: me, roleUid: "9", role: { uid: "9", name: "custom" }, group: { uid: root, name: "my-org", description: "" } }]), s);
    expect(writer).toEqual({ identity: me, grants: [{ role: "custom", group: root, groupName: "my-org", writes: ["CAP_IAM_GROUPS_UPDATE"] }] });
    expect(privilegeWarning("gate", writer)).toMatch(/^warning: gate runs the program under review with API credentials that can write \(identity a+\/b+: custom at my-org \(1 write capabilities, e\.g\. CAP_IAM_GROUPS_UPDATE\)\)/);
  });

  it("says when it cannot tell, without failing", async () => {
    const refused = { roleBindings: { list: () => ({ collect: async () => Promise.reject(new Error("PERMISSION_DENIED: nope")) }) } } as unknown as PlatformClient;
    const r = await writeGrants(refused, { identity: me, token: undefined, orgUid: undefined });
    expect(privilegeWarning("gate", r)).toMatch(/^note: gate could not check that its API credentials only read: its role bindings could not be read \(PERMISSION_DENIED: nope\)/);
    expect(await writeGrants(refused, { identity: "b".repeat(40), token: undefined, orgUid: undefined })).toEqual({ unknown: expect.stringMatching(/names no org; set platform:orgUid/) });
  });
});

describe("gate --verify's report", () => {
  const gain = { identity: { name: "ci-deployer", path: "/ci-deployer", uid: null }, capability: "groups.create", group: "/", severity: "high" as const, via: [{ kind: "direct", role: "editor", boundAt: "/", steps: [] }], change: "gained" as const };
  it("fails naming what the review did not show, and passes counting what it did", () => {
    const failed = formatVerify({ stack: "prod", passed: false, approved: "a.json", approvedPassed: true, unshown: [gain as never], shown: 2 }, "table");
    expect(failed).toContain("ci-deployer");
    expect(failed).toMatch(/gate --verify: FAILED: 1 capability gain\(s\) applied that the review did not show/);
    expect(formatVerify({ stack: "prod", passed: true, approved: "a.json", approvedPassed: false, unshown: [], shown: 2 }, "markdown")).toBe("**gate --verify: passed (2 gain(s) since the reviewed baseline, each shown by the review; note: the reviewed report had not passed the gate)**\n");
    expect(JSON.parse(formatVerify({ stack: "prod", passed: true, approved: "a.json", approvedPassed: true, unshown: [], shown: 0 }, "json"))).toMatchObject({ passed: true });
  });
});

describe("the preview's errors when the pack cannot start", () => {
  const failed = 'error: policy pack "/p/policies" failed to start: could not read plugin [/p/policies]: exit status 1';
  it("each once, with the fix in front when @pulumi/policy does not resolve", () => {
    expect(withPackHints([failed, failed, ` ${failed}`], () => false)).toEqual([POLICY_PEER_HINT, failed]);
    expect(withPackHints([failed], () => true)).toEqual([failed]);
    expect(withPackHints(["error: something else", "error: something else"], () => false)).toEqual(["error: something else"]);
  });
  it("resolves @pulumi/policy as the pack's process would: from this repository yes, from a bare folder no", () => {
    expect(canResolvePolicy([process.cwd()])).toBe(true);
    expect(canResolvePolicy([tmpdir()])).toBe(false);
  });
});
