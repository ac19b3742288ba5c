/**
 * The program-side lookups (provider/lookups.ts) against the emulator over loopback: filters reach the server,
 * `limit` stops paging, singular lookups by uid and by filters, NO_MATCH / AMBIGUOUS errors naming the filters
 * and the matching uids, argument checks, and the `...Output` twins.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { NotFoundError } from "../provider/client/errors";
import type { Group, Identity, Role } from "../provider/client/schemas";
import {
  LookupError,
  getAdvisories,
  getAdvisoriesOutput,
  getAdvisory,
  getAdvisoryOutput,
  getGroup,
  getGroupOutput,
  getGroups,
  getGroupsOutput,
  getIdentities,
  getIdentitiesOutput,
  getIdentity,
  getIdentityOutput,
  getRepo,
  getRepoOutput,
  getRepos,
  getReposOutput,
  getRole,
  getRoleBinding,
  getRoleBindingOutput,
  getRoleBindings,
  getRoleBindingsOutput,
  getRoleOutput,
  getRoles,
  getRolesOutput,
  getTag,
  getTagOutput,
  getTags,
  getTagsOutput,
} from "../provider/lookups";

let emu: Emulator;
let client: PlatformClient;

beforeAll(async () => {
  emu = await startEmulator({
    seed: {
      repos: [
        { name: "nginx", tags: ["latest", "1.27", "1.27-dev"] },
        { name: "python", tags: ["latest", "3.13"] },
        { name: "dup-repo", tags: [] },
        { name: "dup-repo", tags: [] },
      ],
      advisories: [
        { advisoryId: "CGA-aaaa-0001", artifactName: "nginx", componentName: "openssl", aliases: ["CVE-2024-1"] },
        { advisoryId: "CGA-bbbb-0002", artifactName: "nginx", componentName: "zlib" },
        { advisoryId: "CGA-cccc-0003", artifactName: "nginx", componentName: "pcre2" },
        { advisoryId: "CGA-dddd-0004", artifactName: "python", componentName: "expat" },
        { advisoryId: "CGA-dup0-0005", artifactName: "nginx", componentName: "libxml2" },
        { advisoryId: "CGA-dup0-0005", artifactName: "python", componentName: "libxml2" },
      ],
    },
  });
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
});

afterAll(async () => {
  await client.close();
  await emu.close();
});

/** Runs `fn` and returns its result with the requests it caused whose path starts with `prefix`. */
async function counting<T>(prefix: string, fn: () => Promise<T>): Promise<{ result: T; requests: Emulator["requests"] }> {
  const before = emu.requests.length;
  const result = await fn();
  return { result, requests: emu.requests.slice(before).filter((r) => r.path.startsWith(prefix)) };
}

/**
 * The value of an Output outside a Pulumi engine (OutputImpl keeps `promise()`). A failed lookup also rejects
 * the Output's `isKnown` / `isSecret` / `allResources` promises; those are observed here (in a program the
 * Pulumi runtime reports them), so only the value's rejection reaches the test.
 */
