/**
 * Server text in what the package prints. Names, descriptions, paths and error messages come from the API, which
 * anyone with write access to the org can set (and a compromised server or something else answering at its URL
 * can send anything), and the commands' output goes to terminals, CI logs and, as Markdown, pull-request comments
 * (README, "Gate changes in review"). So no such text reaches any output as anything but text:
 *
 * - {@link printable}: for a terminal or a log: every error message the package builds from server text, every
 *   table row. One line: control characters (an ANSI escape that clears the screen or moves the cursor, a line
 *   break that forges a row or a log line), the line and paragraph separators, and the Unicode bidirectional
 *   marks and overrides (text that reads in another order than it is stored) are shown as `\u` escapes; and no
 *   server text can be read as a GitHub Actions workflow command (a line starting `::`, or `##[` anywhere).
 * - {@link inertLines}: a message of several lines the package wrote itself (a reason, then a hint) that quotes
 *   server text: its own line breaks kept, every line as {@link printable}.
 * - {@link jsonText}: JSON for stdout (`--format json`): `JSON.stringify`, with the same characters written as
 *   `\u` escapes (JSON.stringify leaves the C1 controls, the separators and the bidirectional marks raw).
 * - {@link mdText}: for Markdown (a table cell, a line). Also one line, and every character Markdown could read as
 *   markup is backslash-escaped, which CommonMark allows for any ASCII punctuation; it renders as the text
 *   itself, with no autolink of any form GitHub or linkify renders (`https://`, `//host`, `www.`, a bare domain,
 *   an e-mail address).
 * - {@link mdCode}: an identifier as a Markdown code span, whatever backticks it holds.
 */
import { closest, distance } from "fastest-levenshtein";

/**
 * What {@link printable} escapes: C0 controls, DEL and C1 controls; the line and paragraph separators U+2028 and
 * U+2029; the bidirectional marks and controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069; U+FEFF;
 * and lone surrogates. The export's escaping (export/escape.ts) uses the same set.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's purpose
export const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `\uXXXX` for one UTF-16 code unit. */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `s` with each {@link UNSAFE} character written as `\uXXXX` (a line break too): one line, safe to print on a
 * terminal or in a CI log. A GitHub Actions workflow command cannot be formed from it either: a leading `::`
 * (after spaces; the runner trims them) is written `\u003a:`, and `##[` (the runner's older form, found anywhere
 * in a line) `#\u0023[`. Other text, Unicode included, is unchanged. Escaping twice changes nothing more.
 * @example printable("a\u001b[2Jb") // "a\\u001b[2Jb"
 * @example printable("::error title=x::owned") // "\\u003a:error title=x::owned"
 */
