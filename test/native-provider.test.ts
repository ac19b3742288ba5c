/**
 * The native provider plugin (`plugin/pulumi-resource-platform`, `provider/native/`) through the real Pulumi CLI:
 * a program that names only type tokens (`platform:iam:Group`, as a Python, Go or YAML program's SDK does) goes up
 * on the emulator, settles, edits one field with exactly one masked PATCH while the child wired to its parent's
 * uid previews no replace, sees an edit made outside Pulumi in a refreshing preview, imports an object made outside
 * Pulumi by its uid, keeps declared secrets (an input, and a server-set output) out of the plain state, runs a
 * lookup through Invoke, and destroys, leaving the API as it was.
 */
import { expect } from "vitest";
import { stepTest } from "./harness/steps";
import { mkGroup } from "./helpers";

const SECRET = "native-client-secret-7f3a";

stepTest("the native provider plugin through the real Pulumi CLI", {
  program: "native",
  stack: "native",
  steps: [
    {
      name: "up creates the groups as native resources (platform:iam:Group, no serialized provider); the child's parent is the parent's uid",
      check: async ({ outputs, cli }) => {
        expect(outputs["subParent"]).toBe(outputs["teamUid"]);
        const state = await cli.exportState();
        const groups = (state.deployment.resources ?? []).filter((r) => r["type"] === "platform:iam:Group");
        expect(groups.map((r) => r["id"]).sort()).toEqual([outputs["teamUid"], outputs["subUid"]].sort());
        for (const g of groups) expect(JSON.stringify(g)).not.toContain("__provider");
      },
    },
    {
      name: "a description edit is one PATCH with updateMask=description; the child wired to the parent's uid previews no change",
      config: { desc: "edited natively" },
      preview: { summary: { update: 1, replace: 0, create: 0, delete: 0 }, changes: ["update team description"] },
      writes: ({ outputs }) => [`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`],
    },
    {
      name: "an edit made outside Pulumi shows in a refreshing preview",
      before: async ({ client, outputs }) => {
        await client.groups.patch(outputs["teamUid"] as string, { description: "changed outside" }, ["description"]);
      },
      command: "preview",
      args: ["--refresh"],
      summary: { update: 1 },
    },
    {
      name: "up puts the declared description back",
      writes: ({ outputs }) => [`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`],
      args: ["--refresh"],
    },
    {
      name: "pulumi import adopts a group made outside Pulumi by its uid, with no write",
      command: null,
      check: async ({ emu, cli, keep, writes }) => {
        const legacy = await mkGroup(emu, emu.orgUid, "native-legacy", "made outside");
        keep(legacy.uid);
        const since = emu.requests.length;
        const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--generate-code=false"]);
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect(writes(since)).toEqual([]);
        const state = await cli.exportState();
        const imported = (state.deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
        expect(imported?.["type"]).toBe("platform:iam:Group");
        expect((imported?.["outputs"] as Record<string, unknown>)["name"]).toBe("native-legacy");
        const urn = imported?.["urn"] as string;
        const del = await cli.run(["state", "delete", urn, "--yes", "--force"]);
        expect(del.code, del.stderr).toBe(0);
      },
    },
    {
      name: "a declared secret (an identity provider's clientSecret) stays out of the plain state",
      before: async ({ cli }) => {
        await cli.ok(["config", "set", "--secret", "clientSecret", SECRET]);
      },
      config: { idp: "true" },
      check: async ({ cli, outputs }) => {
        expect(outputs["idpUid"]).toBeTruthy();
        const state = await cli.exportState();
        expect(JSON.stringify(state)).not.toContain(SECRET);
      },
    },
    {
      name: "a server-set secret output (an invite's one-time code) is a secret in state; a lookup runs through the plugin's Invoke",
      config: { invite: "true" },
      check: async ({ cli, outputs, client }) => {
        expect(outputs["viewerUid"]).toBe((await client.roles.list({ name: "viewer" }).collect())[0]?.uid);
        const shown = await cli.run(["stack", "output", "inviteCode", "--show-secrets"]);
        const code = shown.stdout.trim();
        expect(code.length).toBeGreaterThan(10);
        const state = JSON.stringify(await cli.exportState());
        expect(state).not.toContain(code);
        const invite = (await cli.exportState()).deployment.resources?.find((r) => r["type"] === "platform:iam:GroupInvite");
        expect(JSON.stringify((invite?.["outputs"] as Record<string, unknown>)["code"])).toContain("4dabf18193072939515e22adb298388d");
      },
    },
  ],
});