function valueOf<T>(out: pulumi.Output<T>): Promise<T> {
  const o = out as unknown as { promise(): Promise<T>; isKnown: Promise<boolean>; isSecret: Promise<boolean>; allResources?: () => Promise<unknown> };
  for (const p of [o.isKnown, o.isSecret, o.allResources?.()]) p?.catch(() => undefined);
  return o.promise();
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  const r = await p.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  if (r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r.v)}`);
  expect(r.e).toBeInstanceOf(Error);
  return r.e as Error;
}

const sorted = (xs: readonly string[]) => [...xs].sort();
const GROUPS = "/iam/v2beta1/groups";

describe("groups", () => {
  let parent: Group;
  let kids: Group[];
  let dups: Group[];

  beforeAll(async () => {
    parent = await client.groups.create(emu.orgUid, { name: "lk-groups" });
    kids = [];
    for (const name of ["kid-c", "kid-a", "kid-b"]) kids.push(await client.groups.create(parent.uid, { name }));
    await client.groups.create(kids[0]!.uid, { name: "kid-a" }); // a grandchild named like a child
    const dupParent = await client.groups.create(emu.orgUid, { name: "lk-dups" });
    dups = [await client.groups.create(dupParent.uid, { name: "twin" }), await client.groups.create(dupParent.uid, { name: "twin" })];
  });

  it("a named lookup checks its arguments before it asks the client for the collection", async () => {
    const untouchable = new Proxy({} as PlatformClient, {
      get: () => {
        throw new Error("the lookup touched the client");
      },
    });
    await expect(getGroups({ bogus: 1 } as never, untouchable)).rejects.toThrow(TypeError);
    await expect(getGroup({ bogus: 1 } as never, untouchable)).rejects.toBeInstanceOf(TypeError);
  });

  it("getGroups filters by parent and name, in the requested order", async () => {
    const all = await getGroups({ childrenOf: parent.uid, orderBy: "name" }, client);
    expect(all.map((g) => g.name)).toEqual(["kid-a", "kid-b", "kid-c"]);
    const { result, requests } = await counting(GROUPS, () => getGroups({ childrenOf: parent.uid, name: "kid-a" }, client));
    expect(result.map((g) => g.uid)).toEqual([kids[1]!.uid]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.query).toMatchObject({ name: "kid-a", "uidp.children_of": parent.uid });
    const deep = await getGroups({ descendantsOf: parent.uid, name: "kid-a" }, client);
    expect(deep).toHaveLength(2);
  });

  it("getGroups sends inRoot as true/false", async () => {
    const { result, requests } = await counting(GROUPS, () => getGroups({ inRoot: true }, client));
    expect(result.map((g) => g.uid)).toEqual([emu.orgUid]);
    expect(requests[0]!.query["uidp.in_root"]).toBe("true");
  });

  it("limit stops paging: no further page is requested", async () => {
    const { result, requests } = await counting(GROUPS, () => getGroups({ childrenOf: parent.uid, orderBy: "name", pageSize: 1, limit: 2 }, client));
    expect(result.map((g) => g.name)).toEqual(["kid-a", "kid-b"]);
    expect(requests).toHaveLength(2);
    // Without a limit the same listing takes a request per item.
    const full = await counting(GROUPS, () => getGroups({ childrenOf: parent.uid, pageSize: 1 }, client));
    expect(full.result).toHaveLength(3);
    expect(full.requests.length).toBeGreaterThanOrEqual(3);
  });

  it("limit without pageSize asks for one page of that size; limit 0 asks nothing", async () => {
    const { result, requests } = await counting(GROUPS, () => getGroups({ childrenOf: parent.uid, limit: 2 }, client));
    expect(result).toHaveLength(2);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.query["page_size"]).toBe("2");
    const none = await counting(GROUPS, () => getGroups({ limit: 0 }, client));
    expect(none.result).toEqual([]);
    expect(none.requests).toHaveLength(0);
  });

  it("an empty ids filter matches nothing instead of everything", async () => {
    const { result, requests } = await counting(GROUPS, () => getGroups({ ids: [] }, client));
    expect(result).toEqual([]);
    expect(requests).toHaveLength(0);
    const two = await getGroups({ ids: [kids[0]!.uid, kids[2]!.uid] }, client);
    expect(sorted(two.map((g) => g.uid))).toEqual(sorted([kids[0]!.uid, kids[2]!.uid]));
  });

  it("getGroup by uid is one GET", async () => {
    const { result, requests } = await counting(GROUPS, () => getGroup({ uid: kids[2]!.uid }, client));
    expect(result).toMatchObject({ uid: kids[2]!.uid, name: "kid-b" });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${GROUPS}/${kids[2]!.uid}`]);
  });

  it("getGroup by name and parent finds the one child, not the grandchild", async () => {
    const g = await getGroup({ name: "kid-a", parentUid: parent.uid }, client);
    expect(g.uid).toBe(kids[1]!.uid);
  });

  it("getGroup by uid that does not exist is NotFoundError", async () => {
    const err = await rejection(getGroup({ uid: `${parent.uid}/0123456789abcdef` }, client));
    expect(err).toBeInstanceOf(NotFoundError);
  });

  it("getGroup with filters matching none names the filters", async () => {
    const err = await rejection(getGroup({ name: "nope", parentUid: parent.uid }, client));
    expect(err).toBeInstanceOf(LookupError);
    expect((err as LookupError).reason).toBe("NO_MATCH");
    expect(err.message).toContain("getGroup: no group matches");
    expect(err.message).toContain('name="nope"');
    expect(err.message).toContain(`parentUid="${parent.uid}"`);
  });

  it("getGroup with two same-named groups under one parent lists both uids", async () => {
    const err = await rejection(getGroup({ name: "twin", parentUid: dups[0]!.uid.split("/").slice(0, -1).join("/") }, client));
    expect(err).toBeInstanceOf(LookupError);
    const e = err as LookupError;
    expect(e.reason).toBe("AMBIGUOUS");
    expect(e.matchCount).toBe(2);
    expect(sorted(e.uids)).toEqual(sorted(dups.map((g) => g.uid)));
    expect(err.message).toContain("2 groups match");
    for (const g of dups) expect(err.message).toContain(g.uid);
  });

  it("getGroup needs exactly one of uid or filters, and rejects unknown or empty arguments", async () => {
    await expect(getGroup({ uid: parent.uid, name: "lk-groups" }, client)).rejects.toThrow(/either uid or filters .*not both/);
    await expect(getGroup({}, client)).rejects.toThrow(/give uid, or at least one of name, parentUid/);
    await expect(getGroup({ name: "" }, client)).rejects.toThrow(/name must be a non-empty string/);
    await expect(getGroup({ parent: parent.uid } as never, client)).rejects.toThrow(/unknown argument "parent"/);
    await expect(getGroups({ limit: -1 }, client)).rejects.toThrow(/limit must be a non-negative integer/);
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getGroupsOutput({ childrenOf: pulumi.output(parent.uid), orderBy: "name" }, client));
    expect(list.map((g) => g.uid)).toEqual((await getGroups({ childrenOf: parent.uid, orderBy: "name" }, client)).map((g) => g.uid));
    const one = await valueOf(getGroupOutput({ name: pulumi.output("kid-b"), parentUid: Promise.resolve(parent.uid) }, client));
    expect(one.uid).toBe(kids[2]!.uid);
    await expect(valueOf(getGroupOutput({ name: "nope", parentUid: parent.uid }, client))).rejects.toThrow(/no group matches/);
  });
});

