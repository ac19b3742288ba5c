/**
 * The emulator's contract, over real loopback HTTP (the API description). Raw requests, not the
 * provider's client, so a client bug cannot hide an emulator bug.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkGroup, raw } from "./helpers";
import { useEmulator } from "./harness/emulator";

const ROOT = /^[0-9a-f]{40}$/;
const CHILD = /^[0-9a-f]{40}(\/[0-9a-f]{16})+$/;
const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const emu = useEmulator();

describe("authentication", () => {
  it("rejects a request without a bearer token with code 16 and HTTP 401", async () => {
    const r = await raw(emu, "GET", "/iam/v2beta1/groups", undefined, null);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(16);
  });

  it("rejects a token that is not a JWT it signed", async () => {
    const r = await raw(emu, "GET", "/iam/v2beta1/groups", undefined, "not-a-jwt");
    expect(r.body.code).toBe(16);
    expect(r.body.message).not.toContain("not-a-jwt");
  });

  it("rejects an expired token", async () => {
    const expired = await emu.mintToken(emu.ownerUid, -10);
    const r = await raw(emu, "GET", "/iam/v2beta1/groups", undefined, expired);
    expect(r.body).toMatchObject({ code: 16, message: expect.stringContaining("expired") });
  });
});

describe("content-type without a body", () => {
  it("takes a DELETE and a GET that say application/json and send no body as having none, as the API's gateway does", async () => {
    const g = await mkGroup(emu, emu.orgUid, "json-header-delete");
    const headers = { authorization: `Bearer ${emu.token}`, "content-type": "application/json" };
    const get = await fetch(`${emu.url}/iam/v2beta1/groups/${g.uid}`, { headers });
    expect(get.status, await get.clone().text()).toBe(200);
    const del = await fetch(`${emu.url}/iam/v2beta1/groups/${g.uid}`, { method: "DELETE", headers });
    expect(del.status, await del.clone().text()).toBe(200);
    expect((await raw(emu, "GET", `/iam/v2beta1/groups/${g.uid}`)).status).toBe(404);
    // A POST still needs its body.
    const post = await fetch(`${emu.url}/iam/v2beta1/groups/${emu.orgUid}`, { method: "POST", headers });
    expect(post.status).toBe(400);
    expect(((await post.json()) as { code: number }).code).toBe(3);
  });
});

describe("groups", () => {
  it("starts with a root group whose uid is 40 hex characters", async () => {
    expect(emu.orgUid).toMatch(ROOT);
    const r = await raw(emu, "GET", `/iam/v2beta1/groups/${emu.orgUid}`);
    expect(r.status).toBe(200);
    expect(r.body.uid).toBe(emu.orgUid);
  });

  it("creates a child with a UIDP uid and RFC 3339 millisecond timestamps", async () => {
    const g = await mkGroup(emu, emu.orgUid, "uid-shape", "d");
    expect(g.uid).toMatch(CHILD);
    expect(g.uid.startsWith(`${emu.orgUid}/`)).toBe(true);
    expect(g["createTime"]).toMatch(RFC3339_MS);
    expect(g["updateTime"]).toBe(g["createTime"]);
  });

  it("reports every failing field of a create in one BadRequest", async () => {
    const r = await raw(emu, "POST", `/iam/v2beta1/groups/${emu.orgUid}`, { name: "Bad Name!", description: 7, colour: "red" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    const bad = r.body.details.find((d: { "@type": string }) => d["@type"].endsWith("google.rpc.BadRequest"));
    expect(bad.fieldViolations.map((v: { field: string }) => v.field).sort()).toEqual(["colour", "description", "name"]);
    expect(r.body.message).toMatch(/^Invalid argument: /);
  });

  it("requires a name on create", async () => {
    const r = await raw(emu, "POST", `/iam/v2beta1/groups/${emu.orgUid}`, {});
    expect(r.body.details[1].fieldViolations).toEqual([{ field: "name", description: "is required" }]);
  });

  it("ignores read-only fields in a request", async () => {
    const r = await raw(emu, "POST", `/iam/v2beta1/groups/${emu.orgUid}`, { name: "ro-fields", uid: "x", createTime: "1999-01-01T00:00:00.000Z" });
    expect(r.status).toBe(200);
    expect(r.body.uid).not.toBe("x");
    expect(r.body.createTime).not.toBe("1999-01-01T00:00:00.000Z");
  });

  it("returns NOT_FOUND with ResourceInfo and HTTP 404 for a missing uid", async () => {
    const r = await raw(emu, "GET", `/iam/v2beta1/groups/${emu.orgUid}/0123456789abcdef`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(5);
    expect(r.body.details.some((d: { "@type": string }) => d["@type"].endsWith("google.rpc.ResourceInfo"))).toBe(true);
  });

  it("returns INVALID_ARGUMENT for a malformed uid", async () => {
    const r = await raw(emu, "GET", "/iam/v2beta1/groups/not-a-uid");
    expect(r.body.code).toBe(3);
  });

  it("PATCH with updateMask changes only the masked fields", async () => {
    const g = await mkGroup(emu, emu.orgUid, "mask-test", "before");
    const r = await raw(emu, "PATCH", `/iam/v2beta1/groups/${g.uid}?updateMask=description`, { name: "ignored-name", description: "after" });
    expect(r.body).toMatchObject({ name: "mask-test", description: "after" });
    expect(r.body.updateTime > r.body.createTime || r.body.updateTime === r.body.createTime).toBe(true);
  });

  it("PATCH without updateMask changes the fields present in the body", async () => {
    const g = await mkGroup(emu, emu.orgUid, "nomask-test", "keep");
    const r = await raw(emu, "PATCH", `/iam/v2beta1/groups/${g.uid}`, { name: "renamed" });
    expect(r.body).toMatchObject({ name: "renamed", description: "keep" });
  });

  it("PATCH with an unknown mask path is INVALID_ARGUMENT naming it", async () => {
    const g = await mkGroup(emu, emu.orgUid, "badmask-test");
    const r = await raw(emu, "PATCH", `/iam/v2beta1/groups/${g.uid}?updateMask=colour`, { name: "x" });
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain("colour");
  });

  it("leaves updateTime alone on a no-op PATCH and never changes createTime", async () => {
    const g = await mkGroup(emu, emu.orgUid, "noop-test", "same");
    await new Promise((r) => setTimeout(r, 5));
    const r = await raw(emu, "PATCH", `/iam/v2beta1/groups/${g.uid}?updateMask=description`, { description: "same" });
    expect(r.body.updateTime).toBe(g["updateTime"]);
    const r2 = await raw(emu, "PATCH", `/iam/v2beta1/groups/${g.uid}?updateMask=description`, { description: "other" });
    expect(r2.body.createTime).toBe(g["createTime"]);
    expect(r2.body.updateTime > (g["updateTime"] as string)).toBe(true);
  });

  it("refuses to delete a group with children: FAILED_PRECONDITION RESOURCE_NOT_EMPTY naming the kinds left", async () => {
    const parent = await mkGroup(emu, emu.orgUid, "nonempty");
    await mkGroup(emu, parent.uid, "kid");
    await raw(emu, "POST", `/iam/v2beta1/identities/${parent.uid}`, { name: "kid-id", claimMatch: { issuer: "https://i.example", subject: "s" } });
    const r = await raw(emu, "DELETE", `/iam/v2beta1/groups/${parent.uid}`);
    expect(r.body.code).toBe(9);
    const pf = r.body.details.find((d: { "@type": string }) => d["@type"].endsWith("google.rpc.PreconditionFailure"));
    expect(pf.violations[0].type).toBe("RESOURCE_NOT_EMPTY");
    expect(r.body.message).toMatch(/^Precondition failed: .*groups \(1\).*identities \(1\)/);
  });

  it("deletes an empty group, after which it is NOT_FOUND", async () => {
    const g = await mkGroup(emu, emu.orgUid, "to-delete");
    expect((await raw(emu, "DELETE", `/iam/v2beta1/groups/${g.uid}`)).status).toBe(200);
    expect((await raw(emu, "GET", `/iam/v2beta1/groups/${g.uid}`)).body.code).toBe(5);
  });

  it("serves the GA /v2/ paths with the same shapes", async () => {
    const r = await raw(emu, "GET", `/iam/v2/groups/${emu.orgUid}`);
    expect(r.body.uid).toBe(emu.orgUid);
  });
});

describe("lists", () => {
  let parent: string;
  const names = ["delta", "alpha", "echo", "charlie", "bravo"];
  beforeAll(async () => {
    parent = (await mkGroup(emu, emu.orgUid, "list-parent")).uid;
    for (const n of names) await mkGroup(emu, parent, n);
  });

  it("returns the envelope with totalCount as a decimal string and skipped", async () => {
    const r = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}`);
    expect(r.body.groups).toHaveLength(5);
    expect(r.body.totalCount).toBe("5");
    expect(r.body.skipped).toBe(0);
    expect(r.body.nextPageToken).toBeUndefined();
  });

  it("orders by uid ascending by default", async () => {
    const r = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}`);
    const uids = r.body.groups.map((g: { uid: string }) => g.uid);
    expect(uids).toEqual([...uids].sort());
  });

  it("walks pages with page_size and page_token without repeating or skipping", async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=2&order_by=name${token ? `&page_token=${token}` : ""}`);
      seen.push(...r.body.groups.map((g: { name: string }) => g.name));
      token = r.body.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual([...names].sort());
  });

  it("accepts lowerCamelCase parameters the same as snake_case", async () => {
    const snake = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=2&order_by=name%20desc`);
    const camel = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.childrenOf=${parent}&pageSize=2&orderBy=name%20desc`);
    expect(camel.body.groups).toEqual(snake.body.groups);
    expect(snake.body.groups.map((g: { name: string }) => g.name)).toEqual(["echo", "delta"]);
  });

  it("filters by exact name and by descendants", async () => {
    const byName = await raw(emu, "GET", `/iam/v2beta1/groups?name=charlie&uidp.descendants_of=${parent}`);
    expect(byName.body.groups.map((g: { name: string }) => g.name)).toEqual(["charlie"]);
    const desc = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.descendants_of=${emu.orgUid}`);
    expect(Number(desc.body.totalCount)).toBeGreaterThanOrEqual(6);
  });

  it("applies skip and echoes it in skipped", async () => {
    const r = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&order_by=name&skip=3`);
    expect(r.body.groups.map((g: { name: string }) => g.name)).toEqual(["delta", "echo"]);
    expect(r.body.skipped).toBe(3);
    expect(r.body.totalCount).toBe("5");
  });

  it("restarts from the beginning on a token from another query", async () => {
    const first = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=2&order_by=name`);
    const other = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=2&order_by=created_at&page_token=${first.body.nextPageToken}`);
    const fresh = await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=2&order_by=created_at`);
    expect(other.body.groups).toEqual(fresh.body.groups);
  });

  it("defaults page_size to 50, caps it at 200 and rejects a negative one", async () => {
    for (let i = 0; i < 55; i++) await mkGroup(emu, parent, `bulk-${String(i).padStart(2, "0")}`);
    expect((await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}`)).body.groups).toHaveLength(50);
    expect((await raw(emu, "GET", `/iam/v2beta1/groups?uidp.children_of=${parent}&page_size=1000`)).body.groups).toHaveLength(60);
    const neg = await raw(emu, "GET", `/iam/v2beta1/groups?page_size=-1`);
    expect(neg.body.code).toBe(3);
    expect(neg.body.message).toContain("page_size");
  });

  it("rejects an unknown order_by field naming it", async () => {
    const r = await raw(emu, "GET", `/iam/v2beta1/groups?order_by=colour`);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toContain("colour");
  });
});

describe("roles, identities, role bindings, repos", () => {
  it("has the built-in roles with single-segment uids and built-in descriptions", async () => {
    const r = await raw(emu, "GET", "/iam/v2beta1/roles?page_size=200");
    const byName = new Map(r.body.roles.map((x: { name: string }) => [x.name, x]));
    for (const n of ["viewer", "editor", "owner", "registry.pull"]) {
      const role = byName.get(n) as { uid: string; description: string } | undefined;
      expect(role, n).toBeDefined();
      expect(role!.uid).toMatch(ROOT);
      expect(role!.description).toMatch(/^Built-in role/);
    }
  });

  it("creates an identity with claimMatch and rejects issuer and issuerPattern together", async () => {
    const g = await mkGroup(emu, emu.orgUid, "idents");
    const ok = await raw(emu, "POST", `/iam/v2beta1/identities/${g.uid}`, {
      name: "ci-bot",
      claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" },
    });
    expect(ok.body.uid).toMatch(CHILD);
    const bad = await raw(emu, "POST", `/iam/v2beta1/identities/${g.uid}`, {
      name: "both",
      claimMatch: { issuer: "https://a", issuerPattern: "https://.*", subject: "s" },
    });
    expect(bad.body.code).toBe(3);
    expect(bad.body.message).toContain("claimMatch.issuer");
  });

  it("hydrates a role binding with identity, group and role, with createTime and no updateTime", async () => {
    const g = await mkGroup(emu, emu.orgUid, "bindings", "where roles apply");
    const id = await raw(emu, "POST", `/iam/v2beta1/identities/${g.uid}`, {
      name: "puller",
      description: "pulls",
      claimMatch: { issuer: "https://k8s.example", subject: "system:serviceaccount:default:puller" },
    });
    const roles = await raw(emu, "GET", "/iam/v2beta1/roles?name=viewer");
    const b = await raw(emu, "POST", `/iam/v2beta1/roleBindings/${g.uid}`, { identityUid: id.body.uid, roleUid: roles.body.roles[0].uid, ignored: 1 });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      identity: { uid: id.body.uid, name: "puller", description: "pulls", subject: "system:serviceaccount:default:puller", issuer: "https://k8s.example" },
      group: { uid: g.uid, name: "bindings", description: "where roles apply" },
      role: { uid: roles.body.roles[0].uid, name: "viewer" },
    });
    expect(b.body.createTime).toMatch(RFC3339_MS);
    expect(b.body.updateTime).toBeUndefined();
    const got = await raw(emu, "GET", `/iam/v2beta1/roleBindings/${b.body.uid}`);
    expect(got.body).toEqual(b.body);
  });

  it("lists and gets seeded repos", async () => {
    const r = await raw(emu, "GET", "/registry/v2beta1/repos");
    expect(r.body.repos.length).toBeGreaterThan(0);
    const one = await raw(emu, "GET", `/registry/v2beta1/repos/${r.body.repos[0].uid}`);
    expect(one.body.name).toBe(r.body.repos[0].name);
  });

  it("answers an unknown path with a Status body and 404", async () => {
    const r = await raw(emu, "GET", "/iam/v2beta1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(5);
  });
});
