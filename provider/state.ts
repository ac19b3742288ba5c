/**
 * The provider process's one API client.
 *
 * The dynamic-provider plugin calls `configure({config})` once per resource type with the whole stack config
 * (namespaces kept; pulumi/pulumi#17229); every type shares this module, so the client and its keep-alive
 * connections are created once per process, lazily, on first use.
 */
import { PlatformClient } from "./client/client";
import { resolveSettings, type ConfigLookup, type Settings } from "./config";

let lookup: ConfigLookup = () => undefined;
let client: PlatformClient | undefined;
let settings: Settings | undefined;

/**
 * Records where settings come from (the provider's `configure` request). Later calls replace earlier ones; an
 * existing client is kept when the resolved settings are unchanged.
 */
export function setConfigLookup(next: ConfigLookup): void {
  lookup = next;
}

/**
 * The client for the current settings, created on first use.
 * @throws SettingsError when the API URL or token is missing (the message names the config key and env var).
 */
export function getClient(): PlatformClient {
  const next = resolveSettings(lookup);
  if (!client || !settings || next.apiUrl !== settings.apiUrl || next.token !== settings.token || next.apiVersion !== settings.apiVersion) {
    void client?.close();
    client = new PlatformClient({ apiUrl: next.apiUrl, token: next.token, apiVersion: next.apiVersion });
    settings = next;
  }
  return client;
}
