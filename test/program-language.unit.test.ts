/**
 * Code hints in the program's language (provider/programLanguage.ts): the project's runtime picks the spelling of
 * every adopt hint the commands and errors print (the kind registry's adopt line, `unmanaged`'s "to manage it"
 * column, a blocked group delete, a tag the repo already has). test/hints-language.test.ts runs `unmanaged` from
 * the bin in a project of each runtime.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kindEntry } from "../provider/kinds/registry";
import { howToSettle } from "../provider/engine/lifecycle";
import { languageOf, programLanguage, propertyLine } from "../provider/programLanguage";

const dir = mkdtempSync(path.join(tmpdir(), "program-language-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("propertyLine", () => {
  it("spells a property as each language's SDK writes the package's arguments", () => {
    const uid = "a".repeat(40);
    expect(propertyLine("nodejs", "adoptUid", uid)).toBe(`adoptUid: "${uid}"`);
    expect(propertyLine("python", "adoptUid", uid)).toBe(`adopt_uid="${uid}"`);
    expect(propertyLine("go", "adoptUid", uid)).toBe(`AdoptUid: pulumi.String("${uid}")`);
    expect(propertyLine("dotnet", "adoptUid", uid)).toBe(`AdoptUid = "${uid}"`);
    expect(propertyLine("java", "adoptUid", uid)).toBe(`.adoptUid("${uid}")`);
    expect(propertyLine("yaml", "adoptUid", uid)).toBe(`adoptUid: "${uid}" (under properties:)`);
    expect(propertyLine("python", "adopt", true)).toBe("adopt=True");
    expect(propertyLine("go", "adopt", true)).toBe("Adopt: pulumi.Bool(true)");
  });

  it("the kind registry's adopt line takes the language: a uid to adopt, or adopt: true for an account association", () => {
    expect(kindEntry("Group")!.adoptLine("u/1", "python")).toBe('adopt_uid="u/1"');
    expect(kindEntry("Group")!.adoptLine("u/1")).toBe('adoptUid: "u/1"');
    expect(kindEntry("AccountAssociation")!.adoptLine("u", "go")).toBe("Adopt: pulumi.Bool(true)");
  });

  it("a blocked group delete says how to adopt in the program's language", () => {
    expect(howToSettle("python")).toContain("`adopt_uid=\"<uid>\"` adopts the existing object");
    expect(howToSettle("nodejs")).toContain('`adoptUid: "<uid>"` adopts the existing object');
  });
});

describe("the program's language", () => {
  it("is the runtime of the project found upward from the folder (YAML, JSON, runtime as an object); TypeScript when unknown", () => {
    const py = path.join(dir, "py");
    mkdirSync(path.join(py, "sub", "deeper"), { recursive: true });
    writeFileSync(path.join(py, "Pulumi.yaml"), "name: p\nruntime: python\n");
    expect(programLanguage(path.join(py, "sub", "deeper"))).toBe("python");
    const go = path.join(dir, "go");
    mkdirSync(go);
    writeFileSync(path.join(go, "Pulumi.yaml"), "name: g\nruntime:\n  name: go\n  options: { buildTarget: x }\n");
    expect(programLanguage(go)).toBe("go");
    const js = path.join(dir, "json");
    mkdirSync(js);
    writeFileSync(path.join(js, "Pulumi.json"), JSON.stringify({ name: "j", runtime: "yaml" }));
    expect(programLanguage(js)).toBe("yaml");
    expect(languageOf(undefined)).toBe("nodejs");
    expect(languageOf("cobol")).toBe("nodejs");
  });
});
