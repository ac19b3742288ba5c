/**
 * The credential values this process holds, so {@link redact} (errors.ts) can scrub them by exact value.
 *
 * Why: redaction by shape only catches bearer headers and JWTs; a token of another shape (an opaque
 * `plat_live_…` API token, an OIDC token that is not a JWT) that a server echoes in an error message would
 * otherwise reach the engine's output and logs whole (issue 9). Every place that takes a credential registers
 * it here: the client's static token and each token its token function returns, the OIDC token to exchange and
 * every token the exchange returns.
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are not registered: they are not real credentials,
 * and scrubbing every occurrence of, say, `t` would mangle messages. The newest {@link MAX_SECRETS} values are
 * kept (exchanged tokens rotate hourly; the oldest are long expired).
 */

/** Shortest value registered, in characters. */
export const MIN_SECRET_LENGTH = 6;
/** Most values kept; registering more drops the oldest. */
export const MAX_SECRETS = 64;

const secrets = new Set<string>();
let sorted: string[] = [];

/** Remembers `value` as a credential to scrub from every error message from now on. Empty or short values are ignored. */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
  secrets.add(value);
  if (secrets.size > MAX_SECRETS) secrets.delete(secrets.values().next().value as string);
  // Longest first, so a token that contains another registered value is scrubbed whole.
  sorted = [...secrets].sort((a, b) => b.length - a.length);
}

/** The registered values, longest first. */
export function registeredSecrets(): readonly string[] {
  return sorted;
}
