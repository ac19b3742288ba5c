/**
 * Conformance: every collection's shape and behaviour (UIDP, timestamps, error bodies, CRUD per collection,
 * read-only collections, seeding).
 */
import { describe, expect, it } from "vitest";
import { AccountAssociation, Advisory, Empty, Group, GroupInvite, Identity, IdentityProvider, Repo, Role, RoleBinding, Tag } from "../../provider/client/schemas";
import { CHILD_SEGMENT, COLLECTIONS, RFC3339_MS, ROOT_UID, api, base, builtinRole, create, expectInvalid, expectList, expectNotFound, expectOk, expectPrecondition, expectStatus, fieldViolations, getRow, listAll, listPage, mkGroup, qs, type CollectionName } from "./helpers";
import { startEmulator } from "../../emulator";
import { useEmulator } from "../harness/emulator";

let n = 0;
/** A fresh group under the root, so tests do not share state. */
const fresh = async (prefix = "g") => mkGroup(emu, emu.orgUid, `${prefix}-${++n}`);
const claimMatch = (sub: string) => ({ issuer: "https://issuer.example", subject: sub });

const emu = useEmulator({
  seed: {
    repos: [
      { name: "nginx", description: "web", tags: ["latest", "1.27"] },
      { name: "python", tags: 2 },
    ],
    advisories: [
      { advisoryId: "CGA-aaaa-0001", artifactName: "nginx", componentName: "openssl", aliases: ["CVE-2024-0001"] },
      { advisoryId: "CGA-bbbb-0002", artifactName: "python", componentName: "expat" },
      { advisoryId: "CGA-cccc-0003", artifactName: "nginx", componentName: "zlib" },
    ],
  },
});

