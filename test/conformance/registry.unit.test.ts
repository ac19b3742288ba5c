/**
 * Conformance: the registry's writes: repos (create, PATCH with updateMask, delete, the readme
 * sub-resource, sync_config and the synced-repo rule, customOverlay), tags (create-or-update, delete, List
 * filters), overlays (packages-only config) and overlay bindings, with their validation, RESOURCE_NOT_EMPTY and
 * RESOURCE_IN_USE cases, List filters and paging, and authorization. Every success body is parsed with the
 * provider's schema where it has one and with this file's own, stricter schema of the API's shape.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Empty, Repo, Tag } from "../../provider/client/schemas";
import { RFC3339_MS, api, builtinRole, create, expectInvalid, expectNotFound, expectOk, expectPrecondition, expectStatus, fieldViolations, mkGroup, qs, sleep, type Json, type Res } from "./helpers";
import { useEmulator } from "../harness/emulator";

const R = "/registry/v2beta1";
const UIDP = /^[0-9a-f]{40}(\/[0-9a-f]{16})+$/;
const TIERS = ["CATALOG_TIER_UNSPECIFIED", "CATALOG_TIER_APPLICATION", "CATALOG_TIER_BASE", "CATALOG_TIER_FIPS", "CATALOG_TIER_AI", "CATALOG_TIER_DEVTOOLS", "CATALOG_TIER_COMMERCIAL"] as const;
const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;

/** The API's shapes, stricter than the provider's lenient schemas (which know only uid/name/description). */
const Entry = z.strictObject({ name: z.string(), content: z.string() });
const CustomOverlay = z.strictObject({
  contents: z.strictObject({ packages: z.array(z.string()).optional(), runtimeRepositories: z.array(z.string()).optional(), runtimeKeyring: z.array(Entry).optional() }).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  accounts: z
    .strictObject({
      runAs: z.string().optional(),
      users: z.array(z.strictObject({ username: z.string(), uid: z.number().int().optional(), gid: z.number().int().optional(), groupName: z.string().optional(), homeDir: z.string().optional(), shell: z.string().optional() })).optional(),
      groups: z.array(z.strictObject({ groupname: z.string(), gid: z.number().int().optional(), members: z.array(z.string()).optional() })).optional(),
    })
    .optional(),
  certificates: z.strictObject({ providers: z.array(z.string()).optional(), additional: z.array(Entry).optional() }).optional(),
});
const SyncConfig = z.strictObject({
  source: z.string().regex(UIDP),
  amazon: z.string().optional(),
  google: z.string().optional(),
  azure: z.string().optional(),
  apkoOverlay: z.string().optional(),
  expirationTime: z.string().regex(RFC3339_MS),
  gracePeriod: z.boolean(),
  uniqueTags: z.boolean(),
});
const RepoShape = z.strictObject({
  uid: z.string().regex(UIDP),
  name: z.string(),
  description: z.string(),
  aliases: z.array(z.string()),
  activeTags: z.array(z.string()),
  bundles: z.array(z.string()),
  catalogTier: z.enum(TIERS),
  customOverlay: CustomOverlay.optional(),
  sync_config: SyncConfig.optional(),
  createTime: z.string().regex(RFC3339_MS),
  updateTime: z.string().regex(RFC3339_MS),
});
const TagShape = z.strictObject({
  uid: z.string().regex(UIDP),
  name: z.string(),
  digest: z.string().regex(/^sha(256|512):[0-9a-f]+$/),
  bundles: z.array(z.string()),
  deprecated: z.boolean(),
  updateTime: z.string().regex(RFC3339_MS),
});
const Readme = z.strictObject({ uid: z.string().regex(UIDP), content: z.string() });
const OverlayShape = z.strictObject({
  uid: z.string().regex(UIDP),
  name: z.string(),
  config: z.strictObject({ contents: z.strictObject({ packages: z.array(z.string()).min(1) }) }),
  createTime: z.string().regex(RFC3339_MS),
  updateTime: z.string().regex(RFC3339_MS),
});
const BindingShape = z.strictObject({
  uid: z.string().regex(UIDP),
  repo: z.string().regex(UIDP),
  overlay: OverlayShape.pick({ uid: true, name: true, config: true }).strict(),
  tags: z.array(z.string()).min(1),
  createTime: z.string().regex(RFC3339_MS),
  updateTime: z.string().regex(RFC3339_MS),
});
/** A List envelope of `plural` with items of `item` (totalCount an int64 decimal string). */
const envelope = (plural: string, item: z.ZodType) =>
  z.strictObject({ [plural]: z.array(item), nextPageToken: z.string().optional(), totalCount: z.string().regex(/^(0|[1-9]\d*)$/), skipped: z.number().int() });

let n = 0;
let nginx: Json;
let viewer: string;
let editor: string;
const fresh = async (parent?: string) => (await mkGroup(emu, parent ?? emu.orgUid, `reg-${++n}`)).uid as string;

/** Asserts 200 and parses with the provider's schema (when given) and the API shape. */
function ok<T extends z.ZodType>(res: Res, shape: T, provider?: z.ZodType): z.output<T> {
  if (provider) expectOk(res, provider);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return shape.parse(res.body);
}
const repoOk = (res: Res) => ok(res, RepoShape, Repo);
const tagOk = (res: Res) => ok(res, TagShape, Tag);
const mkRepo = async (g: string, body: Json = {}) => repoOk(await api(emu, "POST", `${R}/repos/${g}`, { name: `repo-${++n}`, ...body }));
const mkTag = async (repo: string, body: Json = {}) => tagOk(await api(emu, "POST", `${R}/tags/${repo}`, { name: `t${++n}`, digest: D1, ...body }));
const mkOverlay = async (g: string, body: Json = {}) => ok(await api(emu, "POST", `${R}/overlays/${g}`, { name: `ov-${++n}`, config: { contents: { packages: ["curl"] } }, ...body }), OverlayShape);
const list = async (path: string, plural: string, item: z.ZodType, params: Record<string, string | number | boolean | string[] | undefined> = {}, token?: string) => {
  const res = await api(emu, "GET", `${path}${qs(params)}`, undefined, token ?? emu.token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return envelope(plural, item).parse(res.body) as Json;
};
/** Every row of a List, walking pages of `pageSize`. */
async function walk(path: string, plural: string, item: z.ZodType, params: Record<string, string | number | boolean | string[] | undefined>, pageSize: number): Promise<Json[]> {
  const out: Json[] = [];
  let token: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await list(path, plural, item, { ...params, page_size: pageSize, page_token: token });
    expect(page[plural].length).toBeLessThanOrEqual(pageSize);
    out.push(...page[plural]);
    token = page.nextPageToken || undefined;
    if (!token) return out;
  }
  throw new Error("too many pages");
}
/** An identity holding built-in `role` at `group`, and its API token. */
async function actor(role: string, group: string): Promise<string> {
  const id = await create(emu, "identities", group, { name: `actor-${++n}`, claimMatch: { issuer: "https://issuer.example", subject: `actor-${n}` } });
  await create(emu, "roleBindings", group, { identityUid: id.uid, roleUid: role });
  return emu.mintToken(id.uid);
}

