/**
 * Identity patterns (`claimMatch.issuerPattern`, `subjectPattern`, `audiencePattern`, `claimPatterns`,
 * `awsIdentity.arnPattern`, `userIdPattern`) in the real service's language: Go's regexp, i.e. RE2 syntax,
 * linear-time matching, no backreferences or lookaround. The emulator uses `re2js`, a
 * pure-JavaScript port of RE2, so a hostile pattern such as `(a+)+$` can neither stall the server nor be
 * accepted here and refused by the real service.
 *
 * A pattern matches a value only as a whole, as the emulator always anchored them (`^(?:pattern)$`): RE2's
 * full match.
 */
import { RE2JS } from "re2js";

/** Compiled patterns kept for reuse; the cache is cleared when it reaches this size. */
const CACHE_LIMIT = 1000;
const cache = new Map<string, RE2JS>();

/**
 * Compiles `pattern` with RE2 semantics.
 * @returns the compiled pattern, or the parser's description of why RE2 rejects it (backreference, lookaround,
 *   bad syntax, repeat count over 1000, …).
 */
export function compilePattern(pattern: string): RE2JS | { error: string } {
  const hit = cache.get(pattern);
  if (hit) return hit;
  try {
    const re = RE2JS.compile(pattern);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
    return re;
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Why RE2 rejects `pattern`, or undefined when it compiles. */
export function patternError(pattern: string): string | undefined {
  const re = compilePattern(pattern);
  return re instanceof RE2JS ? undefined : re.error;
}

/**
 * Whether `value` matches `pattern` as a whole (RE2 full match, the same as `^(?:pattern)$`); linear in the
 * value's length. A pattern RE2 rejects matches nothing.
 */
export function fullMatch(pattern: string, value: string): boolean {
  const re = compilePattern(pattern);
  return re instanceof RE2JS ? re.matcher(value).matches() : false;
}
