/**
 * A Python program (test/programs/native-python, on the generated Python SDK: sdk/python, `platform_pulumi`,
 * installed into the venv by scripts/ensure-language-python) on the native provider plugin
 * (`plugin/pulumi-resource-platform`, loaded by `plugins: providers:` in its Pulumi.yaml), through the real Pulumi
 * CLI and Pulumi's Python language host (`pulumi-language-python` with `PULUMI_PYTHON_CMD` a venv holding `pulumi`
 * 3.248.0 and the SDK, made by scripts/ensure-language-python), against the emulator: the same org as the YAML
 * test goes up and settles, its viewer role found by the SDK's lookup `iam.get_role`; a one-field edit is exactly
 * one masked PATCH; an edit made outside Pulumi shows in `preview --refresh`; `pulumi import
 * --generate-code=false` adopts a group made outside Pulumi (this host cannot generate code); destroy leaves the
 * API as it was (docs/native.md "Python"). The steps are test/harness/nativeOrg.ts's {@link PYTHON_PROGRAM},
 * which the consumer tier also runs from the packed package.
 *
 * Skipped, saying so, only on a machine with no Go toolchain or no python3 to make the language host.
 */
import { languageTest, PYTHON_PROGRAM } from "./harness/nativeOrg";

languageTest({ title: "the native provider plugin from a Python program", ...PYTHON_PROGRAM });
