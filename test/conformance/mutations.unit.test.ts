/**
 * Conformance: creates, PATCHes and deletes, and their errors (validation, names, update masks, timestamps,
 * read-only and unknown fields, NOT_FOUND, malformed uids, RESOURCE_NOT_EMPTY).
 */
import { describe, expect, it } from "vitest";
import { Empty } from "../../provider/client/schemas";
import { ALL_COLLECTIONS, BAD_REQUEST, COLLECTIONS, api, base, builtinRole, create, expectInvalid, expectNotFound, expectOk, expectPrecondition, expectStatus, fieldViolations, getRow, listAll, listPage, mkGroup, sleep, type CollectionName, type Json } from "./helpers";
import { useEmulator } from "../harness/emulator";

let viewer: string;
let n = 0;
const OLD = "1999-01-01T00:00:00.000Z";
const fresh = async () => (await mkGroup(emu, emu.orgUid, `mut-${++n}`)).uid as string;
const oidc = { issuer: "https://idp.example", clientId: "cid", clientSecret: "secret" };

const emu = useEmulator(undefined, async () => {
  viewer = await builtinRole(emu, "viewer");
});

/** How to write one collection in these tests. */
interface Writable {
  c: CollectionName;
  /** A valid create body under group `g`. */
  body(g: string): Promise<Record<string, unknown>>;
  /** Read-only fields with spoofed values (ignored on create and PATCH). */
  readOnly: Record<string, unknown>;
  /** Rejects unknown fields (role bindings ignore them). */
  strict: boolean;
  patchable: boolean;
  hasUpdateTime: boolean;
  named: boolean;
}

const identityBody = (name: string) => ({ name, description: "d", claimMatch: { issuer: "https://issuer.example", subject: `sub-${name}` } });

const WRITABLE: Writable[] = [
  {
    c: "groups",
    body: async () => ({ name: `grp-${++n}`, description: "d" }),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD, status: "ORG_STATUS_SPOOFED", resourceLimits: { repos: 1 } },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: true,
  },
  {
    c: "identities",
    body: async () => identityBody(`ident-${++n}`),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD, email: "spoof@example.com" },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: true,
  },
  {
    c: "roles",
    body: async () => ({ name: `role-${++n}`, description: "d", capabilities: ["CAP_IAM_GROUPS_LIST"] }),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: true,
  },
  {
    c: "roleBindings",
    body: async (g) => ({ identityUid: (await create(emu, "identities", g, identityBody(`rb-${++n}`))).uid, roleUid: viewer }),
    readOnly: { uid: "spoofed", createTime: OLD, identity: { uid: "spoofed" }, group: { uid: "spoofed" }, role: { uid: "spoofed" } },
    strict: false,
    patchable: true,
    hasUpdateTime: false,
    named: false,
  },
  {
    c: "identityProviders",
    body: async () => ({ name: `idp-${++n}`, description: "d", oidc }),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD, scim: { enabled: true } },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: true,
  },
  {
    c: "accountAssociations",
    body: async () => ({ name: `aa-${++n}`, description: "d", amazon: { account: "123456789012" } }),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: false,
  },
  {
    // Repo names follow the OCI repository-name grammar and are unique within a group (registry.unit.test.ts), so
    // the group-name rules of `named` do not apply.
    c: "repos",
    body: async () => ({ name: `repo-${++n}`, description: "d" }),
    readOnly: { uid: "spoofed", createTime: OLD, updateTime: OLD },
    strict: true,
    patchable: true,
    hasUpdateTime: true,
    named: false,
  },
  {
    c: "groupInvites",
    body: async () => ({ roleUid: viewer, ttl: "3600s", email: "a@example.com" }),
    readOnly: { uid: "spoofed", createTime: OLD, expirationTime: OLD, code: "spoofed-code", keyId: "spoofed-key", role: { uid: "spoofed" } },
    strict: true,
    patchable: false,
    hasUpdateTime: false,
    named: false,
  },
];
const byName = (c: CollectionName) => WRITABLE.find((w) => w.c === c)!;
const STRICT = WRITABLE.filter((w) => w.strict).map((w) => w.c);
const PATCHABLE = WRITABLE.filter((w) => w.patchable).map((w) => w.c);
const STRICT_PATCHABLE = WRITABLE.filter((w) => w.strict && w.patchable).map((w) => w.c);
const WITH_UPDATE_TIME = WRITABLE.filter((w) => w.hasUpdateTime).map((w) => w.c);
const NAMED = WRITABLE.filter((w) => w.named).map((w) => w.c);

