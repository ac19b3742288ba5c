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

/** The npm command that installs {@link SERVER_DEPENDENCIES}, as the error of {@link assertServerDependencies} names it. */
export const INSTALL_COMMAND = `npm install --save-dev ${Object.entries(SERVER_DEPENDENCIES)
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
