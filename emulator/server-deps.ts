/**
 * The emulator's server dependencies are optional peer dependencies of the package (README "Libraries", "The
 * emulator's own dependencies"): a Pulumi project that installs `platform-pulumi` and never starts the emulator
 * does not install an HTTP server framework. `platform-pulumi emulator` and `platform-pulumi/emulator` load this
 * module first, so a project without them gets one sentence naming the npm command instead of Node's
 * `Cannot find module 'fastify'` from deep inside the emulator.
 */

/**
 * The packages the emulator's server needs beyond the package's own dependencies, with the version ranges of the
 * package's `peerDependencies` (a unit test keeps the two the same).
 */
export const SERVER_DEPENDENCIES: Readonly<Record<string, string>> = { fastify: "^5.12.8" };

/**
 * Installed beside {@link SERVER_DEPENDENCIES} only to pin a version (this repository's devDependencies pin it
 * too): light-my-request 6.8, which fastify's `^6` range would otherwise pick, depends on cookie 2, which declares
 * Node >= 22, so an install on Node 20 warns `EBADENGINE`. Placed at the project's top, fastify's range dedupes
 * onto it. Not a peer dependency: a project that has fastify with a newer light-my-request would then fail to
 * install (`ERESOLVE`).
 */
export const PINNED_WITH_SERVER: Readonly<Record<string, string>> = { "light-my-request": "~6.6.0" };

/** The npm command that installs {@link SERVER_DEPENDENCIES}, as the error of {@link assertServerDependencies} names it. */
export const INSTALL_COMMAND = `npm install --save-dev ${Object.entries({ ...SERVER_DEPENDENCIES, ...PINNED_WITH_SERVER })
  .map(([name, range]) => `${name}@${range}`)
  .join(" ")}`;

/** Thrown when a server dependency of the emulator cannot be resolved; `missing` names the packages. */
export class MissingServerDependencyError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(
      `the emulator needs ${missing.join(", ")}, which platform-pulumi lists as optional peer dependencies so that ` +
        `projects that do not run the emulator do not install them: run \`${INSTALL_COMMAND}\` in your project, then try again`,
    );
    this.name = "MissingServerDependencyError";
  }
}

/**
 * Checks that every package of {@link SERVER_DEPENDENCIES} resolves from this module's folder (as the emulator's
 * own `require` calls would resolve it); `resolve` is replaceable for tests.
 * @throws MissingServerDependencyError naming the packages that do not resolve and the npm command that installs them.
 */
export function assertServerDependencies(resolve: (id: string) => string = require.resolve): void {
  const missing = Object.keys(SERVER_DEPENDENCIES).filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) throw new MissingServerDependencyError(missing);
}

assertServerDependencies();