/** Creates one row of `c` in a fresh group; returns the group and the row. */
async function fixture(c: CollectionName): Promise<{ g: string; row: Json; body: Record<string, unknown> }> {
  const g = await fresh();
  const body = await byName(c).body(g);
  return { g, row: await create(emu, c, g, body), body };
}

const patch = (c: CollectionName, uid: string, body: unknown, mask?: string) =>
  api(emu, "PATCH", `${base(c)}/${uid}${mask === undefined ? "" : `?updateMask=${encodeURIComponent(mask)}`}`, body);

describe("read-only and unknown fields", () => {
  it.each(WRITABLE.map((w) => w.c))("%s: read-only fields in a create body are ignored", async (c) => {
    const g = await fresh();
    const w = byName(c);
    const row = await create(emu, c, g, { ...(await w.body(g)), ...w.readOnly });
    for (const [k, spoofed] of Object.entries(w.readOnly)) expect(row[k], k).not.toEqual(spoofed);
    expect(row.uid === g || row.uid.startsWith(`${g}/`)).toBe(true);
    const again = await getRow(emu, c, row.uid);
    for (const [k, spoofed] of Object.entries(w.readOnly)) expect(again[k], k).not.toEqual(spoofed);
  });

  it.each(STRICT)("%s: unknown fields in a create body are INVALID_ARGUMENT naming each", async (c) => {
    const g = await fresh();
    const before = (await listAll(emu, c, { "uidp.descendants_of": g })).length;
    expectInvalid(await api(emu, "POST", `${base(c)}/${g}`, { ...(await byName(c).body(g)), colour: "red", sizeInches: 3 }), ["colour", "sizeInches"]);
    expect(await listAll(emu, c, { "uidp.descendants_of": g })).toHaveLength(before);
  });

  it("roleBindings: unknown fields in a create body are ignored", async () => {
    const g = await fresh();
    const row = await create(emu, "roleBindings", g, { ...(await byName("roleBindings").body(g)), colour: "red" });
    expect(row).not.toHaveProperty("colour");
  });

  it.each(PATCHABLE)("%s: read-only fields in a PATCH body are ignored", async (c) => {
    const { row } = await fixture(c);
    const w = byName(c);
    const change = c === "roleBindings" ? { roleUid: await builtinRole(emu, "editor") } : { description: "patched" };
    const p = expectOk(await patch(c, row.uid, { ...change, ...w.readOnly }), COLLECTIONS[c].schema) as Json;
    expect(p.uid).toBe(row.uid);
    expect(p.createTime).toBe(row.createTime);
    for (const [k, spoofed] of Object.entries(w.readOnly)) expect(p[k], k).not.toEqual(spoofed);
    expect(p).toMatchObject(change);
  });

  it.each(STRICT_PATCHABLE)("%s: unknown fields in a PATCH body are INVALID_ARGUMENT naming each", async (c) => {
    const { row } = await fixture(c);
    expectInvalid(await patch(c, row.uid, { description: "x", colour: "red", sizeInches: 3 }), ["colour", "sizeInches"]);
    expect((await getRow(emu, c, row.uid)).description).toBe(row.description);
  });
});

describe("NOT_FOUND and malformed uids", () => {
  it.each(ALL_COLLECTIONS)("%s: GET, PATCH and DELETE of a missing uid are NOT_FOUND with ResourceInfo and HTTP 404", async (c) => {
    const missing = `${emu.orgUid}/0123456789abcdef`;
    expectNotFound(await api(emu, "GET", `${base(c)}/${missing}`), missing);
    if (!COLLECTIONS[c].writable) return;
    if (PATCHABLE.includes(c)) expectNotFound(await patch(c, missing, { description: "x" }), missing);
    if (c !== "accountAssociations") expectNotFound(await api(emu, "DELETE", `${base(c)}/${missing}`), missing);
    // a create under a missing parent group
    const g = await fresh();
    const body = await byName(c).body(g);
    expectNotFound(await api(emu, "POST", `${base(c)}/${missing}`, body), missing);
  });

  it.each(ALL_COLLECTIONS)("%s: a malformed uid is INVALID_ARGUMENT", async (c) => {
    const bad = ["not-a-uid", emu.orgUid.toUpperCase(), `${emu.orgUid}/123`, emu.orgUid.slice(1), `${emu.orgUid}/0123456789ABCDEF`];
    for (const uid of bad) {
      expectStatus(await api(emu, "GET", `${base(c)}/${uid}`), 3, 400);
      if (!COLLECTIONS[c].writable) continue;
      if (PATCHABLE.includes(c)) expectStatus(await patch(c, uid, { description: "x" }), 3, 400);
      expectStatus(await api(emu, "DELETE", `${base(c)}/${uid}`), 3, 400);
      expectStatus(await api(emu, "POST", `${base(c)}/${uid}`, await byName(c).body(emu.orgUid)), 3, 400);
    }
  });
});

