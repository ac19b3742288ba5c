/**
 * A Python program (test/programs/native-python, on the generated Python SDK: sdk/python, `platform_pulumi`,
 * installed into the venv by scripts/ensure-language-python) on the native provider plugin
 * (`plugin/pulumi-resource-platform`, loaded by `plugins: providers:` in its Pulumi.yaml), through the real Pulumi
 * CLI and Pulumi's Python language host (`pulumi-language-python` with `PULUMI_PYTHON_CMD` a venv holding `pulumi`
 * 3.248.0 and the SDK, made by scripts/ensure-language-python), against the emulator: the same org as the YAML
 * test goes up and settles, its viewer role found by the SDK's lookup `iam.get_role`; a one-field edit is exactly
 * one masked PATCH; an edit made outside Pulumi shows in `preview --refresh`; `pulumi import
 * --generate-code=false` adopts a group made outside Pulumi (this host cannot generate code); destroy leaves the
 * API as it was (docs/native.md "Python").
 *
 * Skipped, saying so, only on a machine with no Go toolchain or no python3 to make the language host.
 */
import { expect } from "vitest";
import { languageTest } from "./harness/nativeOrg";
import { mkGroup } from "./helpers";

languageTest({
  title: "the native provider plugin from a Python program",
  language: "Python",
  // Made (or found) while the file is collected: the first time about a minute and a half, later milliseconds.
  script: "ensure-language-python",
  program: "native-python",
  host: (lines) => ({ dir: lines[lines.length - 2] ?? "", env: { PULUMI_PYTHON_CMD: lines[lines.length - 1] ?? "" } }),
  steps: [
    {
      name: "pulumi import --generate-code=false adopts a group made outside Pulumi by its uid, with no write",
      command: null,
      check: async ({ emu, cli, writes }) => {
        const legacy = await mkGroup(emu, emu.orgUid, "py-legacy", "made outside");
        const since = emu.requests.length;
        const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--generate-code=false"]);
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect(writes(since)).toEqual([]);
        const imported = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
        expect(imported?.["type"]).toBe("platform:iam:Group");
        expect(imported?.["outputs"]).toMatchObject({ name: "py-legacy", description: "made outside", parentUid: emu.orgUid });
        // Imported resources are protected; unprotected, the destroy below removes it with the rest.
        await cli.ok(["state", "unprotect", imported?.["urn"] as string, "--yes"]);
      },
    },
  ],
});