describe("identities", () => {
  let team: Group;
  let other: Group;
  let ids: Identity[];

  beforeAll(async () => {
    team = await client.groups.create(emu.orgUid, { name: "lk-ids" });
    other = await client.groups.create(emu.orgUid, { name: "lk-ids-other" });
    const mk = (g: string, name: string, subject: string) =>
      client.identities.create(g, { name, claimMatch: { issuer: "https://issuer.example", subject } });
    ids = [await mk(team.uid, "ci-bot", "s1"), await mk(team.uid, "deploy", "s2"), await mk(team.uid, "bot", "s3"), await mk(team.uid, "bot", "s4"), await mk(other.uid, "ci-bot", "s5")];
  });

  it("getIdentities filters by group and name", async () => {
    const inTeam = await getIdentities({ childrenOf: team.uid, orderBy: "name" }, client);
    expect(inTeam.map((i) => i.name)).toEqual(["bot", "bot", "ci-bot", "deploy"]);
    const ci = await getIdentities({ name: "ci-bot", descendantsOf: emu.orgUid }, client);
    expect(sorted(ci.map((i) => i.uid))).toEqual(sorted([ids[0]!.uid, ids[4]!.uid]));
  });

  it("limit stops paging", async () => {
    const { result, requests } = await counting("/iam/v2beta1/identities", () => getIdentities({ childrenOf: team.uid, pageSize: 1, limit: 2 }, client));
    expect(result).toHaveLength(2);
    expect(requests).toHaveLength(2);
  });

  it("getIdentity by uid, and by name in a group", async () => {
    expect((await getIdentity({ uid: ids[1]!.uid }, client)).name).toBe("deploy");
    const ci = await getIdentity({ name: "ci-bot", parentUid: other.uid }, client);
    expect(ci.uid).toBe(ids[4]!.uid);
    expect(ci.claimMatch?.subject).toBe("s5");
  });

  it("getIdentity matching none names the filters; matching two lists both", async () => {
    const none = await rejection(getIdentity({ name: "ghost", parentUid: team.uid }, client));
    expect(none.message).toMatch(/getIdentity: no identity matches \{ name="ghost", parentUid="[0-9a-f/]+" \}/);
    const many = (await rejection(getIdentity({ name: "bot", parentUid: team.uid }, client))) as LookupError;
    expect(many.reason).toBe("AMBIGUOUS");
    expect(many.message).toContain("2 identities match");
    expect(sorted(many.uids)).toEqual(sorted([ids[2]!.uid, ids[3]!.uid]));
    // Across groups, a name that is unique per group is still ambiguous.
    const across = (await rejection(getIdentity({ name: "ci-bot" }, client))) as LookupError;
    expect(sorted(across.uids)).toEqual(sorted([ids[0]!.uid, ids[4]!.uid]));
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getIdentitiesOutput({ childrenOf: pulumi.output(team.uid), name: "bot" }, client));
    expect(sorted(list.map((i) => i.uid))).toEqual(sorted([ids[2]!.uid, ids[3]!.uid]));
    const one = await valueOf(getIdentityOutput({ name: "deploy", parentUid: pulumi.output(team.uid) }, client));
    expect(one.uid).toBe(ids[1]!.uid);
  });
});

