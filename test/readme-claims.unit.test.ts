/**
 * README claims (and those of docs/, where the reference moved) that are numbers or lists, checked against the code:
 * the emulator's flags, the size of the provider text each resource stores, the files the documentation points to
 * inside the installed package, and the kinds package.json's description names. A README or docs/ edit that drifts
 * from the code fails here. Also the documentation's shape: README.md stays a ten-minute read (at most 400 lines,
 * the first job early), every relative link and anchor of README.md and docs/ resolves, and every fenced block closes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { usage } from "../emulator/cli";
import { parseOrgFile } from "../provider/org/file";
import { KINDS as KIND_ENTRIES } from "../provider/kinds/registry";
import { providerSource } from "../provider/engine/shim";
import type { ResourceKind } from "../provider/kinds/registry";
import { REPO_ROOT } from "../scripts/lib/pulumi";
import { docFiles, readDoc, readDocs } from "./harness/docs";

// README.md and every docs/**/*.md: a claim is checked wherever it lives.
const README = readDocs();
const ARCHITECTURE = readFileSync(path.join(REPO_ROOT, "docs", "architecture.md"), "utf8");
const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { description: string };
// Every kind of the registry, so a kind added there is held to these claims too.
const KINDS = KIND_ENTRIES.map((k) => k.kind as ResourceKind);

describe("README claims", () => {
  it("every policy option the policy table says to configure is in policies/config.example.json", () => {
    const example = JSON.parse(readFileSync(path.join(REPO_ROOT, "policies", "config.example.json"), "utf8")) as Record<string, Record<string, unknown>>;
    const rows = README.split("\n").filter((l) => /^\| `[a-z-]+` \|/.test(l));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      const policy = /^\| `([a-z-]+)`/.exec(row)![1]!;
      for (const m of row.matchAll(/configure `([A-Za-z]+)`/g)) expect(example[policy] ?? {}, `${policy}: ${m[1]}`).toHaveProperty(m[1]!);
    }
  });

  it("states the ownership-marker rule that every kind follows, and each kind's reference page says which proof it uses", () => {
    const sentence = /A kind with a description is\s+created with an ownership marker/.exec(README)?.[0];
    expect(sentence, "the resources guide's sentence on the ownership marker").toBeDefined();
    for (const k of KIND_ENTRIES) {
      expect(k.ownership.proof === "marker", `${k.kind}: a description field means the marker`).toBe("description" in k.fields);
      const page = readFileSync(path.join(REPO_ROOT, "docs", "resources", `${k.kind}.md`), "utf8");
      const create = page.slice(page.indexOf("## Create"));
      expect(page, `${k.kind}'s reference page has a Create section`).toContain("## Create");
      expect(create.includes("ownership marker"), `${k.kind}'s page names its proof`).toBe(k.ownership.proof === "marker");
    }
  });

  it("lists exactly the emulator's flags (its --help)", () => {
    const fromHelp = new Set([...usage().matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1]!));
    const para = README.split("\n\n").find((p) => p.includes("lists the options:"));
    expect(para, "the Emulator section's paragraph that lists the options").toBeDefined();
    const fromReadme = new Set([...para!.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!));
    // `--seed-groups|--seed-repos|…` is one code span of several flags.
    for (const m of para!.matchAll(/`([^`]*\|[^`]*)`/g)) for (const f of m[1]!.matchAll(/--[a-z-]+/g)) fromReadme.add(f[0]);
    expect([...fromReadme].sort()).toEqual([...fromHelp].sort());
  });

  it("gives the byte range of the provider text each resource stores", () => {
    const sizes = KINDS.map((k) => Buffer.byteLength(providerSource(k)));
    const m = /The result: (\d+)–(\d+) bytes per\s+resource/.exec(ARCHITECTURE);
    expect(m, "docs/architecture.md's sentence with the stored provider's size").not.toBeNull();
    expect([Number(m![1]), Number(m![2])]).toEqual([Math.min(...sizes), Math.max(...sizes)]);
  });

  it("points only at files the package ships (node_modules/platform-pulumi/…)", () => {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--loglevel=error"], { cwd: REPO_ROOT, encoding: "utf8" })) as Array<{
      files: Array<{ path: string }>;
    }>;
    const files = packed[0]!.files.map((f) => f.path);
    const pointed = [...new Set([...README.matchAll(/node_modules\/platform-pulumi\/([\w./-]*[\w-])/g)].map((m) => m[1]!))];
    expect(pointed.length).toBeGreaterThan(0);
    for (const p of pointed) expect(files.some((f) => f === p || f.startsWith(`${p}/`)), `README.md or docs/ points at node_modules/platform-pulumi/${p}`).toBe(true);
  });

  it("package.json's description names every resource kind", () => {
    const words = (k: string) => k.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    for (const k of KINDS) expect(PKG.description.toLowerCase(), k).toMatch(new RegExp(`\\b${words(k)}`));
  });
});

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped (letters, digits, `_`, `-` kept), spaces as `-`. */
function githubSlug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