describe("UIDP, timestamps and error bodies", () => {
  it("the root group uid is 40 lowercase hex characters", async () => {
    expect(emu.orgUid).toMatch(ROOT_UID);
    const g = await getRow(emu, "groups", emu.orgUid);
    expect(g.uid).toBe(emu.orgUid);
    expect(g.uid).toMatch(ROOT_UID);
  });

  it("each child uid is its parent's uid plus '/' and 16 lowercase hex characters", async () => {
    const child = await fresh("uidp");
    const grandchild = await mkGroup(emu, child.uid, "grandchild");
    for (const [parent, kid] of [
      [emu.orgUid, child.uid],
      [child.uid, grandchild.uid],
    ] as const) {
      expect(kid.startsWith(`${parent}/`)).toBe(true);
      expect(kid.slice(parent.length + 1)).toMatch(CHILD_SEGMENT);
    }
    const id = await create(emu, "identities", child.uid, { name: "uidp-id", claimMatch: claimMatch("x") });
    expect(id.uid.slice(0, child.uid.length + 1)).toBe(`${child.uid}/`);
    expect(id.uid.slice(child.uid.length + 1)).toMatch(CHILD_SEGMENT);
    const repo = (await listPage(emu, "repos")).items[0];
    const tag = (await listPage(emu, "tags", { "uidp.children_of": repo.uid })).items[0];
    expect(tag.uid.slice(0, repo.uid.length + 1)).toBe(`${repo.uid}/`);
    expect(tag.uid.slice(repo.uid.length + 1)).toMatch(CHILD_SEGMENT);
  });

  it("built-in role uids are one 40-hex segment", async () => {
    for (const name of ["viewer", "editor", "owner", "registry.pull"]) {
      const uid = await builtinRole(emu, name);
      expect(uid, name).toMatch(ROOT_UID);
    }
  });

  it("paths carry uids with their slashes unencoded", async () => {
    const child = await fresh("path");
    const grandchild = await mkGroup(emu, child.uid, "deep");
    const path = `/iam/v2beta1/groups/${grandchild.uid}`;
    expect(path.split("/").length).toBe(7); // the uid's two slashes are path separators, not %2F
    const got = expectOk(await api(emu, "GET", path), Group);
    expect(got.uid).toBe(grandchild.uid);
    const logged = emu.requests.filter((r) => r.method === "GET" && r.path === path);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[logged.length - 1]!.status).toBe(200);
  });

  it("timestamps are RFC 3339 with milliseconds and Z in every collection", async () => {
    const g = await fresh("ts");
    const viewer = await builtinRole(emu, "viewer");
    const id = await create(emu, "identities", g.uid, { name: "ts-id", claimMatch: claimMatch("ts") });
    const rows: Array<[CollectionName, Record<string, unknown>, string[]]> = [
      ["groups", g, ["createTime", "updateTime"]],
      ["identities", id, ["createTime", "updateTime"]],
      ["roles", await create(emu, "roles", g.uid, { name: "ts-role", capabilities: ["CAP_IAM_GROUPS_LIST"] }), ["createTime", "updateTime"]],
      ["roleBindings", await create(emu, "roleBindings", g.uid, { identityUid: id.uid, roleUid: viewer }), ["createTime"]],
      [
        "identityProviders",
        await create(emu, "identityProviders", g.uid, { name: "ts-idp", oidc: { issuer: "https://idp.example", clientId: "c", clientSecret: "s" } }),
        ["createTime", "updateTime"],
      ],
      ["accountAssociations", await create(emu, "accountAssociations", g.uid, { amazon: { account: "123456789012" } }), ["createTime", "updateTime"]],
      ["groupInvites", await create(emu, "groupInvites", g.uid, { roleUid: viewer, ttl: "3600s" }), ["createTime", "expirationTime"]],
      ["repos", (await listPage(emu, "repos")).items[0], ["createTime", "updateTime"]],
      ["tags", (await listPage(emu, "tags")).items[0], ["updateTime"]],
      ["advisories", (await listPage(emu, "advisories")).items[0], ["createTime", "updateTime"]],
    ];
    for (const [c, row, fields] of rows) {
      for (const f of fields) expect(row[f], `${c}.${f}`).toMatch(RFC3339_MS);
      const again = await getRow(emu, c, row["uid"] as string);
      for (const f of fields) expect(again[f], `${c}.${f} on get`).toBe(row[f]);
    }
  });

  it("errors are google.rpc.Status bodies mapped to HTTP: 3->400, 5->404, 6->409, 9->400, 12->405 (method not routed), 16->401", async () => {
    const g = await fresh("errs");
    await create(emu, "accountAssociations", g.uid, { amazon: { account: "123456789012" } });
    const viewer = await builtinRole(emu, "viewer");
    expectStatus(await api(emu, "GET", "/iam/v2beta1/groups/NOT-A-UID"), 3, 400);
    expectStatus(await api(emu, "GET", `/iam/v2beta1/groups/${g.uid}/0123456789abcdef`), 5, 404);
    expectStatus(await api(emu, "POST", `/iam/v2beta1/accountAssociations/${g.uid}`, { amazon: { account: "123456789012" } }), 6, 409);
    expectStatus(await api(emu, "DELETE", `/iam/v2beta1/roles/${viewer}`), 9, 400);
    const tag = (await listPage(emu, "tags")).items[0];
    expectStatus(await api(emu, "PATCH", `/registry/v2beta1/tags/${tag.uid}`, { deprecated: true }), 12, 405);
    expectStatus(await api(emu, "GET", "/iam/v2beta1/groups", undefined, null), 16, 401);
  });
});

describe("groups", () => {
  it("creates under a parent, gets, lists, patches and deletes a group", async () => {
    const parent = await fresh("crud");
    const g = await create(emu, "groups", parent.uid, { name: "crud-child", description: "first" });
    expect(g).toMatchObject({ name: "crud-child", description: "first" });
    expect((await getRow(emu, "groups", g.uid)).name).toBe("crud-child");
    const page = await listPage(emu, "groups", { "uidp.children_of": parent.uid });
    expect(page.items.map((x) => x.uid)).toEqual([g.uid]);
    const patched = expectOk(await api(emu, "PATCH", `${base("groups")}/${g.uid}`, { description: "second" }), Group);
    expect(patched.description).toBe("second");
    expectOk(await api(emu, "DELETE", `${base("groups")}/${g.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("groups")}/${g.uid}`), g.uid);
  });
});

