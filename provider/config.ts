/**
 * Provider settings: where the API is and how to authenticate.
 *
 * Each setting is read from stack config first, then from the environment:
 *
 * | setting    | stack config          | environment            | default    |
 * |------------|-----------------------|------------------------|------------|
 * | apiUrl     | `platform:apiUrl`     | `PLATFORM_API_URL`     | (required) |
 * | token      | `platform:token` (secret) | `PLATFORM_TOKEN`   | (required) |
 * | orgUid     | `platform:orgUid`     | `PLATFORM_ORG_UID`     | none       |
 * | apiVersion | `platform:apiVersion` | `PLATFORM_API_VERSION` | `v2beta1`  |
 *
 * The token is read where it is used (the provider process, or the program for lookups) and never stored in a
 * resource's inputs, outputs or serialized provider, so it never reaches Pulumi state.
 */

/** Resolved settings. */
export interface Settings {
  /** Base URL of the API, without a trailing slash. */
  apiUrl: string;
  /** API bearer token. Never log or persist it. */
  token: string;
  /** The org's root group uid, if configured. */
  orgUid: string | undefined;
  /** Version path segment, `v2beta1` (default) or `v2`. */
  apiVersion: string;
}

/** Reads a fully qualified config key such as `platform:apiUrl`; returns undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** Config namespace of this package's settings. */
export const CONFIG_NAMESPACE = "platform";

/** Raised when a required setting is missing or malformed; the message names the config key and env var. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

function pick(lookup: ConfigLookup, env: NodeJS.ProcessEnv, key: string, envName: string): string | undefined {
  const v = lookup(`${CONFIG_NAMESPACE}:${key}`) ?? env[envName];
  return v === undefined || v === "" ? undefined : v;
}

/**
 * Resolves the settings from stack config (via `lookup`) and the environment.
 * @throws SettingsError when apiUrl or token is missing, apiUrl is not http(s), or apiVersion is not `v<N>…`.
 */
export function resolveSettings(lookup: ConfigLookup, env: NodeJS.ProcessEnv = process.env): Settings {
  const apiUrl = pick(lookup, env, "apiUrl", "PLATFORM_API_URL");
  const token = pick(lookup, env, "token", "PLATFORM_TOKEN");
  const apiVersion = pick(lookup, env, "apiVersion", "PLATFORM_API_VERSION") ?? "v2beta1";
  if (!apiUrl) {
    throw new SettingsError("the Platform API URL is not set: set stack config `platform:apiUrl` or the PLATFORM_API_URL environment variable");
  }
  if (!/^https?:\/\/[^/\s]+/.test(apiUrl)) {
    throw new SettingsError(`platform:apiUrl must be an http(s) URL such as https://api.example.dev, got "${apiUrl}"`);
  }
  if (!token) {
    throw new SettingsError(
      "no Platform API token: set the secret stack config `platform:token` (pulumi config set --secret platform:token ...) or the PLATFORM_TOKEN environment variable",
    );
  }
  if (!/^v\d+[a-z0-9]*$/.test(apiVersion)) {
    throw new SettingsError(`platform:apiVersion must look like v2beta1 or v2, got "${apiVersion}"`);
  }
  return { apiUrl: apiUrl.replace(/\/+$/, ""), token, orgUid: pick(lookup, env, "orgUid", "PLATFORM_ORG_UID"), apiVersion };
}
