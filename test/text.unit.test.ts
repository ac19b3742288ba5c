/**
 * Server text in the commands' reports (provider/text.ts): names that are code, markup or terminal control
 * sequences print as text. The Markdown is rendered with markdown-it (GitHub-flavoured tables, autolinks on), as a
 * pull-request comment would be, and with micromark and its GFM extensions (GitHub's own dialect: tables and
 * extended autolinks, e-mail addresses included), and the rendered HTML is checked for what the text must not
 * become. (The log path end to end, through the built bin: test/inert-output.test.ts.)
 */
import MarkdownIt from "markdown-it";
import { beforeAll, describe, expect, it } from "vitest";
import { markdown as accessMarkdown, textTable } from "../provider/access/report";
import { mdTable } from "../provider/commands/report";
import { table } from "../provider/commands/stack";
import { inertLines, jsonText, mdCode, mdText, printable } from "../provider/text";

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
    expect(out).toBe("\\[a\\](http:/\\/x)\\|b\\\\u000ac www\\.x\\.dev");
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

/** Every autolink form GitHub (GFM extended autolinks) or a linkify renderer makes of plain text. */
const LINKS = [
  "https://evil.example/x",
  "http://evil.example",
  "ftp://evil.example/f",
  "www.evil.example/x",
  "WWW.Evil.Example",
  "evil.example.com",
  "see evil.example.com/login now",
  "//evil.example/x",
  "foo@evil.com",
  "mailto:foo@evil.com",
  "xmpp:foo@evil.com",
  "a.b@c.d.co.uk",
  "evil.co",
  "xn--80ak6aa92e.com",
  "пример.рф",
];

/** Control, C1, separator and bidirectional characters (printable's set), and what a GitHub Actions log reads as a command. */
// eslint-disable-next-line no-control-regex -- looking for control characters is the assertion
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

describe("no server text is a workflow command or a control sequence in a terminal or log", () => {
  it("printable escapes C0, C1, DEL, the separators and every bidirectional mark, and breaks ::cmd and ##[cmd", () => {
    const all = "a\u001b[2J\r\n\u0085\u009b\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069\ufeffz";
    expect(printable(all)).toBe("a\\u001b[2J\\u000d\\u000a\\u0085\\u009b\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\ufeffz");
    expect(printable(all)).not.toMatch(RAW);
    expect(printable("::error title=x::owned")).toBe("\\u003a:error title=x::owned");
    expect(printable("  ::warning::x")).toBe("  \\u003a:warning::x");
    expect(printable("Group::team")).toBe("Group::team");
    expect(printable("x ##[error]owned")).toBe("x #\\u0023[error]owned");
    expect(printable(printable("\n::error::x ##[set-output]"))).toBe(printable("\n::error::x ##[set-output]"));
  });

  it("inertLines keeps the package's own line breaks and makes no line a command", () => {
    const out = inertLines("reason: x\r\n::error title=x::owned\n  ##[error]y\u202e");
    expect(out.split("\n")).toEqual(["reason: x", "\\u003a:error title=x::owned", "  #\\u0023[error]y\\u202e"]);
    for (const line of out.split("\n")) expect(line.trimStart().startsWith("::")).toBe(false);
  });

  it("jsonText is the same value to JSON.parse, with every such character a \\u escape", () => {
    const value = { name: "a\u202eb\u009bc\u200e\u200f\u061c\u2028\u2029\u0085\u001b\n::error::x ##[error]", n: [1, "\ud800"] };
    const text = jsonText(value, 0);
    expect(text).not.toMatch(RAW);
    expect(text).not.toContain("##[");
    expect(JSON.parse(text)).toEqual(value);
    // Indented, its only raw control characters are the layout's line breaks, none inside a string.
    expect(jsonText(value).replace(/\n */g, "").replace(/": /g, "\":")).toBe(text);
    expect(JSON.parse(jsonText(value))).toEqual(value);
    expect(JSON.stringify(value)).toMatch(RAW); // what JSON.stringify alone prints
  });
});

describe("mdText breaks every autolink form, in GFM (micromark) and markdown-it with linkify", () => {
  let gfmHtml: (md: string) => string;
  beforeAll(async () => {
    const { micromark } = await import("micromark");
    const ext = await import("micromark-extension-gfm");
    gfmHtml = (doc) => micromark(doc, { extensions: [ext.gfm()], htmlExtensions: [ext.gfmHtml()] });
  });

  it.each(LINKS)("%j renders as its own text, no link, in both", (text) => {
    // The unescaped text is a link in at least one renderer: the case is real.
    expect(`${gfmHtml(text)}${md.render(text)}`).toMatch(/<a\b/);
    for (const html of [gfmHtml(mdText(text)), md.render(mdText(text)), gfmHtml(mdTable(["x"], [[text]])), md.render(mdTable(["x"], [[text]]))]) {
      expect(html).not.toMatch(/<a\b/);
      expect(textOf(html)).toContain(text === "x" ? "x" : text);
    }
  });

  it.each(HOSTILE)("%j renders as its own text in one GFM table cell", (name) => {
    const html = gfmHtml(mdTable(["name", "code"], [[name, "x"]]) + "\n\n" + `| name |\n|---|\n| ${mdCode(name)} |\n`);
    expect(html).not.toMatch(/<(a|img|script|strong|em|s|del|h1)\b/);
    const cells = [...html.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => textOf(m[1]!));
    expect(cells).toEqual([printable(name), "x", printable(name)]);
  });
});
