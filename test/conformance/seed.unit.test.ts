/**
 * Seed traceability: one test per rule and table row of the API description (§1–§9) that the emulator or the
 * provider client can honour, each named `<id>: <behaviour>` with an id from `seed-rules.ts`. The summary
 * reporter turns the passing ones into the `seed coverage` line; the last test here fails when a rule has
 * neither a test in this file nor a reason.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { PlatformClient } from "../../provider/client/client";
import { DEFAULT_RETRY } from "../../provider/client/retry";
import { deleteGroupPatiently } from "../../provider/engine/lifecycle";
import { groupChildren } from "../../provider/kinds/registry";
import { Empty, Group, Identity, Repo, Role, RoleBinding } from "../../provider/client/schemas";
import { BAD_REQUEST, ERROR_INFO, PRECONDITION_FAILURE, RFC3339_MS, api, base, builtinRole, create, expectInvalid, expectList, expectOk, expectPrecondition, expectStatus, fieldViolations, getRow, http, jwtPayload, listAll, listPage, mkGroup, pool, qs, sleep, type CollectionName, type Json } from "./helpers";
import { SEED_RULES, seedCoverage } from "./seed-rules";
import { useEmulator } from "../harness/emulator";

let viewer: string;
let n = 0;
const tested = new Set<string>();
const CHILD = /^[0-9a-f]{16}$/;

/** Declares the test for seed rule `id`; the id must be in SEED_RULES. */
function rule(id: string, behaviour: string, fn: () => Promise<void>, timeout?: number): void {
  if (!SEED_RULES.some((r) => r.id === id)) throw new Error(`seed.unit.test.ts: "${id}" is not a rule id in seed-rules.ts`);
  tested.add(id);
  it(`${id}: ${behaviour}`, fn, timeout);
}

const fresh = async (parent = emu.orgUid) => (await mkGroup(emu, parent, `seed-${++n}`)).uid as string;
const identityBody = (name: string, subject = `sub-${name}`) => ({ name, description: `identity ${name}`, claimMatch: { issuer: emu.issuer.url, subject } });
const exchange = (identity: string, oidc: string, aud = emu.url) => http(`${emu.authUrl}/sts/exchange${qs({ aud, identity })}`, { token: oidc });
const errorInfoOf = (body: Json) => (body.details as Json[]).find((d) => d["@type"] === ERROR_INFO);

/** An identity assumable with the test issuer's tokens for `subject`, bound to `role` at `group`; returns its API token. */
async function actor(group: string, role: string | undefined, subject = `actor-${++n}`): Promise<{ uid: string; token: string }> {
  const i = await create(emu, "identities", group, identityBody(`actor-${n}`, subject));
  if (role) await create(emu, "roleBindings", group, { identityUid: i.uid, roleUid: role });
  const res = await exchange(i.uid, await emu.issuer.mint(subject));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { uid: i.uid, token: res.body.token };
}

const emu = useEmulator(undefined, async () => {
  viewer = await builtinRole(emu, "viewer");
});

/** DELETE of `path` answers 200 with an empty body. */
async function expectEmptyDelete(path: string): Promise<void> {
  const res = await api(emu, "DELETE", path);
  expect(res.status).toBe(200);
  expect(res.body ?? {}).toEqual({});
}

