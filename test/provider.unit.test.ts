/**
 * Each provider method (check, diff, create, read, update, delete) of Group, Identity and RoleBinding against
 * the emulator over loopback, called the way the dynamic-provider host calls them.
 */
import { describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import { resolveSettings, SettingsError } from "../provider/config";
import { groupKind, type GroupInputs } from "../provider/kinds/group";
import { deleteGroupPatiently } from "../provider/engine/lifecycle";
import { groupChildren } from "../provider/kinds/registry";
import { identityKind, type IdentityInputs } from "../provider/kinds/identity";
import { roleBindingKind } from "../provider/kinds/roleBinding";
import { getClient } from "../provider/state";
import { UNKNOWN } from "../provider/validation";
import { useProviderEmulator } from "./harness/provider";

let emu: Emulator;
useProviderEmulator((started) => {
  emu = started;
});

const claim = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" };

describe("check", () => {
  it("reports every bad field, naming it and what is allowed, without calling the API", async () => {
    const before = emu.requests.length;
    const r = await groupKind.provider.check({} as GroupInputs, { parentUid: "nope", name: "No!", description: 3 } as never);
    expect(r.failures!.map((f) => f.property)).toEqual(["parentUid", "name", "description"]);
    expect(r.failures![1]!.reason).toContain("^[a-z0-9 ._-]{1,}$");
    expect(r.failures![0]!.reason).toContain("40 lowercase hex");
    expect(emu.requests.length).toBe(before);
  });

  it("enforces the 3–63 character length", async () => {
    const r = await groupKind.provider.check({} as GroupInputs, { parentUid: emu.orgUid, name: "ab" } as never);
    expect(r.failures![0]).toMatchObject({ property: "name", reason: expect.stringContaining("3–63") });
  });

  it("defaults description to an empty string and passes unknown values through", async () => {
    const r = await groupKind.provider.check({} as GroupInputs, { parentUid: UNKNOWN, name: "fine" } as never);
    expect(r.failures).toEqual([]);
    // createToken: every kind's built-in declared field (engine/declare.ts), made by check.
    expect(r.inputs).toEqual({ parentUid: UNKNOWN, name: "fine", description: "", createToken: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it("keeps the createToken of the old inputs, and makes one only when there is none", async () => {
    const first = (await groupKind.provider.check({} as GroupInputs, { parentUid: emu.orgUid, name: "fine" } as never)).inputs as GroupInputs & { createToken: string };
    const again = (await groupKind.provider.check(first, { parentUid: emu.orgUid, name: "fine", description: "changed" } as never)).inputs as GroupInputs & { createToken: string };
    expect(again.createToken).toBe(first.createToken);
    const other = (await groupKind.provider.check({} as GroupInputs, { parentUid: emu.orgUid, name: "fine" } as never)).inputs as GroupInputs & { createToken: string };
    expect(other.createToken).not.toBe(first.createToken);
    // Never a diff: only the token differs.
    expect((await groupKind.provider.diff(emu.orgUid, { ...first, createToken: "0000000000000000" } as never, first)).changes).toBe(false);
  });

  it("requires claimMatch issuer and subject, one of each exact/pattern pair, and valid patterns", async () => {
    const r = await identityKind.provider.check({} as IdentityInputs, {
      parentUid: emu.orgUid,
      name: "bot",
      claimMatch: { issuer: "https://a", issuerPattern: ".*", subjectPattern: "([" },
    } as never);
    const props = r.failures!.map((f) => f.property);
    expect(props).toContain("claimMatch.issuer");
    expect(props).toContain("claimMatch.subjectPattern");
  });

  it("checks role binding uids", async () => {
    const r = await roleBindingKind.provider.check({} as never, { groupUid: emu.orgUid, identityUid: "x", roleUid: "" } as never);
    expect(r.failures!.map((f) => f.property)).toEqual(["identityUid", "roleUid"]);
  });
});

describe("diff", () => {
  const olds = { parentUid: "a".repeat(40), name: "n", description: "d" } as GroupInputs;
  it("replaces on a parentUid change", async () => {
    expect(await groupKind.provider.diff("id", olds as never, { ...olds, parentUid: "b".repeat(40) })).toEqual({ changes: true, replaces: ["parentUid"] });
  });
  it("updates in place on a description change", async () => {
    expect(await groupKind.provider.diff("id", olds as never, { ...olds, description: "e" })).toEqual({ changes: true, replaces: [] });
  });
  it("reports no change when nothing changed, ignoring server-only outputs", async () => {
    expect(await groupKind.provider.diff("id", { ...olds, uid: "u", status: "x" } as never, olds)).toEqual({ changes: false, replaces: [] });
  });
});

describe("group life cycle", () => {
  it("creates, reads, updates with exactly the changed fields, and deletes", async () => {
    const inputs: GroupInputs = { parentUid: emu.orgUid, name: "life", description: "one" };
    const created = await groupKind.provider.create(inputs);
    expect(created.id).toMatch(new RegExp(`^${emu.orgUid}/[0-9a-f]{16}$`));
    expect(created.outs).toMatchObject({ uid: created.id, parentUid: emu.orgUid, name: "life", description: "one" });

    const read = await groupKind.provider.read(created.id, created.outs);
    expect(read.inputs).toEqual(inputs);

    const updated = await groupKind.provider.update(created.id, created.outs!, { ...inputs, description: "two" });
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "description" } });
    expect(updated.outs).toMatchObject({ description: "two", name: "life" });

    await groupKind.provider.delete(created.id, updated.outs!);
    expect((await groupKind.provider.read(created.id, updated.outs)).id).toBe("");
  });

  it("shows an out-of-band edit in read's inputs", async () => {
    const created = await groupKind.provider.create({ parentUid: emu.orgUid, name: "drift", description: "declared" });
    await getClient().groups.patch(created.id, { description: "edited elsewhere" }, ["description"]);
    const read = await groupKind.provider.read(created.id, created.outs);
    expect(read.inputs).toMatchObject({ description: "edited elsewhere" });
  });

  it("treats NOT_FOUND on delete as done", async () => {
    await expect(groupKind.provider.delete(`${emu.orgUid}/0123456789abcdef`, {} as never)).resolves.toBeUndefined();
  });

  it("gives up on a non-empty group at its delete timeout, listing the children left by kind and uid", async () => {
    const parent = await groupKind.provider.create({ parentUid: emu.orgUid, name: "busy", description: "" });
    const child = await groupKind.provider.create({ parentUid: parent.id, name: "child", description: "" });
    const err = await groupKind.provider.delete(parent.id, { ...parent.outs!, deleteTimeoutSeconds: 1 }).catch((e: unknown) => e);
    expect(String(err)).toContain(`could not be deleted within 1s`);
    expect(String(err)).toContain(`children left: Group "child" (/busy/child, uid ${child.id})`);
  });

  it("gives up early when the children left stay the same, naming each by kind, name and path, and how to settle it", async () => {
    const parent = await groupKind.provider.create({ parentUid: emu.orgUid, name: "stuck", description: "" });
    const child = await groupKind.provider.create({ parentUid: parent.id, name: "made-by-hand", description: "" });
    const logged: string[] = [];
    const err = await deleteGroupPatiently(getClient(), parent.id, 300, { ...getClient().transport.retry, maxDelayMs: 200 }, groupChildren(), (m) => logged.push(m), 1_000).catch((e: unknown) => e);
    expect(String(err)).toMatch(/group \/stuck \(uid [^)]+\) could not be deleted after its children stayed the same for \ds because it is not empty/);
    expect(String(err)).toContain(`children left: Group "made-by-hand" (/stuck/made-by-hand, uid ${child.id})`);
    expect(String(err)).toContain("adoptUid");
    expect(String(err)).toContain("platform-pulumi unmanaged");
    // One line when the wait starts, not one per retry.
    expect(logged).toHaveLength(1);
    await groupKind.provider.delete(child.id, child.outs!);
    await groupKind.provider.delete(parent.id, parent.outs!);
  });

  it("waits for children deleted in parallel, then deletes the group", async () => {
    const parent = await groupKind.provider.create({ parentUid: emu.orgUid, name: "parallel", description: "" });
    const child = await groupKind.provider.create({ parentUid: parent.id, name: "child", description: "" });
    const deleting = groupKind.provider.delete(parent.id, { ...parent.outs!, deleteTimeoutSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    await groupKind.provider.delete(child.id, child.outs!);
    await deleting;
    expect((await groupKind.provider.read(parent.id, parent.outs)).id).toBe("");
    const refused = emu.requests.filter((r) => r.method === "DELETE" && r.path.endsWith(parent.id) && r.status === 400);
    expect(refused.length).toBeGreaterThan(0);
  });
});

describe("identity and role binding life cycle", () => {
  it("creates an identity and a binding, patches the binding's role, and cleans up", async () => {
    const group = await groupKind.provider.create({ parentUid: emu.orgUid, name: "rb-life", description: "" });
    const ident = await identityKind.provider.create({ parentUid: group.id, name: "bot", description: "", claimMatch: claim });
    expect(ident.outs).toMatchObject({ parentUid: group.id, claimMatch: claim });

    const roles = new Map((await getClient().roles.list().collect()).map((r) => [r.name, r.uid]));
    const binding = await roleBindingKind.provider.create({ groupUid: group.id, identityUid: ident.id, roleUid: roles.get("viewer")! });
    expect(binding.outs).toMatchObject({ groupUid: group.id, role: { name: "viewer" }, identity: { name: "bot" } });

    const patched = await roleBindingKind.provider.update(binding.id, binding.outs!, {
      groupUid: group.id,
      identityUid: ident.id,
      roleUid: roles.get("editor")!,
    });
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "roleUid" } });
    expect(patched.outs).toMatchObject({ role: { name: "editor" } });

    const identUpdate = await identityKind.provider.update(ident.id, ident.outs!, {
      ...(ident.outs as IdentityInputs),
      claimMatch: { ...claim, subject: "repo:o/r:ref:refs/heads/release" },
    });
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "claimMatch" } });
    expect(identUpdate.outs!.claimMatch!.subject).toBe("repo:o/r:ref:refs/heads/release");

    await roleBindingKind.provider.delete(binding.id, patched.outs!);
    await identityKind.provider.delete(ident.id, identUpdate.outs!);
    await groupKind.provider.delete(group.id, group.outs!);
    expect((await identityKind.provider.read(ident.id, identUpdate.outs)).id).toBe("");
  });
});

