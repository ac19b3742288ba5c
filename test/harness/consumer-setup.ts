/**
 * globalSetup of the consumer project (vitest.config.mts; docs/testing.md, "The consumer tier"): what its files share,
 * made once before any of them starts, so the project's two workers never make it at the same time:
 *
 * - the build check ({@link buildSetup}: a dist/ older than its sources is refused);
 * - each toolchain's node binary (`toolchainNodeBin`: scripts/ensure-node fetches a release line this machine does
 *   not have; two fetches of one release at once would replace each other's binary);
 * - the packed tarball ({@link packedTarball}: once per build; the files then find it).
 *
 * @throws Error from the build check, a failed node fetch or a failed pack, before any consumer file runs.
 */
import { TOOLCHAINS, toolchainNodeBin } from "../consumer/toolchain";
import { buildSetup } from "./global-setup";
import { packedTarball } from "./tarball";

export default async function setup(): Promise<void> {
  buildSetup();
  for (const tc of TOOLCHAINS) await toolchainNodeBin(tc);
  await packedTarball();
}