describe("§1 What the service does", () => {
  rule("§1 table IAM", "every IAM collection serves List, Get, Create, Update (PATCH) and Delete (group invites: no Update, as in the vendor's API)", async () => {
    const g = await fresh();
    const ident = await create(emu, "identities", g, identityBody("iam-table"));
    const bodies: Record<string, Json> = {
      groups: { name: "iam-table-group" },
      identities: identityBody("iam-table-2"),
      roles: { name: "iam-table-role", capabilities: ["CAP_IAM_GROUPS_LIST"] },
      roleBindings: { identityUid: ident.uid, roleUid: viewer },
      identityProviders: { name: "iam-table-idp", oidc: { issuer: "https://idp.example", clientId: "c", clientSecret: "s" } },
      accountAssociations: { amazon: { account: "123456789012" } },
      groupInvites: { roleUid: viewer, ttl: "3600s" },
    };
    const patches: Record<string, Json> = {
      groups: { description: "patched" },
      identities: { description: "patched" },
      roles: { description: "patched" },
      roleBindings: { roleUid: await builtinRole(emu, "editor") },
      identityProviders: { description: "patched" },
      accountAssociations: { description: "patched" },
    };
    for (const [c, body] of Object.entries(bodies) as Array<[CollectionName, Json]>) {
      const row = await create(emu, c, g, body);
      expect((await getRow(emu, c, row.uid)).uid).toBe(row.uid);
      expect((await listPage(emu, c, { "uidp.ids": [row.uid] })).items.map((x) => x.uid)).toEqual([row.uid]);
      if (patches[c]) expect((await api(emu, "PATCH", `${base(c)}/${row.uid}`, patches[c])).status, c).toBe(200);
      else expectStatus(await api(emu, "PATCH", `${base(c)}/${row.uid}`, { email: "x@example.com" }), 12, 405);
      expectOk(await api(emu, "DELETE", `${base(c)}/${row.uid}`), Empty);
      expect((await api(emu, "GET", `${base(c)}/${row.uid}`)).status, c).toBe(404);
    }
  });

  rule("§1 table Registry", "repos and tags serve List and Get", async () => {
    const repos = await listPage(emu, "repos");
    expect(repos.items.length).toBeGreaterThan(0);
    expect((await getRow(emu, "repos", repos.items[0].uid)).name).toBe(repos.items[0].name);
    const tags = await listPage(emu, "tags", { "uidp.children_of": repos.items[0].uid });
    expect(tags.items.length).toBeGreaterThan(0);
    expect((await getRow(emu, "tags", tags.items[0].uid)).uid).toBe(tags.items[0].uid);
  });

  rule("§1 table Vulnerabilities", "advisories serve List and Get", async () => {
    const page = await listPage(emu, "advisories");
    expect(page.items.length).toBeGreaterThan(0);
    expect((await getRow(emu, "advisories", page.items[0].uid)).uid).toBe(page.items[0].uid);
  });

  rule("§1 rule 1", "v2 endpoints answer under /iam/v2beta1/, /registry/v2beta1/ and /vulnerabilities/v2beta1/", async () => {
    for (const path of ["/iam/v2beta1/groups", "/registry/v2beta1/repos", "/vulnerabilities/v2beta1/advisories"]) {
      expect((await api(emu, "GET", path)).status, path).toBe(200);
    }
    expect((await api(emu, "GET", "/other/v2beta1/groups")).status).toBe(404);
  });

  rule("§1 rule 3", "v2 offers cursors, order_by, skip, structured errors, uid/createTime/updateTime, hydrated references, field masks and Get by uid", async () => {
    const g = await fresh();
    for (const name of ["c", "a", "b"]) await mkGroup(emu, g, `r3-${name}`);
    const p1 = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 1, order_by: "name" });
    expect(p1.items[0].name).toBe("r3-a");
    expect(p1.nextPageToken).toBeTruthy();
    expect((await listPage(emu, "groups", { "uidp.children_of": g, skip: 2, order_by: "name" })).items.map((x) => x.name)).toEqual(["r3-c"]);
    expectInvalid(await api(emu, "POST", `${base("groups")}/${g}`, {}), ["name"]);
    const row = await getRow(emu, "groups", g);
    expect([typeof row.uid, typeof row.createTime, typeof row.updateTime]).toEqual(["string", "string", "string"]);
    const i = await create(emu, "identities", g, identityBody("rule3"));
    expect((await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer })).role.name).toBe("viewer");
    const patched = expectOk(await api(emu, "PATCH", `${base("groups")}/${g}?updateMask=description`, { name: "ignored", description: "masked" }), Group);
    expect([patched.name, patched.description]).toEqual([row.name, "masked"]);
  });

  rule("§1 rule 4", "groups nest under the root organization; descendants_of reaches every depth, children_of one level", async () => {
    const g = await fresh();
    const kid = await fresh(g);
    const grandkid = await fresh(kid);
    expect(g.startsWith(`${emu.orgUid}/`)).toBe(true);
    expect((await listAll(emu, "groups", { "uidp.descendants_of": g })).map((x) => x.uid).sort()).toEqual([kid, grandkid].sort());
    expect((await listAll(emu, "groups", { "uidp.children_of": g })).map((x) => x.uid)).toEqual([kid]);
  });

  rule("§1 rule 5", "v1 endpoints answer alongside v2 (GET /iam/v1/groups)", async () => {
    const res = await api(emu, "GET", "/iam/v1/groups");
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.items)).toBe(true);
    expect((await api(emu, "GET", "/iam/v2beta1/groups")).status).toBe(200);
  });
});