describe("validation", () => {
  it.each([
    ["groups", { name: "Bad Name!", description: 7, colour: "red" }, ["name", "description", "colour"]],
    ["identities", { name: "X", description: 5, claimMatch: { issuer: "https://a", issuerPattern: "x" }, colour: 1 }, ["name", "description", "claimMatch.issuer", "claimMatch.subject", "colour"]],
    ["roles", { name: "!!", capabilities: ["CAP_NOPE"], colour: 1 }, ["name", "capabilities[0]", "colour"]],
    ["identityProviders", { name: "A", oidc: { issuer: "http://insecure" } }, ["name", "oidc.issuer", "oidc.clientId", "oidc.clientSecret"]],
    ["groupInvites", { roleUid: "", ttl: "soon", email: "not-an-email" }, ["roleUid", "ttl", "email"]],
  ] as Array<[CollectionName, Record<string, unknown>, string[]]>)("%s: validation reports every failing field in one BadRequest", async (c, body, fields) => {
    const s = expectInvalid(await api(emu, "POST", `${base(c)}/${await fresh()}`, body), fields);
    expect(s.details.filter((d) => d["@type"] === BAD_REQUEST)).toHaveLength(1);
    expect(s.message.startsWith(`Invalid argument: ${fieldViolations(s)[0]!.field}: `)).toBe(true);
  });

  it("groups: an empty body {} is INVALID_ARGUMENT: name is required", async () => {
    const s = expectInvalid(await api(emu, "POST", `${base("groups")}/${emu.orgUid}`, {}), ["name"]);
    expect(s.message).toMatch(/^Invalid argument: name: .*required/);
    expect(fieldViolations(s)).toHaveLength(1);
  });

  it.each(NAMED.filter((c) => c !== "groups"))("%s: an empty body {} is INVALID_ARGUMENT with name required", async (c) => {
    const s = expectInvalid(await api(emu, "POST", `${base(c)}/${await fresh()}`, {}), ["name"]);
    expect(fieldViolations(s).find((v) => v.field === "name")!.description).toMatch(/required/);
  });

  const GOOD = ["abc", "a b", "my.group_name-1", "123", "x".repeat(63), "a-.", "   "];
  const BAD_REGEX = ["Abc", "héllo", "a/b/c", "with!bang", "tab\there", "UPPER"];
  const BAD_LENGTH = ["a", "ab", "x".repeat(64)];

  it.each(NAMED)("%s: names must match ^[a-z0-9 ._-]{1,}$ and be 3-63 characters", async (c) => {
    const g = await fresh();
    const w = byName(c);
    for (const name of GOOD) {
      const row = await create(emu, c, g, { ...(await w.body(g)), name });
      expect(row.name).toBe(name);
    }
    for (const name of [...BAD_REGEX, ...BAD_LENGTH]) {
      const s = expectInvalid(await api(emu, "POST", `${base(c)}/${g}`, { ...(await w.body(g)), name }), ["name"]);
      expect(s.message, name).toMatch(/^Invalid argument: name: /);
    }
    // both rules fail at once: two violations on name
    const both = expectInvalid(await api(emu, "POST", `${base(c)}/${g}`, { ...(await w.body(g)), name: "AB" }), ["name"]);
    expect(fieldViolations(both).filter((v) => v.field === "name")).toHaveLength(2);
    // PATCH applies the same rule
    const row = await create(emu, c, g, await w.body(g));
    expectInvalid(await patch(c, row.uid, { name: "Bad Name" }), ["name"]);
    expectInvalid(await patch(c, row.uid, { name: "x".repeat(64) }), ["name"]);
  });

  it.each(NAMED)("%s: duplicate names under one parent are allowed", async (c) => {
    const g = await fresh();
    const w = byName(c);
    const a = await create(emu, c, g, { ...(await w.body(g)), name: "same-name" });
    const b = await create(emu, c, g, { ...(await w.body(g)), name: "same-name" });
    expect(a.uid).not.toBe(b.uid);
    const page = await listPage(emu, c, { name: "same-name", "uidp.children_of": g });
    expect(page.items.map((r) => r.uid).sort()).toEqual([a.uid, b.uid].sort());
  });
});

