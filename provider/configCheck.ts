/**
 * The program's check of its `platform:*` stack config keys: a misspelled key (`platform:apiurl`,
 * `platform:retryMaxAttemps`) would otherwise be ignored in silence, so the first resource or lookup of a program
 * warns once about every key this package does not read, naming the nearest known one (see `config.ts`).
 */
import * as pulumi from "@pulumi/pulumi";
import { describeUnknownConfigKey, unknownConfigKeys } from "./config";

let warned = false;

/**
 * Warns (`pulumi.log.warn`, shown under the stack's diagnostics) about each unknown `platform:*` key of the
 * running program's stack config, once per process; later calls do nothing. Outside a Pulumi program (no config)
 * it does nothing. Never throws.
 */
export function warnUnknownConfigKeys(): void {
  if (warned) return;
  warned = true;
  let keys: string[];
  try {
    keys = Object.keys(pulumi.runtime.allConfig());
  } catch {
    return;
  }
  for (const u of unknownConfigKeys(keys)) void pulumi.log.warn(describeUnknownConfigKey(u));
}
