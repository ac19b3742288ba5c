/// <reference types="vite/client" />
/**
 * Sample inputs of every kind of the registry, with every declared field set across a kind's samples: the export
 * round trip (`export-fields.unit.test.ts`) checks each field reaches the written program, and the native import
 * test (`native-import.test.ts`) imports one object of each kind by uid.
 */

export const DIGEST = `sha256:${"ab".repeat(32)}`;

/** What the samples refer to: the uids made so far, by kind, in order. */
export type Made = Record<string, string[]>;

/** A kind's sample: its inputs under the top group, given the uids made so far. */
export type Sample = (top: string, u: Made) => Array<Record<string, unknown>>;

/** Every kind folder's `sample.ts`, loaded by Vite's glob import (no list to keep). */
// @ts-expect-error tsc checks the tests as CommonJS (tsconfig.test.json), where import.meta is refused; Vitest runs them
// as ES modules, and import.meta.glob is Vite's.
const FILES: Record<string, { sample: Sample }> = import.meta.glob<{ sample: Sample }>("../../provider/kinds/*/sample.ts", { eager: true });

/**
 * Sample inputs of every kind, by kind name (the folder's name with its first letter upper-cased), each from its
 * kind folder's `sample.ts`: every declared field set across a kind's samples (the test checks that), the parent
 * and adoption fields aside. A field added to a declaration needs a value there; `export` needs no edit.
 */
export const SAMPLES: Record<string, Sample> = Object.fromEntries(
  Object.entries(FILES).map(([file, m]) => {
    const folder = file.split("/").at(-2)!;
    return [folder[0]!.toUpperCase() + folder.slice(1), m.sample];
  }),
);

/** Made after the others: a repo that syncs from the first (its inherited fields cannot be set beside it). */
export const SYNCED_REPO = (top: string, u: Made) => ({ parentUid: top, name: "app-mirror", description: "A mirror", syncConfig: { source: u["Repo"]![0], amazon: "123456789012.dkr.ecr.us-east-1.amazonaws.com/app" } });
