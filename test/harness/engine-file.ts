/**
 * Setup file of the engine and consumer projects (vitest.config.mts): names the running test file in
 * `PLATFORM_ENGINE_FILE`, which the processes it starts inherit, so the counting wrapper charges their engine runs
 * to it (test/harness/engine-runs.ts).
 */
import * as path from "node:path";
import { beforeAll, expect } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/pulumi";
import { FILE_VAR } from "./engine-runs";

beforeAll(() => {
  const file = expect.getState().testPath;
  if (file) process.env[FILE_VAR] = path.relative(REPO_ROOT, file);
});
