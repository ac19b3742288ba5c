/**
 * Role, IdentityProvider, AccountAssociation, GroupInvite and the Identity relationship oneof: each provider
 * method against the emulator, called the way the dynamic-provider host calls them.
 */
import { CAPABILITY_NAMES } from "../provider/capabilities";
import { CAPABILITIES as EMULATOR_CAPABILITIES } from "../emulator/access";
import { BUILTIN_ROLE_CAPABILITIES } from "../provider/access/builtin";
import { generateKeyPair, exportJWK } from "jose";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../emulator";
import { dottedName, wireName } from "../provider/capabilities";
import { accountAssociationKind } from "../provider/kinds/accountAssociation";
import { groupKind } from "../provider/kinds/group";
import { groupInviteKind, ttlSeconds, type GroupInviteOutputs } from "../provider/kinds/groupInvite";
import { identityKind, type IdentityInputs } from "../provider/kinds/identity";
import { identityProviderKind, type IdentityProviderInputs } from "../provider/kinds/identityProvider";
import { roleKind, type RoleInputs } from "../provider/kinds/role";
import { getClient } from "../provider/state";
import { useProviderEmulator } from "./harness/provider";

let emu: Emulator;
let group: string;
let viewerUid: string;
useProviderEmulator(async (started) => {
  emu = started;
  group = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "resources", description: "" })).id;
  viewerUid = (await getClient().roles.list({ name: "viewer" }).collect())[0]!.uid;
});

describe("Role", () => {
  it("maps dotted capability names to the wire form and back", () => {
    expect(wireName("groups.list")).toBe("CAP_IAM_GROUPS_LIST");
    expect(wireName("role_bindings.create")).toBe("CAP_IAM_ROLE_BINDINGS_CREATE");
    expect(wireName("repo.list")).toBe("CAP_REPO_LIST");
    expect(dottedName("CAP_IAM_IDENTITY_PROVIDERS_DELETE")).toBe("identity_providers.delete");
    expect(wireName("groups.fly")).toBeUndefined();
  });

  it("one capability list: the provider's is the emulator's own copy, and every built-in role's capability is in it", () => {
    expect([...CAPABILITY_NAMES].sort()).toEqual([...EMULATOR_CAPABILITIES].sort());
    expect(wireName("CAP_EVENTS_SUBSCRIPTION_CREATE")).toBe("CAP_EVENTS_SUBSCRIPTION_CREATE");
    expect(wireName("registry_overlays.edit")).toBe("CAP_REGISTRY_OVERLAYS_EDIT");
    expect(wireName("events_subscription.list")).toBe("CAP_EVENTS_SUBSCRIPTION_LIST");
    for (const caps of Object.values(BUILTIN_ROLE_CAPABILITIES)) for (const c of caps) expect(wireName(c)).toBe(c);
  });

  it("check normalizes capabilities (wire form, sorted, deduplicated) and names each unknown one", async () => {
    const ok = await roleKind.provider.check({} as RoleInputs, { parentUid: group, name: "auditor", capabilities: ["identity.list", "groups.list", "CAP_IAM_GROUPS_LIST"] } as never);
    expect(ok.failures).toEqual([]);
    expect(ok.inputs!.capabilities).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST"]);
    const bad = await roleKind.provider.check({} as RoleInputs, { parentUid: group, name: "auditor", capabilities: ["groups.list", "groups.fly"] } as never);
    expect(bad.failures).toEqual([{ property: "capabilities[1]", reason: expect.stringContaining('"groups.fly" is not a capability') }]);
    const none = await roleKind.provider.check({} as RoleInputs, { parentUid: group, name: "auditor", capabilities: [] } as never);
    expect(none.failures![0]!.property).toBe("capabilities");
  });

  it("creates, reads back without a diff, patches capabilities, and deletes", async () => {
    const inputs = (await roleKind.provider.check({} as RoleInputs, { parentUid: group, name: "auditor", capabilities: ["groups.list"] } as never)).inputs!;
    const created = await roleKind.provider.create(inputs);
    const read = await roleKind.provider.read(created.id, created.outs);
    expect(await roleKind.provider.diff(created.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
    const next = { ...inputs, capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_ROLES_LIST"] };
    const updated = await roleKind.provider.update(created.id, created.outs!, next);
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "capabilities" } });
    expect(updated.outs!.capabilities).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_IAM_ROLES_LIST"]);
    await roleKind.provider.delete(created.id, updated.outs!);
    expect((await roleKind.provider.read(created.id, updated.outs)).id).toBe("");
  });
});

