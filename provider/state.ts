/**
 * The provider process's one API client.
 *
 * The dynamic-provider plugin calls `configure({config})` once per resource type with the whole stack config
 * (namespaces kept; pulumi/pulumi#17229); every type shares this module, so the client, its keep-alive
 * connections and its cached API token are created once per process, lazily, on first use.
 */
import { PlatformClient } from "./client/client";
import { resolveSettings, type ConfigLookup, type Settings } from "./config";
import { clientFromSettings } from "./clientFactory";

let lookup: ConfigLookup = () => undefined;
let client: PlatformClient | undefined;
let key: string | undefined;

/** Records where settings come from (the provider's `configure` request). Later calls replace earlier ones. */
export function setConfigLookup(next: ConfigLookup): void {
  lookup = next;
}

/** The resolved settings (from the configure request's stack config, then the environment). */
export function currentSettings(): Settings {
  return resolveSettings(lookup);
}

/**
 * The client for the current settings, created on first use and kept while the settings stay the same.
 * @throws SettingsError when the API URL or credentials are missing (the message names the config keys and
 *   environment variables).
 */
export function getClient(): PlatformClient {
  return clientAndSettings().client;
}

/**
 * {@link getClient} and the settings it was chosen by, resolved once for both (a `read` needs the client and the
 * `readAhead` setting on every call). Same errors as {@link getClient}.
 */
export function clientAndSettings(): { client: PlatformClient; settings: Settings } {
  const s = currentSettings();
  const next = JSON.stringify([s.apiUrl, s.apiVersion, s.authUrl, s.token, s.identity, s.identityToken, s.identityTokenFile, s.retry]);
  if (!client || next !== key) {
    void client?.close();
    client = clientFromSettings(s);
    key = next;
  }
  return { client, settings: s };
}