describe("roles", () => {
  it("getRoles by name, and the built-ins at the root", async () => {
    const [editor, ...rest] = await getRoles({ name: "editor" }, client);
    expect(rest).toEqual([]);
    expect(editor).toMatchObject({ name: "editor" });
    const builtins = await getRoles({ inRoot: true, orderBy: "name" }, client);
    expect(builtins.map((r) => r.name)).toEqual(["editor", "owner", "registry.pull", "viewer"]);
  });

  it("limit stops paging", async () => {
    const { result, requests } = await counting("/iam/v2beta1/roles", () => getRoles({ pageSize: 1, limit: 3, orderBy: "name" }, client));
    expect(result.map((r) => r.name)).toEqual(["editor", "owner", "registry.pull"]);
    expect(requests).toHaveLength(3);
  });

  it("getRole by name and by uid", async () => {
    const viewer = await getRole({ name: "viewer" }, client);
    expect(viewer.name).toBe("viewer");
    const { result, requests } = await counting("/iam/v2beta1/roles", () => getRole({ uid: viewer.uid }, client));
    expect(result.capabilities).toEqual(viewer.capabilities);
    expect(requests.map((r) => r.path)).toEqual([`/iam/v2beta1/roles/${viewer.uid}`]);
  });

  it("getRole matching none names the filter, how many roles it looked at, and the nearest name when one is close", async () => {
    const err = await rejection(getRole({ name: "superuser" }, client));
    expect(err).toBeInstanceOf(LookupError);
    const roles = (await getRoles({}, client)).length;
    expect(err.message).toBe(`getRole: no role matches { name="superuser" }; looked at ${roles} roles, none with a close name`);
    const typo = (await rejection(getRole({ name: "editr" }, client))) as LookupError;
    expect(typo.message).toBe(`getRole: no role matches { name="editr" }; did you mean "editor"? (looked at ${roles} roles)`);
    expect(typo.nearby).toEqual({ looked: roles, complete: true, near: "editor" });
    // Case ignored, and the suggestion is the name as the API spells it.
    expect((await rejection(getRole({ name: "VIEWR" }, client))).message).toContain('did you mean "viewer"?');
  });

  it("a custom role named like a built-in makes the name ambiguous until narrowed", async () => {
    const g = await client.groups.create(emu.orgUid, { name: "lk-roles" });
    const custom = (await client.roles.create(g.uid, { name: "editor", capabilities: ["CAP_IAM_GROUPS_LIST"] })) as Role;
    try {
      const builtin = (await getRoles({ name: "editor", inRoot: true }, client))[0]!;
      const err = (await rejection(getRole({ name: "editor" }, client))) as LookupError;
      expect(err.reason).toBe("AMBIGUOUS");
      expect(sorted(err.uids)).toEqual(sorted([builtin.uid, custom.uid]));
      expect((await getRole({ name: "editor", parentUid: g.uid }, client)).uid).toBe(custom.uid);
    } finally {
      await client.roles.delete(custom.uid);
    }
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getRolesOutput({ name: pulumi.output("owner") }, client));
    expect(list.map((r) => r.uid)).toEqual((await getRoles({ name: "owner" }, client)).map((r) => r.uid));
    const one = await valueOf(getRoleOutput({ name: pulumi.output("owner") }, client));
    expect(one.uid).toBe(list[0]!.uid);
  });
});