export function printable(s: string): string {
  return s
    .replace(UNSAFE, unicodeEscape)
    .replace(/^(\s*)::/, "$1\\u003a:")
    .replace(/##\[/g, "#\\u0023[");
}

/**
 * A message of several lines the package wrote (a reason, then what to do) that may quote server text: split at
 * its line breaks (`\n`, `\r\n`), each line {@link printable}, joined with `\n`. Server text quoted in it must
 * already be one line (an error message built with {@link printable}); what this guards is that no line of the
 * result is a control sequence or a workflow command, whatever slipped through.
 */
export function inertLines(s: string): string {
  return s.split(/\r?\n/).map(printable).join("\n");
}

/**
 * `value` as JSON (`JSON.stringify(value, null, indent)`) in which every {@link UNSAFE} character in a string is a
 * `\uXXXX` escape and `##[` is `#\u0023[`: the same value to a JSON parser, inert in a terminal or a CI log. Those
 * characters can only be inside JSON strings, where the escapes mean the same.
 * @example jsonText({ name: "a\u202eb" }, 0) // "{\"name\":\"a\\u202eb\"}"
 */
export function jsonText(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, unicodeEscape).replace(/##\[/g, "#\\u0023[");
}

/**
 * The {@link UNSAFE} characters `JSON.stringify` leaves raw in strings: it escapes C0 controls and lone surrogates
 * itself, and the line breaks of an indented JSON's layout are its own.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * What Markdown (CommonMark with GitHub's tables) could read as markup inside a line: a link or image (`[`, `]`),
 * HTML (`<`, `>`), an entity (`&`, which could spell a direction override), a code span, emphasis, a table's `|`,
 * and the backslash itself. `(`, `)`, `!`, `#` and the like mean nothing without these.
 */
const MARKUP = /[\\`*_[\]<>|~&]/g;

/**
 * `s` as Markdown text that renders as `s` (as {@link printable} shows it): one line, every {@link MARKUP}
 * character escaped with a backslash, and every piece an autolink is made of broken with one, so that neither
 * GitHub (GFM's extended autolinks: `http://`, `https://`, `www.`, e-mail addresses) nor a renderer with linkify
 * (bare domains such as `evil.example.com`, `//host`) makes a link of it: `@` is escaped, `//` becomes `/\/`,
 * and a `.` followed by a letter or digit becomes `\.`. `[x](u)` stays text, `<img>` is not HTML, `|` does not
 * end a table cell.
 * @example mdText("[a](http://x)|b") // "\\[a\\](http:/\\/x)\\|b"
 */
export function mdText(s: string): string {
  return printable(s)
    .replace(MARKUP, (c) => `\\${c}`)
    .replace(/@/g, "\\@")
    .replace(/\/\//g, "/\\/")
    .replace(/\.(?=[\p{L}\p{N}])/gu, "\\.");
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

/**
 * `s` as a SARIF 2.1.0 plain-text message string (`message.text`, a rule's or a notification's text): one line
 * ({@link printable}: control characters, separators, bidirectional marks and lone surrogates as `\u` escapes, no
 * workflow command), and nothing in it a consumer reads as other than text:
 *
 * - `{` and `}` are doubled (`{{`, `}}`): SARIF §3.11.5 reads `{0}` in a message string as a placeholder for
 *   `message.arguments`, and a literal brace as the doubled one.
 * - `\`, `[` and `]` are backslash-escaped: SARIF §3.11.6 reads `[text](target)` in a plain-text message as an
 *   embedded link (GitHub code scanning shows it as one), and `\[`, `\]`, `\\` as the literal characters.
 * - `<`, `>` are backslash-escaped, `//` is written `/\/` and `www.` `www\.`: a plain-text message is never HTML nor Markdown
 *   (§3.11.3; the log never sets `message.markdown` from server text), but a viewer that renders it as Markdown
 *   anyway then makes no tag and no `scheme://`, `//host` or `www.` link of it. A plain-text viewer shows these two
 *   escapes as written; they only appear where the server sent `<`, `>`, `//` or `www.`.
 *
 * Identifiers stay as they are (`role_bindings.create`, `/platform/ci`), unlike {@link mdText}. Escaping twice
 * escapes the escapes (the result is text again): build a message from raw text, escape it once.
 * @example sarifText("{0} [x](https://e) <img>") // "{{0}} \\[x\\](https:/\\/e) \\<img\\>"
 */
export function sarifText(s: string): string {
  return printable(s)
    .replace(/[\\[\]<>]/g, (c) => `\\${c}`)
    .replace(/\/\//g, "/\\/")
    .replace(/\b(www)\./gi, "$1\\.")
    .replace(/[{}]/g, (c) => c + c);
}

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `s` with each lone surrogate (a UTF-16 code unit U+D800–U+DFFF not in a pair) replaced by U+FFFD, the
 * replacement character: the same string as `String.prototype.toWellFormed` gives. JSON can carry a lone
 * surrogate (`"\ud800"` is valid JSON, so the API can send one), UTF-8 cannot: a protobuf string field holding one
 * is not valid UTF-8, and the engine refuses the whole message ("invalid UTF-8"), naming neither the field nor the
 * value. Other text is unchanged; a well-formed string is returned as it is.
 * @example wellFormed("a\ud800b") // "a\ufffdb"
 */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\ufffd");
}

/**
 * `v` with {@link wellFormed} applied to every string in it, object keys included, at any depth (arrays and plain
 * objects are copied; other values, numbers, booleans, null, undefined, are kept). What the providers hand the
 * engine (outputs, inputs, ids: the dynamic provider's results in `runtime.ts`, the native provider's Structs in
 * `native/server.ts`) goes through it, so a lone surrogate the API sent is stored as U+FFFD: the state stays valid,
 * and the next refresh reads the same replacement, so the object does not show as drifted for it.
 */
export function wellFormedDeep<T>(v: T): T {
  if (typeof v === "string") return wellFormed(v) as T;
  if (Array.isArray(v)) return v.map(wellFormedDeep) as T;
  if (v !== null && typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), wellFormedDeep(x)])) as T;
  }
  return v;
}

/**
 * The name of `names` nearest to `name` by edit distance (Levenshtein, `fastest-levenshtein`), case ignored, as the
 * API's names are spelled; undefined unless it is within a third of the name's length (at least 2 edits). The one
 * "did you mean" rule of the org file and the lookups.
 */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const lower = names.map((n) => n.toLowerCase());
  const near = closest(name.toLowerCase(), lower);
  return distance(name.toLowerCase(), near) <= Math.max(2, Math.floor(name.length / 3)) ? names[lower.indexOf(near)] : undefined;
}

