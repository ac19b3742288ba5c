/**
 * Conformance: List semantics on every List endpoint (page_size, page_token, order_by, ties, skip, totalCount,
 * filters in snake_case and lowerCamelCase). Each collection holds more than 200 rows, some under a group L
 * and some under its child S, so every rule is exercised with real paging.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { ALL_COLLECTIONS, COLLECTIONS, api, base, builtinRole, create, expectInvalid, listAll, listPage, mkGroup, pool, qs, type CollectionName, type Json } from "./helpers";

/** Rows per collection: more than the 200 maximum page size. */
const N = 205;
const DAY_MS = 24 * 60 * 60 * 1000;

let emu: Emulator;
let L: string;
let S: string;
/** Seeded groups without an account association yet (for creating associations between pages). */
let spareGroups: string[] = [];
/** Creates one more row of a writable collection. */
const makers: Partial<Record<CollectionName, () => Promise<unknown>>> = {};
let made = 0;

/** The field each collection is ordered by in these tests, with the spellings order_by accepts for it. */
const ORDER: Record<CollectionName, { field: string; spellings: string[] }> = {
  groups: { field: "createTime", spellings: ["created_at", "create_time"] },
  identities: { field: "createTime", spellings: ["created_at", "create_time"] },
  roles: { field: "createTime", spellings: ["created_at", "create_time"] },
  roleBindings: { field: "createTime", spellings: ["created_at", "create_time"] },
  identityProviders: { field: "createTime", spellings: ["created_at", "create_time"] },
  accountAssociations: { field: "createTime", spellings: ["created_at", "create_time"] },
  groupInvites: { field: "createTime", spellings: ["created_at", "create_time"] },
  repos: { field: "createTime", spellings: ["created_at", "create_time"] },
  // Tags carry no createTime; every seeded tag is named "v1", so ordering by name is all ties.
  tags: { field: "name", spellings: ["name"] },
  advisories: { field: "createTime", spellings: ["created_at", "create_time"] },
};

/** A name shared by several rows of each named collection (name filter). */
const DUP_NAME: Partial<Record<CollectionName, string>> = {
  groups: "dup-name",
  identities: "dup-identity",
  roles: "dup-role",
  identityProviders: "dup-idp",
  accountAssociations: "dup-aa",
  tags: "v1",
};

const uids = (rows: Json[]) => rows.map((r) => r.uid as string);
const isDescendant = (uid: string, of: string) => uid.startsWith(`${of}/`);
const isChild = (uid: string, of: string) => isDescendant(uid, of) && !uid.slice(of.length + 1).includes("/");
const parentOf = (uid: string) => (uid.includes("/") ? uid.slice(0, uid.lastIndexOf("/")) : undefined);
const deepest = (rows: Json[]) => rows.reduce((a, b) => (String(b.uid).split("/").length > String(a.uid).split("/").length ? b : a));

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return (a as string) < (b as string) ? -1 : 1;
}

/** Asserts `rows` are ordered by `field` (asc or desc) with ties broken by uid, and that no uid repeats. */
function expectOrdered(rows: Json[], field: string, desc: boolean): void {
  expect(new Set(uids(rows)).size).toBe(rows.length);
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1];
    const b = rows[i];
    const c = compare(a[field], b[field]) * (desc ? -1 : 1);
    expect(c, `${field} order at ${i}: ${a[field]} / ${b[field]}`).toBeLessThanOrEqual(0);
    if (c === 0) {
      const u = compare(a.uid, b.uid) * (desc ? -1 : 1);
      expect(u, `tie at ${i} broken by uid (${a.uid} / ${b.uid})`).toBeLessThan(0);
    }
  }
}