describe("IdentityProvider", () => {
  const base = { parentUid: "", name: "okta", description: "", oidc: { issuer: "https://example.okta.com", clientId: "client-1" }, clientSecret: "s3cret-1" };

  it("rejects a secret inside oidc and a non-https issuer", async () => {
    const r = await identityProviderKind.provider.check({} as IdentityProviderInputs, { ...base, parentUid: group, oidc: { issuer: "http://x", clientId: "c", clientSecret: "no" } } as never);
    expect(r.failures!.map((f) => f.property).sort()).toEqual(["oidc.clientSecret", "oidc.issuer"]);
  });

  it("keeps the secret from its inputs (the API never returns it) and sends a new one with mask oidc", async () => {
    const created = await identityProviderKind.provider.create({ ...base, parentUid: group });
    const server = await getClient().identityProviders.get(created.id);
    expect(server.oidc?.clientSecret).toBeUndefined();
    expect(created.outs!.clientSecret).toBe("s3cret-1");
    const read = await identityProviderKind.provider.read(created.id, created.outs);
    expect(read.props!.clientSecret).toBe("s3cret-1");
    expect(await identityProviderKind.provider.diff(created.id, read.props!, { ...base, parentUid: group })).toEqual({ changes: false, replaces: [] });
    const updated = await identityProviderKind.provider.update(created.id, created.outs!, { ...base, parentUid: group, clientSecret: "s3cret-2" });
    expect(emu.requests.at(-1)).toMatchObject({ method: "PATCH", query: { updateMask: "oidc" } });
    expect(updated.outs!.clientSecret).toBe("s3cret-2");
    const stored = emu.store.table("identityProviders").get(created.id)!;
    expect((stored["oidc"] as Record<string, unknown>)["clientSecret"]).toBe("s3cret-2");
    await identityProviderKind.provider.delete(created.id, updated.outs!);
  });
});

describe("AccountAssociation", () => {
  it("creates one per group, refuses a second, adopts with adopt: true, and deletes idempotently", async () => {
    const g = (await groupKind.provider.create({ parentUid: emu.orgUid, name: "aws-group", description: "" })).id;
    const inputs = (await accountAssociationKind.provider.check({} as never, { groupUid: g, amazon: { account: "123456789012" } } as never)).inputs!;
    const created = await accountAssociationKind.provider.create(inputs);
    expect(created.id).toBe(g);
    await expect(accountAssociationKind.provider.create(inputs)).rejects.toThrow(/code 6/);
    const adopted = await accountAssociationKind.provider.create({ ...inputs, description: "adopted", adopt: true });
    expect(adopted.outs!.description).toBe("adopted");
    await accountAssociationKind.provider.delete(g, adopted.outs!);
    await accountAssociationKind.provider.delete(g, adopted.outs!);
  });

  it("checks the AWS account id shape", async () => {
    const r = await accountAssociationKind.provider.check({} as never, { groupUid: group, amazon: { account: "12" } } as never);
    expect(r.failures![0]!.property).toBe("amazon.account");
  });
});

