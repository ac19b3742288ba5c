/**
 * Issue 12 through the real Pulumi CLI (test/programs/registry) against an emulator on a loopback port: a program
 * with every new resource (Repo with README and customOverlay, a synced Repo, Tag, Overlay, OverlayBinding,
 * Subscription) goes up, refreshes with no changes, updates one field of the repo and its README each by exactly
 * one PATCH with that field's mask (read from the emulator's request log), replaces the no-PATCH kinds on a
 * change (seen in the preview and as new uids in state), and destroys, leaving nothing behind in the API.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { changes, engineOk } from "../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { raw } from "./helpers";

const PROGRAM = path.join(REPO_ROOT, "test", "programs", "registry");
const STACK = "registry";
const LONG = 240_000;

describe("registry and events resources through the real Pulumi CLI", () => {
  let emu: Emulator;
  let backend: string;
  let cli: PulumiCli;
  let out: Record<string, string>;
  const COLLECTIONS = [
    ["iam", "groups"],
    ["registry", "repos"],
    ["registry", "tags"],
    ["registry", "overlays"],
    ["registry", "overlayBindings"],
    ["events", "subscriptions"],
  ] as const;
  /** The uids of every object under the org, by collection (the emulator may seed some). */
  const inventory = async () => {
    const inv: Record<string, string[]> = {};
    for (const [api, coll] of COLLECTIONS) {
      const r = await raw(emu, "GET", `/${api}/v2beta1/${coll}?uidp.descendants_of=${emu.orgUid}&page_size=200`);
      expect(r.status, coll).toBe(200);
      inv[coll] = (r.body[coll] as Array<{ uid: string }>).map((x) => x.uid).sort();
    }
    return inv;
  };
  let before: Record<string, string[]>;

  /** The writes the emulator served since `since`, as `METHOD path[?updateMask=…]`. */
  const writes = (since: number) =>
    emu.requests
      .slice(since)
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path}${r.query["updateMask"] ? `?updateMask=${r.query["updateMask"]}` : ""}`);

  beforeAll(async () => {
    emu = await startEmulator();
    backend = mkdtempSync(path.join(tmpdir(), "engine-registry-"));
    cli = new PulumiCli({ cwd: PROGRAM, backendDir: backend, stack: STACK, env: { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token, PLATFORM_ORG_UID: emu.orgUid } });
    await cli.initStack();
    before = await inventory();
  }, LONG);
  afterAll(async () => {
    await emu?.close();
    if (backend) rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(PROGRAM, `Pulumi.${STACK}.yaml`), { force: true });
  });

  it("up creates every resource; the synced repo inherits from its source and the README is written", async () => {
    await cli.ok(["up", "--yes", "--skip-preview"]);
    out = (await cli.outputs()) as Record<string, string>;
    expect(out["mirrorSource"]).toBe(out["appUid"]);
    expect(out["bindingOverlayUid"]).toBe(out["overlayUid"]);
    const app = (await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}`)).body;
    expect(app).toMatchObject({ name: "app", description: "the app image", aliases: ["app-alias"], catalogTier: "CATALOG_TIER_APPLICATION" });
    expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}/readme`)).body.content).toBe("# app\n");
    expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["mirrorUid"]}`)).body).toMatchObject({ aliases: ["app-alias"], catalogTier: "CATALOG_TIER_APPLICATION" });
    expect((await raw(emu, "GET", `/events/v2beta1/subscriptions/${out["hookUid"]}`)).body.sink).toBe("https://hooks.example.com/platform");
  }, LONG);

  it("refresh right after up finds no changes, and neither does a preview after it", async () => {
    const refresh = await cli.run(["refresh", "--yes", "--expect-no-changes"]);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    const preview = await cli.run(["preview", "--expect-no-changes"]);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
  }, LONG);

  it("a repo description change is one PATCH with updateMask=description, and nothing else", async () => {
    await cli.ok(["config", "set", "repoDescription", "the app image, v2"]);
    const preview = await engineOk(cli, "preview", ["--diff"]);
    expect(preview.summary).toMatchObject({ update: 1, create: 0, replace: 0, delete: 0 });
    expect(changes(preview).map((s) => `${s.op} ${s.name} ${s.diffs.join(",")}`)).toEqual(["update app description"]);
    const since = emu.requests.length;
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(writes(since)).toEqual([`PATCH /registry/v2beta1/repos/${out["appUid"]}?updateMask=description`]);
    expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}`)).body.description).toBe("the app image, v2");
  }, LONG);

  it("a README change is one PATCH of the readme with updateMask=content, and nothing else", async () => {
    await cli.ok(["config", "set", "readme", "# app\n\nNow with docs.\n"]);
    const since = emu.requests.length;
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(writes(since)).toEqual([`PATCH /registry/v2beta1/repos/${out["appUid"]}/readme?updateMask=content`]);
    expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}/readme`)).body.content).toBe("# app\n\nNow with docs.\n");
  }, LONG);

  it("a change of a tag's digest, an overlay's packages, a binding's tags and a sink replaces each, and no PATCH is sent", async () => {
    await cli.ok(["config", "set", "digest", `sha256:${"b".repeat(64)}`]);
    await cli.ok(["config", "set", "--path", "packages[0]", "curl"]);
    await cli.ok(["config", "set", "--path", "bindingTags[0]", "latest"]);
    await cli.ok(["config", "set", "--path", "bindingTags[1]", "dev"]);
    await cli.ok(["config", "set", "sink", "https://hooks.example.com/platform-v2"]);
    const preview = await engineOk(cli, "preview", ["--diff"]);
    const replaced = [
      "pulumi-nodejs:dynamic/platform:Tag app-latest",
      "pulumi-nodejs:dynamic/platform:Overlay tools",
      "pulumi-nodejs:dynamic/platform:OverlayBinding app-tools",
      "pulumi-nodejs:dynamic/platform:Subscription audit-hook",
    ].sort();
    expect(changes(preview).filter((s) => s.op === "replace").map((s) => `${s.type} ${s.name}`).sort()).toEqual(replaced);
    expect(changes(preview).every((s) => replaced.includes(`${s.type} ${s.name}`))).toBe(true); // their create-replacement/delete-replaced steps, nothing else
    expect(preview.summary).toMatchObject({ replace: 4, update: 0 });
    const since = emu.requests.length;
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const sent = writes(since);
    expect(sent.filter((w) => w.startsWith("PATCH"))).toEqual([]);
    const kinds = sent.map((w) => w.replace(/^(\w+) \/\w+\/v2beta1\/(\w+)\/.*$/, "$1 $2")).sort();
    expect(kinds).toEqual([
      "DELETE overlayBindings",
      "DELETE overlays",
      "DELETE subscriptions",
      "DELETE tags",
      "POST overlayBindings",
      "POST overlays",
      "POST subscriptions",
      "POST tags",
    ]);
    // Delete-first where the name stays (tag, overlay): the old one is gone before the new one is created.
    const order = sent.map((w) => w.split(" ").slice(0, 2).join(" "));
    expect(order.findIndex((w) => w.startsWith("DELETE /registry/v2beta1/tags/"))).toBeLessThan(order.findIndex((w) => w.startsWith("POST /registry/v2beta1/tags/")));
    const next = (await cli.outputs()) as Record<string, string>;
    for (const k of ["tagUid", "overlayUid", "bindingUid", "hookUid"]) expect(next[k], k).not.toBe(out[k]);
    for (const k of ["appUid", "mirrorUid", "teamUid"]) expect(next[k], k).toBe(out[k]);
    expect(next["bindingOverlayUid"]).toBe(next["overlayUid"]);
    out = next;
    const refresh = await cli.run(["refresh", "--yes", "--expect-no-changes"]);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
  }, LONG);

  it("destroy deletes everything, and the API holds nothing of it afterwards", async () => {
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(await inventory()).toEqual(before);
  }, LONG);
});
