/**
 * Engine tests: the real Pulumi CLI (built or found by scripts/ensure-pulumi) runs test/programs/basic against
 * an emulator on a loopback port, with a file backend in a temporary folder, as steps of the harness
 * (test/harness/steps.ts: every `up` is followed by a `preview --refresh` that must find no changes, and the
 * destroy at the end must leave the API as it was). Nothing here imitates the engine. If the CLI cannot be had,
 * these tests fail with the reason (PulumiCli's constructor throws); they never skip.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { raw } from "./helpers";
import { stepTest } from "./harness/steps";

/** Every file under `dir`, concatenated (the file backend's whole state, history and backups included). */
function allText(dir: string): string {
  let out = "";
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    out += statSync(p).isDirectory() ? allText(p) : readFileSync(p, "latin1");
  }
  return out;
}

stepTest("a program through the real Pulumi CLI (token from the environment)", {
  program: "basic",
  stack: "env-token",
  timeoutMs: 180_000,
  steps: [
    {
      name: "up creates the declared group tree, identity and hydrated role binding; refresh and preview then find no changes",
      check: async ({ emu, outputs }) => {
        expect(outputs["bindingRole"]).toBe("viewer");
        const sub = await raw(emu, "GET", `/iam/v2beta1/groups/${outputs["subUid"]}`);
        expect(sub.body).toMatchObject({ name: "sub", description: "a subgroup" });
        expect(outputs["subUid"]!.startsWith(`${outputs["teamUid"]}/`)).toBe(true);
        expect(outputs["botUid"]!.startsWith(`${outputs["subUid"]}/`)).toBe(true);
      },
    },
    {
      name: "pulumi preview -v=9 --logtostderr does not print a token given as PLATFORM_TOKEN",
      command: null,
      check: async ({ cli, emu }) => {
        const r = await cli.run(["preview", "-v=9", "--logtostderr"]);
        expect(r.code, r.stderr.slice(-2000)).toBe(0);
        expect(r.stderr.length).toBeGreaterThan(10_000); // the verbose log did run
        expect(r.stdout + r.stderr).not.toContain(emu.token);
      },
    },
    {
      name: "a description change reaches the API as one PATCH with updateMask=description, and nothing else",
      config: { description: "second" },
      // Checked on the up's own steps (a scalar edit: the plan a preview would show, no unknowns to differ).
      summary: { update: 1, create: 0, replace: 0, delete: 0 },
      changes: ["update team description"],
      writes: ({ outputs }) => [`PATCH /iam/v2beta1/groups/${outputs["teamUid"]}?updateMask=description`],
      check: async ({ emu, outputs }) => {
        expect((await raw(emu, "GET", `/iam/v2beta1/groups/${outputs["teamUid"]}`)).body.description).toBe("second");
      },
    },
    {
      name: "a bad name fails the preview naming the field and the rule, before any API call",
      config: { teamName: "Bad Name!" },
      restoreConfig: true,
      command: "preview",
      fails: true,
      writes: [],
      check: (_t, preview) => {
        const failure = preview!.diagnostics.find((d) => d.severity === "error" && d.urn?.endsWith("::team"));
        expect(failure?.message).toMatch(/name.*"Bad Name!" must match \^\[a-z0-9 \._-\]\{1,\}\$/);
      },
    },
    {
      name: "keeps state small and free of credentials: the serialized provider is only the shim",
      command: null,
      check: async ({ cli, emu, backend }) => {
        const state = await cli.exportState();
        const sizes: Record<string, number> = {};
        for (const r of state.deployment.resources ?? []) {
          const p = (r["outputs"] as Record<string, unknown> | undefined)?.["__provider"];
          if (typeof p === "string") {
            sizes[r["type"] as string] = p.length;
            expect(p).toContain('require("platform-pulumi/runtime")');
          }
        }
        expect(Object.keys(sizes).sort()).toEqual([
          "pulumi-nodejs:dynamic/platform:Group",
          "pulumi-nodejs:dynamic/platform:Identity",
          "pulumi-nodejs:dynamic/platform:RoleBinding",
        ]);
        console.log(`serialized __provider bytes by type: ${JSON.stringify(sizes)}`);
        expect(Math.max(...Object.values(sizes))).toBeLessThanOrEqual(1024);
        expect(allText(backend)).not.toContain(emu.token);
      },
    },
  ],
});

stepTest("a program through the real Pulumi CLI (token from secret stack config)", {
  program: "basic",
  stack: "config-token",
  timeoutMs: 180_000,
  // No PLATFORM_TOKEN in the environment: the provider must get it from its configure request.
  env: (emu) => ({ PLATFORM_API_URL: emu.url, PLATFORM_ORG_UID: emu.orgUid, PLATFORM_TOKEN: "" }),
  setup: async ({ cli, emu }) => {
    await cli.ok(["config", "set", "--secret", "platform:token", emu.token]);
  },
  steps: [
    // docs/configuration.md "Where a token ends up": the engine's own verbose log prints the default provider's inputs, secret
    // stack config included. That is Pulumi's logging, not this package's; docs/configuration.md says it, and this shows it.
    {
      name: "pulumi preview -v=9 --logtostderr prints the secret config token in plain text (Pulumi's logging)",
      command: null,
      check: async ({ cli, emu }) => {
        const r = await cli.run(["preview", "-v=9", "--logtostderr"]);
        expect(r.code, r.stderr.slice(-2000)).toBe(0);
        expect(r.stdout + r.stderr).toContain(emu.token);
      },
    },
    { name: "creates with the token from config, and refresh and preview then find no changes" },
  ],
  checkDestroy: ({ cwd, backend, emu }) => {
    const stackFile = readFileSync(path.join(cwd, "Pulumi.config-token.yaml"), "utf8");
    expect(stackFile).toContain("secure:");
    expect(stackFile + allText(backend)).not.toContain(emu.token);
  },
});
