/**
 * Input rules shared by `check` of every resource, so a bad input fails at preview, before any API call,
 * with a message that names the field and what is allowed.
 */

/** The seed's name rule. */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
/** Length limits the OpenAPI states for group and identity names. */
export const NAME_MIN_LENGTH = 3;
export const NAME_MAX_LENGTH = 63;

const UIDP = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

/** The sentinel the engine puts in place of a value that is not known yet during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether a value is not known yet (preview of a value computed by another resource). */
export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** One failed input: the property path and the reason, as `check` reports it. */
export interface Failure {
  property: string;
  reason: string;
}

/** Reason `name` breaks the name rule, or undefined when it is valid (or unknown). */
export function nameProblem(name: unknown): string | undefined {
  if (isUnknown(name)) return undefined;
  if (typeof name !== "string" || name === "") return "is required (a string)";
  const bad: string[] = [];
  if (!NAME_PATTERN.test(name)) bad.push(`must match ${NAME_PATTERN.source} (lowercase letters, digits, space, ".", "_", "-")`);
  if (name.length < NAME_MIN_LENGTH || name.length > NAME_MAX_LENGTH) {
    bad.push(`must be ${NAME_MIN_LENGTH}–${NAME_MAX_LENGTH} characters (got ${name.length})`);
  }
  return bad.length ? `"${name}" ${bad.join(" and ")}` : undefined;
}

/** Reason `uid` is not a UIDP (40 hex, then `/` + 16 hex per level), or undefined when valid (or unknown). */
export function uidpProblem(uid: unknown): string | undefined {
  if (isUnknown(uid)) return undefined;
  if (typeof uid !== "string" || uid === "") return "is required (a uid)";
  if (!UIDP.test(uid)) return `"${uid}" is not a uid: 40 lowercase hex characters, then "/" + 16 hex characters per level`;
  return undefined;
}

/** Reason an optional string is not a string, or undefined. */
export function optionalStringProblem(v: unknown): string | undefined {
  if (v === undefined || v === null || isUnknown(v) || typeof v === "string") return undefined;
  return `must be a string, got ${typeof v}`;
}

/** Collects failures: `add("name", nameProblem(x))` adds one only when there is a problem. */
export class Failures {
  readonly list: Failure[] = [];
  add(property: string, reason: string | undefined): this {
    if (reason !== undefined) this.list.push({ property, reason });
    return this;
  }
}

/**
 * Reason `pattern` is not a regular expression the real service accepts, or undefined when it compiles (or is
 * unknown, or not a string: type problems are reported elsewhere).
 *
 * Why RE2: the service evaluates identity patterns with Go's regexp (README, How it works: RE2 syntax, linear time, no
 * backreferences, no lookaround), so a pattern JavaScript's RegExp accepts can still fail at apply. The pattern
 * is compiled with `re2js` (a port of RE2/Go's regexp syntax) and never run; no user pattern ever reaches
 * JavaScript's RegExp in this package (a different language, and a denial-of-service hole).
 * @returns e.g. `"(a)\1" is not a valid RE2 regular expression (...): invalid escape sequence: \`\1\``.
 */
export function re2Problem(pattern: unknown): string | undefined {
  if (typeof pattern !== "string" || isUnknown(pattern)) return undefined;
  // Loaded on first use: the program process, which loads this module too, never needs it.
  const { RE2JS } = require("re2js") as typeof import("re2js");
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    const why = (err as Error).message.replace(/^error parsing regexp: /, "");
    return `${JSON.stringify(pattern)} is not a valid RE2 regular expression (the service uses Go's regexp: RE2 syntax, no backreferences, no lookaround): ${why}`;
  }
}

const REPO_NAME = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const TAG_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** Why `name` is not an OCI repository name, or undefined. */
export function repoNameProblem(name: unknown): string | undefined {
  if (isUnknown(name)) return undefined;
  if (typeof name !== "string" || name === "") return "is required (a string)";
  if (name.length > 255 || !REPO_NAME.test(name)) {
    return `"${name}" must be an OCI repository name: lowercase letters and digits separated by ".", "_", "__", "-" or "/", at most 255 characters`;
  }
  return undefined;
}

/** Why `v` is not an OCI tag name, or undefined. */
export function tagNameProblem(v: unknown): string | undefined {
  if (isUnknown(v)) return undefined;
  if (typeof v !== "string" || v === "") return "is required (a string)";
  return TAG_NAME.test(v) ? undefined : `"${v}" is not an OCI tag: [A-Za-z0-9_][A-Za-z0-9._-]{0,127}`;
}

/** Why `v` is not an image digest (`sha256:<64 hex>` or `sha512:<128 hex>`), or undefined. */
export function digestProblem(v: unknown): string | undefined {
  if (isUnknown(v)) return undefined;
  if (typeof v !== "string" || v === "") return "is required (sha256:<64 hex> or sha512:<128 hex>)";
  return DIGEST.test(v) ? undefined : `"${v}" is not a digest: sha256:<64 lowercase hex> or sha512:<128 lowercase hex>`;
}

/** Why `sink` is not an https URL with a host and no credentials, or undefined. */
export function sinkProblem(sink: unknown): string | undefined {
  if (isUnknown(sink)) return undefined;
  if (typeof sink !== "string" || sink === "") return "is required (an https URL)";
  let url: URL;
  try {
    url = new URL(sink);
  } catch {
    return `"${sink}" is not a URL; an https URL is required`;
  }
  if (url.protocol !== "https:") return `"${sink}" must use the https scheme, not ${url.protocol.replace(/:$/, "")}`;
  if (url.username !== "" || url.password !== "") return `"${url.protocol}//…@${url.host}${url.pathname}" must not carry credentials in the URL`;
  return undefined;
}

/**
 * Whether an OIDC issuer URL may be trusted by an identity: https, or http on a loopback address (a local test
 * issuer that nothing off this machine can mint for).
 */
export function isTrustworthyIssuer(url: string): boolean {
  return /^https:\/\/\S+$/.test(url) || /^http:\/\/(127(\.\d{1,3}){3}|localhost|\[::1\])(:\d+)?(\/\S*)?$/.test(url);
}