const emu = useEmulator(undefined, async () => {
  nginx = (await api(emu, "GET", `${R}/repos${qs({ name: "nginx" })}`)).body.repos[0];
  viewer = await builtinRole(emu, "viewer");
  editor = await builtinRole(emu, "editor");
});

describe("repos", () => {
  it("creates under a group with every writable field; GET and List return the same row; the uid is a UIDP under the group", async () => {
    const g = await fresh();
    const body = {
      name: "team/app",
      description: "an app",
      aliases: ["app"],
      activeTags: ["latest", "1"],
      bundles: ["application"],
      catalogTier: "CATALOG_TIER_BASE",
      customOverlay: {
        contents: { packages: ["curl"], runtimeRepositories: ["https://apk.example/os"], runtimeKeyring: [{ name: "key.rsa.pub", content: "-----BEGIN PUBLIC KEY-----" }] },
        environment: { FOO: "bar" },
        annotations: { "com.example.team": "a" },
        accounts: { runAs: "app", users: [{ username: "app", uid: 1000, gid: 1000, homeDir: "/home/app", shell: "/bin/sh" }], groups: [{ groupname: "app", gid: 1000, members: ["app"] }] },
        certificates: { providers: ["ca-certificates"], additional: [{ name: "corp.pem", content: "-----BEGIN CERTIFICATE-----" }] },
      },
    };
    const repo = repoOk(await api(emu, "POST", `${R}/repos/${g}`, body));
    expect(repo.uid).toMatch(new RegExp(`^${g}/[0-9a-f]{16}$`));
    expect(repo).toMatchObject(body);
    expect(repo.createTime).toBe(repo.updateTime);
    expect(repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`))).toEqual(repo);
    expect((await list(`${R}/repos`, "repos", RepoShape, { "uidp.children_of": g })).repos).toEqual([repo]);
  });

  it("fills defaults on a minimal create and ignores read-only fields", async () => {
    const g = await fresh();
    const repo = repoOk(await api(emu, "POST", `${R}/repos/${g}`, { name: "minimal", uid: "spoofed", createTime: "1999-01-01T00:00:00.000Z", updateTime: "1999-01-01T00:00:00.000Z" }));
    expect(repo).toMatchObject({ description: "", aliases: [], activeTags: [], bundles: [], catalogTier: "CATALOG_TIER_UNSPECIFIED" });
    expect(repo.uid.startsWith(`${g}/`)).toBe(true);
    expect(repo.createTime).not.toBe("1999-01-01T00:00:00.000Z");
    expect(repo.customOverlay).toBeUndefined();
    expect(repo.sync_config).toBeUndefined();
  });

  it("takes catalogTier as its enum number too and answers its name", async () => {
    expect((await mkRepo(await fresh(), { catalogTier: 4 })).catalogTier).toBe("CATALOG_TIER_AI");
  });

  it("reports every invalid field, unknown ones included, in one BadRequest", async () => {
    const g = await fresh();
    const res = await api(emu, "POST", `${R}/repos/${g}`, {
      name: "Not A Repo!",
      description: 7,
      aliases: "nginx",
      bundles: [""],
      catalogTier: "CATALOG_TIER_GOLD",
      syncConfig: { source: nginx.uid },
      readme: "# hi",
      customOverlay: {
        environment: { CHAINGUARD_X: "1", OK: 2 },
        annotations: { "org.opencontainers.image.title": "x", "dev.chainguard.y": "z" },
        accounts: { users: [{ uid: -1 }], groups: [{ gid: 1 }] },
        certificates: { additional: [{ name: "a.pem" }] },
        contents: { runtimeKeyring: [{ name: ".hidden", content: "k" }], packages: [3] },
        layers: [],
      },
    });
    expectInvalid(res, [
      "name",
      "description",
      "aliases",
      "bundles",
      "catalogTier",
      "syncConfig",
      "readme",
      "customOverlay.environment.CHAINGUARD_X",
      "customOverlay.environment.OK",
      "customOverlay.annotations.org.opencontainers.image.title",
      "customOverlay.annotations.dev.chainguard.y",
      "customOverlay.accounts.users[0].username",
      "customOverlay.accounts.users[0].uid",
      "customOverlay.accounts.groups[0].groupname",
      "customOverlay.certificates.additional[0].content",
      "customOverlay.contents.runtimeKeyring[0].name",
      "customOverlay.contents.packages[0]",
      "customOverlay.layers",
    ]);
    expect((await list(`${R}/repos`, "repos", RepoShape, { "uidp.children_of": g })).totalCount).toBe("0");
  });

  it("requires a name", async () => {
    expectInvalid(await api(emu, "POST", `${R}/repos/${await fresh()}`, {}), ["name"]);
  });

  it("names are unique among a group's repos: a second create or a rename onto a taken name is ALREADY_EXISTS", async () => {
    const g = await fresh();
    const a = await mkRepo(g, { name: "same" });
    expectStatus(await api(emu, "POST", `${R}/repos/${g}`, { name: "same" }), 6, 409);
    expect((await mkRepo(await fresh(), { name: "same" })).name).toBe("same");
    const b = await mkRepo(g, { name: "other" });
    expectStatus(await api(emu, "PATCH", `${R}/repos/${b.uid}`, { name: "same" }), 6, 409);
    expect(repoOk(await api(emu, "PATCH", `${R}/repos/${a.uid}`, { name: "same" })).name).toBe("same");
  });

  it("a create under a parent that is no group is NOT_FOUND; a malformed parent is INVALID_ARGUMENT", async () => {
    expectNotFound(await api(emu, "POST", `${R}/repos/${nginx.uid}`, { name: "under-a-repo" }), nginx.uid);
    expectInvalid(await api(emu, "POST", `${R}/repos/not-a-uid`, { name: "x" }), ["parent"]);
  });

  describe("PATCH", () => {
    const start = { description: "d0", aliases: ["a0"], activeTags: ["t0"], bundles: ["b0"], catalogTier: "CATALOG_TIER_BASE" };
    const change = { description: "d1", aliases: ["a1"], activeTags: ["t1"], bundles: ["b1"], catalogTier: "CATALOG_TIER_FIPS" };
    const patch = (uid: string, body: Json, mask?: string) => api(emu, "PATCH", `${R}/repos/${uid}${mask === undefined ? "" : qs({ updateMask: mask })}`, body);

    it.each([
      ["description", ["description"]],
      ["aliases,bundles", ["aliases", "bundles"]],
      ["active_tags,catalog_tier", ["activeTags", "catalogTier"]],
      ["*", ["description", "aliases", "activeTags", "bundles", "catalogTier"]],
    ])("updateMask=%s changes exactly the masked fields; the rest of the body is ignored", async (mask, changed) => {
      const repo = await mkRepo(await fresh(), start);
      await sleep(2);
      const after = repoOk(await patch(repo.uid, { ...change, name: repo.name }, mask));
      for (const f of Object.keys(start)) expect(after[f as keyof typeof after], f).toEqual(changed.includes(f) ? change[f as keyof typeof change] : start[f as keyof typeof start]);
      expect(after.updateTime > repo.updateTime).toBe(true);
      expect(after.createTime).toBe(repo.createTime);
      expect(repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`))).toEqual(after);
    });

    it("without a mask only the fields present change; a masked field absent from the body is cleared", async () => {
      const repo = await mkRepo(await fresh(), start);
      const a = repoOk(await patch(repo.uid, { aliases: ["x"] }));
      expect(a).toMatchObject({ ...start, aliases: ["x"] });
      const b = repoOk(await patch(repo.uid, {}, "bundles,catalogTier"));
      expect(b).toMatchObject({ ...start, aliases: ["x"], bundles: [], catalogTier: "CATALOG_TIER_UNSPECIFIED" });
    });

    it("a PATCH that changes nothing keeps updateTime; an unknown mask path or body field is INVALID_ARGUMENT", async () => {
      const repo = await mkRepo(await fresh(), start);
      await sleep(2);
      expect(repoOk(await patch(repo.uid, { description: "d0" })).updateTime).toBe(repo.updateTime);
      expectInvalid(await patch(repo.uid, { description: "x" }, "description,owner"), ["update_mask"]);
      expectInvalid(await patch(repo.uid, { description: "x", readme: "no" }), ["readme"]);
      expect(repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`)).description).toBe("d0");
    });

    it("customOverlay sub-paths: updateMask=customOverlay.environment replaces only that member", async () => {
      const repo = await mkRepo(await fresh(), { customOverlay: { contents: { packages: ["curl"] }, environment: { A: "1" } } });
      const after = repoOk(await patch(repo.uid, { customOverlay: { environment: { B: "2" }, contents: { packages: ["wget"] } } }, "customOverlay.environment"));
      expect(after.customOverlay).toEqual({ contents: { packages: ["curl"] }, environment: { B: "2" } });
      expectInvalid(await patch(repo.uid, { customOverlay: { environment: { CHAINGUARD_Z: "1" } } }, "customOverlay.environment"), ["customOverlay.environment.CHAINGUARD_Z"]);
    });

    it("a PATCH of a missing repo is NOT_FOUND", async () => {
      const uid = `${await fresh()}/0123456789abcdef`;
      expectNotFound(await patch(uid, { description: "x" }), uid);
    });
  });

  describe("sync_config and the synced-repo rule", () => {
    it("a create with sync_config and any inherited field (activeTags, aliases, bundles, catalogTier) is INVALID_ARGUMENT naming each; description is allowed", async () => {
      const g = await fresh();
      const res = await api(emu, "POST", `${R}/repos/${g}`, {
        name: "synced",
        description: "mine",
        aliases: ["x"],
        activeTags: ["latest"],
        bundles: ["b"],
        catalogTier: "CATALOG_TIER_FIPS",
        sync_config: { source: nginx.uid },
      });
      const s = expectInvalid(res, ["activeTags", "aliases", "bundles", "catalogTier"]);
      expect(fieldViolations(s).map((v) => v.field).sort()).toEqual(["activeTags", "aliases", "bundles", "catalogTier"]);
      // The same fields without sync_config are accepted, and so is sync_config without them.
      await mkRepo(g, { aliases: ["x"], activeTags: ["latest"], bundles: ["b"], catalogTier: "CATALOG_TIER_FIPS" });
      const synced = await mkRepo(g, { description: "mine", sync_config: { source: nginx.uid } });
      expect(synced.description).toBe("mine");
    });

    it("a synced repo shows its source's inherited fields and description; the source is stored as a UIDP whether given as a uid, a catalog name or an image reference", async () => {
      const g = await fresh();
      const source = await mkRepo(g, { name: "src", description: "the source", aliases: ["s"], activeTags: ["1"], bundles: ["base"], catalogTier: "CATALOG_TIER_BASE" });
      for (const ref of [source.uid, `emulated-org/nginx`, `cgr.dev/emulated-org/nginx`]) {
        const want = ref === source.uid ? source : nginx;
        const repo = await mkRepo(g, { sync_config: { source: ref, amazon: "123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror" } });
        expect(repo.sync_config!.source).toBe(want.uid);
        expect(repo).toMatchObject({ description: want.description, aliases: want.aliases, activeTags: want.activeTags, bundles: want.bundles, catalogTier: want.catalogTier });
      }
      expect(nginx.catalogTier).toBe("CATALOG_TIER_APPLICATION");
    });

    it("read-only members (expirationTime, gracePeriod, uniqueTags, apkoOverlay) are outputs only: ignored on input, expirationTime 14 days after creation", async () => {
      const repo = await mkRepo(await fresh(), { sync_config: { source: nginx.uid, expirationTime: "2099-01-01T00:00:00.000Z", gracePeriod: true, uniqueTags: true, apkoOverlay: "x" } });
      expect(repo.sync_config).toMatchObject({ gracePeriod: false, uniqueTags: false });
      expect(repo.sync_config!.apkoOverlay).toBeUndefined();
      expect(Date.parse(repo.sync_config!.expirationTime) - Date.parse(repo.createTime)).toBe(14 * 24 * 3600 * 1000);
      const after = repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}`, { sync_config: { source: nginx.uid, google: "us-docker.pkg.dev/p/r", expirationTime: "2000-01-01T00:00:00.000Z" } }));
      expect(after.sync_config).toMatchObject({ google: "us-docker.pkg.dev/p/r", expirationTime: repo.sync_config!.expirationTime });
    });

    it("sync_config needs a source that resolves, knows its members and may not name the repo itself", async () => {
      const g = await fresh();
      const bad = (sync: Json) => api(emu, "POST", `${R}/repos/${g}`, { name: `bad-${++n}`, sync_config: sync });
      expectInvalid(await bad({}), ["sync_config.source"]);
      expectInvalid(await bad({ source: `${emu.orgUid}/0123456789abcdef` }), ["sync_config.source"]);
      expectInvalid(await bad({ source: "emulated-org/no-such-repo" }), ["sync_config.source"]);
      expectInvalid(await bad({ source: "nginx" }), ["sync_config.source"]);
      expectInvalid(await bad({ source: nginx.uid, mirror: "x", amazon: 1 }), ["sync_config.mirror", "sync_config.amazon"]);
      expectInvalid(await bad("nginx"), ["sync_config"]);
      const repo = await mkRepo(g);
      expectInvalid(await api(emu, "PATCH", `${R}/repos/${repo.uid}`, { sync_config: { source: repo.uid } }), ["sync_config.source"]);
    });

    it("PATCH of an inherited field on a synced repo is INVALID_ARGUMENT; echoing what a GET shows (updateMask=*) is not a change", async () => {
      const repo = await mkRepo(await fresh(), { sync_config: { source: nginx.uid } });
      for (const [f, value] of [["aliases", ["x"]], ["activeTags", ["1"]], ["bundles", ["b"]], ["catalogTier", "CATALOG_TIER_AI"]] as const) {
        expectInvalid(await api(emu, "PATCH", `${R}/repos/${repo.uid}`, { [f]: value }), [f]);
      }
      const got = repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`));
      const { uid: _u, createTime: _c, updateTime: _t, ...fields } = got;
      const echoed = repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}${qs({ updateMask: "*" })}`, { ...fields, description: "changed" }));
      expect(echoed).toMatchObject({ ...fields, description: "changed" });
    });

    it("adding sync_config to a repo with its own inherited values needs them cleared in the same PATCH; removing it gives the fields back", async () => {
      const repo = await mkRepo(await fresh(), { aliases: ["own"], catalogTier: "CATALOG_TIER_BASE" });
      expectInvalid(await api(emu, "PATCH", `${R}/repos/${repo.uid}${qs({ updateMask: "syncConfig" })}`, { sync_config: { source: nginx.uid } }), ["aliases", "catalogTier"]);
      const synced = repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}${qs({ update_mask: "sync_config,aliases,catalogTier" })}`, { sync_config: { source: nginx.uid } }));
      expect(synced.sync_config!.source).toBe(nginx.uid);
      expect(synced.catalogTier).toBe(nginx.catalogTier);
      const unsynced = repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}${qs({ updateMask: "syncConfig" })}`, {}));
      expect(unsynced.sync_config).toBeUndefined();
      expect(unsynced).toMatchObject({ aliases: [], catalogTier: "CATALOG_TIER_UNSPECIFIED" });
      expect(repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}`, { aliases: ["mine-again"] })).aliases).toEqual(["mine-again"]);
    });
  });

  describe("readme", () => {
    const readme = (uid: string) => api(emu, "GET", `${R}/repos/${uid}/readme`);
    const setReadme = (uid: string, body: Json, mask?: string) => api(emu, "PATCH", `${R}/repos/${uid}/readme${mask === undefined ? "" : qs({ updateMask: mask })}`, body);

    it("GET of a repo without one is empty content; PATCH sets it; it is separate from the repo (no repo field, no repo updateTime change)", async () => {
      const repo = await mkRepo(await fresh());
      expect(ok(await readme(repo.uid), Readme)).toEqual({ uid: repo.uid, content: "" });
      await sleep(2);
      expect(ok(await setReadme(repo.uid, { content: "# App\n", uid: "spoofed" }), Readme)).toEqual({ uid: repo.uid, content: "# App\n" });
      expect(ok(await readme(repo.uid), Readme).content).toBe("# App\n");
      const after = repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`));
      expect(after).toEqual(repo);
      // A repo PATCH leaves the readme alone.
      repoOk(await api(emu, "PATCH", `${R}/repos/${repo.uid}${qs({ updateMask: "*" })}`, { name: repo.name, description: "new" }));
      expect(ok(await readme(repo.uid), Readme).content).toBe("# App\n");
    });

    it("PATCH masks: updateMask=content without content clears it; no mask and no content changes nothing; unknown fields and paths are INVALID_ARGUMENT", async () => {
      const repo = await mkRepo(await fresh());
      ok(await setReadme(repo.uid, { content: "x" }), Readme);
      expect(ok(await setReadme(repo.uid, {}), Readme).content).toBe("x");
      expectInvalid(await setReadme(repo.uid, { content: "y", title: "t" }), ["title"]);
      expectInvalid(await setReadme(repo.uid, { content: 5 }), ["content"]);
      expectInvalid(await setReadme(repo.uid, { content: "y" }, "title"), ["update_mask"]);
      expect(ok(await readme(repo.uid), Readme).content).toBe("x");
      expect(ok(await setReadme(repo.uid, {}, "content"), Readme).content).toBe("");
    });

    it("a synced repo reads its source's README and refuses its own (INVALID_ARGUMENT naming content)", async () => {
      const g = await fresh();
      const source = await mkRepo(g);
      ok(await setReadme(source.uid, { content: "# Source" }), Readme);
      const synced = await mkRepo(g, { sync_config: { source: source.uid } });
      expect(ok(await readme(synced.uid), Readme)).toEqual({ uid: synced.uid, content: "# Source" });
      expectInvalid(await setReadme(synced.uid, { content: "# Mine" }), ["content"]);
    });

    it("the readme of a missing repo is NOT_FOUND; POST and DELETE on it are not routes of the readme", async () => {
      const uid = `${await fresh()}/0123456789abcdef`;
      expectNotFound(await readme(uid), uid);
      expectNotFound(await setReadme(uid, { content: "x" }), uid);
      const repo = await mkRepo(await fresh());
      expectInvalid(await api(emu, "DELETE", `${R}/repos/${repo.uid}/readme`), ["uid"]);
      expect((await api(emu, "GET", `${R}/repos/${repo.uid}`)).status).toBe(200);
    });
  });

  describe("delete", () => {
    it("deletes the repo with its tags, overlay bindings and readme: none stays readable", async () => {
      const g = await fresh();
      const repo = await mkRepo(g, { name: "doomed" });
      const t1 = await mkTag(repo.uid);
      const t2 = await mkTag(repo.uid);
      const ov = await mkOverlay(g);
      const binding = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: ov.uid, tags: [t1.name] }), BindingShape);
      ok(await api(emu, "PATCH", `${R}/repos/${repo.uid}/readme`, { content: "# doomed" }), Readme);
      const other = await mkRepo(g);
      const kept = await mkTag(other.uid);
      expectOk(await api(emu, "DELETE", `${R}/repos/${repo.uid}`), Empty);
      expectNotFound(await api(emu, "GET", `${R}/repos/${repo.uid}`), repo.uid);
      for (const t of [t1, t2]) expectNotFound(await api(emu, "GET", `${R}/tags/${t.uid}`), t.uid);
      expectNotFound(await api(emu, "GET", `${R}/overlayBindings/${binding.uid}`), binding.uid);
      expect((await list(`${R}/tags`, "tags", TagShape, { "uidp.descendants_of": g })).tags.map((t: Json) => t.uid)).toEqual([kept.uid]);
      expect((await list(`${R}/overlayBindings`, "overlayBindings", BindingShape, { "uidp.descendants_of": g })).totalCount).toBe("0");
      expectNotFound(await api(emu, "GET", `${R}/repos/${repo.uid}/readme`), repo.uid);
      // The overlay is no longer in use, and a new repo of the same name starts clean.
      expectOk(await api(emu, "DELETE", `${R}/overlays/${ov.uid}`), Empty);
      const again = await mkRepo(g, { name: "doomed" });
      expect(ok(await api(emu, "GET", `${R}/repos/${again.uid}/readme`), Readme).content).toBe("");
      expectNotFound(await api(emu, "DELETE", `${R}/repos/${repo.uid}`), repo.uid);
    });

    it("§4 rule 4: a group with a repo is RESOURCE_NOT_EMPTY naming repos until the repo is deleted", async () => {
      const g = await fresh();
      const repo = await mkRepo(g);
      const v = expectPrecondition(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), "RESOURCE_NOT_EMPTY");
      expect(v[0]!.description).toContain("repos (1)");
      expectOk(await api(emu, "DELETE", `${R}/repos/${repo.uid}`), Empty);
      expectOk(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), Empty);
    });
  });

  describe("List", () => {
    it("pages with page_size/page_token (snake and camel), orders by name, skips, and filters name and uidp.*", async () => {
      const g = await fresh();
      const sub = await fresh(g);
      const made = [];
      for (const name of ["e-repo", "b-repo", "d-repo", "a-repo", "c-repo"]) made.push(await mkRepo(g, { name }));
      const deep = await mkRepo(sub, { name: "a-repo" });
      const byUid = [...made].sort((a, b) => (a.uid < b.uid ? -1 : 1)).map((r) => r.uid);
      expect((await walk(`${R}/repos`, "repos", RepoShape, { "uidp.children_of": g }, 2)).map((r) => r.uid)).toEqual(byUid);
      const camel = await list(`${R}/repos`, "repos", RepoShape, { "uidp.childrenOf": g, pageSize: 2, orderBy: "name desc" });
      expect(camel.repos.map((r: Json) => r.name)).toEqual(["e-repo", "d-repo"]);
      expect(camel.totalCount).toBe("5");
      const next = await list(`${R}/repos`, "repos", RepoShape, { "uidp.childrenOf": g, pageSize: 2, orderBy: "name desc", pageToken: camel.nextPageToken });
      expect(next.repos.map((r: Json) => r.name)).toEqual(["c-repo", "b-repo"]);
      const skipped = await list(`${R}/repos`, "repos", RepoShape, { "uidp.children_of": g, order_by: "name", skip: 3 });
      expect(skipped.repos.map((r: Json) => r.name)).toEqual(["d-repo", "e-repo"]);
      expect(skipped.skipped).toBe(3);
      const named = await list(`${R}/repos`, "repos", RepoShape, { "uidp.descendants_of": g, name: "a-repo" });
      expect(named.repos.map((r: Json) => r.uid).sort()).toEqual([made[3]!.uid, deep.uid].sort());
      expect((await list(`${R}/repos`, "repos", RepoShape, { "uidp.ids": [deep.uid, made[0]!.uid] })).repos.map((r: Json) => r.uid).sort()).toEqual([deep.uid, made[0]!.uid].sort());
      expect((await list(`${R}/repos`, "repos", RepoShape, { "uidp.ancestors_of": `${deep.uid}/0123456789abcdef` })).repos.map((r: Json) => r.uid)).toEqual([deep.uid]);
      expectInvalid(await api(emu, "GET", `${R}/repos${qs({ order_by: "aliases" })}`), ["order_by"]);
    });

    it("the seeded repos still list and parse, and the v1 read layer serves created repos in v1 form", async () => {
      const all = await walk(`${R}/repos`, "repos", RepoShape, {}, 200);
      expect(all.map((r) => r.name)).toEqual(expect.arrayContaining(["nginx", "python", "node", "static"]));
      const repo = await mkRepo(await fresh(), { description: "v1" });
      const v1 = await api(emu, "GET", `/registry/v1/repos/${repo.uid}`);
      expect(v1.status).toBe(200);
      expect(v1.body).toMatchObject({ id: repo.uid, name: repo.name, description: "v1", createdAt: repo.createTime, updatedAt: repo.updateTime });
      expectStatus(await api(emu, "POST", `/registry/v1/repos/${emu.orgUid}`, { name: "v1-write" }), 12, 405);
    });
  });

  it("the GA path /registry/v2/ serves the same routes", async () => {
    const g = await fresh();
    const repo = repoOk(await api(emu, "POST", `/registry/v2/repos/${g}`, { name: "ga" }));
    expect(repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`)).name).toBe("ga");
    expect(tagOk(await api(emu, "POST", `/registry/v2/tags/${repo.uid}`, { name: "latest", digest: D1 })).name).toBe("latest");
    expect(ok(await api(emu, "GET", `/registry/v2/repos/${repo.uid}/readme`), Readme).content).toBe("");
    expectOk(await api(emu, "DELETE", `/registry/v2/repos/${repo.uid}`), Empty);
  });
});

describe("tags", () => {
  it("creates under a repo: the uid is a UIDP under the repo, bundles and deprecated default, no createTime", async () => {
    const repo = await mkRepo(await fresh());
    const tag = tagOk(await api(emu, "POST", `${R}/tags/${repo.uid}`, { name: "latest", digest: D1, uid: "spoofed", updateTime: "1999-01-01T00:00:00.000Z" }));
    expect(tag).toMatchObject({ name: "latest", digest: D1, bundles: [], deprecated: false });
    expect(tag.uid).toMatch(new RegExp(`^${repo.uid}/[0-9a-f]{16}$`));
    expect(tag.updateTime).not.toBe("1999-01-01T00:00:00.000Z");
    expect(tagOk(await api(emu, "GET", `${R}/tags/${tag.uid}`))).toEqual(tag);
    const full = await mkTag(repo.uid, { bundles: ["fips"], deprecated: true, digest: `sha512:${"a".repeat(128)}` });
    expect(full).toMatchObject({ bundles: ["fips"], deprecated: true });
  });

  it("a create of a name the repo already has updates that tag (same uid; updateTime advances only on a change)", async () => {
    const repo = await mkRepo(await fresh());
    const first = await mkTag(repo.uid, { name: "1.0" });
    await sleep(2);
    const same = tagOk(await api(emu, "POST", `${R}/tags/${repo.uid}`, { name: "1.0", digest: D1 }));
    expect(same).toEqual(first);
    const moved = tagOk(await api(emu, "POST", `${R}/tags/${repo.uid}`, { name: "1.0", digest: D2, deprecated: true }));
    expect(moved.uid).toBe(first.uid);
    expect(moved).toMatchObject({ digest: D2, deprecated: true });
    expect(moved.updateTime > first.updateTime).toBe(true);
    expect((await list(`${R}/tags`, "tags", TagShape, { "uidp.children_of": repo.uid })).tags).toEqual([moved]);
    // Another repo's tag of the same name is another tag.
    const other = await mkRepo(await fresh());
    expect((await mkTag(other.uid, { name: "1.0" })).uid).not.toBe(first.uid);
  });

  it("reports every invalid field in one BadRequest: name and digest required and well-formed, bundles, deprecated, unknown fields", async () => {
    const repo = await mkRepo(await fresh());
    expectInvalid(await api(emu, "POST", `${R}/tags/${repo.uid}`, {}), ["name", "digest"]);
    expectInvalid(await api(emu, "POST", `${R}/tags/${repo.uid}`, { name: ".bad", digest: "sha256:abc", bundles: "x", deprecated: "yes", repo: "r", createTime: "x" }), [
      "name",
      "digest",
      "bundles",
      "deprecated",
      "repo",
      "createTime",
    ]);
    expectInvalid(await api(emu, "POST", `${R}/tags/${repo.uid}`, { name: "x".repeat(129), digest: D1 }), ["name"]);
    expect((await list(`${R}/tags`, "tags", TagShape, { "uidp.children_of": repo.uid })).totalCount).toBe("0");
  });

  it("has no PATCH (code 12, HTTP 405); DELETE removes the tag; a missing tag or repo is NOT_FOUND", async () => {
    const repo = await mkRepo(await fresh());
    const tag = await mkTag(repo.uid);
    expectStatus(await api(emu, "PATCH", `${R}/tags/${tag.uid}`, { deprecated: true }), 12, 405);
    expect(tagOk(await api(emu, "GET", `${R}/tags/${tag.uid}`)).deprecated).toBe(false);
    expectOk(await api(emu, "DELETE", `${R}/tags/${tag.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${R}/tags/${tag.uid}`), tag.uid);
    expectNotFound(await api(emu, "DELETE", `${R}/tags/${tag.uid}`), tag.uid);
    const missing = `${repo.uid}/0123456789abcdef`;
    expectNotFound(await api(emu, "POST", `${R}/tags/${missing}`, { name: "x", digest: D1 }), missing);
    const g = await fresh();
    expectNotFound(await api(emu, "POST", `${R}/tags/${g}`, { name: "x", digest: D1 }), g);
  });

  it("List: filters digest, name, updated_since and the include_* families (snake and camel), and pages", async () => {
    const repo = await mkRepo(await fresh());
    const plain = ["latest", "1.2", "1.2-dev", "2", "3"];
    for (const name of plain) await mkTag(repo.uid, { name, digest: name === "latest" ? D2 : D1 });
    const families = { referrer: "sha256-abcd.sig", dated: "1.2-20260101", epoch: "1.2-r3" };
    for (const name of Object.values(families)) await mkTag(repo.uid, { name });
    const names = async (params: Json) => (await list(`${R}/tags`, "tags", TagShape, { "uidp.children_of": repo.uid, page_size: 200, ...params })).tags.map((t: Json) => t.name).sort();
    expect(await names({})).toEqual([...plain].sort());
    expect(await names({ include_referrers: true })).toEqual([...plain, families.referrer].sort());
    expect(await names({ includeDates: true, includeEpochs: "true" })).toEqual([...plain, families.dated, families.epoch].sort());
    expectInvalid(await api(emu, "GET", `${R}/tags${qs({ includeDates: "yes" })}`), ["include_dates"]);
    expect(await names({ digest: D2 })).toEqual(["latest"]);
    expect(await names({ name: "1.2" })).toEqual(["1.2"]);
    const cut = new Date(Date.now() + 60_000).toISOString();
    expect(await names({ updatedSince: cut })).toEqual([]);
    expect(await names({ updated_since: "2000-01-01T00:00:00Z" })).toEqual([...plain].sort());
    expectInvalid(await api(emu, "GET", `${R}/tags${qs({ updated_since: "yesterday" })}`), ["updated_since"]);
    const paged = await walk(`${R}/tags`, "tags", TagShape, { "uidp.children_of": repo.uid, order_by: "name", include_referrers: true, include_dates: true, include_epochs: true }, 3);
    expect(paged.map((t) => t.name)).toEqual([...plain, ...Object.values(families)].sort());
  });
});

describe("overlays", () => {
  it("create, GET, List (name filter, paging), DELETE; config renders packages only; no PATCH", async () => {
    const g = await fresh();
    const ov = await mkOverlay(g, { name: "tools", config: { contents: { packages: ["curl", "jq"] } }, uid: "spoofed" });
    expect(ov.uid).toMatch(new RegExp(`^${g}/[0-9a-f]{16}$`));
    expect(ov.config).toEqual({ contents: { packages: ["curl", "jq"] } });
    expect(ov.createTime).toBe(ov.updateTime);
    expect(ok(await api(emu, "GET", `${R}/overlays/${ov.uid}`), OverlayShape)).toEqual(ov);
    for (let i = 0; i < 4; i++) await mkOverlay(g);
    const all = await walk(`${R}/overlays`, "overlays", OverlayShape, { "uidp.children_of": g }, 2);
    expect(all).toHaveLength(5);
    expect((await list(`${R}/overlays`, "overlays", OverlayShape, { name: "tools" })).overlays.map((o: Json) => o.uid)).toEqual([ov.uid]);
    expectStatus(await api(emu, "PATCH", `${R}/overlays/${ov.uid}`, { name: "renamed" }), 12, 405);
    expectOk(await api(emu, "DELETE", `${R}/overlays/${ov.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${R}/overlays/${ov.uid}`), ov.uid);
  });

  it("config carries contents.packages only: every other populated member is INVALID_ARGUMENT, at least one package is required", async () => {
    const g = await fresh();
    const post = (config: unknown) => api(emu, "POST", `${R}/overlays/${g}`, { name: `bad-${++n}`, config });
    expectInvalid(
      await post({ contents: { packages: ["curl"], runtimeRepositories: ["https://x"], runtimeKeyring: [{ name: "k", content: "c" }] }, environment: { A: "1" }, annotations: { a: "b" }, accounts: { runAs: "x" }, certificates: { providers: ["p"] } }),
      ["config.contents.runtimeRepositories", "config.contents.runtimeKeyring", "config.environment", "config.annotations", "config.accounts", "config.certificates"],
    );
    expectInvalid(await post({ contents: { packages: [] } }), ["config.contents.packages"]);
    expectInvalid(await post({}), ["config.contents.packages"]);
    expectInvalid(await post(undefined), ["config"]);
    expectInvalid(await post({ contents: { packages: ["curl"] }, layers: ["x"] }), ["config.layers"]);
    expectInvalid(await api(emu, "POST", `${R}/overlays/${g}`, { config: { contents: { packages: ["x"] } }, tags: [] }), ["name", "tags"]);
    // Empty members are not "populated": accepted, and not rendered.
    const ov = await mkOverlay(g, { config: { contents: { packages: ["curl"], runtimeRepositories: [] }, environment: {} } });
    expect(ov.config).toEqual({ contents: { packages: ["curl"] } });
    expect((await list(`${R}/overlays`, "overlays", OverlayShape, { "uidp.children_of": g })).overlays).toEqual([ov]);
  });

  it("names are unique among a group's overlays (ALREADY_EXISTS); another group may reuse one", async () => {
    const g = await fresh();
    await mkOverlay(g, { name: "dup" });
    expectStatus(await api(emu, "POST", `${R}/overlays/${g}`, { name: "dup", config: { contents: { packages: ["x"] } } }), 6, 409);
    await mkOverlay(await fresh(), { name: "dup" });
  });

  it("is beta-only: /registry/v2/overlays and /registry/v2/overlayBindings are not routes", async () => {
    expectStatus(await api(emu, "GET", "/registry/v2/overlays"), 5, 404);
    expectStatus(await api(emu, "GET", "/registry/v2/overlayBindings"), 5, 404);
    expect((await api(emu, "GET", "/registry/v2/repos")).status).toBe(200);
  });

  it("§4 rule 4: a group with an overlay is RESOURCE_NOT_EMPTY naming overlays", async () => {
    const g = await fresh();
    const ov = await mkOverlay(g);
    expect(expectPrecondition(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), "RESOURCE_NOT_EMPTY")[0]!.description).toContain("overlays (1)");
    expectOk(await api(emu, "DELETE", `${R}/overlays/${ov.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `/iam/v2beta1/groups/${g}`), Empty);
  });
});