describe("settings", () => {
  it("names the config key and the environment variable when the API URL or token is missing", () => {
    expect(() => resolveSettings(() => undefined, {})).toThrow(/platform:apiUrl.*PLATFORM_API_URL/);
    expect(() => resolveSettings(() => undefined, { PLATFORM_API_URL: "http://x" })).toThrow(/platform:token.*PLATFORM_TOKEN/);
  });
  it("prefers stack config over the environment and defaults apiVersion to v2beta1", () => {
    const s = resolveSettings((k) => ({ "platform:apiUrl": "https://cfg.example/" })[k], { PLATFORM_API_URL: "http://env", PLATFORM_TOKEN: "t" });
    expect(s).toMatchObject({ apiUrl: "https://cfg.example", token: "t", apiVersion: "v2beta1" });
  });
  it("rejects a malformed apiUrl naming the key", () => {
    expect(() => resolveSettings(() => undefined, { PLATFORM_API_URL: "ftp://x", PLATFORM_TOKEN: "t" })).toThrow(SettingsError);
  });
  it("reads readAhead as true by default, false only when set so, and names a bad value", () => {
    const env = { PLATFORM_API_URL: "http://x", PLATFORM_TOKEN: "t" };
    expect(resolveSettings(() => undefined, env).readAhead).toBe(true);
    expect(resolveSettings(() => undefined, { ...env, PLATFORM_READ_AHEAD: "false" }).readAhead).toBe(false);
    expect(resolveSettings((k) => ({ "platform:readAhead": "false" })[k], { ...env, PLATFORM_READ_AHEAD: "true" }).readAhead).toBe(false);
    expect(() => resolveSettings(() => undefined, { ...env, PLATFORM_READ_AHEAD: "no" })).toThrow('platform:readAhead (PLATFORM_READ_AHEAD) must be true or false, got "no"');
  });
});
