/**
 * The export's escaping, one function per place server text lands in generated files (escape by
 * context, once). Every piece of text read from the API goes through one of these on its way into a file, so
 * no value can end a string or a comment early, start a new line of code, or hide code behind bidirectional
 * control characters, however the server spelled it:
 *
 * - {@link tsString}: a TypeScript string literal (also a JSON string and a YAML double-quoted scalar).
 * - {@link tsComment}: text inside a `//` or a `/* … *\/` comment, and any other one-line prose (a README line).
 * - {@link yamlScalar}: a YAML scalar written by hand (a stack file's config value). The org file itself is
 *   written by the `yaml` library, which quotes each scalar for its context.
 *
 * The export also refuses values that break the API's own rules for their field (`trust.ts`), so these are the
 * second line of defence, not the only one.
 */

import { UNSAFE, printable } from "./text";

// UNSAFE, the characters escaped in every context (shared with provider/text.ts): C0 and C1 controls and DEL;
// the line and paragraph separators U+2028 and U+2029 (line terminators to JavaScript, which JSON.stringify leaves
// alone); the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069 (they make code read
// differently from how it runs); U+FEFF; and lone surrogates.

/** `\uXXXX` for one UTF-16 code unit. */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A TypeScript (and JSON) string literal of `text`, in double quotes, with every {@link UNSAFE} character
 * written as `\uXXXX`.
 * @example tsString("a\u2028b") // "\"a\\u2028b\""
 */
export function tsString(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, unicodeEscape);
}

/**
 * `text` made safe inside a `//` line comment or a block comment: one line (every run of whitespace, line
 * terminators included, becomes one space), every other {@link UNSAFE} character written as `\uXXXX`, and `*\/`
 * written as `* /`. Readable, never executable: whatever the text, the comment ends where the writer ends it.
 * @example tsComment("evil\nrequire('x')") // "evil require('x')"
 */
export function tsComment(text: string): string {
  return text
    .replace(/[\s\u2028\u2029\u0085]+/g, " ")
    .replace(UNSAFE, unicodeEscape)
    .replace(/\*\//g, "* /")
    .trim();
}

/**
 * A YAML scalar for `text`: a double-quoted scalar whose escapes (`\"`, `\\`, `\n`, `\uXXXX`) YAML 1.2 reads
 * the same as JSON, with every {@link UNSAFE} character escaped; one line, whatever the text.
 * @example yamlScalar("a: b\n- c") // "\"a: b\\n- c\""
 */
export function yamlScalar(text: string): string {
  return tsString(text);
}

/**
 * `text` for error messages and terminal output that quote server text: provider/text.ts's {@link printable}, the
 * one function for text bound for a terminal or a log (every {@link UNSAFE} character as `\uXXXX`, no workflow
 * command).
 */
export { printable };
