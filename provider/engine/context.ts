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
import type { PlatformClient } from "../client/client";
import { resolveSettings, settingsEnvKey, type ConfigLookup, type Settings } from "../config";
import { clientFromSettings } from "../clientFactory";
import { CreateLedger } from "./lifecycle";
import type { GroupChildren } from "./rows";

/** The kind registry's account of what a group holds, once the registry has loaded ({@link provideGroupChildren}). */
let groupChildrenSource: (() => GroupChildren) | undefined;

/**
 * Called once by the kind registry (`kinds/registry.ts`) as it loads: how a group's delete lists the kinds a
 * group holds. The registry sits above every kind, and a kind's provider gets what it needs of the others through
 * its context, so no module below the registry imports it (docs/architecture.md, "Layers").
 */
export function provideGroupChildren(source: () => GroupChildren): void {
  groupChildrenSource = source;
}

/** One provider's configuration, client and create ledger. */
export class ProviderContext {
  /** The ledger of this context's creates: consistency windows, claimed objects, identical creates' turns. */
  readonly creates = new CreateLedger();
  private lookup: ConfigLookup = () => undefined;
  private stable = false;
  private resolved: { env: string; settings: Settings } | undefined;
  private current: PlatformClient | undefined;
  private key: string | undefined;
  /** The settings object {@link key} was last computed from. */
  private keySettings: Settings | undefined;

  /**
   * Records where settings come from (the provider's `configure` request). Later calls replace earlier ones.
   * @param stable the lookup answers the same for a key every time (a configure request's config, fixed for the
   *   plugin's life): the settings are then resolved once and kept until the environment's `PLATFORM_*` values
   *   change ({@link settingsEnvKey}). Default false: resolved on every call (a lookup over a program's or a test's
   *   changing config).
   */
  configure(lookup: ConfigLookup, stable = false): void {
    this.lookup = lookup;
    this.stable = stable;
    this.resolved = undefined;
  }

  /**
   * The resolved settings (from the configure request's stack config, then the environment).
   * @throws SettingsError when the API URL or credentials are missing or malformed (the message names the config
   *   keys and environment variables).
   */
  settings(): Settings {
    if (!this.stable) return resolveSettings(this.lookup);
    // A refresh reads every resource, and each read needs the settings: resolving them (config lookups, 15
    // environment reads, checks) was about 2.5% of the plugin's CPU in a 750-resource refresh (docs/performance.md).
    const env = settingsEnvKey();
    if (this.resolved?.env === env) return this.resolved.settings;
    const settings = resolveSettings(this.lookup);
    this.resolved = { env, settings };
    return settings;
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
    // Kept settings are the same object: the client they chose is still the one.
    if (this.current && s === this.keySettings) return { client: this.current, settings: s };
    this.keySettings = s;
    const next = JSON.stringify([s.apiUrl, s.apiVersion, s.authUrl, s.token, s.identity, s.identityToken, s.identityTokenFile, s.retry]);
    if (!this.current || next !== this.key) {
      // The old client's connections are closed in the background; a failure to close them is no failure of
      // the operation that asked for the new client (and must not be an unhandled rejection in the plugin).
      void this.current?.close().catch(() => undefined);
      this.current = clientFromSettings(s);
      this.key = next;
    }
    return { client: this.current, settings: s };
  }

  /**
   * The kinds a group holds, with their listers (the registry's `groupChildren()`): what a group's delete waits on
   * and names when it gives up.
   * @throws Error when the kind registry was never loaded in this process (every entry point loads it: the
   *   runtime, the package's index, the commands).
   */
  groupChildren(): GroupChildren {
    if (!groupChildrenSource) throw new Error("the kind registry (kinds/registry.ts) is not loaded, so a group's delete cannot list what the group holds");
    return groupChildrenSource();
  }

  /** Closes the client (its connections), if one was made; the next call makes a new one. */
  async close(): Promise<void> {
    const c = this.current;
    this.current = undefined;
    this.key = undefined;
    this.keySettings = undefined;
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
