/**
 * The consumer tier's native provider plugin from the packed package (docs/native.md; docs/testing.md, "The consumer
 * tier"): each language's program once (test/consumer/languages.ts, the steps of test/harness/nativeOrg.ts). The
 * oldest toolchain runs the Python (test/programs/native-python) and Go (test/programs/native-go) programs on one
 * plain `npm install <tarball>` (what docs/native.md tells a user of another language); the newest runs the YAML
 * program (test/programs/native-yaml) on a plain install of its own (the newest @pulumi/pulumi, as a plain install
 * resolves it), so the plugin serves a whole program on both Node.js majors.
 *
 * A file of its own beside consumer.test.ts, so the consumer project's two workers run the TypeScript projects and
 * these programs at the same time (vitest.config.mts). The tarball and the toolchains' node binaries are made once,
 * before either file starts, by the project's globalSetup (test/harness/consumer-setup.ts). The language hosts come
 * from scripts/ensure-language-hosts (`npm test` runs it); where one cannot be made (no Go or python3) its program's
 * steps skip, saying so. The work folder is removed when every step passed, and kept (its path printed) otherwise.
 */
import * as path from "node:path";
import { GO_PROGRAM, PYTHON_PROGRAM, YAML_PROGRAM } from "../harness/nativeOrg";
import { POLICY_PEER, describeNativePrograms, installTarball } from "./languages";
import { TOOLCHAINS, type Toolchain } from "./toolchain";
import { useConsumerWork } from "./work";

const { work, tarball, keep } = useConsumerWork("platform-pulumi-native-");

/** One plain `npm install <tarball> [extra]` on `tc` in `<work>/native-node<major>`, kept for inspection when it fails. */
async function plainInstall(tc: Toolchain, extra: readonly string[] = []): Promise<{ nodeModules: string; ms: number }> {
  const dir = path.join(work, `native-node${tc.nodeMajor}`);
  try {
    return await installTarball(tc, dir, tarball(), extra);
  } catch (err) {
    keep(dir);
    throw err;
  }
}

const [oldest, newest] = TOOLCHAINS as readonly [Toolchain, Toolchain];
describeNativePrograms({
  tc: oldest,
  programs: [PYTHON_PROGRAM, GO_PROGRAM],
  work,
  install: "one npm install <tarball>",
  nodeModules: () => plainInstall(oldest),
  onFail: keep,
});
describeNativePrograms({
  tc: newest,
  programs: [YAML_PROGRAM],
  work,
  // @pulumi/policy too: the YAML stack's steps run every job of the installed bin, the gate's policy pack included.
  install: "one npm install <tarball> @pulumi/policy",
  nodeModules: () => plainInstall(newest, [POLICY_PEER]),
  onFail: keep,
});
