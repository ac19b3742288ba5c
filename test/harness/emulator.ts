/**
 * The fixture of the tests that talk to an emulator in their own process: one started before the file's tests
 * and closed after them.
 */
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator";

/**
 * Registers `beforeAll` (starts an emulator with `options`, then calls `started` with it, to create what the
 * file's tests share) and `afterAll` (closes it).
 * @returns the emulator: a stand-in whose properties and methods are the running emulator's once `beforeAll` has
 *   run. @throws on use before that.
 */
export function useEmulator(options?: EmulatorOptions, started?: (emu: Emulator) => void | Promise<void>): Emulator {
  let emu: Emulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator(options);
    await started?.(emu);
  });
  afterAll(async () => {
    await emu?.close();
  });
  return new Proxy({} as Emulator, {
    get(_, prop) {
      if (emu === undefined) throw new Error(`useEmulator: emulator.${String(prop)} read before beforeAll started it`);
      const value: unknown = Reflect.get(emu, prop, emu);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(emu) : value;
    },
  });
}
