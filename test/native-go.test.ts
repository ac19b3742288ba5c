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
 * come from Go's module cache or the module proxy. The steps are test/harness/nativeOrg.ts's {@link GO_PROGRAM},
 * which the consumer tier also runs from the packed package. Skipped, saying so, only on a machine with no Go toolchain.
 */
import { GO_PROGRAM, languageTest } from "./harness/nativeOrg";

languageTest({ title: "the native provider plugin from a Go program on the generated Go SDK", ...GO_PROGRAM });