beforeAll(async () => {
  emu = await startEmulator({ seed: { groups: 300, repos: N, tagsPerRepo: 1, advisories: N } });
  L = (await mkGroup(emu, emu.orgUid, "list-l")).uid;
  S = (await mkGroup(emu, L, "list-s")).uid;
  for (let i = 0; i < 5; i++) await mkGroup(emu, L, "dup-name");
  for (let i = 0; i < 5; i++) await mkGroup(emu, S, `s-${i}`);
  const viewer = await builtinRole(emu, "viewer");
  const seeded = (await listAll(emu, "groups", { "uidp.children_of": emu.orgUid })).filter((g) => String(g.name).startsWith("seed-group-"));
  spareGroups = uids(seeded);
  const parentFor = (i: number) => (i % 4 === 0 ? S : L);
  const range = Array.from({ length: N }, (_v, i) => i);
  const named = (c: CollectionName, i: number, prefix: string) => (i < 3 ? DUP_NAME[c]! : `${prefix}-${i}`);
  const oidc = { issuer: "https://idp.example", clientId: "cid", clientSecret: "secret" };

  const identities = await pool(range, 16, (i) =>
    create(emu, "identities", parentFor(i), { name: named("identities", i, "id"), claimMatch: { issuer: "https://issuer.example", subject: `sub-${i}` } }),
  );
  await pool(range, 16, (i) => create(emu, "roles", parentFor(i), { name: named("roles", i, "role"), capabilities: ["CAP_IAM_GROUPS_LIST"] }));
  await pool(range, 16, (i) => create(emu, "roleBindings", parentFor(i), { identityUid: identities[i].uid, roleUid: viewer }));
  await pool(range, 16, (i) => create(emu, "identityProviders", parentFor(i), { name: named("identityProviders", i, "idp"), oidc }));
  await pool(range, 16, (i) => create(emu, "groupInvites", parentFor(i), { roleUid: viewer, ttl: "3600s", email: `u${i}@example.com` }));
  const aaGroups = [emu.orgUid, L, S, ...spareGroups.splice(0, N - 3)];
  await pool(aaGroups, 16, (g, i) => create(emu, "accountAssociations", g, { name: named("accountAssociations", i, "aa"), amazon: { account: "123456789012" } }));

  makers.groups = () => mkGroup(emu, parentFor(made), `new-${made++}`);
  makers.identities = () => create(emu, "identities", parentFor(made), { name: `new-${made++}`, claimMatch: { issuer: "https://issuer.example", subject: "new" } });
  makers.roles = () => create(emu, "roles", parentFor(made), { name: `new-${made++}`, capabilities: ["CAP_IAM_GROUPS_LIST"] });
  makers.roleBindings = () => create(emu, "roleBindings", parentFor(made++), { identityUid: identities[0].uid, roleUid: viewer });
  makers.identityProviders = () => create(emu, "identityProviders", parentFor(made), { name: `new-${made++}`, oidc });
  makers.groupInvites = () => create(emu, "groupInvites", parentFor(made++), { roleUid: viewer, ttl: "60s" });
  makers.accountAssociations = () => {
    const g = spareGroups.shift();
    if (!g) throw new Error("no spare group left");
    return create(emu, "accountAssociations", g, { amazon: { account: "123456789012" } });
  };
}, 30_000);

afterAll(async () => {
  await emu.close();
});

