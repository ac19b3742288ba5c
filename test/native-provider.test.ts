/**
 * The native provider plugin (`plugin/pulumi-resource-platform`, `provider/native/`) through the real Pulumi CLI:
 * a program that names only type tokens (`platform:iam:Group`, as a Python, Go or YAML program's SDK does) goes up
 * on the emulator, settles, edits one field with exactly one masked PATCH while the child wired to its parent's
 * uid previews no replace, sees an edit made outside Pulumi in a refreshing preview, keeps declared secrets (an
 * input, and a server-set output) out of the plain state, runs a lookup through Invoke, serves the package's
 * commands (drift, unmanaged, access, gate, recover) on its stack, and destroys, leaving the API as it was.
 * `pulumi import` through the plugin is test/native-import.test.ts (every kind) and the consumer tier's Python and
 * Go programs (test/harness/nativeOrg.ts).
 */
import { expect } from "vitest";
import { runBin } from "./harness/bin";
import { OUTSIDE_EDIT_SEEN, PUT_BACK } from "./harness/nativeOrg";
import { stepTest, type StepContext } from "./harness/steps";
import { mkGroup } from "./helpers";

const SECRET = "native-client-secret-7f3a";

/** `platform-pulumi <command> --stack native --cwd <program> <args>` from the built bin, in the stack's environment. */
async function job(t: StepContext, command: string, args: string[] = []) {
  const r = await runBin([command, "--stack", "native", "--cwd", t.cwd, ...args], { ...process.env, ...t.cli.env() });
  console.log(`native stack: ${command} ${args.join(" ")} exited ${r.code}\n${r.stdout}${r.stderr}`);
  return r;
}

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
    OUTSIDE_EDIT_SEEN,
    {
      name: "drift reads the native stack: the group edited outside Pulumi, by kind and name, exit 1",
      command: null,
      check: async (t) => {
        const r = await job(t, "drift", ["--format", "json"]);
        expect(r.code).toBe(1);
        const report = JSON.parse(r.stdout) as { drifted: Array<{ type: string; name: string; uid: string; fields: Array<{ path: string }> }> };
        expect(report.drifted.map((d) => [d.type, d.name, d.uid, d.fields.map((f) => f.path)])).toEqual([["Group", "team", t.outputs["teamUid"], ["description"]]]);
      },
    },
    PUT_BACK,
    {
      name: "unmanaged reads the native stack: a group made outside Pulumi under the stack's team is unmanaged, the stack's own groups are not",
      command: null,
      check: async (t) => {
        const stray = await mkGroup(t.emu, t.outputs["teamUid"] as string, "native-stray", "made outside");
        try {
          const r = await job(t, "unmanaged", ["--format", "json"]);
          expect(r.code).toBe(1);
          const found = (JSON.parse(r.stdout) as { unmanaged: Array<{ kind: string; uid: string }> }).unmanaged.map((o) => `${o.kind}:${o.uid}`);
          expect(found).toEqual([`Group:${stray.uid}`]);
        } finally {
          await t.client.groups.delete(stray.uid);
        }
      },
    },
    {
      // Three additions in one up (one settle instead of three): each is checked on its own below.
      name: "a declared secret (an identity provider's clientSecret) stays out of the plain state; a server-set secret output (an invite's one-time code) is a secret in state; a lookup runs through the plugin's Invoke; access reads the native stack: the bound workload identity's effective access at its group",
      before: async ({ cli }) => {
        await cli.ok(["config", "set", "--secret", "clientSecret", SECRET]);
      },
      config: { idp: "true", invite: "true", access: "true" },
      check: async (t) => {
        const { cli, outputs, client } = t;
        // The identity provider's declared secret.
        expect(outputs["idpUid"]).toBeTruthy();
        expect(JSON.stringify(await cli.exportState())).not.toContain(SECRET);
        // The invite's server-set secret, and the lookup through Invoke.
        expect(outputs["viewerUid"]).toBe((await client.roles.list({ name: "viewer" }).collect())[0]?.uid);
        const shown = await cli.run(["stack", "output", "inviteCode", "--show-secrets"]);
        const code = shown.stdout.trim();
        expect(code.length).toBeGreaterThan(10);
        const state = JSON.stringify(await cli.exportState());
        expect(state).not.toContain(code);
        const invite = (await cli.exportState()).deployment.resources?.find((r) => r["type"] === "platform:iam:GroupInvite");
        expect(JSON.stringify((invite?.["outputs"] as Record<string, unknown>)["code"])).toContain("4dabf18193072939515e22adb298388d");
        // access on the native stack.
        expect(outputs["botUid"]).toBeTruthy();
        const r = await job(t, "access", ["--current", "--format", "json"]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain("native-bot");
        expect(r.stdout).toContain(outputs["teamUid"] as string);
      },
    },
    {
      name: "gate judges a change on the native stack: the identity bound owner at the root fails it, naming the identity",
      command: null,
      check: async (t) => {
        await t.cli.ok(["config", "set", "botRole", "owner"]);
        await t.cli.ok(["config", "set", "botAtRoot", "true"]);
        try {
          const r = await job(t, "gate", ["--format", "markdown"]);
          expect(r.code).toBe(1);
          expect(r.stdout).toContain("native-bot");
          expect(r.stdout).toMatch(/owner/);
        } finally {
          await t.cli.ok(["config", "rm", "botRole"]);
          await t.cli.ok(["config", "rm", "botAtRoot"]);
        }
      },
    },
    {
      name: "recover reads the native stack: nothing pending, nothing to settle, exit 0",
      command: null,
      check: async (t) => {
        const r = await job(t, "recover");
        expect(r.code, r.stderr).toBe(0);
      },
    },
  ],
});