describe("identities: the relationship oneof", () => {
  const post = async (body: unknown) => api(emu, "POST", `${base("identities")}/${(await fresh("ident")).uid}`, body);

  it("accepts claimMatch with exact issuer, subject and audience", async () => {
    const id = expectOk(await post({ name: "exact", claimMatch: { issuer: "https://i.example", subject: "s", audience: "aud", claims: { repo: "o/r" } } }), Identity);
    expect(id.claimMatch).toEqual({ issuer: "https://i.example", subject: "s", audience: "aud", claims: { repo: "o/r" } });
  });

  it("accepts claimMatch with pattern fields (issuerPattern, subjectPattern, audiencePattern, claimPatterns)", async () => {
    const cm = { issuerPattern: "https://.*\\.example", subjectPattern: "repo:o/.*", audiencePattern: "aud-.*", claimPatterns: { ref: "refs/heads/.*" } };
    const id = expectOk(await post({ name: "patterns", claimMatch: cm }), Identity);
    expect(id.claimMatch).toEqual(cm);
  });

  it("rejects claimMatch with both an exact field and its pattern with INVALID_ARGUMENT", async () => {
    expectInvalid(await post({ name: "both", claimMatch: { issuer: "https://a", issuerPattern: "https://.*", subject: "s" } }), ["claimMatch.issuer"]);
    expectInvalid(await post({ name: "both2", claimMatch: { issuer: "https://a", subject: "s", subjectPattern: "s.*" } }), ["claimMatch.subject"]);
  });

  it("rejects an invalid regular expression in a claimMatch pattern field", async () => {
    expectInvalid(await post({ name: "badre", claimMatch: { issuer: "https://a", subjectPattern: "(" } }), ["claimMatch.subjectPattern"]);
  });

  it("rejects unknown claimMatch fields naming them", async () => {
    expectInvalid(await post({ name: "unknown-cm", claimMatch: { issuer: "https://a", subject: "s", colour: "red" } }), ["claimMatch.colour"]);
  });

  it("accepts staticKeys alone", async () => {
    const sk = { issuer: "https://static.example", subject: "svc", issuerKeys: '{"keys":[]}', audiences: ["a"] };
    const id = expectOk(await post({ name: "static", staticKeys: sk }), Identity);
    expect(id.staticKeys).toEqual(sk);
    expect(id.claimMatch).toBeUndefined();
  });

  it("accepts awsIdentity alone (exact arn or arnPattern)", async () => {
    const a = expectOk(await post({ name: "aws", awsIdentity: { arn: "arn:aws:iam::123456789012:role/x", awsAccount: "123456789012" } }), Identity);
    expect(a.awsIdentity).toMatchObject({ arn: "arn:aws:iam::123456789012:role/x" });
    const b = expectOk(await post({ name: "aws-pattern", awsIdentity: { arnPattern: "arn:aws:iam::123456789012:role/.*", awsAccount: "123456789012" } }), Identity);
    expect(b.awsIdentity).toMatchObject({ arnPattern: "arn:aws:iam::123456789012:role/.*" });
  });

  it("accepts servicePrincipal alone", async () => {
    const id = expectOk(await post({ name: "svc-principal", servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }), Identity);
    expect(id.servicePrincipal).toBe("SERVICE_PRINCIPAL_COSIGNED");
  });

  it("rejects an identity with no relationship with INVALID_ARGUMENT", async () => {
    const s = expectStatus(await post({ name: "none" }), 3, 400);
    expect(fieldViolations(s).length).toBeGreaterThan(0);
  });

  it("rejects an identity with two relationships with INVALID_ARGUMENT", async () => {
    const s = expectStatus(await post({ name: "two", claimMatch: claimMatch("s"), servicePrincipal: "SERVICE_PRINCIPAL_COSIGNED" }), 3, 400);
    expect(fieldViolations(s).length).toBeGreaterThan(0);
    const s2 = expectStatus(
      await post({ name: "two-b", staticKeys: { issuer: "https://x", subject: "s", issuerKeys: "k" }, awsIdentity: { arn: "arn:aws:iam::123456789012:role/x", awsAccount: "123456789012" } }),
      3,
      400,
    );
    expect(fieldViolations(s2).length).toBeGreaterThan(0);
  });

  it("a PATCH that would set a second relationship is INVALID_ARGUMENT; masking out the first switches it", async () => {
    const id = expectOk(await post({ name: "switch", claimMatch: claimMatch("s") }), Identity);
    expectStatus(await api(emu, "PATCH", `${base("identities")}/${id.uid}`, { servicePrincipal: "SERVICE_PRINCIPAL_INGESTER" }), 3, 400);
    const switched = expectOk(
      await api(emu, "PATCH", `${base("identities")}/${id.uid}?updateMask=claimMatch,servicePrincipal`, { servicePrincipal: "SERVICE_PRINCIPAL_INGESTER" }),
      Identity,
    );
    expect(switched.servicePrincipal).toBe("SERVICE_PRINCIPAL_INGESTER");
    expect(switched.claimMatch).toBeUndefined();
  });

  it("gets, lists, patches and deletes an identity", async () => {
    const g = await fresh("idcrud");
    const id = await create(emu, "identities", g.uid, { name: "crud", description: "d", claimMatch: claimMatch("crud") });
    expect((await getRow(emu, "identities", id.uid)).claimMatch).toEqual(claimMatch("crud"));
    expect((await listPage(emu, "identities", { "uidp.children_of": g.uid })).items.map((x) => x.uid)).toEqual([id.uid]);
    const p = expectOk(await api(emu, "PATCH", `${base("identities")}/${id.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: "new-sub" } }), Identity);
    expect(p.claimMatch).toEqual({ issuer: "https://issuer.example", subject: "new-sub" });
    expectOk(await api(emu, "DELETE", `${base("identities")}/${id.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("identities")}/${id.uid}`), id.uid);
  });
});

describe("roles", () => {
  const BUILTINS = ["viewer", "editor", "owner", "registry.pull"];

  it("has the built-in roles viewer, editor, owner and registry.pull with capabilities", async () => {
    const all = await listAll(emu, "roles", { "uidp.in_root": true });
    for (const name of BUILTINS) {
      const r = all.find((x) => x.name === name);
      expect(r, name).toBeDefined();
      expect(Role.parse(r).capabilities.length).toBeGreaterThan(0);
    }
  });

  it.each(BUILTINS)("PATCH of the built-in role %s is FAILED_PRECONDITION", async (name) => {
    const uid = await builtinRole(emu, name);
    expectPrecondition(await api(emu, "PATCH", `${base("roles")}/${uid}`, { description: "mine now" }));
    expect((await getRow(emu, "roles", uid)).description).not.toBe("mine now");
  });

  it.each(BUILTINS)("DELETE of the built-in role %s is FAILED_PRECONDITION", async (name) => {
    const uid = await builtinRole(emu, name);
    expectPrecondition(await api(emu, "DELETE", `${base("roles")}/${uid}`));
    expect((await getRow(emu, "roles", uid)).name).toBe(name);
  });

  it("custom roles: create under a group, get, list, PATCH, delete", async () => {
    const g = await fresh("roles");
    const r = await create(emu, "roles", g.uid, { name: "custom", description: "d", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] });
    expect(r.uid.startsWith(`${g.uid}/`)).toBe(true);
    expect([...r.capabilities].sort()).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"]);
    expect((await getRow(emu, "roles", r.uid)).name).toBe("custom");
    expect((await listPage(emu, "roles", { "uidp.children_of": g.uid })).items.map((x) => x.uid)).toEqual([r.uid]);
    const p = expectOk(await api(emu, "PATCH", `${base("roles")}/${r.uid}`, { capabilities: ["CAP_IAM_GROUPS_CREATE"] }), Role);
    expect(p.capabilities).toEqual(["CAP_IAM_GROUPS_CREATE"]);
    expectOk(await api(emu, "DELETE", `${base("roles")}/${r.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("roles")}/${r.uid}`), r.uid);
  });

  it("an unknown capability is INVALID_ARGUMENT", async () => {
    const g = await fresh("badcap");
    const s = expectStatus(await api(emu, "POST", `${base("roles")}/${g.uid}`, { name: "bad-cap", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_MAKE_COFFEE"] }), 3, 400);
    const v = fieldViolations(s);
    expect(v.some((x) => x.field.startsWith("capabilities") && x.description.includes("CAP_MAKE_COFFEE")), JSON.stringify(v)).toBe(true);
    const r = await create(emu, "roles", g.uid, { name: "ok-cap", capabilities: ["CAP_IAM_GROUPS_LIST"] });
    expectStatus(await api(emu, "PATCH", `${base("roles")}/${r.uid}`, { capabilities: ["CAP_NOPE"] }), 3, 400);
  });
});

describe("roleBindings", () => {
  const setup = async () => {
    const g = await mkGroup(emu, emu.orgUid, `rb-${++n}`, "binding group");
    const id = await create(emu, "identities", g.uid, { name: "rb-id", description: "bound", claimMatch: claimMatch("rb-sub") });
    return { g, id, viewer: await builtinRole(emu, "viewer"), editor: await builtinRole(emu, "editor") };
  };

  it("create takes identityUid and roleUid; other fields are ignored", async () => {
    const { g, id, viewer } = await setup();
    const b = await create(emu, "roleBindings", g.uid, {
      identityUid: id.uid,
      roleUid: viewer,
      uid: "x",
      createTime: "1999-01-01T00:00:00.000Z",
      colour: "red",
      role: { uid: "bogus" },
    });
    expect(b.uid).not.toBe("x");
    expect(b.uid.startsWith(`${g.uid}/`)).toBe(true);
    expect(b.createTime).not.toBe("1999-01-01T00:00:00.000Z");
    expect(b.colour).toBeUndefined();
    expect(b.role.uid).toBe(viewer);
  });

  it("responses are hydrated with identity, group and role, carry createTime and no updateTime", async () => {
    const { g, id, viewer } = await setup();
    const b = RoleBinding.parse(await create(emu, "roleBindings", g.uid, { identityUid: id.uid, roleUid: viewer }));
    const expected = {
      identityUid: id.uid,
      roleUid: viewer,
      identity: { uid: id.uid, name: "rb-id", description: "bound", subject: "rb-sub", issuer: "https://issuer.example" },
      group: { uid: g.uid, name: g.name, description: "binding group" },
      role: { uid: viewer, name: "viewer" },
    };
    expect(b).toMatchObject(expected);
    expect(b.createTime).toMatch(RFC3339_MS);
    expect(b).not.toHaveProperty("updateTime");
    const got = await getRow(emu, "roleBindings", b.uid);
    expect(got).toEqual(b);
    const listed = (await listPage(emu, "roleBindings", { "uidp.children_of": g.uid })).items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject(expected);
    expect(listed[0]).not.toHaveProperty("updateTime");
  });

  it("PATCH changes identityUid and roleUid, re-hydrated", async () => {
    const { g, id, viewer, editor } = await setup();
    const other = await create(emu, "identities", g.uid, { name: "rb-other", claimMatch: claimMatch("other") });
    const b = await create(emu, "roleBindings", g.uid, { identityUid: id.uid, roleUid: viewer });
    const p1 = expectOk(await api(emu, "PATCH", `${base("roleBindings")}/${b.uid}?updateMask=roleUid`, { roleUid: editor }), RoleBinding);
    expect(p1).toMatchObject({ roleUid: editor, role: { uid: editor, name: "editor" }, identityUid: id.uid });
    const p2 = expectOk(await api(emu, "PATCH", `${base("roleBindings")}/${b.uid}`, { identityUid: other.uid }), RoleBinding);
    expect(p2).toMatchObject({ identityUid: other.uid, identity: { uid: other.uid, name: "rb-other" }, roleUid: editor });
    expect(p2.createTime).toBe(b.createTime);
    expect(p2).not.toHaveProperty("updateTime");
    expectOk(await api(emu, "DELETE", `${base("roleBindings")}/${b.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("roleBindings")}/${b.uid}`), b.uid);
  });
});

describe("identityProviders", () => {
  const oidc = { issuer: "https://idp.example", clientId: "client-1", clientSecret: "s3cret-value", additionalScopes: ["email"], groupsClaim: "groups", pkceEnabled: true };

  it("oidc.clientSecret is required on create", async () => {
    const g = await fresh("idp");
    const { clientSecret: _omit, ...noSecret } = oidc;
    expectInvalid(await api(emu, "POST", `${base("identityProviders")}/${g.uid}`, { name: "no-secret", oidc: noSecret }), ["oidc.clientSecret"]);
  });

  it("oidc.clientSecret is never returned by create, get or list", async () => {
    const g = await fresh("idp");
    const createdRes = await api(emu, "POST", `${base("identityProviders")}/${g.uid}`, { name: "idp", oidc });
    const created = expectOk(createdRes, IdentityProvider);
    expect(created.oidc).toMatchObject({ issuer: oidc.issuer, clientId: oidc.clientId });
    expect(created.oidc?.clientSecret).toBeUndefined();
    const got = await api(emu, "GET", `${base("identityProviders")}/${created.uid}`);
    expect(expectOk(got, IdentityProvider).oidc?.clientSecret).toBeUndefined();
    const listed = await api(emu, "GET", `${base("identityProviders")}${qs({ "uidp.children_of": g.uid })}`);
    const page = expectList(listed, "identityProviders", IdentityProvider);
    expect(page.items).toHaveLength(1);
    for (const body of [createdRes.body, got.body, listed.body]) expect(JSON.stringify(body)).not.toContain(oidc.clientSecret);
  });

  it("a PATCH that omits oidc.clientSecret keeps the stored secret", async () => {
    const g = await fresh("idp");
    const created = await create(emu, "identityProviders", g.uid, { name: "keep", oidc });
    const secretOf = () => ((emu.dump()["identityProviders"] ?? []).find((r) => r.uid === created.uid)?.["oidc"] as Record<string, unknown> | undefined)?.["clientSecret"];
    const { clientSecret: _omit, ...noSecret } = oidc;
    const p1 = expectOk(await api(emu, "PATCH", `${base("identityProviders")}/${created.uid}`, { oidc: { ...noSecret, clientId: "client-2" } }), IdentityProvider);
    expect(p1.oidc?.clientId).toBe("client-2");
    expect(p1.oidc?.clientSecret).toBeUndefined();
    expect(secretOf()).toBe(oidc.clientSecret);
    const p2 = expectOk(await api(emu, "PATCH", `${base("identityProviders")}/${created.uid}?updateMask=oidc.clientId`, { oidc: { clientId: "client-3" } }), IdentityProvider);
    expect(p2.oidc?.clientId).toBe("client-3");
    expect(secretOf()).toBe(oidc.clientSecret);
    expectOk(await api(emu, "PATCH", `${base("identityProviders")}/${created.uid}`, { oidc: { ...noSecret, clientSecret: "rotated" } }), IdentityProvider);
    expect(secretOf()).toBe("rotated");
  });

  it("gets, lists, patches and deletes an identity provider", async () => {
    const g = await fresh("idp");
    const created = await create(emu, "identityProviders", g.uid, { name: "idp-crud", oidc });
    expect((await getRow(emu, "identityProviders", created.uid)).name).toBe("idp-crud");
    const p = expectOk(await api(emu, "PATCH", `${base("identityProviders")}/${created.uid}?updateMask=description`, { description: "new" }), IdentityProvider);
    expect(p.description).toBe("new");
    expectOk(await api(emu, "DELETE", `${base("identityProviders")}/${created.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("identityProviders")}/${created.uid}`), created.uid);
  });
});

describe("accountAssociations", () => {
  it("an association's uid is its group's uid", async () => {
    const g = await fresh("aa");
    const a = expectOk(await api(emu, "POST", `${base("accountAssociations")}/${g.uid}`, { name: "aws", amazon: { account: "123456789012" } }), AccountAssociation);
    expect(a.uid).toBe(g.uid);
    expect(a.amazon).toEqual({ account: "123456789012" });
    expect((await getRow(emu, "accountAssociations", g.uid)).uid).toBe(g.uid);
    expect((await listPage(emu, "accountAssociations", { "uidp.ids": [g.uid] })).items.map((x) => x.uid)).toEqual([g.uid]);
  });

  it("a second create for the same group is ALREADY_EXISTS (code 6, HTTP 409)", async () => {
    const g = await fresh("aa");
    await create(emu, "accountAssociations", g.uid, { amazon: { account: "123456789012" } });
    expectStatus(await api(emu, "POST", `${base("accountAssociations")}/${g.uid}`, { google: { projectId: "p" } }), 6, 409);
    expect((await getRow(emu, "accountAssociations", g.uid)).amazon).toEqual({ account: "123456789012" });
  });

  it("DELETE of a missing association succeeds", async () => {
    const g = await fresh("aa");
    expectNotFound(await api(emu, "GET", `${base("accountAssociations")}/${g.uid}`), g.uid);
    expectOk(await api(emu, "DELETE", `${base("accountAssociations")}/${g.uid}`), Empty);
    await create(emu, "accountAssociations", g.uid, { amazon: { account: "123456789012" } });
    expectOk(await api(emu, "DELETE", `${base("accountAssociations")}/${g.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("accountAssociations")}/${g.uid}`), g.uid);
    expectOk(await api(emu, "DELETE", `${base("accountAssociations")}/${g.uid}`), Empty);
  });

  it("PATCH changes an association", async () => {
    const g = await fresh("aa");
    await create(emu, "accountAssociations", g.uid, { amazon: { account: "123456789012" } });
    const p = expectOk(await api(emu, "PATCH", `${base("accountAssociations")}/${g.uid}`, { google: { projectId: "proj-1" } }), AccountAssociation);
    expect(p).toMatchObject({ amazon: { account: "123456789012" }, google: { projectId: "proj-1" } });
  });
});

describe("groupInvites", () => {
  it("takes ttl like \"86400s\" and returns expirationTime = createTime + ttl", async () => {
    const g = await fresh("inv");
    const viewer = await builtinRole(emu, "viewer");
    const inv = await create(emu, "groupInvites", g.uid, { roleUid: viewer, ttl: "86400s", email: "a@example.com" });
    expect(inv.expirationTime).toMatch(RFC3339_MS);
    expect(Date.parse(inv.expirationTime) - Date.parse(inv.createTime)).toBe(86_400_000);
    expect(inv).not.toHaveProperty("ttl");
    const inv2 = await create(emu, "groupInvites", g.uid, { roleUid: viewer, ttl: "60s" });
    expect(Date.parse(inv2.expirationTime) - Date.parse(inv2.createTime)).toBe(60_000);
  });

  it("returns code only from create, never from get or list", async () => {
    const g = await fresh("inv");
    const viewer = await builtinRole(emu, "viewer");
    const inv = GroupInvite.parse(await create(emu, "groupInvites", g.uid, { roleUid: viewer, ttl: "3600s" }));
    expect(typeof inv.code).toBe("string");
    expect(inv.code!.length).toBeGreaterThan(0);
    const got = await getRow(emu, "groupInvites", inv.uid);
    expect(got).not.toHaveProperty("code");
    const listed = (await listPage(emu, "groupInvites", { "uidp.children_of": g.uid })).items;
    expect(listed.map((x) => x.uid)).toEqual([inv.uid]);
    expect(listed[0]).not.toHaveProperty("code");
    expect(got.role).toMatchObject({ uid: viewer, name: "viewer" });
  });

  it("has no PATCH (UNIMPLEMENTED) and deletes", async () => {
    const g = await fresh("inv");
    const viewer = await builtinRole(emu, "viewer");
    const inv = await create(emu, "groupInvites", g.uid, { roleUid: viewer, ttl: "3600s" });
    expectStatus(await api(emu, "PATCH", `${base("groupInvites")}/${inv.uid}`, { email: "b@example.com" }), 12, 405);
    expectOk(await api(emu, "DELETE", `${base("groupInvites")}/${inv.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("groupInvites")}/${inv.uid}`), inv.uid);
  });
});

describe("repos and tags (seeded; their writes are in registry.unit.test.ts)", () => {
  it("lists and gets the seeded repos", async () => {
    const repos = await listAll(emu, "repos");
    expect(repos.map((r) => r.name).sort()).toEqual(["nginx", "python"]);
    const nginx = repos.find((r) => r.name === "nginx");
    expect(expectOk(await api(emu, "GET", `${base("repos")}/${nginx.uid}`), Repo)).toMatchObject({ name: "nginx", description: "web" });
  });

  it("lists and gets the seeded tags under their repos", async () => {
    const repos = await listAll(emu, "repos");
    const nginx = repos.find((r) => r.name === "nginx");
    const python = repos.find((r) => r.name === "python");
    const nginxTags = await listAll(emu, "tags", { "uidp.children_of": nginx.uid });
    expect(nginxTags.map((t) => t.name).sort()).toEqual(["1.27", "latest"]);
    expect(await listAll(emu, "tags", { "uidp.children_of": python.uid })).toHaveLength(2);
    expect(await listAll(emu, "tags")).toHaveLength(4);
    const one = expectOk(await api(emu, "GET", `${base("tags")}/${nginxTags[0].uid}`), Tag);
    expect(one.name).toBe(nginxTags[0].name);
    expect(one.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    ["tags", "PATCH"],
    ["advisories", "POST"],
    ["advisories", "PATCH"],
    ["advisories", "DELETE"],
  ] as Array<[CollectionName, string]>)("%s %s is UNIMPLEMENTED (code 12, HTTP 405 as the gateway answers a method it does not route)", async (c, method) => {
    const row = (await listPage(emu, c)).items[0];
    const before = await listAll(emu, c);
    const target = method === "POST" ? (c === "tags" ? row.uid.slice(0, row.uid.lastIndexOf("/")) : emu.orgUid) : row.uid;
    expectStatus(await api(emu, method, `${base(c)}/${target}`, method === "DELETE" ? undefined : { name: "changed-name" }), 12, 405);
    expect(await listAll(emu, c)).toEqual(before);
  });
});

describe("advisories (read-only, seeded)", () => {
  it("lists and gets the seeded advisories", async () => {
    const all = await listAll(emu, "advisories");
    expect(all.map((a) => a.advisoryId).sort()).toEqual(["CGA-aaaa-0001", "CGA-bbbb-0002", "CGA-cccc-0003"]);
    const one = expectOk(await api(emu, "GET", `${base("advisories")}/${all[0].uid}`), Advisory);
    expect(one).toEqual(Advisory.parse(all[0]));
  });

  it.each(["advisory_ids", "advisoryIds"])("filters by %s (repeated)", async (p) => {
    const page = await listPage(emu, "advisories", { [p]: ["CGA-aaaa-0001", "CGA-bbbb-0002"] });
    expect(page.items.map((a) => a.advisoryId).sort()).toEqual(["CGA-aaaa-0001", "CGA-bbbb-0002"]);
    expect(page.totalCount).toBe(2);
    const one = await listPage(emu, "advisories", { [p]: "CGA-cccc-0003" });
    expect(one.items.map((a) => a.advisoryId)).toEqual(["CGA-cccc-0003"]);
  });

  it.each(["artifact_names", "artifactNames"])("filters by %s", async (p) => {
    const nginx = await listPage(emu, "advisories", { [p]: "nginx" });
    expect(nginx.items.map((a) => a.advisoryId).sort()).toEqual(["CGA-aaaa-0001", "CGA-cccc-0003"]);
    expect(nginx.totalCount).toBe(2);
    const both = await listPage(emu, "advisories", { [p]: ["nginx", "python"] });
    expect(both.totalCount).toBe(3);
    const combined = await listPage(emu, "advisories", { [p]: "nginx", advisory_ids: "CGA-cccc-0003" });
    expect(combined.items.map((a) => a.advisoryId)).toEqual(["CGA-cccc-0003"]);
    expect((await listPage(emu, "advisories", { [p]: "nope" })).items).toEqual([]);
  });
});

describe("seeding in bulk", () => {
  it("seeds 1000 groups, 50 repos with 2 tags each and 20 advisories, counted by List totalCount", async () => {
    const big = await startEmulator({ seed: { groups: 1000, repos: 50, tagsPerRepo: 2, advisories: 20 } });
    try {
      const count = async (c: CollectionName, params: Record<string, string> = {}) => {
        const res = await api(big, "GET", `${base(c)}${qs({ page_size: 1, ...params })}`);
        return expectList(res, c, COLLECTIONS[c].schema).totalCount;
      };
      expect(await count("groups", { "uidp.children_of": big.orgUid })).toBe(1000);
      expect(await count("groups")).toBe(1001);
      expect(await count("repos")).toBe(50);
      expect(await count("tags")).toBe(100);
      expect(await count("advisories")).toBe(20);
    } finally {
      await big.close();
    }
  });
});