const md = new MarkdownIt();

/** The anchors of a Markdown file's headings, a repeated one as GitHub numbers it (`x`, `x-1`, …). */
function anchorsOf(markdown: string): Set<string> {
  const tokens = md.parse(markdown, {});
  const seen = new Map<string, number>();
  const out = new Set<string>();
  tokens.forEach((tok, i) => {
    if (tok.type !== "heading_open") return;
    const text = (tokens[i + 1]!.children ?? []).filter((c) => c.type === "text" || c.type === "code_inline").map((c) => c.content).join("");
    const base = githubSlug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  });
  return out;
}

/** Every link and image target of a Markdown file, with the 1-based line of its paragraph, as markdown-it reads them (code is not Markdown). */
function linksOf(markdown: string): Array<{ href: string; line: number }> {
  const out: Array<{ href: string; line: number }> = [];
  for (const tok of md.parse(markdown, {})) {
    for (const c of tok.children ?? []) {
      const href = c.type === "link_open" ? c.attrGet("href") : c.type === "image" ? c.attrGet("src") : null;
      if (href !== null) out.push({ href, line: (tok.map?.[0] ?? 0) + 1 });
    }
  }
  return out;
}

describe("the documentation's shape", () => {
  const readme = readDoc("README.md");

  it("README.md is a ten-minute read: at most 400 lines, and the first of the three jobs starts before line 150", () => {
    const lines = readme.split("\n");
    expect(lines.length - (lines.at(-1) === "" ? 1 : 0)).toBeLessThanOrEqual(400);
    const firstJob = lines.findIndex((l) => /^## Job 1: /.test(l)) + 1;
    expect(firstJob, "the line of README.md's `## Job 1: …` heading").toBeGreaterThan(0);
    expect(firstJob).toBeLessThan(150);
    for (const job of ["## Job 1: ", "## Job 2: ", "## Job 3: ", "## Reference", "## Libraries"]) expect(readme, job).toContain(`\n${job}`);
  });

  it("README.md's org.yaml of the first job is a valid org file (built-in roles only): 3 groups, 1 identity, 1 binding", () => {
    const block = /```yaml\n(# org\.yaml\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "README.md's ```yaml block that starts with `# org.yaml`").toBeDefined();
    const org = parseOrgFile(block!, "README.md", new Set(["viewer", "editor", "owner", "registry.pull"]));
    expect(org.groups.map((g) => g.path)).toEqual(["engineering", "engineering/platform", "engineering/platform/ci-cd"]);
    expect(org.identities).toHaveLength(1);
    expect(org.bindings).toHaveLength(1);
  });

  it("reads README.md and docs/: the reference pages are there", () => {
    const files = docFiles();
    for (const f of ["README.md", "docs/cli.md", "docs/access.md", "docs/drift.md", "docs/export.md", "docs/configuration.md", "docs/performance.md", "docs/testing.md", "docs/architecture.md"]) {
      expect(files, f).toContain(f);
    }
  });

  it("every relative link and anchor of README.md and docs/ resolves (links into docs/resources/ only once it is generated)", () => {
    const resourcesGenerated = existsSync(path.join(REPO_ROOT, "docs", "resources"));
    const broken: string[] = [];
    let checked = 0;
    for (const file of docFiles()) {
      const text = readDoc(file);
      for (const { href, line } of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
        const [rawPath, fragment] = href.split("#", 2) as [string, string | undefined];
        const target = rawPath === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(rawPath)));
        if (!resourcesGenerated && target.startsWith("docs/resources/")) continue;
        checked++;
        const abs = path.join(REPO_ROOT, target);
        if (target.startsWith("..") || !existsSync(abs)) {
          broken.push(`${file}:${line}: ${href}: no file ${target}`);
          continue;
        }
        if (fragment !== undefined && target.endsWith(".md") && statSync(abs).isFile() && !anchorsOf(readFileSync(abs, "utf8")).has(fragment)) {
          broken.push(`${file}:${line}: ${href}: no heading #${fragment} in ${target}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it("every fenced block of README.md and docs/ is closed (an open fence would swallow the rest of the page)", () => {
    const open: string[] = [];
    for (const file of docFiles()) {
      const lines = readDoc(file).split("\n");
      for (const tok of md.parse(lines.join("\n"), {})) {
        if (tok.type !== "fence" || !tok.map) continue;
        const closing = lines[tok.map[1] - 1] ?? "";
        if (tok.map[1] - tok.map[0] < 2 || !closing.trimStart().startsWith(tok.markup)) open.push(`${file}:${tok.map[0] + 1}`);
      }
    }
    expect(open).toEqual([]);
  });
});
