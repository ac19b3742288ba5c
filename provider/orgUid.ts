/**
 * The org's root group uid, as a program reads it: stack config `platform:orgUid`, else `PLATFORM_ORG_UID`
 * (README, "Configuration"). Read by this package itself, so a missing or misspelled key fails the program at once
 * with a message that names the key, the variable and the key it is near, rather than through Pulumi's
 * `Config.require`, which on Node 20 takes tens of seconds to be told (README, "When a program fails").
 */
import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, SettingsError, describeUnknownConfigKey, unknownConfigKeys } from "./config";

/** A root group uid: 40 lowercase hex characters, as `export --org` checks (a child's uid extends it, seed §2 "Common rules"). */
const ROOT_UID = /^[0-9a-f]{40}$/;

/**
 * The org's root group uid: stack config `platform:orgUid`, else the `PLATFORM_ORG_UID` environment variable
 * (an empty value counts as unset). Synchronous: call it at the top of a program, where a throw ends the update in
 * about the time the same program takes to succeed.
 * @param config the stack config of the running program (default: `pulumi.runtime.getConfig` and the keys of
 *   `pulumi.runtime.allConfig()`); outside a Pulumi program only the environment is read.
 * @param env the environment (default `process.env`).
 * @returns the uid, 40 lowercase hex characters.
 * @throws SettingsError (marked like every error of this package: printed as one line, no frames) when neither is
 *   set, naming both and, when the stack sets a `platform:*` key near `orgUid` (`platform:orgUID`), that key with
 *   "did you mean"; or when the value is not a root group uid, naming where it came from and the value.
 * @example
 * import { Group, orgUid } from "platform-pulumi";
 * new Group("team", { parentUid: orgUid(), name: "team" });
 */
export function orgUid(config?: { get(key: string): string | undefined; keys(): Iterable<string> }, env: NodeJS.ProcessEnv = process.env): string {
  const cfg = config ?? programConfig();
  const key = `${CONFIG_NAMESPACE}:orgUid`;
  const fromConfig = cfg.get(key);
  const value = fromConfig !== undefined && fromConfig !== "" ? fromConfig : env["PLATFORM_ORG_UID"] || undefined;
  if (value === undefined) {
    const near = unknownConfigKeys(cfg.keys()).filter((u) => u.suggestion === key);
    const hint = near.length > 0 ? ` (${near.map(describeUnknownConfigKey).join("; ")})` : "";
    throw new SettingsError(`the org's root group uid is not set: set stack config \`${key}\` (\`pulumi config set ${key} <root group uid>\`) or the PLATFORM_ORG_UID environment variable${hint}`);
  }
  if (!ROOT_UID.test(value)) {
    const from = fromConfig !== undefined && fromConfig !== "" ? `stack config \`${key}\`` : "PLATFORM_ORG_UID";
    throw new SettingsError(`${from} ${JSON.stringify(value)} is not allowed: the org's root group uid, 40 lowercase hex characters`);
  }
  return value;
}

/** The running program's stack config; empty outside a Pulumi program. */
function programConfig(): { get(key: string): string | undefined; keys(): Iterable<string> } {
  return {
    get: (key) => {
      try {
        return pulumi.runtime.getConfig(key);
      } catch {
        return undefined;
      }
    },
    keys: () => {
      try {
        return Object.keys(pulumi.runtime.allConfig());
      } catch {
        return [];
      }
    },
  };
}
