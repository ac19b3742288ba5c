/**
 * User-controlled globs and files are bounded before they are parsed or compiled (provider/access/exclusions.ts):
 * an exclusion's capability glob is compiled to a regular expression to match findings, and a glob of a megabyte
 * took `access` to a gigabyte of memory before the regex engine said "expression too large". Now each field's
 * length, the number of exclusions and the pack config file's size are checked first, with an error naming the
 * field (or file), its length (or size) and the limit.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXCLUSION_FIELD_LIMITS, ExclusionError, MAX_EXCLUSIONS, MAX_PACK_CONFIG_BYTES, MAX_SILENCED_FILE_BYTES, loadPackConfig, parseExclusions, readSilencedFiles } from "../provider/access/exclusions";

const ok = { identity: "/platform/ci", capability: "groups.*", group: "/platform", reason: "reviewed", expires: "2999-12-31" };
const dir = mkdtempSync(path.join(tmpdir(), "exclusion-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error `f` throws (fails the test when it throws none). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error, none was thrown");
}

describe("exclusion sizes are checked before the exclusion is parsed or its glob compiled", () => {
  it("a 1 MB capability glob: refused by the size check, naming the field, its length and the limit", () => {
    const glob = "*a".repeat(512 * 1024);
    const err = thrown(() => parseExclusions([ok, { ...ok, capability: glob }], "no-new-access.exclusions"));
    expect(err).toBeInstanceOf(ExclusionError);
    expect(err.message).toMatch(new RegExp(`^bad exclusion: no-new-access\\.exclusions\\[1\\]\\.capability: ${glob.length} characters, more than the limit of ${EXCLUSION_FIELD_LIMITS.capability} \\("\\*a\\*a`));
    // The value is shown cut, not whole.
    expect(err.message.length).toBeLessThan(300);
  });

  it.each(Object.entries(EXCLUSION_FIELD_LIMITS))("%s: one over its limit (%i) is refused by name; at the limit it is not a size error", (field, max) => {
    const over = thrown(() => parseExclusions([{ ...ok, [field]: "/".padEnd(max + 1, "x") }], "unused-access.exclusions"));
    expect(over.message).toContain(`unused-access.exclusions[0].${field}: ${max + 1} characters, more than the limit of ${max}`);
    let at: string | undefined;
    try {
      parseExclusions([{ ...ok, [field]: "/".padEnd(max, "x") }], "unused-access.exclusions");
    } catch (err) {
      at = (err as Error).message;
    }
    expect(at ?? "").not.toContain("more than the limit");
  });

  it("more exclusions than the limit are refused, naming the count and the limit", () => {
    const err = thrown(() => parseExclusions(Array.from({ length: MAX_EXCLUSIONS + 1 }, () => ok), "no-new-access.exclusions"));
    expect(err.message).toBe(`bad exclusion: no-new-access.exclusions: ${MAX_EXCLUSIONS + 1} exclusions, more than the limit of ${MAX_EXCLUSIONS}`);
    expect(parseExclusions(Array.from({ length: 3 }, () => ok), "no-new-access.exclusions")).toHaveLength(3);
  });

  it("a pack config file above the limit is refused before it is read, naming the file, its size and the limit", () => {
    const file = path.join(dir, "big.json");
    writeFileSync(file, `{"no-new-access":{"exclusions":[]},"pad":"${"x".repeat(MAX_PACK_CONFIG_BYTES)}"}`);
    const err = thrown(() => loadPackConfig(file));
    expect(err.message).toMatch(new RegExp(`^--config: .*big\\.json is \\d+ bytes, more than the limit of ${MAX_PACK_CONFIG_BYTES}$`));
    const small = path.join(dir, "small.json");
    writeFileSync(small, JSON.stringify({ "no-new-access": { exclusions: [ok] } }));
    expect(loadPackConfig(small).exclusions["no-new-access"]).toHaveLength(1);
    expect(thrown(() => loadPackConfig(path.join(dir, "missing.json"))).message).toMatch(/^--config: .*missing\.json is not a readable JSON policy pack config/);
  });

  it("a silenced-findings file above the limit is refused, naming it, its size and the limit; a missing one is none", () => {
    const gate = path.join(dir, "gate");
    mkdirSync(gate);
    expect(readSilencedFiles(gate)).toEqual([]);
    const file = path.join(gate, "silenced-no-new-access.jsonl");
    writeFileSync(file, "");
    truncateSync(file, MAX_SILENCED_FILE_BYTES + 1); // sparse: no 64 MB written
    expect(thrown(() => readSilencedFiles(gate)).message).toBe(`silenced findings: ${file} is ${MAX_SILENCED_FILE_BYTES + 1} bytes, more than the limit of ${MAX_SILENCED_FILE_BYTES}`);
  });
});