describe("role bindings", () => {
  let team: Group;
  let i1: Identity;
  let i2: Identity;
  let viewer: Role;
  let editor: Role;
  let b: { i1viewer: string; i1editor: string; i2viewer: string };

  beforeAll(async () => {
    team = await client.groups.create(emu.orgUid, { name: "lk-bindings" });
    i1 = await client.identities.create(team.uid, { name: "one", claimMatch: { issuer: "https://issuer.example", subject: "one" } });
    i2 = await client.identities.create(team.uid, { name: "two", claimMatch: { issuer: "https://issuer.example", subject: "two" } });
    viewer = await getRole({ name: "viewer" }, client);
    editor = await getRole({ name: "editor" }, client);
    b = {
      i1viewer: (await client.roleBindings.create(team.uid, { identityUid: i1.uid, roleUid: viewer.uid })).uid,
      i1editor: (await client.roleBindings.create(team.uid, { identityUid: i1.uid, roleUid: editor.uid })).uid,
      i2viewer: (await client.roleBindings.create(team.uid, { identityUid: i2.uid, roleUid: viewer.uid })).uid,
    };
  });

  it("getRoleBindings filters by group, identity and role", async () => {
    expect(sorted((await getRoleBindings({ childrenOf: team.uid }, client)).map((x) => x.uid))).toEqual(sorted(Object.values(b)));
    expect(sorted((await getRoleBindings({ childrenOf: team.uid, identityUid: i1.uid }, client)).map((x) => x.uid))).toEqual(sorted([b.i1viewer, b.i1editor]));
    expect(sorted((await getRoleBindings({ childrenOf: team.uid, roleUid: viewer.uid }, client)).map((x) => x.uid))).toEqual(sorted([b.i1viewer, b.i2viewer]));
    const both = await getRoleBindings({ identityUid: i2.uid, roleUid: viewer.uid, descendantsOf: emu.orgUid }, client);
    expect(both.map((x) => x.uid)).toEqual([b.i2viewer]);
    expect(both[0]!.role?.name).toBe("viewer");
  });

  it("limit stops paging, with and without filters applied here", async () => {
    const plain = await counting("/iam/v2beta1/roleBindings", () => getRoleBindings({ childrenOf: team.uid, pageSize: 1, limit: 2 }, client));
    expect(plain.result).toHaveLength(2);
    expect(plain.requests).toHaveLength(2);
    // The first binding in uid order that is i1's is on page 1 or 2 of 3; the third page is never needed.
    const filtered = await counting("/iam/v2beta1/roleBindings", () => getRoleBindings({ childrenOf: team.uid, identityUid: i1.uid, pageSize: 1, limit: 1 }, client));
    expect(filtered.result).toHaveLength(1);
    expect(filtered.result[0]!.identityUid).toBe(i1.uid);
    expect(filtered.requests.length).toBeLessThan(3);
    expect(filtered.requests[0]!.query["page_size"]).toBe("1");
  });

  it("getRoleBinding by uid and by group + identity + role", async () => {
    expect((await getRoleBinding({ uid: b.i1editor }, client)).roleUid).toBe(editor.uid);
    const one = await getRoleBinding({ groupUid: team.uid, identityUid: i1.uid, roleUid: editor.uid }, client);
    expect(one.uid).toBe(b.i1editor);
  });

  it("getRoleBinding matching none names the filters; matching two lists both", async () => {
    const none = (await rejection(getRoleBinding({ groupUid: team.uid, identityUid: i2.uid, roleUid: editor.uid }, client))) as LookupError;
    expect(none.reason).toBe("NO_MATCH");
    expect(none.message).toContain(`identityUid="${i2.uid}"`);
    expect(none.message).toContain(`roleUid="${editor.uid}"`);
    const many = (await rejection(getRoleBinding({ groupUid: team.uid, identityUid: i1.uid }, client))) as LookupError;
    expect(many.message).toContain("2 role bindings match");
    expect(sorted(many.uids)).toEqual(sorted([b.i1viewer, b.i1editor]));
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getRoleBindingsOutput({ childrenOf: team.uid, identityUid: pulumi.output(i2.uid) }, client));
    expect(list.map((x) => x.uid)).toEqual([b.i2viewer]);
    const one = await valueOf(getRoleBindingOutput({ groupUid: team.uid, identityUid: pulumi.output(i1.uid), roleUid: pulumi.output(viewer.uid) }, client));
    expect(one.uid).toBe(b.i1viewer);
  });
});

