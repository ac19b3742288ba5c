/**
 * The user documentation as the tests read it: README.md, then every Markdown file under docs/ (sorted, at any
 * depth, the generated docs/resources/ pages included). The README is the short version and docs/ the reference
 * (README "Reference"), so a test of a documented claim reads both: a claim that moves between them stays checked.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/lib/pulumi";

/** The documentation files, as paths relative to the repository root with `/` separators: README.md first, then docs/**\/*.md sorted. */
export function docFiles(): string[] {
  const docs = path.join(REPO_ROOT, "docs");
  const under = existsSync(docs)
    ? readdirSync(docs, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f.split(path.sep).join("/")}`)
        .sort()
    : [];
  return ["README.md", ...under];
}

/**
 * The pages written for a maintainer of this repository, not for a user of the package: their code blocks use this
 * repository's own test harness and sources (`stepTest`, `test/harness/…`), so the consumer tier does not compile
 * them in a project that installed the package.
 */
export const MAINTAINER_DOCS: readonly string[] = ["docs/architecture.md", "docs/testing.md"];

/** One documentation file's text; `file` is relative to the repository root (as {@link docFiles} gives it). */
export function readDoc(file: string): string {
  return readFileSync(path.join(REPO_ROOT, file), "utf8");
}

/**
 * Every documentation file's text, in {@link docFiles} order, joined by a blank line, so a search for a sentence,
 * a table or a fenced block finds it wherever it lives (no paragraph spans two files).
 */
export function readDocs(): string {
  return docFiles().map(readDoc).join("\n\n");
}
