/**
 * The kind registry (`provider/kinds/registry.ts`) is the one list of kinds: each key is its declaration's kind,
 * every kind folder under `provider/kinds/` is in it, and every registered kind's class is exported by the
 * package under the kind's name, made from the registered declaration; every kind folder has its compile-time ties
 * (`ties.ts`). So a kind folder left out of the registry, a registered kind the package does not export, or a kind
 * without ties fails here by name.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as pkg from "../provider/index";
import { KIND_NAMES, KINDS } from "../provider/kinds/registry";

const KINDS_DIR = join(__dirname, "..", "provider", "kinds");
const folders = readdirSync(KINDS_DIR).filter((f) => statSync(join(KINDS_DIR, f)).isDirectory());
const kindOfFolder = (f: string) => f[0]!.toUpperCase() + f.slice(1);

describe("the kind registry", () => {
  it("keys each declaration by its own kind", () => {
    expect(KINDS.map((k) => k.kind)).toEqual([...KIND_NAMES]);
  });

  it("holds every kind folder", () => {
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.map(kindOfFolder).filter((k) => !(KIND_NAMES as readonly string[]).includes(k))).toEqual([]);
    expect([...KIND_NAMES].sort()).toEqual(folders.map(kindOfFolder).sort());
  });

  it.each(folders)("kind folder %s has its compile-time ties (ties.ts, which tsc checks)", (folder) => {
    expect(existsSync(join(KINDS_DIR, folder, "ties.ts"))).toBe(true);
  });

  it.each(folders)("kind folder %s has its test samples (sample.ts, typed by the kind's Args, which tsc checks)", (folder) => {
    expect(existsSync(join(KINDS_DIR, folder, "sample.ts"))).toBe(true);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))("%s: the package exports its class, made from the registered declaration's fields", (kind, entry) => {
    const cls = (pkg as Record<string, unknown>)[kind] as { __shape?: { kind: string; fields: unknown } } | undefined;
    expect(typeof cls).toBe("function");
    expect(cls!.__shape?.kind).toBe(kind);
    expect(cls!.__shape?.fields).toBe(entry.fields);
  });
});