describe("repos", () => {
  it("getRepos filters by name and parent", async () => {
    const nginx = await getRepos({ name: "nginx" }, client);
    expect(nginx.map((r) => r.name)).toEqual(["nginx"]);
    const all = await getRepos({ childrenOf: emu.orgUid, orderBy: "name" }, client);
    expect(all.map((r) => r.name)).toEqual(["dup-repo", "dup-repo", "nginx", "python"]);
  });

  it("limit stops paging", async () => {
    const { result, requests } = await counting("/registry/v2beta1/repos", () => getRepos({ orderBy: "name", pageSize: 1, limit: 1 }, client));
    expect(result.map((r) => r.name)).toEqual(["dup-repo"]);
    expect(requests).toHaveLength(1);
  });

  it("getRepo by name and by uid; none and two are errors", async () => {
    const python = await getRepo({ name: "python", parentUid: emu.orgUid }, client);
    expect((await getRepo({ uid: python.uid }, client)).name).toBe("python");
    const none = await rejection(getRepo({ name: "rust" }, client));
    expect(none.message).toMatch(/^getRepo: no repo matches \{ name="rust" \}; (looked at \d+ repos, none with a close name|did you mean "[^"]+"\? \(looked at \d+ repos\))$/);
    const near = await rejection(getRepo({ name: "pythn", parentUid: emu.orgUid }, client));
    expect(near.message).toMatch(/^getRepo: no repo matches \{ name="pythn", parentUid="[0-9a-f]{40}" \}; did you mean "python"\? \(looked at \d+ repos under parentUid\)$/);
    const dups = await getRepos({ name: "dup-repo" }, client);
    expect(dups).toHaveLength(2);
    const many = (await rejection(getRepo({ name: "dup-repo" }, client))) as LookupError;
    expect(many.message).toContain("2 repos match");
    expect(sorted(many.uids)).toEqual(sorted(dups.map((r) => r.uid)));
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getReposOutput({ name: pulumi.output("nginx") }, client));
    const one = await valueOf(getRepoOutput({ name: pulumi.output("nginx") }, client));
    expect(list.map((r) => r.uid)).toEqual([one.uid]);
  });
});

describe("tags", () => {
  let nginxUid: string;
  let pythonUid: string;
  beforeAll(async () => {
    nginxUid = (await getRepo({ name: "nginx" }, client)).uid;
    pythonUid = (await getRepo({ name: "python" }, client)).uid;
  });

  it("getTags filters by repo, name and digest", async () => {
    const nginx = await getTags({ repoUid: nginxUid, orderBy: "name" }, client);
    expect(nginx.map((t) => t.name)).toEqual(["1.27", "1.27-dev", "latest"]);
    const latest = await getTags({ name: "latest" }, client);
    expect(sorted(latest.map((t) => t.uid.split("/").slice(0, -1).join("/")))).toEqual(sorted([nginxUid, pythonUid]));
    const target = nginx[1]!;
    const { result, requests } = await counting("/registry/v2beta1/tags", () => getTags({ digest: target.digest! }, client));
    expect(result.map((t) => t.uid)).toEqual([target.uid]);
    expect(requests[0]!.query).toMatchObject({ digest: target.digest });
  });

  it("limit stops paging", async () => {
    const { result, requests } = await counting("/registry/v2beta1/tags", () => getTags({ repoUid: nginxUid, pageSize: 1, limit: 2 }, client));
    expect(result).toHaveLength(2);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.query["uidp.children_of"]).toBe(nginxUid);
  });

  it("getTag by uid, and by repo + name", async () => {
    const latest = await getTag({ repoUid: pythonUid, name: "latest" }, client);
    expect(latest.uid.startsWith(`${pythonUid}/`)).toBe(true);
    expect((await getTag({ uid: latest.uid }, client)).digest).toBe(latest.digest);
  });

  it("getTag matching none names the filters; a name in several repos lists every uid", async () => {
    const none = await rejection(getTag({ repoUid: nginxUid, name: "9.9" }, client));
    expect(none.message).toBe(`getTag: no tag matches { name="9.9", repoUid="${nginxUid}" }`);
    const many = (await rejection(getTag({ name: "latest" }, client))) as LookupError;
    expect(many.reason).toBe("AMBIGUOUS");
    expect(many.uids).toHaveLength(2);
    expect(many.message).toContain("2 tags match");
  });

  it("repoUid and a different childrenOf are refused", async () => {
    await expect(getTags({ repoUid: nginxUid, childrenOf: pythonUid }, client)).rejects.toThrow(/repoUid and childrenOf name different parents/);
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getTagsOutput({ repoUid: pulumi.output(nginxUid), name: "latest" }, client));
    const one = await valueOf(getTagOutput({ repoUid: pulumi.output(nginxUid), name: pulumi.output("latest") }, client));
    expect(list.map((t) => t.uid)).toEqual([one.uid]);
  });
});

