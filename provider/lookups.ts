/**
 * Read-only lookups for Pulumi programs. Dynamic providers have no `invoke` (FACTS.md), so these are plain
 * async functions that call the API from the program process, each with an `...Output` twin that takes
 * `Input`s and returns an `Output`.
 *
 * Settings come from the same stack config and environment as the provider (see `config.ts`).
 */
import * as pulumi from "@pulumi/pulumi";
import { PlatformClient } from "./client/client";
import type { Role } from "./client/schemas";
import { resolveSettings } from "./config";

let programClient: PlatformClient | undefined;

/**
 * The program process's client (created on first use from stack config and environment).
 * @throws SettingsError when the API URL or token is missing.
 */
export function programClientFromConfig(): PlatformClient {
  if (!programClient) {
    const s = resolveSettings((key) => pulumi.runtime.getConfig(key));
    programClient = new PlatformClient({ apiUrl: s.apiUrl, token: s.token, apiVersion: s.apiVersion });
  }
  return programClient;
}

/** Arguments of {@link getRoles}. */
export interface GetRolesArgs {
  /** Exact role name, e.g. `viewer`, `editor`, `owner`, `registry.pull`. Default: every role. */
  name?: string;
  /** Stop after this many roles; default: all. */
  limit?: number;
}

/**
 * Lists roles (built-in and custom), walking pages lazily.
 * @returns roles in `uid` order; empty when none match.
 * @throws ApiError from the API; SettingsError when not configured.
 * @example const [editor] = await getRoles({ name: "editor" });
 */
export async function getRoles(args: GetRolesArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Role[]> {
  return client.roles.list(args.name === undefined ? {} : { name: args.name }).collect(args.limit);
}

/** {@link getRoles} with `Input` arguments and an `Output` result. */
export function getRolesOutput(args: pulumi.Input<{ name?: pulumi.Input<string>; limit?: pulumi.Input<number> }> = {}): pulumi.Output<Role[]> {
  return pulumi.output(args).apply((a) => getRoles({ ...(a.name !== undefined ? { name: a.name } : {}), ...(a.limit !== undefined ? { limit: a.limit } : {}) }));
}
