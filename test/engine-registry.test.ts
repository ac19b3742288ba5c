/**
 * The registry and events resources through the real Pulumi CLI (test/programs/registry) against an emulator on a
 * loopback port, as steps of the harness (test/harness/steps.ts): a program with every such resource (Repo with
 * README and customOverlay, a synced Repo, Tag, Overlay, OverlayBinding, Subscription) goes up and settles (a
 * `preview --refresh` finds no changes), updates one field of the repo and its README each by exactly one PATCH with that
 * field's mask (read from the emulator's request log), replaces the no-PATCH kinds on a change (seen in the
 * preview and as new uids in state), and destroys, leaving the API as it was.
 */
import { expect } from "vitest";
import { changes } from "../scripts/lib/engine";
import { raw } from "./helpers";
import { stepTest } from "./harness/steps";

const REPLACED = [
  "pulumi-nodejs:dynamic/platform:Tag app-latest",
  "pulumi-nodejs:dynamic/platform:Overlay tools",
  "pulumi-nodejs:dynamic/platform:OverlayBinding app-tools",
  "pulumi-nodejs:dynamic/platform:Subscription audit-hook",
].sort();

stepTest("registry and events resources through the real Pulumi CLI", {
  program: "registry",
  stack: "registry",
  steps: [
    {
      name: "up creates every resource; the synced repo inherits from its source and the README is written; refresh and preview then find no changes",
      check: async ({ emu, outputs: out }) => {
        expect(out["mirrorSource"]).toBe(out["appUid"]);
        expect(out["bindingOverlayUid"]).toBe(out["overlayUid"]);
        const app = (await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}`)).body;
        expect(app).toMatchObject({ name: "app", description: "the app image", aliases: ["app-alias"], catalogTier: "CATALOG_TIER_APPLICATION" });
        expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["appUid"]}/readme`)).body.content).toBe("# app\n");
        expect((await raw(emu, "GET", `/registry/v2beta1/repos/${out["mirrorUid"]}`)).body).toMatchObject({ aliases: ["app-alias"], catalogTier: "CATALOG_TIER_APPLICATION" });
        expect((await raw(emu, "GET", `/events/v2beta1/subscriptions/${out["hookUid"]}`)).body.sink).toBe("https://hooks.example.com/platform");
      },
    },
    {
      name: "a repo description change is one PATCH with updateMask=description, and nothing else",
      config: { repoDescription: "the app image, v2" },
      // Checked on the up's own steps (a scalar edit: the plan a preview would show, no unknowns to differ).
      summary: { update: 1, create: 0, replace: 0, delete: 0 },
      changes: ["update app description"],
      writes: ({ outputs }) => [`PATCH /registry/v2beta1/repos/${outputs["appUid"]}?updateMask=description`],
      check: async ({ emu, outputs }) => {
        expect((await raw(emu, "GET", `/registry/v2beta1/repos/${outputs["appUid"]}`)).body.description).toBe("the app image, v2");
      },
    },
    {
      name: "a README change is one PATCH of the readme with updateMask=content, and nothing else",
      config: { readme: "# app\n\nNow with docs.\n" },
      writes: ({ outputs }) => [`PATCH /registry/v2beta1/repos/${outputs["appUid"]}/readme?updateMask=content`],
      check: async ({ emu, outputs }) => {
        expect((await raw(emu, "GET", `/registry/v2beta1/repos/${outputs["appUid"]}/readme`)).body.content).toBe("# app\n\nNow with docs.\n");
      },
    },
    {
      name: "a change of a tag's digest, an overlay's packages, a binding's tags and a sink replaces each, and no PATCH is sent",
      config: { digest: `sha256:${"b".repeat(64)}`, sink: "https://hooks.example.com/platform-v2" },
      pathConfig: { "packages[0]": "curl", "bindingTags[0]": "latest", "bindingTags[1]": "dev" },
      preview: {
        summary: { replace: 4, update: 0 },
        check: (preview) => {
          const steps = changes(preview);
          expect(steps.filter((s) => s.op === "replace").map((s) => `${s.type} ${s.name}`).sort()).toEqual(REPLACED);
          expect(steps.every((s) => REPLACED.includes(`${s.type} ${s.name}`))).toBe(true); // their create-replacement/delete-replaced steps, nothing else
        },
      },
      check: ({ sent, outputs: next, previous: out }) => {
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
        for (const k of ["tagUid", "overlayUid", "bindingUid", "hookUid"]) expect(next[k], k).not.toBe(out[k]);
        for (const k of ["appUid", "mirrorUid", "teamUid"]) expect(next[k], k).toBe(out[k]);
        expect(next["bindingOverlayUid"]).toBe(next["overlayUid"]);
      },
    },
  ],
});
