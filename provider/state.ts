/**
 * The provider process's settings and client, as module functions: each delegates to the process's one provider
 * context ({@link processContext}, `context.ts`), so commands, `recover`, lookups' callers and tests reach the same
 * client and settings as the runtime's providers. Code that has a context uses it instead.
 */
import type { PlatformClient } from "./client/client";
import type { ConfigLookup, Settings } from "./config";
import { processContext } from "./engine/context";

/** Records where the process context's settings come from (the provider's `configure` request). Later calls replace earlier ones. */
export function setConfigLookup(next: ConfigLookup): void {
  processContext().configure(next);
}

/**
 * The resolved settings of the process context (from the configure request's stack config, then the environment).
 * @throws SettingsError when the API URL or credentials are missing or malformed.
 */
export function currentSettings(): Settings {
  return processContext().settings();
}

/**
 * The process context's client for the current settings, created on first use and kept while the settings stay
 * the same.
 * @throws SettingsError when the API URL or credentials are missing (the message names the config keys and
 *   environment variables).
 */
export function getClient(): PlatformClient {
  return processContext().client();
}

/**
 * {@link getClient} and the settings it was chosen by, resolved once for both. Same errors as {@link getClient}.
 */
export function clientAndSettings(): { client: PlatformClient; settings: Settings } {
  return processContext().clientAndSettings();
}
