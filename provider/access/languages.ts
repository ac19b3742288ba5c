/**
 * Identity patterns as regular languages: whether two `claimMatch` rules admit a common token, decided on finite
 * automata with refa, and one such token to show it.
 *
 * A pattern (`issuerPattern`, `subjectPattern`, `audiencePattern`, `claimPatterns`) is RE2 syntax (seed §2 Identity;
 * docs/access.md "The model") matched against a whole claim, `.` matching any character (DOTALL), as the
 * model matches ({@link wholeMatch}). refa reads JavaScript regular expressions, so a pattern is first checked by
 * RE2 (RE2JS: what RE2 rejects admits nothing) and then rewritten into the JavaScript syntax of the same language
 * ({@link toJsSource}); a construct whose meaning differs or that this rewrite does not know (case folding and other
 * flags, Unicode classes, `\C`, …) is refused. A refused or oversized pattern, or automata past
 * {@link NODE_LIMIT} states, decide nothing: no common value, so the model claims no step it cannot show. A common
 * value found on the automata is kept only when RE2 itself matches it against every pattern.
 */
import { RE2JS } from "re2js";
import { JS, NFA, Transformers, transform, getIntersectionWordSets, type CharSet, type Expression, type NoParent } from "refa";
import type { ClaimMatch } from "../client/types";

/** Patterns longer than this (characters) decide nothing. */
export const PATTERN_LIMIT = 512;
/** Automata (one pattern's, or an intersection's) with more states than this decide nothing. */
export const NODE_LIMIT = 4000;
/** Cached automata and common values are dropped when a cache reaches this size. */
const CACHE_LIMIT = 5000;

/** Whether `value` matches `pattern` as a whole (RE2, `.` matching newlines too); a pattern RE2 rejects matches nothing. */
export function wholeMatch(pattern: string, value: string): boolean {
  const re = compiled(pattern);
  return re !== undefined && re.matches(value);
}

const re2Cache = new Map<string, RE2JS | null>();
function compiled(pattern: string): RE2JS | undefined {
  let re = re2Cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(`^(?:${pattern})$`, RE2JS.DOTALL);
    } catch {
      re = null;
    }
    if (re2Cache.size >= CACHE_LIMIT) re2Cache.clear();
    re2Cache.set(pattern, re);
  }
  return re ?? undefined;
}

/** Thrown inside {@link toJsSource} for a construct it refuses. */
class Refused extends Error {}

/** `\s` in RE2: `[\t\n\f\r ]` (JavaScript's `\s` is wider). */
const SPACE = "\\t\\n\\f\\r ";
/** RE2's POSIX classes (`[[:alpha:]]`), ASCII, as class members in JavaScript syntax. */
const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\u{0}-\\u{7F}",
  blank: "\\t ",
  cntrl: "\\u{0}-\\u{1F}\\u{7F}",
  digit: "0-9",
  graph: "\\u{21}-\\u{7E}",
  lower: "a-z",
  print: "\\u{20}-\\u{7E}",
  punct: "\\u{21}-\\u{2F}\\u{3A}-\\u{40}\\u{5B}-\\u{60}\\u{7B}-\\u{7E}",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** A code point as JavaScript regex source that means that one character anywhere (in a class or not). */
function lit(cp: number): string {
  return /[0-9A-Za-z_]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : `\\u{${cp.toString(16).toUpperCase()}}`;
}

/**
 * `pattern` (RE2 syntax, one RE2 accepts) rewritten as JavaScript regex source with the same language under the
 * flags `su`: literals as `\u{…}` escapes, `.` as `[^]`, RE2's ASCII `\s` spelled out, POSIX classes expanded,
 * `\A`/`\z` as `^`/`$`, `\Q…\E` quoted, named and capturing groups as plain groups, the flags `s` and `U` (which do
 * not change the language here) dropped.
 * @throws Refused for a construct whose language differs or is not known here: other flags (`i`, `m`, `-s`),
 *   `\p`/`\P` Unicode classes, `\C`, backreference digits, an escape of a letter RE2 has no meaning for here.
 */
