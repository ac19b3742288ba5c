/**
 * A Go program (test/programs/native-go) on the native provider plugin (`plugin/pulumi-resource-platform`, loaded
 * by `plugins: providers:` in its Pulumi.yaml) through the generated Go SDK (sdk/go/platform, by its go.mod's
 * `replace`), the real Pulumi CLI and Pulumi's Go language host (`pulumi-language-go` from sdk/v3 v3.62.0, made by
 * scripts/ensure-language-go), against the emulator: the same org as the YAML and Python tests goes up and
 * settles, its viewer role found by the SDK's lookup `iam.LookupRole` (platform:iam:getRole); a one-field edit is
 * exactly one masked PATCH; an edit made outside Pulumi shows in `preview --refresh`; `pulumi import
 * --generate-code=false` adopts a group made outside Pulumi; destroy leaves the API as it was (docs/native.md "Go").
 *
 * The host builds the program with the `go` on PATH; its modules (sdk/v3 v3.248.0 and the rest, go.sum committed)
 * come from Go's module cache or the module proxy. Skipped, saying so, only on a machine with no Go toolchain.
 */
import { expect } from "vitest";
import { languageTest } from "./harness/nativeOrg";
import { mkGroup } from "./helpers";

languageTest({
  title: "the native provider plugin from a Go program on the generated Go SDK",
  language: "Go",
  // Made (or found) while the file is collected: the first time under a minute, later milliseconds.
  script: "ensure-language-go",
  program: "native-go",
  // The checksum database does not know some modules through the reachable proxy: go.sum is committed (FACTS.md).
  host: (lines) => ({ dir: lines[lines.length - 1] ?? "", env: { GOSUMDB: "off" } }),
  steps: [
    {
      name: "pulumi import --generate-code=false adopts a group made outside Pulumi by its uid, with no write",
      command: null,
      check: async ({ emu, cli, writes }) => {
        const legacy = await mkGroup(emu, emu.orgUid, "go-legacy", "made outside");
        const since = emu.requests.length;
        const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--generate-code=false"]);
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect(writes(since)).toEqual([]);
        const imported = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
        expect(imported?.["type"]).toBe("platform:iam:Group");
        expect(imported?.["outputs"]).toMatchObject({ name: "go-legacy", description: "made outside", parentUid: emu.orgUid });
        // Imported resources are protected; unprotected, the destroy below removes it with the rest.
        await cli.ok(["state", "unprotect", imported?.["urn"] as string, "--yes"]);
      },
    },
  ],
});