describe("§2 Resources and their fields", () => {
  rule("§2 common rule 1", "uid, createTime and updateTime (RFC 3339 with milliseconds and Z) on every resource; a role binding has createTime and no updateTime", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("common-1"));
    const rows: Json[] = [await getRow(emu, "groups", g), i, await create(emu, "roles", g, { name: "common-role", capabilities: ["CAP_IAM_GROUPS_LIST"] }), (await listPage(emu, "repos")).items[0]];
    for (const r of rows) {
      expect(typeof r.uid).toBe("string");
      expect(r.createTime, JSON.stringify(r)).toMatch(RFC3339_MS);
      expect(r.updateTime, JSON.stringify(r)).toMatch(RFC3339_MS);
    }
    const b = await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer });
    expect(b.createTime).toMatch(RFC3339_MS);
    expect(b).not.toHaveProperty("updateTime");
  });

  rule("§2 common rule 2", "a child's uid is its parent group's uid plus one slash-separated segment; a built-in role uid is one hex segment", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("common-2"));
    const b = await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer });
    for (const child of [g, i.uid, b.uid]) {
      const parent = child === g ? emu.orgUid : g;
      expect(child.startsWith(`${parent}/`), child).toBe(true);
      expect(child.slice(parent.length + 1)).toMatch(CHILD);
    }
    expect(viewer).toMatch(/^[0-9a-f]+$/);
  });

  rule("§2 common rule 3", "timestamps are server-assigned: createTime/updateTime in a request body are ignored", async () => {
    const g = await fresh();
    const before = Date.now();
    const row = await create(emu, "groups", g, { name: "spoof-times", createTime: "1999-01-01T00:00:00.000Z", updateTime: "1999-01-01T00:00:00.000Z" });
    expect(Date.parse(row.createTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(row.updateTime)).toBeGreaterThanOrEqual(before - 1000);
  });

  rule("§2 Group uid", "a group's uid is server-assigned (a uid in the body is ignored)", async () => {
    const g = await fresh();
    const row = await create(emu, "groups", g, { name: "spoof-uid", uid: `${g}/0000000000000000` });
    expect(row.uid).not.toBe(`${g}/0000000000000000`);
    expect(row.uid.startsWith(`${g}/`)).toBe(true);
  });

  rule("§2 Group name", "name is required on create and must match ^[a-z0-9 ._-]{1,}$", async () => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${base("groups")}/${g}`, { description: "no name" }), ["name"]);
    expectInvalid(await api(emu, "POST", `${base("groups")}/${g}`, { name: "Upper Case!" }), ["name"]);
    expect((await create(emu, "groups", g, { name: "ok name.with_chars-1" })).name).toBe("ok name.with_chars-1");
  });

  rule("§2 Group description", "description is optional", async () => {
    const g = await fresh();
    const row = await create(emu, "groups", g, { name: "no-description" });
    expect(typeof (row.description ?? "")).toBe("string");
    expect((await create(emu, "groups", g, { name: "with-description", description: "d" })).description).toBe("d");
  });

  rule("§2 Group resourceLimits", "resourceLimits is an object, {} when no limits are set, on create, get and list", async () => {
    const g = await fresh();
    expect((await getRow(emu, "groups", g)).resourceLimits).toEqual({});
    expect((await listPage(emu, "groups", { "uidp.ids": [g] })).items[0].resourceLimits).toEqual({});
    expect((await create(emu, "groups", g, { name: "limits" })).resourceLimits).toEqual({});
  });

  rule("§2 Group verified", "verified is false for a newly created group and cannot be set through the API", async () => {
    const g = await fresh();
    const row = await create(emu, "groups", g, { name: "verified", verified: true });
    expect(row.verified).toBe(false);
    expect((await getRow(emu, "groups", row.uid)).verified).toBe(false);
  });

  rule("§2 Group createTime/updateTime", "a group's createTime and updateTime are timestamps; a change advances updateTime only", async () => {
    const g = await getRow(emu, "groups", await fresh());
    await sleep(5);
    const p = expectOk(await api(emu, "PATCH", `${base("groups")}/${g.uid}`, { description: "later" }), Group);
    expect(p.createTime).toBe(g.createTime);
    expect(Date.parse(p.updateTime!)).toBeGreaterThan(Date.parse(g.updateTime));
  });

  rule("§2 Identity uid", "an identity's uid is server-assigned under its group", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, { ...identityBody("ident-uid"), uid: "spoofed" });
    expect(i.uid.startsWith(`${g}/`)).toBe(true);
  });

  rule("§2 Identity name", "name is required on create", async () => {
    const g = await fresh();
    const { name: _name, ...nameless } = identityBody("x");
    expectInvalid(await api(emu, "POST", `${base("identities")}/${g}`, nameless), ["name"]);
  });

  rule("§2 Identity description", "description is optional", async () => {
    const g = await fresh();
    const { description: _d, ...plain } = identityBody("no-desc");
    expect(typeof ((await create(emu, "identities", g, plain)).description ?? "")).toBe("string");
  });

  rule("§2 Identity claimMatch", "claimMatch holds issuer (a URL) and subject, returned as sent", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("claim-match", "repo:acme/app"));
    expect(i.claimMatch).toEqual({ issuer: emu.issuer.url, subject: "repo:acme/app" });
    expect((await getRow(emu, "identities", i.uid)).claimMatch).toEqual(i.claimMatch);
  });

  rule("§2 Identity lastSeenTime", "lastSeenTime is a server-set timestamp in the create response and reads", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, { ...identityBody("last-seen"), lastSeenTime: "1999-01-01T00:00:00.000Z" });
    expect(i.lastSeenTime).toMatch(RFC3339_MS);
    expect(i.lastSeenTime).not.toBe("1999-01-01T00:00:00.000Z");
    expect((await getRow(emu, "identities", i.uid)).lastSeenTime).toMatch(RFC3339_MS);
  });

  rule("§2 Identity createTime/updateTime", "an identity's createTime and updateTime are timestamps", async () => {
    const i = await create(emu, "identities", await fresh(), identityBody("ident-times"));
    expect(i.createTime).toMatch(RFC3339_MS);
    expect(i.updateTime).toMatch(RFC3339_MS);
  });

  rule("§2 Role fields", "a role has uid, name and description", async () => {
    for (const r of await listAll(emu, "roles")) expect([typeof r.uid, typeof r.name, typeof r.description]).toEqual(["string", "string", "string"]);
  });

  rule("§2 Role built-in viewer", "a built-in role named viewer exists, its description marking it built in", async () => {
    const v = expectOk(await api(emu, "GET", `${base("roles")}/${viewer}`), Role);
    expect(v.name).toBe("viewer");
    expect(v.description).toMatch(/built-in/i);
  });

  rule("§2 Role listed without scope", "GET /iam/v2beta1/roles without parameters lists the built-in roles", async () => {
    const page = expectList(await api(emu, "GET", base("roles")), "roles", Role);
    expect(page.items.map((r) => r.name)).toContain("viewer");
  });

  rule("§2 RoleBinding request identityUid", "identityUid is required", async () => {
    expectInvalid(await api(emu, "POST", `${base("roleBindings")}/${await fresh()}`, { roleUid: viewer }), ["identityUid"]);
  });

  rule("§2 RoleBinding request roleUid", "roleUid is required", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("rb-role"));
    expectInvalid(await api(emu, "POST", `${base("roleBindings")}/${g}`, { identityUid: i.uid }), ["roleUid"]);
  });

  describe("RoleBinding response", () => {
    let g: string;
    let i: Json;
    let b: Json;
    beforeAll(async () => {
      g = await fresh();
      i = await create(emu, "identities", g, identityBody("hydrated", "sub-hydrated"));
      b = await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer });
    });
    rule("§2 RoleBinding response uid", "the binding has a uid under its group", async () => {
      expect(b.uid.startsWith(`${g}/`)).toBe(true);
    });
    rule("§2 RoleBinding response identity", "identity is hydrated with uid, name, description, subject, issuer", async () => {
      expect(b.identity).toEqual({ uid: i.uid, name: i.name, description: i.description, subject: "sub-hydrated", issuer: emu.issuer.url });
    });
    rule("§2 RoleBinding response group", "group is hydrated with uid, name, description", async () => {
      const grp = await getRow(emu, "groups", g);
      expect(b.group).toEqual({ uid: g, name: grp.name, description: grp.description });
    });
    rule("§2 RoleBinding response role", "role is hydrated with uid, name, description", async () => {
      const r = await getRow(emu, "roles", viewer);
      expect(b.role).toEqual({ uid: viewer, name: "viewer", description: r.description });
    });
    rule("§2 RoleBinding response createTime", "the binding has createTime, on create and on Get", async () => {
      expect(b.createTime).toMatch(RFC3339_MS);
      expect(expectOk(await api(emu, "GET", `${base("roleBindings")}/${b.uid}`), RoleBinding).createTime).toBe(b.createTime);
    });
  });

  rule("§2 Repo fields", "a repo has uid, name and createTime", async () => {
    for (const r of (await listPage(emu, "repos")).items) {
      const repo = Repo.parse(r);
      expect([typeof repo.uid, typeof repo.name]).toEqual(["string", "string"]);
      expect(r.createTime).toMatch(RFC3339_MS);
    }
  });

  rule("§2 List envelope plural", "the page's resources sit under the plural lower-camel name (groups, roles, repos, roleBindings)", async () => {
    for (const [path, key] of [["/iam/v2beta1/groups", "groups"], ["/iam/v2beta1/roles", "roles"], ["/registry/v2beta1/repos", "repos"], ["/iam/v2beta1/roleBindings", "roleBindings"]] as const) {
      const res = await api(emu, "GET", path);
      expect(Array.isArray(res.body[key]), path).toBe(true);
    }
  });

  rule("§2 List envelope nextPageToken", "nextPageToken is a string while more pages remain and absent or empty on the last", async () => {
    const g = await fresh();
    await fresh(g);
    await fresh(g);
    const p1 = await api(emu, "GET", `${base("groups")}${qs({ "uidp.children_of": g, page_size: 1 })}`);
    expect(typeof p1.body.nextPageToken).toBe("string");
    const p2 = await api(emu, "GET", `${base("groups")}${qs({ "uidp.children_of": g, page_size: 1, page_token: p1.body.nextPageToken })}`);
    expect(p2.body.nextPageToken ?? "").toBe("");
  });

  rule("§2 List envelope totalCount", "totalCount counts every match across pages as a decimal string", async () => {
    const g = await fresh();
    for (let k = 0; k < 3; k++) await fresh(g);
    const res = await api(emu, "GET", `${base("groups")}${qs({ "uidp.children_of": g, page_size: 1 })}`);
    expect(res.body.totalCount).toBe("3");
  });

  rule("§2 List envelope skipped", "skipped is an integer echoing the skip applied (0 without skip)", async () => {
    const g = await fresh();
    for (let k = 0; k < 3; k++) await fresh(g);
    expect((await api(emu, "GET", `${base("groups")}${qs({ "uidp.children_of": g, skip: 2 })}`)).body.skipped).toBe(2);
    expect((await api(emu, "GET", `${base("groups")}${qs({ "uidp.children_of": g })}`)).body.skipped).toBe(0);
  });
});

describe("§4 Endpoints", () => {
  rule("§4 preamble", "bodies are JSON; the parent goes in the path and a body field outside the resource is refused", async () => {
    const g = await fresh();
    expectInvalid(await api(emu, "POST", `${base("groups")}/${g}`, { name: "with-parent", parent: emu.orgUid }), ["parent"]);
    expectInvalid(await http(`${emu.url}${base("groups")}/${g}`, { method: "POST", token: emu.token, form: { name: "form-body" } }), ["body"]);
    const row = await create(emu, "groups", g, { name: "json-body" });
    expect(row.uid.startsWith(`${g}/`)).toBe(true);
  });

  describe("common List parameters", () => {
    let g: string;
    let kids: string[];
    let grandkid: string;
    beforeAll(async () => {
      g = await fresh();
      kids = [];
      // One millisecond apart at least, so created_at orders them without ties (ties fall back to the random uid).
      for (const name of ["p-b", "p-a", "p-c"]) {
        kids.push((await mkGroup(emu, g, name)).uid);
        await sleep(3);
      }
      grandkid = await fresh(kids[0]);
    });
    rule("§4 param uidp.descendants_of", "restricts a List to resources under the group at any depth", async () => {
      expect((await listAll(emu, "groups", { "uidp.descendants_of": g })).map((x) => x.uid).sort()).toEqual([...kids, grandkid].sort());
    });
    rule("§4 param uidp.children_of", "restricts a List to the group's direct children", async () => {
      expect((await listAll(emu, "groups", { "uidp.children_of": g })).map((x) => x.uid).sort()).toEqual([...kids].sort());
    });
    rule("§4 param name", "filters by exact name", async () => {
      expect((await listAll(emu, "groups", { "uidp.children_of": g, name: "p-a" })).map((x) => x.name)).toEqual(["p-a"]);
    });
    rule("§4 param page_size", "sets the results per page", async () => {
      expect((await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2 })).items).toHaveLength(2);
    });
    rule("§4 param page_token", "continues from the previous nextPageToken", async () => {
      const p1 = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2 });
      const p2 = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2, page_token: p1.nextPageToken });
      expect([...p1.items, ...p2.items].map((x) => x.uid).sort()).toEqual([...kids].sort());
    });
    rule("§4 param order_by", "orders by name, name desc and created_at desc (space URL-encoded as %20)", async () => {
      const names = async (order: string) => (await api(emu, "GET", `${base("groups")}?uidp.children_of=${g}&order_by=${order}`)).body.groups.map((x: Json) => x.name);
      expect(await names("name")).toEqual(["p-a", "p-b", "p-c"]);
      expect(await names("name%20desc")).toEqual(["p-c", "p-b", "p-a"]);
      expect(await names("created_at%20desc")).toEqual(["p-c", "p-a", "p-b"]);
    });
    rule("§4 param skip", "skips that many leading results", async () => {
      expect((await listPage(emu, "groups", { "uidp.children_of": g, order_by: "name", skip: 1 })).items.map((x) => x.name)).toEqual(["p-b", "p-c"]);
    });
    rule("§4 list rule 1", "ordering persists across pages when the cursor is followed", async () => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const p = await listPage(emu, "groups", { "uidp.children_of": g, order_by: "name desc", page_size: 1, page_token: token });
        out.push(...p.items.map((x) => x.name as string));
        token = p.nextPageToken;
      } while (token);
      expect(out).toEqual(["p-c", "p-b", "p-a"]);
    });
    rule("§4 list rule 2", "skip combines with page_size and order_by; skipped equals the value applied", async () => {
      const p = await listPage(emu, "groups", { "uidp.children_of": g, order_by: "name", page_size: 1, skip: 1 });
      expect(p.items.map((x) => x.name)).toEqual(["p-b"]);
      expect(p.skipped).toBe(1);
    });
    rule("§4 list rule 3", "the name filter matches exactly: no prefixes, substrings or case folding", async () => {
      for (const name of ["p-", "p", "P-A", "p-a "]) expect((await listPage(emu, "groups", { "uidp.children_of": g, name })).items, name).toEqual([]);
    });
  });

  rule("§4 list rule 4", "every List endpoint accepts page_size, page_token, order_by and skip", async () => {
    for (const c of ["groups", "identities", "roles", "roleBindings", "identityProviders", "accountAssociations", "groupInvites", "repos", "tags", "advisories"] as CollectionName[]) {
      const p1 = await listPage(emu, c, { page_size: 1, order_by: "uid desc", skip: 0 });
      expect(p1.items.length, c).toBeLessThanOrEqual(1);
      if (p1.nextPageToken) expect((await listPage(emu, c, { page_size: 1, order_by: "uid desc", page_token: p1.nextPageToken })).items.length).toBe(1);
    }
  });

  rule("§4 list rule 5", "a List works without any scoping parameter (roles, groups, repos)", async () => {
    for (const c of ["roles", "groups", "repos"] as CollectionName[]) expect((await listPage(emu, c)).items.length, c).toBeGreaterThan(0);
  });

  rule("§4 endpoint GET /iam/v2beta1/groups", "answers a List envelope with groups", async () => {
    expect(expectList(await api(emu, "GET", "/iam/v2beta1/groups"), "groups", Group).items.length).toBeGreaterThan(0);
  });
  rule("§4 endpoint GET /iam/v2beta1/groups/{group_uid}", "answers the Group", async () => {
    expect(expectOk(await api(emu, "GET", `/iam/v2beta1/groups/${emu.orgUid}`), Group).uid).toBe(emu.orgUid);
  });
  rule("§4 endpoint POST /iam/v2beta1/groups/{parent_group_uid}", "creates from name and description and answers the Group", async () => {
    const g = expectOk(await api(emu, "POST", `/iam/v2beta1/groups/${emu.orgUid}`, { name: "endpoint-post", description: "d" }), Group);
    expect([g.name, g.description]).toEqual(["endpoint-post", "d"]);
  });
  rule("§4 endpoint PATCH /iam/v2beta1/groups/{group_uid}", "answers the updated Group, with and without updateMask", async () => {
    const g = await fresh();
    expect(expectOk(await api(emu, "PATCH", `/iam/v2beta1/groups/${g}`, { description: "one" }), Group).description).toBe("one");
    expect(expectOk(await api(emu, "PATCH", `/iam/v2beta1/groups/${g}?updateMask=description`, { description: "two" }), Group).description).toBe("two");
  });
  rule("§4 endpoint DELETE /iam/v2beta1/groups/{group_uid}", "answers an empty body", async () => {
    const g = await fresh();
    await expectEmptyDelete(`/iam/v2beta1/groups/${g}`);
  });
  rule("§4 endpoint POST /iam/v2beta1/identities/{group_uid}", "creates from name, description and claimMatch and answers the Identity", async () => {
    const g = await fresh();
    const i = expectOk(await api(emu, "POST", `/iam/v2beta1/identities/${g}`, identityBody("endpoint-identity")), Identity);
    expect(i.name).toBe("endpoint-identity");
  });
  rule("§4 endpoint DELETE /iam/v2beta1/identities/{identity_uid}", "answers an empty body", async () => {
    const i = await create(emu, "identities", await fresh(), identityBody("endpoint-del"));
    await expectEmptyDelete(`/iam/v2beta1/identities/${i.uid}`);
  });
  rule("§4 endpoint GET /iam/v2beta1/roles", "answers a List envelope with roles without any parameter", async () => {
    expect(expectList(await api(emu, "GET", "/iam/v2beta1/roles"), "roles", Role).items.length).toBeGreaterThan(0);
  });
  rule("§4 endpoint POST /iam/v2beta1/roleBindings/{group_uid}", "creates from identityUid and roleUid and answers the hydrated binding", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("endpoint-rb"));
    const b = expectOk(await api(emu, "POST", `/iam/v2beta1/roleBindings/${g}`, { identityUid: i.uid, roleUid: viewer }), RoleBinding) as Json;
    expect([b.identity.uid, b.role.uid, b.group.uid]).toEqual([i.uid, viewer, g]);
  });
  rule("§4 endpoint DELETE /iam/v2beta1/roleBindings/{binding_uid}", "answers an empty body", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("endpoint-rb-del"));
    const b = await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer });
    await expectEmptyDelete(`/iam/v2beta1/roleBindings/${b.uid}`);
  });
  rule("§4 endpoint GET /registry/v2beta1/repos", "answers a List envelope with repos", async () => {
    expect(expectList(await api(emu, "GET", "/registry/v2beta1/repos"), "repos", Repo).items.length).toBeGreaterThan(0);
  });

  rule("§4 rule 1", "Get by uid returns the bare resource, not an envelope", async () => {
    const g = await fresh();
    const res = await api(emu, "GET", `${base("groups")}/${g}`);
    expect(res.body.uid).toBe(g);
    expect(res.body).not.toHaveProperty("groups");
  });

  rule("§4 rule 2", "PATCH without updateMask changes only the fields in the body", async () => {
    const g = await create(emu, "groups", await fresh(), { name: "rule-2", description: "keep" });
    const p = expectOk(await api(emu, "PATCH", `${base("groups")}/${g.uid}`, { name: "rule-2-renamed" }), Group);
    expect([p.name, p.description]).toEqual(["rule-2-renamed", "keep"]);
  });

  rule("§4 rule 3", "PATCH with updateMask changes only the listed fields; others in the body are ignored", async () => {
    const g = await create(emu, "groups", await fresh(), { name: "rule-3", description: "old" });
    const p = expectOk(await api(emu, "PATCH", `${base("groups")}/${g.uid}?updateMask=description`, { name: "ignored-name", description: "new" }), Group);
    expect([p.name, p.description]).toEqual(["rule-3", "new"]);
  });

  rule("§4 rule 4", "deleting a group with children fails with FAILED_PRECONDITION / RESOURCE_NOT_EMPTY", async () => {
    const g = await fresh();
    await fresh(g);
    expectPrecondition(await api(emu, "DELETE", `${base("groups")}/${g}`), "RESOURCE_NOT_EMPTY");
    expect((await api(emu, "GET", `${base("groups")}/${g}`)).status).toBe(200);
  });

  rule("§4 rule 4", "the provider client's patient group delete waits out RESOURCE_NOT_EMPTY (reason FAILED_PRECONDITION) until the children are gone", async () => {
    const g = await fresh();
    const kid = await fresh(g);
    const client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
    try {
      const removeKid = sleep(300).then(() => api(emu, "DELETE", `${base("groups")}/${kid}`));
      await deleteGroupPatiently(client, g, 20, { ...DEFAULT_RETRY, baseDelayMs: 50, maxDelayMs: 200 }, groupChildren());
      expect((await removeKid).status).toBe(200);
      expect((await api(emu, "GET", `${base("groups")}/${g}`)).status).toBe(404);
    } finally {
      await client.close();
    }
  });

  rule("§4 rule 5", "creating a group with {} fails validation naming name", async () => {
    expectInvalid(await api(emu, "POST", `${base("groups")}/${await fresh()}`, {}), ["name"]);
  });

  rule("§4 rule 6", "a full cleanup in the order role binding, identity, group succeeds and leaves nothing", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("cleanup"));
    const b = await create(emu, "roleBindings", g, { identityUid: i.uid, roleUid: viewer });
    for (const [c, uid] of [["roleBindings", b.uid], ["identities", i.uid], ["groups", g]] as const) expectOk(await api(emu, "DELETE", `${base(c)}/${uid}`), Empty);
    for (const [c, uid] of [["roleBindings", b.uid], ["identities", i.uid], ["groups", g]] as const) expect((await api(emu, "GET", `${base(c)}/${uid}`)).status).toBe(404);
  });

  rule("§4 token exchange", "GET {auth_url}/sts/exchange?aud=<API base>&identity=<uid> with a Bearer OIDC token answers {token}, an API token for that identity", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("exchange", "sub-exchange"));
    const res = await exchange(i.uid, await emu.issuer.mint("sub-exchange"));
    expect(res.status).toBe(200);
    expect(typeof res.body.token).toBe("string");
    expect(jwtPayload(res.body.token).sub).toBe(i.uid);
    expectInvalid(await exchange(i.uid, await emu.issuer.mint("sub-exchange"), "https://elsewhere.example"), ["aud"]);
    expectStatus(await http(`${emu.authUrl}/sts/exchange${qs({ aud: emu.url, identity: i.uid })}`), 16, 401);
  });
});

describe("§5 Authentication", () => {
  rule("§5 rule 1", "every API call needs Authorization: Bearer <token>; the token is an OIDC-style JWT", async () => {
    expectStatus(await api(emu, "GET", base("groups"), undefined, null), 16, 401);
    expectStatus(await http(`${emu.url}${base("groups")}`, { token: "not-a-jwt" }), 16, 401);
    expect((await api(emu, "GET", base("groups"))).status).toBe(200);
    const claims = jwtPayload(emu.token);
    expect([typeof claims.iss, typeof claims.sub, typeof claims.exp]).toEqual(["string", "string", "number"]);
  });

  rule("§5 rule 2", "the caller's identity and role bindings decide: unbound is denied, a viewer may read but not write", async () => {
    const g = await fresh();
    const unbound = await actor(g, undefined);
    expectStatus(await api(emu, "GET", `${base("groups")}/${g}`, undefined, unbound.token), 7, 403);
    const reader = await actor(g, viewer);
    expect((await api(emu, "GET", `${base("groups")}/${g}`, undefined, reader.token)).status).toBe(200);
    expectStatus(await api(emu, "POST", `${base("groups")}/${g}`, { name: "denied" }, reader.token), 7, 403);
  });

  rule("§5 rule 4", "a workload exchanges its OIDC token for an API token valid for one hour, and uses it", async () => {
    const g = await fresh();
    const w = await actor(g, viewer);
    const p = jwtPayload(w.token);
    expect(p.exp! - p.iat!).toBe(3600);
    expect((await api(emu, "GET", `${base("groups")}/${g}`, undefined, w.token)).status).toBe(200);
  });

  rule("§5 rule 5", "API tokens carry the API base address as audience", async () => {
    const g = await fresh();
    expect(jwtPayload(emu.token).aud).toBe(emu.url);
    expect(jwtPayload((await actor(g, viewer)).token).aud).toBe(emu.url);
  });

  rule("§5 rule 6", "a role binding ties an identity to a role within a group: viewer at G reads G, not its parent", async () => {
    const parent = await fresh();
    const g = await fresh(parent);
    const w = await actor(g, viewer);
    expect((await api(emu, "GET", `${base("groups")}/${g}`, undefined, w.token)).status).toBe(200);
    expectStatus(await api(emu, "GET", `${base("groups")}/${parent}`, undefined, w.token), 7, 403);
  });

  rule("§5 rule 7", "an identity made with the Identity create endpoint is assumable by a token matching its claimMatch, and by no other", async () => {
    const g = await fresh();
    const i = await create(emu, "identities", g, identityBody("assumable", "sub-assumable"));
    expect((await exchange(i.uid, await emu.issuer.mint("sub-assumable"))).status).toBe(200);
    expectStatus(await exchange(i.uid, await emu.issuer.mint("someone-else")), 7, 403);
  });

  rule("§5 rule 8", "the registry API accepts the same kind of token (an exchanged token lists repos)", async () => {
    const w = await actor(emu.orgUid, await builtinRole(emu, "registry.pull"));
    expect(expectList(await api(emu, "GET", base("repos"), undefined, w.token), "repos", Repo).items.length).toBeGreaterThan(0);
  });
});

describe("§7 Errors", () => {
  let invalid: Json;
  let precondition: Json;
  beforeAll(async () => {
    const g = await fresh();
    invalid = (await api(emu, "POST", `${base("groups")}/${g}`, { name: "BAD!", description: 7 })).body;
    await fresh(g);
    precondition = (await api(emu, "DELETE", `${base("groups")}/${g}`)).body;
  });

  rule("§7 field code", "code is an integer of the gRPC code space", async () => {
    for (const b of [invalid, precondition]) {
      expect(Number.isInteger(b.code)).toBe(true);
      expect(b.code).toBeGreaterThanOrEqual(0);
      expect(b.code).toBeLessThanOrEqual(16);
    }
  });
  rule("§7 field message", "message reads 'Invalid argument: <field>: <description>' or 'Precondition failed: <description>'", async () => {
    expect(invalid.message).toMatch(/^Invalid argument: (name|description): .+/);
    expect(precondition.message).toMatch(/^Precondition failed: .+/);
  });
  rule("§7 field details", "details is an array of objects whose @type is a type URL ending in the detail type name", async () => {
    for (const b of [invalid, precondition]) {
      expect(Array.isArray(b.details)).toBe(true);
      for (const d of b.details) expect(d["@type"]).toMatch(/^type\.googleapis\.com\/google\.rpc\.(ErrorInfo|BadRequest|PreconditionFailure|ResourceInfo)$/);
    }
  });
  rule("§7 detail ErrorInfo", "ErrorInfo carries reason and a domain shaped iam.<service_domain>", async () => {
    for (const b of [invalid, precondition]) {
      const info = errorInfoOf(b);
      expect(typeof info.reason).toBe("string");
      expect(info.domain).toMatch(/^iam\.[a-z0-9-]+(\.[a-z0-9-]+)*$/);
    }
  });
  rule("§7 detail BadRequest", "BadRequest carries fieldViolations of {field, description}", async () => {
    const d = invalid.details.find((x: Json) => x["@type"] === BAD_REQUEST);
    for (const v of d.fieldViolations) expect([typeof v.field, typeof v.description]).toEqual(["string", "string"]);
  });
  rule("§7 detail PreconditionFailure", "PreconditionFailure carries violations of {type, description}", async () => {
    const d = precondition.details.find((x: Json) => x["@type"] === PRECONDITION_FAILURE);
    for (const v of d.violations) expect([typeof v.type, typeof v.description]).toEqual(["string", "string"]);
  });
  rule("§7 known case validation", "a failing field is code 3 with reason INVALID_ARGUMENT and one BadRequest violation per failing field", async () => {
    expect(invalid.code).toBe(3);
    expect(errorInfoOf(invalid).reason).toBe("INVALID_ARGUMENT");
    expect(fieldViolations(invalid).map((v) => v.field).sort()).toEqual(["description", "name"]);
  });
  rule("§7 known case non-empty group", "deleting a group with children is code 9 with reason FAILED_PRECONDITION and violation type RESOURCE_NOT_EMPTY", async () => {
    expect(precondition.code).toBe(9);
    expect(errorInfoOf(precondition).reason).toBe("FAILED_PRECONDITION");
    expect(precondition.details.find((x: Json) => x["@type"] === PRECONDITION_FAILURE).violations.map((v: Json) => v.type)).toEqual(["RESOURCE_NOT_EMPTY"]);
  });
  rule("§7 other rule 1", "an expired or unknown page token is not an error: the query restarts from the beginning", async () => {
    const g = await fresh();
    for (let k = 0; k < 3; k++) await fresh(g);
    const first = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 1 });
    const bogus = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 1, page_token: "bm90LWEtcmVhbC10b2tlbg" });
    expect(bogus.items.map((x) => x.uid)).toEqual(first.items.map((x) => x.uid));
  });
});

describe("§8 Limits", () => {
  let g: string;
  beforeAll(async () => {
    g = await fresh();
    const names = Array.from({ length: 205 }, (_v, k) => `limit-${String(k).padStart(3, "0")}`);
    await pool(names, 8, (name) => mkGroup(emu, g, name));
  });

  rule("§8 limit page_size default", "a List without page_size answers 50 results", async () => {
    expect((await listPage(emu, "groups", { "uidp.children_of": g })).items).toHaveLength(50);
  });
  rule("§8 limit page_size maximum", "page_size above 200 answers at most 200 results", async () => {
    const p = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 1000 });
    expect(p.items).toHaveLength(200);
    expect(p.nextPageToken).toBeTruthy();
  });
  rule("§8 limit page token lifetime", "a page token older than 3 days restarts the query from the beginning, without error", async () => {
    const token = await emu.mintToken(emu.ownerUid, 10 * 86_400);
    const first = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2, order_by: "name" }, token);
    const second = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2, order_by: "name", page_token: first.nextPageToken }, token);
    expect(second.items[0].name).toBe("limit-002");
    emu.control.set({ clockOffsetMs: 3 * 86_400_000 + 60_000 });
    try {
      const stale = await listPage(emu, "groups", { "uidp.children_of": g, page_size: 2, order_by: "name", page_token: first.nextPageToken }, token);
      expect(stale.items.map((x) => x.name)).toEqual(["limit-000", "limit-001"]);
    } finally {
      emu.control.set({ clockOffsetMs: 0 });
    }
  });
  rule("§8 limit token lifetime", "an exchanged API token works for 1 hour and is UNAUTHENTICATED after", async () => {
    const w = await actor(g, viewer);
    const p = jwtPayload(w.token);
    expect(p.exp! - p.iat!).toBe(3600);
    emu.control.set({ clockOffsetMs: 3_599_000 });
    try {
      expect((await api(emu, "GET", `${base("groups")}/${g}`, undefined, w.token)).status).toBe(200);
      emu.control.set({ clockOffsetMs: 3_601_000 });
      expectStatus(await api(emu, "GET", `${base("groups")}/${g}`, undefined, w.token), 16, 401);
    } finally {
      emu.control.set({ clockOffsetMs: 0 });
    }
  });
  rule("§8 limit rate limits", "no rate limit during beta: 300 quick requests all succeed", async () => {
    const statuses = await pool(Array.from({ length: 300 }, (_v, k) => k), 30, async () => (await api(emu, "GET", `${base("groups")}/${g}`)).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe("§9 Versioning", () => {
  rule("§9 rule 1", "the v2beta1 path segment serves the v2 API", async () => {
    expect(expectList(await api(emu, "GET", "/iam/v2beta1/groups"), "groups", Group).items.length).toBeGreaterThan(0);
  });
  rule("§9 rule 2", "v1 paths remain available: /iam/v1/... and /registry/v1/... List and Get", async () => {
    const g = await fresh();
    expect((await api(emu, "GET", `/iam/v1/groups/${g}`)).status).toBe(200);
    expect((await api(emu, "GET", "/registry/v1/repos")).status).toBe(200);
    expectStatus(await api(emu, "GET", `/iam/v1/groups/${g}`, undefined, null), 16, 401);
  });
  rule("§9 rule 3", "the same resource under v1 has id/createdAt/updatedAt where v2 has uid/createTime/updateTime", async () => {
    const g = await fresh();
    const v2 = await getRow(emu, "groups", g);
    const v1 = (await api(emu, "GET", `/iam/v1/groups/${g}`)).body;
    expect({ id: v1.id, createdAt: v1.createdAt, updatedAt: v1.updatedAt, name: v1.name }).toEqual({ id: v2.uid, createdAt: v2.createTime, updatedAt: v2.updateTime, name: v2.name });
    expect(v1).not.toHaveProperty("uid");
  });
  rule("§9 rule 4", "v1 List puts results under items; v2 under the plural name", async () => {
    const g = await fresh();
    const kid = await fresh(g);
    const v1 = (await api(emu, "GET", `/iam/v1/groups${qs({ "uidp.children_of": g })}`)).body;
    expect(v1.items.map((x: Json) => x.id)).toEqual([kid]);
    expect(v1).not.toHaveProperty("groups");
    expect((await listPage(emu, "groups", { "uidp.children_of": g })).raw.groups.map((x: Json) => x.uid)).toEqual([kid]);
  });
});

describe("traceability", () => {
  it("every seed rule has a test in this file or a reason in seed-rules.ts", () => {
    const missing = SEED_RULES.filter((r) => !r.reason && !tested.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
    expect(new Set(SEED_RULES.map((r) => r.id)).size, "rule ids are unique").toBe(SEED_RULES.length);
  });

  it("the coverage figure counts a rule only when a test naming it passed", () => {
    const { covered, excused, missing } = seedCoverage(["§4 rule 4: x", "§4 rule 40: not rule 4", "§1 rule 2 no colon"], [
      { id: "§4 rule 4", summary: "" },
      { id: "§1 rule 2", summary: "", reason: "informational" },
      { id: "§9 rule 9", summary: "" },
    ]);
    expect(covered.map((r) => r.id)).toEqual(["§4 rule 4"]);
    expect(excused.map((r) => r.id)).toEqual(["§1 rule 2"]);
    expect(missing.map((r) => r.id)).toEqual(["§9 rule 9"]);
  });
});