describe("GroupInvite", () => {
  it("parses durations", () => {
    expect(ttlSeconds("72h")).toBe(259200);
    expect(ttlSeconds("1h30m")).toBe(5400);
    expect(ttlSeconds("90")).toBe(90);
    expect(ttlSeconds("soon")).toBeUndefined();
  });

  it("returns the one-time code at create and keeps it through reads", async () => {
    const inputs = (await groupInviteKind.provider.check({} as never, { parentUid: group, roleUid: viewerUid, ttl: "72h", email: "c@example.com" } as never)).inputs!;
    expect(inputs.ttl).toBe("259200s");
    const created = await groupInviteKind.provider.create(inputs);
    expect(created.outs!.code!.length).toBeGreaterThan(10);
    expect((await getClient().groupInvites.get(created.id)).code).toBeUndefined();
    const read = await groupInviteKind.provider.read(created.id, created.outs);
    expect(read.props!.code).toBe(created.outs!.code);
    expect(await groupInviteKind.provider.diff(created.id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("replaces an expired invite on the next up, and never fails check because of time", async () => {
    const olds = { parentUid: group, roleUid: viewerUid, ttl: "60s", email: "", singleUse: false, expirationTime: "2020-01-01T00:00:00.000Z" } as GroupInviteOutputs;
    const news = { parentUid: group, roleUid: viewerUid, ttl: "60s", email: "", singleUse: false };
    expect(await groupInviteKind.provider.diff("id", olds, news)).toMatchObject({ changes: true, replaces: ["expirationTime"] });
    expect((await groupInviteKind.provider.check(olds, news as never)).failures).toEqual([]);
  });
});

describe("Identity relationships", () => {
  const claim = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" };

  it("requires exactly one relationship kind", async () => {
    const none = await identityKind.provider.check({} as IdentityInputs, { parentUid: group, name: "none" } as never);
    expect(none.failures!.map((f) => f.property)).toContain("claimMatch");
    const two = await identityKind.provider.check({} as IdentityInputs, { parentUid: group, name: "two", claimMatch: claim, servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" } as never);
    expect(two.failures!.some((f) => /only one of/.test(f.reason))).toBe(true);
  });

  it("validates static keys, AWS identities and service principals", async () => {
    const r = await identityKind.provider.check({} as IdentityInputs, {
      parentUid: group,
      name: "bad-aws",
      awsIdentity: { awsAccount: "nope", arn: "a", arnPattern: "(" },
    } as never);
    expect(r.failures!.map((f) => f.property).sort()).toEqual(["awsIdentity.arn", "awsIdentity.arnPattern", "awsIdentity.awsAccount"]);
    const sp = await identityKind.provider.check({} as IdentityInputs, { parentUid: group, name: "sp-x", servicePrincipal: "ROBOT" } as never);
    expect(sp.failures![0]!.property).toBe("servicePrincipal");
    const past = await identityKind.provider.check({} as IdentityInputs, {
      parentUid: group,
      name: "old-keys",
      staticKeys: { issuer: "https://ci.example", subject: "s", issuerKeys: '{"keys":[]}', expirationTime: "2001-01-01T00:00:00Z" },
    } as never);
    expect(past.failures).toEqual([]);
  });

  it("creates a static-keys identity and replaces on a switch of kind", async () => {
    const { publicKey } = await generateKeyPair("ES256");
    const issuerKeys = JSON.stringify({ keys: [await exportJWK(publicKey)] });
    const inputs = { parentUid: group, name: "static", description: "", staticKeys: { issuer: "https://ci.example", subject: "job", issuerKeys } } as IdentityInputs;
    const created = await identityKind.provider.create(inputs);
    const read = await identityKind.provider.read(created.id, created.outs);
    expect(await identityKind.provider.diff(created.id, read.props!, inputs)).toEqual({ changes: false, replaces: [] });
    const switched = { parentUid: group, name: "static", description: "", claimMatch: claim } as IdentityInputs;
    expect(await identityKind.provider.diff(created.id, read.props!, switched)).toEqual({ changes: true, replaces: ["claimMatch"] });
    await identityKind.provider.delete(created.id, created.outs!);
  });
});
