/**
 * Server text in what the commands print. Names, descriptions and paths come from the API, which anyone with
 * write access to the org can set, and the commands' reports go to terminals and, as Markdown, into pull-request
 * comments (README, "Gate changes in review"). So no such text reaches a report as anything but text:
 *
 * - {@link printable}: for a terminal. Control characters (an ANSI escape that clears the screen or moves the
 *   cursor, a line break that forges a row) and the Unicode bidirectional overrides (text that reads in another
 *   order than it is stored) are shown as `\u` escapes.
 * - {@link mdText}: for Markdown (a table cell, a line). Also one line, and every character Markdown could read as
 *   markup (a link, an image, an HTML tag, an entity, emphasis, a code span, a table's `|`; an autolink's `://`)
 *   is backslash-escaped, which CommonMark allows for any ASCII punctuation; it renders as the text itself.
 * - {@link mdCode}: an identifier as a Markdown code span, whatever backticks it holds.
 */

/** Control characters (C0, DEL, C1) and the bidirectional embedding, override and isolate characters. */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's purpose
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `s` with each control or bidirectional-override character written as `\uXXXX` (a line break too): safe to print
 * on a terminal and one line. Other text, Unicode included, is unchanged.
 * @example printable("a\u001b[2Jb") // "a\\u001b[2Jb"
 */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * What Markdown (CommonMark with GitHub's tables) could read as markup inside a line: a link or image (`[`, `]`),
 * HTML (`<`, `>`), an entity (`&`, which could spell a direction override), a code span, emphasis, a table's `|`,
 * and the backslash itself. `(`, `)`, `!`, `#` and the like mean nothing without these.
 */
const MARKUP = /[\\`*_[\]<>|~&]/g;

/**
 * `s` as Markdown text that renders as `s`: one line ({@link printable}), every {@link MARKUP} character escaped
 * with a backslash, and `://` and `www.` broken with one so that GitHub makes no autolink of them (`[x](u)` stays
 * text, `<img>` is not HTML, `|` does not end a table cell, `https://x` is not a link).
 * @example mdText("[a](http://x)|b") // "\\[a\\](http\\://x)\\|b"
 */
export function mdText(s: string): string {
  return printable(s)
    .replace(MARKUP, (c) => `\\${c}`)
    .replace(/:\/\//g, "\\://")
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`);
}

/**
 * `s` as one Markdown code span: one line ({@link printable}), fenced by more backticks than its longest run of them
 * (with a space inside the fence when it starts or ends with one), its `|` escaped so that a table cell holds it.
 * An empty string gives an empty string.
 * @example mdCode("a`b") // "``a`b``"
 */
export function mdCode(s: string): string {
  if (s === "") return "";
  const text = printable(s).replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
