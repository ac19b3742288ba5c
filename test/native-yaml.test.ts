/**
 * A Pulumi YAML program (test/programs/native-yaml) on the native provider plugin (`plugin/pulumi-resource-platform`,
 * loaded by `plugins: providers:` in its Pulumi.yaml), through the real Pulumi CLI and Pulumi's YAML language host
 * (`pulumi-language-yaml`, built by scripts/ensure-language-yaml), against the emulator: a group under a group, an
 * identity with `claimMatch`, and a role binding to a built-in role found by `fn::invoke` of `platform:iam:getRole`
 * go up and settle; a one-field edit is exactly one masked PATCH; an edit made outside Pulumi shows in
 * `preview --refresh`; `pulumi import` of a group made outside Pulumi writes YAML that, added to the program,
 * previews no change; destroy leaves the API as it was (docs/native.md "YAML"). The steps are
 * test/harness/nativeOrg.ts's {@link YAML_PROGRAM}, which the consumer tier also runs from the packed package.
 *
 * Skipped, saying so, only on a machine with no Go toolchain to build the language host.
 */
import { languageTest, YAML_PROGRAM } from "./harness/nativeOrg";

languageTest({ title: "the native provider plugin from a Pulumi YAML program", ...YAML_PROGRAM });