describe("advisories", () => {
  const ADV = "/vulnerabilities/v2beta1/advisories";

  it("getAdvisories filters by artifact names and advisory ids", async () => {
    const nginx = await getAdvisories({ artifactNames: ["nginx"], orderBy: "advisory_id" }, client);
    expect(nginx.map((a) => a.advisoryId)).toEqual(["CGA-aaaa-0001", "CGA-bbbb-0002", "CGA-cccc-0003", "CGA-dup0-0005"]);
    const { result, requests } = await counting(ADV, () => getAdvisories({ advisoryIds: ["CGA-aaaa-0001", "CGA-dddd-0004"] }, client));
    expect(sorted(result.map((a) => a.advisoryId!))).toEqual(["CGA-aaaa-0001", "CGA-dddd-0004"]);
    expect(requests[0]!.query["advisory_ids"]).toBe("CGA-aaaa-0001,CGA-dddd-0004");
    const both = await getAdvisories({ advisoryIds: ["CGA-dup0-0005"], artifactNames: ["python"] }, client);
    expect(both.map((a) => a.artifactName)).toEqual(["python"]);
  });

  it("an empty list filter matches nothing, without a request", async () => {
    const { result, requests } = await counting(ADV, () => getAdvisories({ artifactNames: [] }, client));
    expect(result).toEqual([]);
    expect(requests).toHaveLength(0);
  });

  it("limit stops paging", async () => {
    const { result, requests } = await counting(ADV, () => getAdvisories({ artifactNames: ["nginx"], pageSize: 2, limit: 3 }, client));
    expect(result).toHaveLength(3);
    expect(requests).toHaveLength(2);
  });

  it("getAdvisory by advisory id and by uid", async () => {
    const a = await getAdvisory({ advisoryId: "CGA-aaaa-0001" }, client);
    expect(a).toMatchObject({ artifactName: "nginx", componentName: "openssl", aliases: ["CVE-2024-1"] });
    expect((await getAdvisory({ uid: a.uid }, client)).advisoryId).toBe("CGA-aaaa-0001");
  });

  it("getAdvisory matching none names the filter; a duplicated id lists both, and artifactName narrows", async () => {
    const none = await rejection(getAdvisory({ advisoryId: "CGA-none-0000" }, client));
    expect(none.message).toBe('getAdvisory: no advisory matches { advisoryId="CGA-none-0000" }');
    const dups = await getAdvisories({ advisoryIds: ["CGA-dup0-0005"] }, client);
    const many = (await rejection(getAdvisory({ advisoryId: "CGA-dup0-0005" }, client))) as LookupError;
    expect(many.message).toContain("2 advisories match");
    expect(sorted(many.uids)).toEqual(sorted(dups.map((d) => d.uid)));
    expect((await getAdvisory({ advisoryId: "CGA-dup0-0005", artifactName: "python" }, client)).componentName).toBe("libxml2");
  });

  it("the Output twins resolve to the same results", async () => {
    const list = await valueOf(getAdvisoriesOutput({ advisoryIds: [pulumi.output("CGA-bbbb-0002")] }, client));
    const one = await valueOf(getAdvisoryOutput({ advisoryId: pulumi.output("CGA-bbbb-0002") }, client));
    expect(list.map((a) => a.uid)).toEqual([one.uid]);
    expect(one.componentName).toBe("zlib");
  });
});
