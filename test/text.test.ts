/**
 * Server text in the commands' reports (provider/text.ts): names that are code, markup or terminal control
 * sequences print as text. The Markdown is rendered with markdown-it (GitHub-flavoured tables, autolinks on), as a
 * pull-request comment would be, and the rendered HTML is checked for what the text must not become.
 */
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { markdown as accessMarkdown, textTable } from "../provider/access/report";
import { mdTable } from "../provider/commands/report";
import { table } from "../provider/commands/stack";
import { mdCode, mdText, printable } from "../provider/text";

const md = new MarkdownIt({ html: true, linkify: true });

/** Names an attacker with write access to the org could give an object. */
const HOSTILE = [
  "[click me](https://evil.example/x)",
  "![pixel](https://evil.example/p.png)",
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  "a | b | c",
  "`code` and ``more``",
  "**bold** _em_ ~~strike~~",
  "https://evil.example/autolink",
  "www.evil.example/autolink",
  "&#8238;reversed &lt;b&gt;",
  "line one\nline two\r\n| forged | row |",
  "\u001b[2J\u001b[31mred",
  "abc\u202edcba",
  "tab\there",
  "back\\slash\\",
  "&lt;entity&gt; &amp;",
  "# heading",
];

/** The text content of rendered HTML (tags dropped, the entities markdown-it writes decoded). */
function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .trim();
}

describe("printable", () => {
  it("writes control and bidirectional-override characters as \\u escapes, one line, other text unchanged", () => {
    expect(printable("a\u001b[2Jb")).toBe("a\\u001b[2Jb");
    expect(printable("x\ny\r\tz\u007f\u0085")).toBe("x\\u000ay\\u000d\\u0009z\\u007f\\u0085");
    expect(printable("abc\u202edcba\u2066")).toBe("abc\\u202edcba\\u2066");
    expect(printable("équipe/платформа 团队 ✓")).toBe("équipe/платформа 团队 ✓");
    // eslint-disable-next-line no-control-regex -- looking for control characters is the assertion
    for (const s of HOSTILE) expect(printable(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe("mdText and mdCode in a rendered Markdown table", () => {
  it.each(HOSTILE)("%j renders as its own text in one cell: no link, image, tag, or extra row or cell", (name) => {
    const html = md.render(mdTable(["name", "code"], [[name, "x"]]) + "\n\n" + `| name |\n|---|\n| ${mdCode(name)} |\n`);
    expect(html).not.toMatch(/<(a|img|script|strong|em|s|del|h1)\b/);
    const cells = [...html.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => textOf(m[1]!));
    expect(cells).toEqual([printable(name), "x", printable(name)]);
  });

  it("mdText is one line and escapes every markup character", () => {
    const out = mdText("[a](http://x)|b\nc www.x.dev");
    expect(out).toBe("\\[a\\](http\\://x)\\|b\\\\u000ac www\\.x.dev");
    expect(textOf(md.renderInline(out))).toBe("[a](http://x)|b\\u000ac www.x.dev");
  });

  it("mdCode fences past the text's longest run of backticks", () => {
    expect(mdCode("plain")).toBe("`plain`");
    expect(mdCode("a`b")).toBe("``a`b``");
    expect(mdCode("`edge``")).toBe("``` `edge`` ```");
    expect(mdCode("")).toBe("");
    expect(textOf(md.renderInline(mdCode("`edge``")))).toBe("`edge``");
  });
});

describe("the commands' reports", () => {
  it("a terminal table keeps one row per object whatever the names hold", () => {
    const out = table(["kind", "name"], HOSTILE.map((n) => ["Group", n]));
    expect(out.split("\n")).toHaveLength(2 + HOSTILE.length);
    expect(out).not.toContain("\u001b");
    expect(out).not.toContain("\u202e");
  });

  it("access's pull-request report shows a hostile identity name and group as text", () => {
    const name = "[ok](https://evil.example) <img src=x onerror=alert(1)>";
    const row = {
      change: "gained" as const,
      identity: { name, path: `team/${name}` },
      capability: "iam.groups.get",
      group: "team/`x`|<b>",
      via: [{ kind: "binding" as const, role: "viewer", boundAt: "team", steps: [] }],
    };
    const html = md.render(accessMarkdown("dev", [row] as never, false));
    expect(html).not.toMatch(/<(a|img|b)\b/);
    expect(textOf(html)).toContain(name);
    expect(textOf(html)).toContain("team/`x`|<b>");
    const text = textTable([{ ...row, identity: { name, path: "team/\u001b[2Jbot" } }] as never, false);
    expect(text).not.toContain("\u001b");
  });
});
