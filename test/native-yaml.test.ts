/**
 * A Pulumi YAML program (test/programs/native-yaml) on the native provider plugin (`plugin/pulumi-resource-platform`,
 * loaded by `plugins: providers:` in its Pulumi.yaml), through the real Pulumi CLI and Pulumi's YAML language host
 * (`pulumi-language-yaml`, built by scripts/ensure-language-yaml), against the emulator: a group under a group, an
 * identity with `claimMatch`, and a role binding to a built-in role found by `fn::invoke` of `platform:iam:getRole`
 * go up and settle; a one-field edit is exactly one masked PATCH; an edit made outside Pulumi shows in
 * `preview --refresh`; `pulumi import` of a group made outside Pulumi writes YAML that, added to the program,
 * previews no change; destroy leaves the API as it was (docs/native.md "YAML").
 *
 * Skipped, saying so, only on a machine with no Go toolchain to build the language host.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { parse, stringify } from "yaml";
import { PulumiCli, REPO_ROOT } from "../scripts/lib/pulumi";
import { languageTest } from "./harness/nativeOrg";
import { mkGroup } from "./helpers";

const program = path.join(REPO_ROOT, "test", "programs", "native-yaml");
const STACK = "native-yaml";
languageTest({
  title: "the native provider plugin from a Pulumi YAML program",
  language: "YAML",
  // Built (or found) while the file is collected: the first build takes about two minutes, later runs milliseconds.
  script: "ensure-language-yaml",
  program: "native-yaml",
  host: (lines) => ({ dir: lines[lines.length - 1] ?? "" }),
  steps: [
    {
      name: "pulumi import adopts a group made outside Pulumi by its uid with no write, and its generated YAML previews no change",
      command: null,
      check: async ({ emu, cli, writes, backend }) => {
        const legacy = await mkGroup(emu, emu.orgUid, "yaml-legacy", "made outside");
        const work = mkdtempSync(path.join(tmpdir(), "native-yaml-import-"));
        try {
          const since = emu.requests.length;
          const code = path.join(work, "legacy.yaml");
          const r = await cli.run(["import", "platform:iam:Group", "legacy", legacy.uid, "--yes", "--out", code]);
          expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
          expect(writes(since)).toEqual([]);
          const generated = parse(readFileSync(code, "utf8")) as { resources: Record<string, unknown> };
          expect(generated.resources["legacy"]).toMatchObject({
            type: "platform:iam:Group",
            properties: { name: "yaml-legacy", description: "made outside", parentUid: emu.orgUid },
          });
          // The program with the generated code added, in a copy whose plugin path is absolute.
          const project = parse(readFileSync(path.join(program, "Pulumi.yaml"), "utf8")) as Record<string, any>;
          project["plugins"].providers[0].path = path.join(REPO_ROOT, "plugin");
          project["resources"] = { ...project["resources"], ...generated.resources };
          writeFileSync(path.join(work, "Pulumi.yaml"), stringify(project));
          copyFileSync(path.join(program, `Pulumi.${STACK}.yaml`), path.join(work, `Pulumi.${STACK}.yaml`));
          const copy = new PulumiCli({ cwd: work, backendDir: backend, stack: STACK, env: cli.opts.env ?? {} });
          const preview = await copy.run(["preview", "--expect-no-changes"]);
          expect(preview.code, `${preview.stdout}\n${preview.stderr}`).toBe(0);
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
        // Imported resources are protected; unprotected, the destroy below removes it with the rest.
        const imported = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["id"] === legacy.uid);
        expect(imported?.["type"]).toBe("platform:iam:Group");
        await cli.ok(["state", "unprotect", imported?.["urn"] as string, "--yes"]);
      },
    },
  ],
});
