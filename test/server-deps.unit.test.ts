/**
 * The emulator's server dependencies are optional peer dependencies (README "Libraries", docs/emulator.md "The emulator's own
 * dependencies"): the error a project without them gets names the packages and the npm command, and the ranges
 * the command installs are the ones package.json declares. The consumer tier (test/consumer) runs the same check
 * from a packed install with nothing but the package.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { assertServerDependencies, INSTALL_COMMAND, MissingServerDependencyError, PINNED_WITH_SERVER, SERVER_DEPENDENCIES } from "../emulator/server-deps";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { readDocs } from "./harness/docs";

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;

describe("the emulator's optional server dependencies", () => {
  it("are optional peer dependencies with the ranges the install hint names, and not dependencies", () => {
    for (const [name, range] of Object.entries(SERVER_DEPENDENCIES)) {
      expect(pkg["peerDependencies"]?.[name], name).toBe(range);
      expect(pkg["peerDependenciesMeta"]?.[name], name).toEqual({ optional: true });
      expect(pkg["dependencies"]?.[name], name).toBeUndefined();
      // This repository's own emulator (npm start, the tests, CI) gets them from a plain `npm ci`.
      expect(pkg["devDependencies"]?.[name], name).toBe(range);
    }
    for (const [name, range] of Object.entries(PINNED_WITH_SERVER)) {
      expect(pkg["devDependencies"]?.[name], name).toBe(range);
      expect(pkg["dependencies"]?.[name], name).toBeUndefined();
      expect(pkg["peerDependencies"]?.[name], name).toBeUndefined();
    }
    expect(INSTALL_COMMAND).toBe("npm install --save-dev fastify@^5.12.8 light-my-request@~6.6.0");
  });

  it("resolve here, and a missing one is named with the npm command that installs it", () => {
    expect(() => assertServerDependencies()).not.toThrow();
    const missing = (id: string): string => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
    };
    let thrown: unknown;
    try {
      assertServerDependencies(missing);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MissingServerDependencyError);
    expect((thrown as MissingServerDependencyError).missing).toEqual(["fastify"]);
    expect((thrown as Error).message).toBe(
      "the emulator needs fastify, which platform-pulumi lists as optional peer dependencies so that projects that do not run the emulator " +
        "do not install them: run `npm install --save-dev fastify@^5.12.8 light-my-request@~6.6.0` in your project, then try again",
    );
  });

  it("the README and docs/ name the same npm command wherever they tell how to add the emulator's server", () => {
    const readme = readDocs();
    const named = [...readme.matchAll(/npm install --save-dev fastify[^\s`;]*(?: [a-z-]+@[^\s`;]+)*/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThanOrEqual(3);
    for (const command of named) expect(command).toBe(INSTALL_COMMAND);
  });
});