describe("overlayBindings", () => {
  it("binds an overlay by uid or by name under a repo; the response names the repo and expands the overlay; GET, List (overlay filter, paging), DELETE; no PATCH", async () => {
    const g = await fresh();
    const repo = await mkRepo(g);
    const ov = await mkOverlay(g, { name: "bind-me", config: { contents: { packages: ["curl"] } } });
    const other = await mkOverlay(g);
    const byUid = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: ov.uid, tags: ["latest", "1", "latest"], repo: "spoofed", uid: "spoofed" }), BindingShape);
    expect(byUid.uid).toMatch(new RegExp(`^${repo.uid}/[0-9a-f]{16}$`));
    expect(byUid).toMatchObject({ repo: repo.uid, tags: ["latest", "1"], overlay: { uid: ov.uid, name: "bind-me", config: { contents: { packages: ["curl"] } } } });
    const byName = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: "bind-me", tags: ["2"] }), BindingShape);
    expect(byName.overlay.uid).toBe(ov.uid);
    const third = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: other.uid, tags: ["3"] }), BindingShape);
    expect(ok(await api(emu, "GET", `${R}/overlayBindings/${byUid.uid}`), BindingShape)).toEqual(byUid);
    const filtered = await list(`${R}/overlayBindings`, "overlayBindings", BindingShape, { overlay: ov.uid, "uidp.children_of": repo.uid });
    expect(filtered.overlayBindings.map((b: Json) => b.uid).sort()).toEqual([byUid.uid, byName.uid].sort());
    expect((await walk(`${R}/overlayBindings`, "overlayBindings", BindingShape, { "uidp.descendants_of": g }, 1)).map((b) => b.uid)).toEqual(
      [byUid.uid, byName.uid, third.uid].sort(),
    );
    expectStatus(await api(emu, "PATCH", `${R}/overlayBindings/${byUid.uid}`, { tags: ["x"] }), 12, 405);
    expectOk(await api(emu, "DELETE", `${R}/overlayBindings/${byUid.uid}`), Empty);
    expectNotFound(await api(emu, "GET", `${R}/overlayBindings/${byUid.uid}`), byUid.uid);
  });

  it("an overlay that does not resolve is INVALID_ARGUMENT naming overlay (missing uid, unknown or ambiguous name); tags are required and well-formed", async () => {
    const g = await fresh();
    const repo = await mkRepo(g);
    const post = (body: Json) => api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, body);
    expectInvalid(await post({ overlay: `${g}/0123456789abcdef`, tags: ["latest"] }), ["overlay"]);
    expectInvalid(await post({ overlay: "nope", tags: ["latest"] }), ["overlay"]);
    await mkOverlay(g, { name: "twice" });
    await mkOverlay(await fresh(), { name: "twice" });
    expect(fieldViolations(expectInvalid(await post({ overlay: "twice", tags: ["latest"] }), ["overlay"]))[0]!.description).toContain("use the uid");
    const ov = await mkOverlay(g);
    expectInvalid(await post({ overlay: ov.uid }), ["tags"]);
    expectInvalid(await post({ overlay: ov.uid, tags: [] }), ["tags"]);
    expectInvalid(await post({ overlay: ov.uid, tags: ["ok", "no tag"] }), ["tags[1]"]);
    expectInvalid(await post({ overlay: { uid: ov.uid }, tags: "latest", config: {} }), ["overlay", "tags", "config"]);
    expectInvalid(await post({}), ["overlay", "tags"]);
    expect((await list(`${R}/overlayBindings`, "overlayBindings", BindingShape, { "uidp.children_of": repo.uid })).totalCount).toBe("0");
    const missing = `${g}/0123456789abcdef`;
    expectNotFound(await api(emu, "POST", `${R}/overlayBindings/${missing}`, { overlay: ov.uid, tags: ["x"] }), missing);
  });

  it("deleting an overlay still bound is FAILED_PRECONDITION (RESOURCE_IN_USE naming the binding) until the binding is deleted", async () => {
    const g = await fresh();
    const repo = await mkRepo(g);
    const ov = await mkOverlay(g);
    const b = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: ov.name, tags: ["latest"] }), BindingShape);
    const v = expectPrecondition(await api(emu, "DELETE", `${R}/overlays/${ov.uid}`), "RESOURCE_IN_USE");
    expect(v[0]!.description).toContain(b.uid);
    expect(ok(await api(emu, "GET", `${R}/overlays/${ov.uid}`), OverlayShape).uid).toBe(ov.uid);
    expectOk(await api(emu, "DELETE", `${R}/overlayBindings/${b.uid}`), Empty);
    expectOk(await api(emu, "DELETE", `${R}/overlays/${ov.uid}`), Empty);
  });
});

