/**
 * Server-set fields as outputs: Group.verified, Group.resourceLimits and Identity.lastSeenTime are
 * typed outputs, parsed leniently (absent or malformed: a default, never a failure), and never inputs, so a
 * change behind the API never shows as a diff. The emulator's store is written directly, so these tests do not
 * depend on the emulator serving the fields itself.
 */
import { describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import { groupKind, type GroupInputs } from "../provider/kinds/group";
import { identityKind, type IdentityInputs } from "../provider/kinds/identity";
import { getClient } from "../provider/state";
import { useProviderEmulator } from "./harness/provider";

let emu: Emulator;
useProviderEmulator((started) => {
  emu = started;
});

/** Changes a stored row behind the API. */
function edit(table: "groups" | "identities", uid: string, fields: Record<string, unknown>): void {
  const t = emu.store[table];
  const row = t.get(uid);
  if (!row) throw new Error(`no ${table} row ${uid}`);
  t.put({ ...row, ...fields });
}

describe("Group.verified and Group.resourceLimits", () => {
  it("are outputs with their defaults on a new group (false, {}), and not inputs", async () => {
    const inputs: GroupInputs = { parentUid: emu.orgUid, name: "fields", description: "" };
    const created = await groupKind.provider.create(inputs);
    expect(created.outs).toMatchObject({ verified: false, resourceLimits: {} });
    const read = await groupKind.provider.read(created.id, created.outs);
    expect(read.inputs).toEqual(inputs);
  });

  it("follow the server on read without a diff, and carry limit members the contract does not list", async () => {
    const inputs: GroupInputs = { parentUid: emu.orgUid, name: "verified-later", description: "" };
    const created = await groupKind.provider.create(inputs);
    edit("groups", created.id, { verified: true, resourceLimits: { repositories: 5, clusters: 2, quota: 7 } });
    const read = await groupKind.provider.read(created.id, created.outs);
    expect(read.props).toMatchObject({ verified: true, resourceLimits: { repositories: 5, clusters: 2, quota: 7 } });
    expect(read.inputs).toEqual(inputs);
    expect(await groupKind.provider.diff(created.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
  });

  it("never fail a read when malformed: a non-boolean is false, a non-object is {}, a non-integer limit is dropped", async () => {
    const created = await groupKind.provider.create({ parentUid: emu.orgUid, name: "malformed", description: "" });
    edit("groups", created.id, { verified: "yes" });
    expect((await groupKind.provider.read(created.id, created.outs)).props).toMatchObject({ verified: false, resourceLimits: {} });
    edit("groups", created.id, { verified: true, resourceLimits: "none" });
    expect((await groupKind.provider.read(created.id, created.outs)).props).toMatchObject({ verified: true, resourceLimits: {} });
    edit("groups", created.id, { resourceLimits: { repositories: "many", idps: 3 } });
    expect((await groupKind.provider.read(created.id, created.outs)).props!.resourceLimits).toEqual({ idps: 3 });
  });

  it("are typed on the client's objects (lookups see them too)", async () => {
    const org = await getClient().groups.get(emu.orgUid);
    expect(typeof org.verified).toBe("boolean");
    expect(typeof org.resourceLimits).toBe("object");
  });
});

describe("Identity.lastSeenTime", () => {
  const claimMatch = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" };

  it("is an output (\"\" when the server sends none) that moves on its own without a diff, and never an input", async () => {
    const inputs: IdentityInputs = { parentUid: emu.orgUid, name: "seen", description: "", claimMatch };
    const created = await identityKind.provider.create(inputs);
    expect(typeof created.outs!.lastSeenTime).toBe("string");
    edit("identities", created.id, { lastSeenTime: "2026-05-01T10:00:00.000Z" });
    const first = await identityKind.provider.read(created.id, created.outs);
    expect(first.props!.lastSeenTime).toBe("2026-05-01T10:00:00.000Z");
    expect(first.inputs).toEqual(inputs);
    edit("identities", created.id, { lastSeenTime: "2026-05-02T11:00:00.000Z" });
    const second = await identityKind.provider.read(created.id, first.props);
    expect(second.props!.lastSeenTime).toBe("2026-05-02T11:00:00.000Z");
    expect(second.inputs).toEqual(inputs);
    expect(await identityKind.provider.diff(created.id, second.props!, inputs)).toEqual({ changes: false, replaces: [] });
  });

  it("never fails a read when malformed or absent", async () => {
    const created = await identityKind.provider.create({ parentUid: emu.orgUid, name: "seen-odd", description: "", claimMatch });
    edit("identities", created.id, { lastSeenTime: 42 });
    expect((await identityKind.provider.read(created.id, created.outs)).props!.lastSeenTime).toBe("");
    const { lastSeenTime: _drop, ...row } = emu.store.identities.get(created.id)!;
    emu.store.identities.put(row as never);
    expect((await identityKind.provider.read(created.id, created.outs)).props!.lastSeenTime).toBe("");
  });
});
