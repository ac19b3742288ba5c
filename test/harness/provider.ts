/**
 * The fixture of the tests that call the provider's methods directly (no engine): an emulator on a loopback port
 * and the provider's settings pointing at it, set up once per file and closed after it.
 */
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type Emulator } from "../../emulator";
import { getClient, setConfigLookup } from "../../provider/state";

/** Retry settings that keep tests from waiting: 1 ms base delay, 5 ms cap (docs/configuration.md). */
export const FAST_RETRIES: Readonly<Record<string, string>> = { "platform:retryBaseDelayMs": "1", "platform:retryMaxDelayMs": "5" };

/**
 * Registers `beforeAll`: starts an emulator, points the provider's settings at it (`platform:apiUrl`,
 * `platform:token`, plus `config`), then calls `started` with it (to keep it, and to create what the file's tests
 * share); and `afterAll`: closes the provider's client and the emulator.
 */
export function useProviderEmulator(started: (emu: Emulator) => void | Promise<void>, config: Readonly<Record<string, string>> = {}): void {
  let emu: Emulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator();
    const settings: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token, ...config };
    setConfigLookup((k) => settings[k]);
    await started(emu);
  });
  afterAll(async () => {
    await getClient().close();
    await emu?.close();
  });
}