describe("authorization", () => {
  let g: string;
  let repo: Json;
  let tag: Json;
  let ov: Json;
  let binding: Json;
  beforeAll(async () => {
    g = await fresh();
    repo = await mkRepo(g, { description: "guarded" });
    tag = await mkTag(repo.uid);
    ov = await mkOverlay(g);
    binding = ok(await api(emu, "POST", `${R}/overlayBindings/${repo.uid}`, { overlay: ov.uid, tags: ["latest"] }), BindingShape);
  });

  it("a viewer at the group reads every registry collection but cannot write any (PERMISSION_DENIED), and nothing changes", async () => {
    const token = await actor(viewer, g);
    repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`, undefined, token));
    ok(await api(emu, "GET", `${R}/repos/${repo.uid}/readme`, undefined, token), Readme);
    tagOk(await api(emu, "GET", `${R}/tags/${tag.uid}`, undefined, token));
    ok(await api(emu, "GET", `${R}/overlays/${ov.uid}`, undefined, token), OverlayShape);
    ok(await api(emu, "GET", `${R}/overlayBindings/${binding.uid}`, undefined, token), BindingShape);
    expect((await list(`${R}/repos`, "repos", RepoShape, {}, token)).repos.map((r: Json) => r.uid)).toEqual([repo.uid]);
    const writes: Array<[string, string, Json?]> = [
      ["POST", `${R}/repos/${g}`, { name: "nope" }],
      ["PATCH", `${R}/repos/${repo.uid}`, { description: "nope" }],
      ["PATCH", `${R}/repos/${repo.uid}/readme`, { content: "nope" }],
      ["DELETE", `${R}/repos/${repo.uid}`],
      ["POST", `${R}/tags/${repo.uid}`, { name: "nope", digest: D1 }],
      ["DELETE", `${R}/tags/${tag.uid}`],
      ["POST", `${R}/overlays/${g}`, { name: "nope", config: { contents: { packages: ["x"] } } }],
      ["DELETE", `${R}/overlays/${ov.uid}`],
      ["POST", `${R}/overlayBindings/${repo.uid}`, { overlay: ov.uid, tags: ["x"] }],
      ["DELETE", `${R}/overlayBindings/${binding.uid}`],
    ];
    for (const [method, path, body] of writes) expectStatus(await api(emu, method, path, body, token), 7, 403);
    expect(repoOk(await api(emu, "GET", `${R}/repos/${repo.uid}`))).toEqual(repo);
    expect((await list(`${R}/tags`, "tags", TagShape, { "uidp.children_of": repo.uid })).tags).toEqual([tag]);
    expect((await list(`${R}/overlays`, "overlays", OverlayShape, { "uidp.children_of": g })).overlays).toEqual([ov]);
  });

  it("an editor creates and updates repos and tags and edits overlays, but deleting a repo or a tag needs the owner (CAP_REPO_DELETE, CAP_TAG_DELETE)", async () => {
    const token = await actor(editor, g);
    const mine = repoOk(await api(emu, "POST", `${R}/repos/${g}`, { name: "editors" }, token));
    repoOk(await api(emu, "PATCH", `${R}/repos/${mine.uid}`, { description: "edited" }, token));
    const t = tagOk(await api(emu, "POST", `${R}/tags/${mine.uid}`, { name: "latest", digest: D1 }, token));
    const o = ok(await api(emu, "POST", `${R}/overlays/${g}`, { name: "editors", config: { contents: { packages: ["x"] } } }, token), OverlayShape);
    expectOk(await api(emu, "DELETE", `${R}/overlays/${o.uid}`, undefined, token), Empty);
    expectStatus(await api(emu, "DELETE", `${R}/tags/${t.uid}`, undefined, token), 7, 403);
    expectStatus(await api(emu, "DELETE", `${R}/repos/${mine.uid}`, undefined, token), 7, 403);
  });

  it("a viewer of another group sees none of these rows and cannot probe them", async () => {
    const token = await actor(viewer, await fresh());
    expect((await list(`${R}/repos`, "repos", RepoShape, { "uidp.descendants_of": g }, token)).totalCount).toBe("0");
    expect((await list(`${R}/overlayBindings`, "overlayBindings", BindingShape, {}, token)).totalCount).toBe("0");
    expectStatus(await api(emu, "GET", `${R}/repos/${repo.uid}/readme`, undefined, token), 7, 403);
    expectStatus(await api(emu, "GET", `${R}/overlays/${g}/0123456789abcdef`, undefined, token), 7, 403);
  });
});
