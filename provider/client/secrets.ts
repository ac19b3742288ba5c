/**
 * The credential values this process holds, so {@link redact} (errors.ts) can scrub them by exact value.
 *
 * Why: redaction by shape only catches bearer headers and JWTs; a token of another shape (an opaque
 * `plat_live_…` API token, an OIDC token that is not a JWT) that a server echoes in an error message would
 * otherwise reach the engine's output and logs whole. Every place that takes a credential registers
 * it here: the client's static token and each token its token function returns, the OIDC token to exchange and
 * every token the exchange returns.
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are not registered: they are not real credentials,
 * and scrubbing every occurrence of, say, `t` would mangle messages. The newest {@link MAX_SECRETS} values are
 * kept (exchanged tokens rotate hourly; the oldest are long expired).
 *
 * A server can also echo a credential changed a little: cut short, upper-cased, spaced out, base64- or
 * hex-encoded. So each value is also remembered by its {@link derivedWindows}: every run of
 * {@link windowLength} characters of its letters and digits (lower-cased; runs start every quarter run, so a
 * stretch of 1.25 runs always holds one), and the same of its base64 (at each of the three byte alignments) and
 * hex encodings; `redact` (errors.ts) scrubs text whose letters and digits, lower-cased, contain such a run.
 */

/** Shortest value registered, in characters. */
export const MIN_SECRET_LENGTH = 6;
/** Most values kept; registering more drops the oldest. */
export const MAX_SECRETS = 64;

const secrets = new Set<string>();
let sorted: string[] = [];
let windows = new Map<number, Set<string>>();

/** Letters and digits of `text`, lower-cased: what the derived-form match compares. */
export function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/**
 * Length of the runs a value of `length` normalized characters is matched by: half its length, from 8 up to 16
 * characters (never more than the value itself). A token cut short, or seen only in part, still shows runs that
 * long; shorter runs would match ordinary words.
 */
export function windowLength(length: number): number {
  return Math.min(length, Math.max(8, Math.min(16, Math.floor(length / 2))));
}

/** The normalized forms a credential may be echoed in: itself, its base64 at each byte alignment, its hex. */
function forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = [normalize(value), normalize(bytes.toString("hex"))];
  for (let pad = 0; pad < 3; pad++) {
    const b64 = Buffer.concat([Buffer.alloc(pad), bytes]).toString("base64");
    // The first and last four characters depend on the bytes around the value; the middle does not.
    out.push(normalize(b64.slice(pad === 0 ? 0 : 4, -4)));
  }
  return out;
}

function rebuildWindows(): void {
  const next = new Map<number, Set<string>>();
  for (const value of secrets) {
    const k = windowLength(normalize(value).length);
    if (k < 6) continue; // too little of it is letters or digits to tell apart from other text
    for (const [n, f] of forms(value).entries()) {
      // Encodings (all but the first form) in runs of at least 8: hex has 16 letters, and a shorter run of it
      // would turn up in ordinary hex such as uids.
      const len = n === 0 ? k : Math.max(k, 8);
      const set = next.get(len) ?? new Set<string>();
      // Runs starting every `step` characters: any stretch of len + step - 1 characters of a form holds one.
      const step = Math.max(1, Math.floor(len / 4));
      for (let i = 0; i + len <= f.length; i += step) set.add(f.slice(i, i + len));
      if ((f.length - len) % step !== 0 && f.length >= len) set.add(f.slice(f.length - len));
      next.set(len, set);
    }
  }
  windows = next;
}

/** Remembers `value` as a credential to scrub from every error message from now on. Empty or short values are ignored. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
  secrets.add(value);
  if (secrets.size > MAX_SECRETS) secrets.delete(secrets.values().next().value as string);
  // Longest first, so a token that contains another registered value is scrubbed whole.
  sorted = [...secrets].sort((a, b) => b.length - a.length);
  rebuildWindows();
}

/** The registered values, longest first. */
export function registeredSecrets(): readonly string[] {
  return sorted;
}

/**
 * The runs of normalized characters (see {@link normalize}) that mark text derived from a registered value, by
 * run length. Built when a value is registered.
 */
export function derivedWindows(): ReadonlyMap<number, ReadonlySet<string>> {
  return windows;
}