describe("PATCH", () => {
  it.each(PATCHABLE.filter((c) => c !== "roleBindings"))("%s: PATCH with updateMask changes only the masked fields", async (c) => {
    const { row } = await fixture(c);
    const p = expectOk(await patch(c, row.uid, { name: "other-name", description: "masked" }, "description"), COLLECTIONS[c].schema) as Json;
    expect(p.description).toBe("masked");
    expect(p.name).toBe(row.name);
    expect((await getRow(emu, c, row.uid))).toMatchObject({ description: "masked", name: row.name });
  });

  it.each(PATCHABLE.filter((c) => c !== "roleBindings"))("%s: PATCH without updateMask changes the fields present in the body", async (c) => {
    const { row } = await fixture(c);
    const p = expectOk(await patch(c, row.uid, { description: "unmasked" }), COLLECTIONS[c].schema) as Json;
    expect(p).toMatchObject({ description: "unmasked", name: row.name });
    const p2 = expectOk(await patch(c, row.uid, { name: "renamed-row" }), COLLECTIONS[c].schema) as Json;
    expect(p2).toMatchObject({ description: "unmasked", name: "renamed-row" });
  });

  it.each(PATCHABLE.filter((c) => c !== "roleBindings"))("%s: PATCH with updateMask=* replaces every writable field", async (c) => {
    const { g, row } = await fixture(c);
    const { description: _d, ...full } = await byName(c).body(g);
    const p = expectOk(await patch(c, row.uid, { ...full, name: "star-name" }, "*"), COLLECTIONS[c].schema) as Json;
    expect(p.name).toBe("star-name");
    expect(p.description, "a field absent from the body is cleared by *").toBe("");
    expect(p.uid).toBe(row.uid);
  });

  it("roleBindings: PATCH with updateMask, without it, and with *", async () => {
    const { g, row } = await fixture("roleBindings");
    const editor = await builtinRole(emu, "editor");
    const other = await create(emu, "identities", g, identityBody("rb-other"));
    const p1 = expectOk(await patch("roleBindings", row.uid, { roleUid: editor, identityUid: other.uid }, "roleUid"), COLLECTIONS.roleBindings.schema) as Json;
    expect(p1).toMatchObject({ roleUid: editor, identityUid: row.identityUid });
    const p2 = expectOk(await patch("roleBindings", row.uid, { identityUid: other.uid }), COLLECTIONS.roleBindings.schema) as Json;
    expect(p2).toMatchObject({ roleUid: editor, identityUid: other.uid });
    const p3 = expectOk(await patch("roleBindings", row.uid, { identityUid: row.identityUid, roleUid: viewer }, "*"), COLLECTIONS.roleBindings.schema) as Json;
    expect(p3).toMatchObject({ roleUid: viewer, identityUid: row.identityUid });
  });

  it.each(PATCHABLE)("%s: an unknown updateMask path is INVALID_ARGUMENT naming it", async (c) => {
    const { row } = await fixture(c);
    const s = expectStatus(await patch(c, row.uid, { description: "x" }, "colour"), 3, 400);
    expect(s.message).toMatch(/^Invalid argument: /);
    expect(s.message).toContain("colour");
    const s2 = expectStatus(await patch(c, row.uid, { description: "x" }, "description,sizeInches"), 3, 400);
    expect(JSON.stringify(fieldViolations(s2))).toContain("sizeInches");
    expect((await getRow(emu, c, row.uid)).description).toBe(row.description);
  });

  it.each(WITH_UPDATE_TIME)("%s: updateTime advances on a change and createTime never changes", async (c) => {
    const { row } = await fixture(c);
    expect(row.updateTime).toBe(row.createTime);
    await sleep(3);
    const p1 = expectOk(await patch(c, row.uid, { description: "first" }), COLLECTIONS[c].schema) as Json;
    expect(p1.createTime).toBe(row.createTime);
    expect(p1.updateTime > row.updateTime).toBe(true);
    await sleep(3);
    const p2 = expectOk(await patch(c, row.uid, { description: "second" }, "description"), COLLECTIONS[c].schema) as Json;
    expect(p2.createTime).toBe(row.createTime);
    expect(p2.updateTime > p1.updateTime).toBe(true);
    const got = await getRow(emu, c, row.uid);
    expect(got).toMatchObject({ createTime: row.createTime, updateTime: p2.updateTime });
  });

  it.each(WITH_UPDATE_TIME)("%s: a no-op PATCH leaves updateTime alone", async (c) => {
    const { row } = await fixture(c);
    await sleep(3);
    const same = expectOk(await patch(c, row.uid, { description: row.description }), COLLECTIONS[c].schema) as Json;
    expect(same.updateTime).toBe(row.updateTime);
    const masked = expectOk(await patch(c, row.uid, { name: row.name, description: row.description }, "name,description"), COLLECTIONS[c].schema) as Json;
    expect(masked.updateTime).toBe(row.updateTime);
    expect((await getRow(emu, c, row.uid)).updateTime).toBe(row.updateTime);
  });
});