describe.each(ALL_COLLECTIONS)("%s", (c) => {
  const order = ORDER[c];
  const orderBy = (dir?: "asc" | "desc", spelling = order.spellings[0]!) => (dir ? `${spelling} ${dir}` : spelling);

  it("page_size defaults to 50", async () => {
    const page = await listPage(emu, c);
    expect(page.totalCount).toBeGreaterThan(50);
    expect(page.items).toHaveLength(50);
    expect(page.nextPageToken).toBeDefined();
    expect((await listPage(emu, c, { page_size: 0 })).items).toHaveLength(50);
  });

  it("page_size above 200 is coerced to 200", async () => {
    const total = (await listPage(emu, c, { page_size: 1 })).totalCount;
    expect(total).toBeGreaterThan(200);
    expect((await listPage(emu, c, { page_size: 200 })).items).toHaveLength(200);
    expect((await listPage(emu, c, { page_size: 201 })).items).toHaveLength(200);
    const big = await listPage(emu, c, { pageSize: 5000 });
    expect(big.items).toHaveLength(200);
    expect(big.nextPageToken).toBeDefined();
  });

  it("a negative page_size is INVALID_ARGUMENT naming page_size", async () => {
    for (const p of ["page_size", "pageSize"]) {
      const s = expectInvalid(await api(emu, "GET", `${base(c)}${qs({ [p]: -1 })}`), ["page_size"]);
      expect(s.message).toContain("page_size");
    }
  });

  it("a page_token from another query restarts from the beginning without error", async () => {
    const first = await listPage(emu, c, { page_size: 3 });
    expect(first.nextPageToken).toBeDefined();
    const second = await listPage(emu, c, { page_size: 3, page_token: first.nextPageToken });
    expect(uids(second.items)).not.toEqual(uids(first.items));
    const variants: Array<Record<string, string>> = [
      { order_by: orderBy("desc") },
      { order_by: orderBy("asc") },
      { "uidp.descendants_of": emu.orgUid },
      { "uidp.in_root": "false" },
    ];
    for (const q of variants) {
      const fresh = await listPage(emu, c, { page_size: 3, ...q });
      const withToken = await listPage(emu, c, { page_size: 3, ...q, page_token: first.nextPageToken });
      expect(uids(withToken.items), JSON.stringify(q)).toEqual(uids(fresh.items));
      expect(withToken.skipped).toBe(0);
    }
    const garbage = await listPage(emu, c, { page_size: 3, page_token: "not-a-token" });
    expect(uids(garbage.items)).toEqual(uids(first.items));
  });

  it("a page_token older than 3 days restarts from the beginning", async () => {
    const first = await listPage(emu, c, { page_size: 3, order_by: orderBy("asc") });
    const q = { page_size: 3, order_by: orderBy("asc"), page_token: first.nextPageToken };
    const second = await listPage(emu, c, q);
    expect(uids(second.items)).not.toEqual(uids(first.items));
    try {
      emu.control.set({ clockOffsetMs: 3 * DAY_MS - 60_000 });
      const young = await listPage(emu, c, q, await emu.mintToken(emu.ownerUid));
      expect(uids(young.items), "a token just under 3 days old still continues").toEqual(uids(second.items));
      emu.control.set({ clockOffsetMs: 3 * DAY_MS + 60_000 });
      const old = await listPage(emu, c, q, await emu.mintToken(emu.ownerUid));
      expect(uids(old.items), "a token over 3 days old restarts").toEqual(uids(first.items));
    } finally {
      emu.control.set({ clockOffsetMs: 0 });
    }
  });

  it(`order_by "<field> [asc|desc]" orders rows with ties broken by uid (${order.spellings.join(" = ")})`, async () => {
    const byUid = await listAll(emu, c);
    expectOrdered(byUid, "uid", false);
    const explicitUid = await listAll(emu, c, { order_by: "uid desc" });
    expect(uids(explicitUid)).toEqual(uids(byUid).reverse());
    for (const spelling of order.spellings) {
      const asc = await listAll(emu, c, { order_by: orderBy("asc", spelling) });
      const plain = await listAll(emu, c, { orderBy: orderBy(undefined, spelling) });
      const desc = await listAll(emu, c, { order_by: orderBy("desc", spelling) });
      expect(asc).toHaveLength(byUid.length);
      expect(new Set(uids(asc))).toEqual(new Set(uids(byUid)));
      expectOrdered(asc, order.field, false);
      expect(uids(plain)).toEqual(uids(asc));
      expect(new Set(uids(desc))).toEqual(new Set(uids(byUid)));
      expectOrdered(desc, order.field, true);
    }
    if (order.spellings.length > 1) {
      const a = await listAll(emu, c, { order_by: orderBy("desc", order.spellings[0]) });
      const b = await listAll(emu, c, { order_by: orderBy("desc", order.spellings[1]) });
      expect(uids(a)).toEqual(uids(b));
    }
  });

  it("an unknown order_by field is INVALID_ARGUMENT naming it", async () => {
    for (const p of ["order_by", "orderBy"]) {
      const s = expectInvalid(await api(emu, "GET", `${base(c)}${qs({ [p]: "colour desc" })}`), ["order_by"]);
      expect(s.message).toContain("colour");
    }
  });

  it("pages never repeat or skip a row, even while rows are created between pages", async () => {
    const maker = makers[c];
    for (const dir of ["asc", "desc"] as const) {
      const original = new Set(uids(await listAll(emu, c)));
      const seen = new Map<string, number>();
      let token: string | undefined;
      let pages = 0;
      let created = 0;
      do {
        const page = await listPage(emu, c, { page_size: 25, order_by: orderBy(dir), page_token: token });
        for (const r of page.items) seen.set(r.uid, (seen.get(r.uid) ?? 0) + 1);
        token = page.nextPageToken;
        pages++;
        if (maker && created < 6) {
          await maker();
          created++;
        }
      } while (token && pages < 100);
      expect(pages).toBeGreaterThan(8);
      for (const uid of original) expect(seen.get(uid), `${dir}: original row ${uid} seen once`).toBe(1);
      for (const [uid, n] of seen) expect(n, `${dir}: ${uid} seen once`).toBe(1);
      if (maker) expect(created).toBe(6);
    }
  });

  it("skip combines with page_size, order_by and a page_token, and skipped echoes it", async () => {
    const o = orderBy("desc");
    const full = (await listPage(emu, c, { page_size: 20, order_by: o })).items;
    expect(full).toHaveLength(20);
    const plain = await listPage(emu, c, { page_size: 3, order_by: o, skip: 2 });
    expect(uids(plain.items)).toEqual(uids(full.slice(2, 5)));
    expect(plain.skipped).toBe(2);
    const p1 = await listPage(emu, c, { page_size: 5, order_by: o });
    expect(p1.skipped).toBe(0);
    const p2 = await listPage(emu, c, { pageSize: 4, orderBy: o, skip: 3, pageToken: p1.nextPageToken });
    expect(uids(p2.items)).toEqual(uids(full.slice(8, 12)));
    expect(p2.skipped).toBe(3);
    expect(p2.totalCount).toBe(p1.totalCount);
    const p3 = await listPage(emu, c, { page_size: 4, order_by: o, page_token: p2.nextPageToken });
    expect(uids(p3.items)).toEqual(uids(full.slice(12, 16)));
  });

  it("totalCount counts every match, as a decimal string", async () => {
    const all = await listAll(emu, c);
    const p1 = await listPage(emu, c, { page_size: 5 });
    expect(p1.raw.totalCount).toBe(String(all.length));
    const p2 = await listPage(emu, c, { page_size: 5, page_token: p1.nextPageToken });
    expect(p2.raw.totalCount).toBe(String(all.length));
    const scope = parentOf(deepest(all).uid)!;
    const expected = all.filter((r) => isDescendant(r.uid, scope)).length;
    expect(expected).toBeGreaterThan(0);
    const filtered = await listPage(emu, c, { page_size: 1, "uidp.descendants_of": scope });
    expect(filtered.raw.totalCount).toBe(String(expected));
    const none = await listPage(emu, c, { "uidp.ids": [`${emu.orgUid}/ffffffffffffffff`] });
    expect(none.raw.totalCount).toBe("0");
    expect(none.items).toEqual([]);
  });

  /** Checks a filter in each spelling against the rows of an unfiltered listing. */
  const checkFilter = async (spellings: string[], value: string | string[], keep: (r: Json) => boolean, all: Json[]) => {
    const expected = uids(all.filter(keep));
    for (const p of spellings) {
      const got = await listAll(emu, c, { [p]: value });
      expect(uids(got), `${p}=${JSON.stringify(value)}`).toEqual(expected);
      const first = await listPage(emu, c, { [p]: value, page_size: 1 });
      expect(first.totalCount, `${p}=${JSON.stringify(value)} totalCount`).toBe(expected.length);
    }
    return expected.length;
  };
  const scopes = (all: Json[]) => [emu.orgUid, L, S, parentOf(deepest(all).uid)!];

  if (DUP_NAME[c] || c === "repos") {
    it("filters name (exact)", async () => {
      const all = await listAll(emu, c);
      const name = DUP_NAME[c] ?? all[7].name;
      const n = await checkFilter(["name"], name, (r) => r.name === name, all);
      expect(n).toBeGreaterThan(0);
      expect(await checkFilter(["name"], `${name}-nope`, () => false, all)).toBe(0);
      expect(await checkFilter(["name"], name.slice(0, -1), (r) => r.name === name.slice(0, -1), all)).toBe(0);
    });
  }

  it("filters uidp.descendants_of / uidp.descendantsOf", async () => {
    const all = await listAll(emu, c);
    let total = 0;
    for (const scope of scopes(all)) total += await checkFilter(["uidp.descendants_of", "uidp.descendantsOf"], scope, (r) => isDescendant(r.uid, scope), all);
    expect(total).toBeGreaterThan(0);
  });

  it("filters uidp.children_of / uidp.childrenOf", async () => {
    const all = await listAll(emu, c);
    let total = 0;
    for (const scope of scopes(all)) total += await checkFilter(["uidp.children_of", "uidp.childrenOf"], scope, (r) => isChild(r.uid, scope), all);
    expect(total).toBeGreaterThan(0);
  });

  it("filters uidp.ancestors_of / uidp.ancestorsOf", async () => {
    const all = await listAll(emu, c);
    const deep = `${deepest(all).uid}/0123456789abcdef`;
    expect(await checkFilter(["uidp.ancestors_of", "uidp.ancestorsOf"], deep, (r) => deep.startsWith(`${r.uid}/`), all)).toBeGreaterThan(0);
    const underS = `${S}/0123456789abcdef`;
    await checkFilter(["uidp.ancestors_of", "uidp.ancestorsOf"], underS, (r) => underS.startsWith(`${r.uid}/`), all);
  });

  it("filters uidp.ids (repeated)", async () => {
    const all = await listAll(emu, c);
    const pick = [all[all.length - 1].uid, all[0].uid, all[Math.floor(all.length / 2)].uid];
    const missing = `${emu.orgUid}/ffffffffffffffff`;
    expect(await checkFilter(["uidp.ids"], [...pick, missing], (r) => pick.includes(r.uid), all)).toBe(3);
    expect(await checkFilter(["uidp.ids"], [pick[1]!], (r) => r.uid === pick[1], all)).toBe(1);
  });

  it("filters uidp.in_root / uidp.inRoot (boolean)", async () => {
    const all = await listAll(emu, c);
    const inRoot = await checkFilter(["uidp.in_root", "uidp.inRoot"], "true", (r) => !String(r.uid).includes("/"), all);
    const notInRoot = await checkFilter(["uidp.in_root", "uidp.inRoot"], "false", (r) => String(r.uid).includes("/"), all);
    expect(inRoot + notInRoot).toBe(all.length);
    expect(notInRoot).toBeGreaterThan(0);
    expectInvalid(await api(emu, "GET", `${base(c)}${qs({ "uidp.in_root": "maybe" })}`), ["uidp.in_root"]);
  });
});

describe("every List endpoint is covered", () => {
  it("the suite lists all ten collections and each returns its envelope", async () => {
    expect(ALL_COLLECTIONS).toHaveLength(10);
    for (const c of ALL_COLLECTIONS) {
      const page = await listPage(emu, c, { page_size: 1 });
      expect(page.items, c).toHaveLength(1);
      expect(COLLECTIONS[c].schema.safeParse(page.items[0]).success).toBe(true);
    }
  });
});
