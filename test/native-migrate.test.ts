/**
 * Moving a stack from the dynamic resources to the native plugin (docs/native.md "Migrating a stack from the
 * dynamic resources"): a Group made by the package's class is declared again as `platform:iam:Group` with one
 * alias to its dynamic type token. The engine moves it in place: the preview plans no create, update, replace or
 * delete, the `up` sends the API nothing, and the state then holds the native type with the same uid. The first
 * refresh reads it through the plugin and drops the dynamic provider's serialized code (`__provider`) that the
 * outputs still carried; the preview after it plans nothing.
 */
import { expect } from "vitest";
import { stepTest } from "./harness/steps";

let since = 0;

stepTest("a dynamic stack moves to the native plugin by alias", {
  program: "native-migrate",
  stack: "native-migrate",
  steps: [
    {
      name: "up creates the group as a dynamic resource (the package's Group class)",
      check: async ({ cli, outputs }) => {
        const team = (await cli.exportState()).deployment.resources?.find((r) => r["id"] === outputs["teamUid"]);
        expect(team?.["type"]).toBe("pulumi-nodejs:dynamic/platform:Group");
      },
    },
    {
      name: "declared as platform:iam:Group with an alias to the dynamic type: no change planned, no API write, the same uid under the native type",
      config: { native: "true" },
      preview: { summary: { create: 0, update: 0, replace: 0, delete: 0 } },
      summary: { create: 0, update: 0, replace: 0, delete: 0 },
      writes: [],
      settled: false, // refresh and preview run as the next steps, after the requests are counted
      before: ({ emu }) => {
        since = emu.requests.length;
      },
      check: async ({ cli, emu, outputs, previous }) => {
        // Nothing reached the API during the preview and the up.
        expect(emu.requests.slice(since).map((r) => `${r.method} ${r.path}`)).toEqual([]);
        expect(outputs["teamUid"]).toBe(previous["teamUid"]);
        const resources = (await cli.exportState()).deployment.resources ?? [];
        const team = resources.find((r) => r["id"] === outputs["teamUid"]);
        expect(team?.["type"]).toBe("platform:iam:Group");
        expect(resources.filter((r) => String(r["type"]).startsWith("pulumi-nodejs:dynamic/"))).toEqual([]);
      },
    },
    {
      name: "then pulumi refresh finds the native group as the API holds it, and drops the dynamic provider's serialized code from its outputs",
      command: "refresh",
      check: async ({ cli, outputs }) => {
        const team = (await cli.exportState()).deployment.resources?.find((r) => r["id"] === outputs["teamUid"]);
        expect(team?.["type"]).toBe("platform:iam:Group");
        expect(JSON.stringify(team)).not.toContain("__provider");
      },
    },
    {
      name: "and pulumi preview plans nothing",
      command: "preview",
      args: ["--expect-no-changes"],
    },
  ],
});