function toJsSource(pattern: string): { source: string; assertions: boolean } {
  let assertions = false;
  const cps = [...pattern].map((c) => c.codePointAt(0)!);
  let i = 0;
  const peek = (k = 0) => (i + k < cps.length ? String.fromCodePoint(cps[i + k]!) : "");
  const take = () => String.fromCodePoint(cps[i++]!);

  /** An escape after `\` (the backslash taken); `inClass` for a class member. Returns source. */
  const escape = (inClass: boolean): string => {
    const c = take();
    switch (c) {
      case "d": case "D": case "w": case "W":
        return `\\${c}`; // ASCII in both without case folding
      case "s":
        return inClass ? SPACE : `[${SPACE}]`;
      case "S":
        return inClass ? "\\u{0}-\\u{8}\\u{B}\\u{E}-\\u{1F}\\u{21}-\\u{10FFFF}" : `[^${SPACE}]`;
      case "t": return "\\t";
      case "n": return "\\n";
      case "r": return "\\r";
      case "f": return "\\f";
      case "v": return "\\v";
      case "a": return lit(7);
      case "x": {
        if (peek() === "{") {
          const end = cps.indexOf("}".codePointAt(0)!, i);
          const hex = String.fromCodePoint(...cps.slice(i + 1, end));
          i = end + 1;
          return lit(parseInt(hex, 16));
        }
        const hex = take() + take();
        return lit(parseInt(hex, 16));
      }
      case "A":
        if (inClass) throw new Refused(c);
        assertions = true;
        return "^";
      case "z":
        if (inClass) throw new Refused(c);
        assertions = true;
        return "$";
      case "b": case "B":
        if (inClass) throw new Refused(c);
        assertions = true;
        return `\\${c}`; // ASCII word boundary in both without case folding
      case "Q": {
        let out = "";
        while (i < cps.length && !(peek() === "\\" && peek(1) === "E")) out += lit(cps[i++]!);
        if (i < cps.length) i += 2;
        if (inClass) throw new Refused(c);
        return out === "" ? "(?:)" : `(?:${out})`;
      }
      default:
        if (/[0-7]/.test(c)) {
          let oct = c;
          while (oct.length < 3 && /[0-7]/.test(peek())) oct += take();
          if (c !== "0" && oct.length === 1) throw new Refused(`\\${c}`); // a backreference; RE2 rejects it anyway
          return lit(parseInt(oct, 8));
        }
        if (/[!-/:-@[-`{-~]/.test(c)) return lit(c.codePointAt(0)!); // escaped punctuation is that character
        throw new Refused(`\\${c}`);
    }
  };

  const cls = (): string => {
    let out = "[";
    if (peek() === "^") {
      take();
      out += "^";
    }
    let first = true;
    while (i < cps.length && (first || peek() !== "]")) {
      first = false;
      if (peek() === "[" && peek(1) === ":") {
        let end = i + 2;
        while (end + 1 < cps.length && !(cps[end] === 0x3a && cps[end + 1] === 0x5d)) end++;
        const name = String.fromCodePoint(...cps.slice(i + 2, end));
        const neg = name.startsWith("^");
        const set = POSIX[neg ? name.slice(1) : name];
        if (set === undefined || neg) throw new Refused(`[:${name}:]`);
        i = end + 2;
        out += set;
        continue;
      }
      const one = (): string => {
        const c = take();
        if (c === "\\") return escape(true);
        return lit(c.codePointAt(0)!);
      };
      const a = one();
      if (peek() === "-" && peek(1) !== "]" && peek(1) !== "") {
        take();
        out += `${a}-${one()}`;
      } else out += a;
    }
    take(); // ]
    return `${out}]`;
  };

  const alternation = (): string => {
    const parts = [sequence()];
    while (peek() === "|") {
      take();
      parts.push(sequence());
    }
    return parts.join("|");
  };

  const sequence = (): string => {
    let out = "";
    while (i < cps.length && peek() !== "|" && peek() !== ")") {
      const c = take();
      let atom: string;
      if (c === "(") {
        if (peek() === "?") {
          take();
          if (peek() === "P" || peek() === "<") {
            while (take() !== ">");
          } else {
            let flags = "";
            while (peek() !== ":" && peek() !== ")") flags += take();
            if (!/^[sU]*$/.test(flags)) throw new Refused(`(?${flags}`);
            if (take() === ")") continue; // (?s), (?U): no change to the language here
          }
        }
        atom = `(?:${alternation()})`;
        take(); // )
      } else if (c === "[") atom = cls();
      else if (c === "\\") atom = escape(false);
      else if (c === ".") atom = "[^]";
      else if (c === "^" || c === "$") {
        assertions = true;
        atom = c;
      }
      else if (c === "*" || c === "+" || c === "?") {
        if (peek() === "?") take(); // lazy: the same language
        out += c;
        continue;
      } else if (c === "{" && /^\{\d+(,\d*)?\}/.test(String.fromCodePoint(...cps.slice(i - 1, i + 12)))) {
        let q = c;
        while (peek() !== "}") q += take();
        q += take();
        if (peek() === "?") take();
        out += q;
        continue;
      } else atom = lit(c.codePointAt(0)!);
      out += atom;
    }
    return out;
  };

  const source = alternation();
  if (i !== cps.length) throw new Refused(peek());
  return { source, assertions };
}

/** A pattern's automaton and the literal text every word of its language starts with (for a quick disjointness check). */
interface Automaton {
  nfa: NFA;
  prefix: string;
}
const nfaCache = new Map<string, Automaton | null>();

/** The text every word of `nfa`'s language starts with: the chain of single-character steps from its initial state. */
function literalPrefix(nfa: NFA): string {
  let out = "";
  let node = nfa.initial;
  while (!nfa.finals.has(node) && node.out.size === 1 && out.length < PATTERN_LIMIT * 2) {
    const [next, set] = [...node.out][0]!;
    const r = set.ranges[0];
    if (set.ranges.length !== 1 || !r || r.min !== r.max) break;
    out += String.fromCodePoint(r.min);
    node = next;
  }
  return out;
}

/** The automaton of `pattern`'s whole-claim language, or undefined when it is refused or too large. */
function automaton(pattern: string): Automaton | undefined {
  const hit = nfaCache.get(pattern);
  if (hit !== undefined) return hit ?? undefined;
  let fa: Automaton | null = null;
  if (pattern.length <= PATTERN_LIMIT && compiled(pattern)) {
    try {
      const js = toJsSource(pattern);
      // Without assertions the automaton's language is the whole-claim language as it is. With them, `^`, `$`,
      // `\b` inside are resolved against the claim's edges (simplified within `^(?:…)$`, the edge ones then true);
      // whatever assertion is left refuses.
      const parser = JS.Parser.fromLiteral({ source: js.assertions ? `^(?:${js.source})$` : js.source, flags: "su" });
      const parsed = parser.parse({ backreferences: "throw", assertions: "parse", maxNodes: NODE_LIMIT });
      let e: NoParent<Expression> = parsed.expression;
      if (js.assertions) {
        e = transform(Transformers.simplify(), e);
        e = transform(Transformers.patternEdgeAssertions({ remove: true }), e);
      }
      const nfa = NFA.fromRegex(e, { maxCharacter: parsed.maxCharacter }, { assertions: "throw", unknowns: "throw" }, new NFA.LimitedNodeFactory(NODE_LIMIT));
      fa = { nfa, prefix: literalPrefix(nfa) };
    } catch {
      fa = null; // refused, not JavaScript syntax after all, an assertion left, or too many states
    }
  }
  if (nfaCache.size >= CACHE_LIMIT) nfaCache.clear();
  nfaCache.set(pattern, fa);
  return fa ?? undefined;
}

/** Characters a witness prefers, in order: lower-case letters, digits, upper-case, then printable ASCII, then the rest. */
const PREFERRED: Array<[number, number]> = [
  [0x61, 0x7a], [0x30, 0x39], [0x41, 0x5a], [0x2d, 0x2d], [0x5f, 0x5f], [0x21, 0x7e], [0x20, 0x20], [0xa0, 0xd7ff], [0xe000, 0x10ffff], [0, 0x1f],
];

/** A character of `set` (lone surrogates never chosen: a token's claim is text). */
function pick(set: CharSet): number | undefined {
  for (const [lo, hi] of PREFERRED) {
    for (const r of set.ranges) {
      const a = Math.max(lo, r.min);
      if (a <= Math.min(hi, r.max)) return a;
    }
  }
  return undefined;
}

const commonCache = new Map<string, string | null>();

/**
 * A value every one of `patterns` admits as a whole claim (shortest first), or undefined when their languages are
 * disjoint or when that cannot be decided here (a pattern RE2 rejects, refused, over {@link PATTERN_LIMIT}, or
 * automata over {@link NODE_LIMIT} states). The value is confirmed by RE2 against each pattern. Cached per set of
 * patterns.
 */
export function commonWord(patterns: readonly string[]): string | undefined {
  const sorted = [...new Set(patterns)].sort();
  const key = sorted.some((p) => p.includes("\u0000")) ? `j${JSON.stringify(sorted)}` : `s${sorted.join("\u0000")}`;
  const hit = commonCache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  let word: string | null = null;
  const fas = sorted.map(automaton);
  const prefixesAgree = (a: string, b: string) => a.slice(0, b.length) === b.slice(0, a.length);
  if (fas.length > 0 && fas.every((f) => f !== undefined) && fas.every((f) => prefixesAgree(f.prefix, fas[0]!.prefix))) {
    try {
      let sets: Iterable<CharSet[]>;
      if (fas.length === 1) sets = fas[0]!.nfa.wordSets();
      else {
        let left: NFA = fas[0]!.nfa;
        for (const f of fas.slice(1, -1)) left = NFA.fromIntersection(left, f.nfa, new NFA.LimitedNodeFactory(NODE_LIMIT));
        sets = getIntersectionWordSets(left, fas.at(-1)!.nfa, NODE_LIMIT);
      }
      for (const ws of sets) {
        const cps = ws.map(pick);
        if (cps.every((c) => c !== undefined)) {
          const w = String.fromCodePoint(...(cps as number[]));
          if (patterns.every((p) => wholeMatch(p, w))) word = w;
        }
        break; // the shortest only: the search stays bounded
      }
    } catch {
      word = null; // too many states
    }
  }
  if (commonCache.size >= CACHE_LIMIT) commonCache.clear();
  commonCache.set(key, word);
  return word ?? undefined;
}

/**
 * A value that satisfies every constraint on one claim: equal to each of `exact`, matching each of `patterns` as a
 * whole. With an exact value that value is checked against the rest (RE2); with patterns only, {@link commonWord}.
 * Undefined when there is none, when it cannot be decided, or when nothing constrains the claim.
 */
export function commonValue(exact: readonly string[], patterns: readonly string[]): string | undefined {
  if (exact.length > 0) {
    const v = exact[0]!;
    return exact.every((x) => x === v) && patterns.every((p) => wholeMatch(p, v)) ? v : undefined;
  }
  return patterns.length > 0 ? commonWord(patterns) : undefined;
}

/** The claims of a workload token (OIDC): issuer, subject, audience (undefined: the default audience) and others. */
export interface PresentedToken {
  issuer: string;
  subject: string;
  audience?: string | undefined;
  claims: Record<string, string>;
}

/**
 * A token that `actor`'s `claimMatch` accepts and `target`'s accepts too, as the token exchange decides (exact
 * values equal, a pattern matches the whole claim; an exact issuer, subject or audience takes precedence over its
 * pattern; the target's `claims` and `claimPatterns` both apply; no audience rule means the default audience): the token a
 * workload running as the actor can exchange for the target (docs/access.md "The model", `present`).
 *
 * Undefined when there is none or it cannot be shown: the actor's issuer or subject, or a claim the target
 * constrains, is one the actor does not constrain at all (its value is not known); the target has an audience rule
 * and the actor none, or the other way round; or a claim's constraints have no common value
 * ({@link commonValue}: decided on the patterns' languages, bounded).
 */
export function presentedToken(actor: ClaimMatch | undefined, target: ClaimMatch | undefined): PresentedToken | undefined {
  if (!actor || !target) return undefined;
  // The model asks about the same two objects once per pair and again for each route's words.
  let byTarget = tokenCache.get(actor);
  if (!byTarget) tokenCache.set(actor, (byTarget = new WeakMap()));
  const hit = byTarget.get(target);
  if (hit !== undefined) return hit ?? undefined;
  const token = decideToken(actor, target);
  byTarget.set(target, token ?? null);
  return token;
}

/** Answers of {@link presentedToken} by the two `claimMatch` objects (a changed object is a new key). */
const tokenCache = new WeakMap<ClaimMatch, WeakMap<ClaimMatch, PresentedToken | null>>();

function decideToken(actor: ClaimMatch, target: ClaimMatch): PresentedToken | undefined {
  const rule = (exact: string | undefined, pattern: string | undefined): { exact: string[]; patterns: string[] } =>
    exact ? { exact: [exact], patterns: [] } : pattern ? { exact: [], patterns: [pattern] } : { exact: [], patterns: [] };
  const both = (a: ReturnType<typeof rule>, b: ReturnType<typeof rule>): string | undefined =>
    a.exact.length + a.patterns.length === 0 ? undefined : commonValue([...a.exact, ...b.exact], [...a.patterns, ...b.patterns]);

  const issuer = both(rule(actor.issuer, actor.issuerPattern), rule(target.issuer, target.issuerPattern));
  if (issuer === undefined) return undefined;
  const subject = both(rule(actor.subject, actor.subjectPattern), rule(target.subject, target.subjectPattern));
  if (subject === undefined) return undefined;
  const actorAud = rule(actor.audience, actor.audiencePattern);
  const targetAud = rule(target.audience, target.audiencePattern);
  const targetHas = targetAud.exact.length + targetAud.patterns.length > 0;
  const actorHas = actorAud.exact.length + actorAud.patterns.length > 0;
  let audience: string | undefined;
  if (targetHas) {
    audience = both(actorAud, targetAud);
    if (audience === undefined) return undefined;
  } else if (actorHas) return undefined;

  const claims: Record<string, string> = {};
  const targetKeys = new Set([...Object.keys(target.claims ?? {}), ...Object.keys(target.claimPatterns ?? {})]);
  for (const k of new Set([...targetKeys, ...Object.keys(actor.claims ?? {}), ...Object.keys(actor.claimPatterns ?? {})])) {
    // The actor's own value: its exact value when it has one, else its pattern.
    const own = rule(actor.claims?.[k], actor.claimPatterns?.[k]);
    const theirs = { exact: target.claims?.[k] !== undefined ? [target.claims[k]] : [], patterns: target.claimPatterns?.[k] !== undefined ? [target.claimPatterns[k]] : [] };
    const v = both(own, theirs);
    if (v !== undefined) claims[k] = v;
    else if (targetKeys.has(k)) return undefined; // a claim only the actor constrains is shown when it can be, never required
  }
  return { issuer, subject, audience, claims };
}
