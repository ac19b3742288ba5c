/**
 * The provider context: what a provider keeps between calls (`docs/architecture.md`, "The provider context").
 *
 * The dynamic-provider plugin calls `configure({config})` once per resource type with the whole stack config
 * (namespaces kept; pulumi/pulumi#17229); every type's provider is bound to one context, so the client, its
 * keep-alive connections and its cached API token are created once per context, lazily, on first use, and the
 * creates of every kind share one {@link CreateLedger} (a new group's window, the objects created, identical
 * creates' turns). The process has one context, {@link processContext}; a test or an embedding makes its own
 * with `new ProviderContext()` and a kind's `providerFor(ctx)`.
 */
import type { PlatformClient } from "./client/client";
import { resolveSettings, type ConfigLookup, type Settings } from "./config";
import { clientFromSettings } from "./clientFactory";
import { CreateLedger } from "./resources/lifecycle";

/** One provider's configuration, client and create ledger. */
export class ProviderContext {
  /** The ledger of this context's creates: consistency windows, claimed objects, identical creates' turns. */
  readonly creates = new CreateLedger();
  private lookup: ConfigLookup = () => undefined;
  private current: PlatformClient | undefined;
  private key: string | undefined;

  /** Records where settings come from (the provider's `configure` request). Later calls replace earlier ones. */
  configure(lookup: ConfigLookup): void {
    this.lookup = lookup;
  }

  /**
   * The resolved settings (from the configure request's stack config, then the environment).
   * @throws SettingsError when the API URL or credentials are missing or malformed (the message names the config
   *   keys and environment variables).
   */
  settings(): Settings {
    return resolveSettings(this.lookup);
  }

  /**
   * The client for the current settings, created on first use and kept while the settings stay the same.
   * @throws SettingsError when the API URL or credentials are missing (the message names the config keys and
   *   environment variables).
   */
  client(): PlatformClient {
    return this.clientAndSettings().client;
  }

  /**
   * {@link ProviderContext.client} and the settings it was chosen by, resolved once for both (a `read` needs the
   * client and the `readAhead` setting on every call). A change of settings closes the old client and makes a new
   * one. Same errors as {@link ProviderContext.client}.
   */
  clientAndSettings(): { client: PlatformClient; settings: Settings } {
    const s = this.settings();
    const next = JSON.stringify([s.apiUrl, s.apiVersion, s.authUrl, s.token, s.identity, s.identityToken, s.identityTokenFile, s.retry]);
    if (!this.current || next !== this.key) {
      void this.current?.close();
      this.current = clientFromSettings(s);
      this.key = next;
    }
    return { client: this.current, settings: s };
  }

  /** Closes the client (its connections), if one was made; the next call makes a new one. */
  async close(): Promise<void> {
    const c = this.current;
    this.current = undefined;
    this.key = undefined;
    await c?.close();
  }
}

let processCtx: ProviderContext | undefined;

/**
 * The process's one provider context: the runtime's `configure` configures it, every kind's provider of the
 * runtime (`runtime.ts`) and the default `xProvider` exports are bound to it, and `state.ts` delegates to it.
 * Made on first use.
 */
export function processContext(): ProviderContext {
  return (processCtx ??= new ProviderContext());
}