describe("DELETE of groups", () => {
  /** Puts one child of `kind` under group `g`. */
  const CHILD_MAKERS: Record<string, (g: string) => Promise<unknown>> = {
    groups: (g) => mkGroup(emu, g, "kid"),
    identities: (g) => create(emu, "identities", g, identityBody("kid-id")),
    roleBindings: async (g) => create(emu, "roleBindings", g, { identityUid: emu.ownerUid, roleUid: viewer }),
    identityProviders: (g) => create(emu, "identityProviders", g, { name: "kid-idp", oidc }),
    groupInvites: (g) => create(emu, "groupInvites", g, { roleUid: viewer, ttl: "60s" }),
    roles: (g) => create(emu, "roles", g, { name: "kid-role", capabilities: ["CAP_IAM_GROUPS_LIST"] }),
  };

  it.each(Object.keys(CHILD_MAKERS))("a group with a child in %s cannot be deleted: FAILED_PRECONDITION RESOURCE_NOT_EMPTY naming the kind", async (kind) => {
    const g = await fresh();
    const child = (await CHILD_MAKERS[kind]!(g)) as Json;
    const v = expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${g}`), "RESOURCE_NOT_EMPTY");
    expect(v.find((x) => x.type === "RESOURCE_NOT_EMPTY")!.description).toContain(kind);
    expect((await getRow(emu, "groups", g)).uid).toBe(g);
    expectOk(await api(emu, "DELETE", `${base(kind as CollectionName)}/${child.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `${base("groups")}/${g}`), Empty);
    expectNotFound(await api(emu, "GET", `${base("groups")}/${g}`), g);
  });

  it("the RESOURCE_NOT_EMPTY description names every kind of child left", async () => {
    const g = await fresh();
    for (const kind of Object.keys(CHILD_MAKERS)) await CHILD_MAKERS[kind]!(g);
    const v = expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${g}`), "RESOURCE_NOT_EMPTY");
    const d = v.find((x) => x.type === "RESOURCE_NOT_EMPTY")!.description;
    for (const kind of Object.keys(CHILD_MAKERS)) expect(d).toContain(kind);
  });

  it("a group whose child group has its own child is deleted only bottom-up", async () => {
    const g = await fresh();
    const kid = await mkGroup(emu, g, "kid");
    const grandkid = await mkGroup(emu, kid.uid, "grandkid");
    expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${kid.uid}`), "RESOURCE_NOT_EMPTY");
    expectOk(await api(emu, "DELETE", `${base("groups")}/${grandkid.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `${base("groups")}/${kid.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `${base("groups")}/${g}`), Empty);
  });

  it("the root group (which has children) cannot be deleted: FAILED_PRECONDITION", async () => {
    expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${emu.orgUid}`));
    expect((await getRow(emu, "groups", emu.orgUid)).uid).toBe(emu.orgUid);
  });
});
