/**
 * The CustomOverlay shape (apko image customizations) that a repo's `customOverlay` and an overlay's `config`
 * share, and its validation. Members, as the vendor's OpenAPI (`registry.v2beta1.CustomOverlay`) shapes them:
 *
 * - `contents {packages: string[], runtimeRepositories: string[], runtimeKeyring: [{name, content}]}`
 * - `environment: {string: string}`: keys with the reserved prefix `CHAINGUARD_` are rejected
 * - `annotations: {string: string}`: keys with the reserved prefixes `dev.chainguard.` and `org.opencontainers.`
 *   are rejected
 * - `accounts {runAs: string, users: [{username, uid, gid, groupName, homeDir, shell}], groups: [{groupname,
 *   gid, members}]}`: `username` and `groupname` required, ids int32
 * - `certificates {providers: string[], additional: [{name, content}]}`: `name` and `content` required
 *
 * An overlay's config carries packages only (OverlaysService CreateOverlay: "Only config.contents.packages may
 * be populated; any other config field fails with InvalidArgument"; Overlay.config: "at least one package is
 * required on create").
 */
import type { FieldViolation } from "../errors";
import { checkKnownKeys } from "./common";

const TOP = ["contents", "environment", "annotations", "accounts", "certificates"];
const CONTENTS = ["packages", "runtimeKeyring", "runtimeRepositories"];
const ACCOUNTS = ["runAs", "users", "groups"];
const USER = ["username", "uid", "gid", "groupName", "homeDir", "shell"];
const GROUP = ["groupname", "gid", "members"];
const CERTIFICATES = ["providers", "additional"];
const ENTRY = ["name", "content"];
const RESERVED_ENV = ["CHAINGUARD_"];
const RESERVED_ANNOTATIONS = ["dev.chainguard.", "org.opencontainers."];
/** A key file name under /etc/apk/keys: "a safe filename; dots allowed, but not as the first character". */
const KEY_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const INT32_MAX = 2 ** 31 - 1;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a JSON value is "populated" in the protobuf sense: not absent, null, "", 0, false, [] or {}. */
export function populated(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === false) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}

function object(field: string, v: unknown, violations: FieldViolation[]): v is Record<string, unknown> {
  if (v === undefined) return false;
  if (!isObject(v)) {
    violations.push({ field, description: "must be an object" });
    return false;
  }
  return true;
}

function strings(field: string, v: unknown, violations: FieldViolation[], nonEmpty = true): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) {
    violations.push({ field, description: "must be a list of strings" });
    return;
  }
  v.forEach((s, i) => {
    if (typeof s !== "string" || (nonEmpty && s.trim() === "")) violations.push({ field: `${field}[${i}]`, description: "must be a non-empty string" });
  });
}

function str(field: string, v: unknown, violations: FieldViolation[], required = false): void {
  if (v === undefined || v === "") {
    if (required) violations.push({ field, description: "is required" });
    return;
  }
  if (typeof v !== "string") violations.push({ field, description: `must be a string, got ${Array.isArray(v) ? "array" : typeof v}` });
}

function int32(field: string, v: unknown, violations: FieldViolation[]): void {
  if (v === undefined) return;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > INT32_MAX) violations.push({ field, description: `must be an integer 0–${INT32_MAX}` });
}

function entries(field: string, v: unknown, allowed: readonly string[], violations: FieldViolation[], each: (prefix: string, o: Record<string, unknown>) => void): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) {
    violations.push({ field, description: "must be a list of objects" });
    return;
  }
  v.forEach((o, i) => {
    const prefix = `${field}[${i}]`;
    if (!isObject(o)) {
      violations.push({ field: prefix, description: "must be an object" });
      return;
    }
    checkKnownKeys(prefix, o, allowed, violations);
    each(prefix, o);
  });
}

function stringMap(field: string, v: unknown, reserved: readonly string[], violations: FieldViolation[]): void {
  if (!object(field, v, violations)) return;
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== "string") violations.push({ field: `${field}.${k}`, description: "must be a string" });
    const prefix = reserved.find((p) => k.startsWith(p));
    if (prefix) violations.push({ field: `${field}.${k}`, description: `keys with the reserved prefix "${prefix}" are rejected` });
    if (k === "") violations.push({ field, description: "keys must not be empty" });
  }
}

/**
 * Appends violations for a CustomOverlay at `prefix` (e.g. `customOverlay`, `config`).
 * @param opts.packagesOnly an overlay's config: every populated member other than `contents.packages` is
 *   rejected, and `opts.requirePackages` asks for at least one package.
 */
export function checkCustomOverlay(prefix: string, v: unknown, violations: FieldViolation[], opts: { packagesOnly?: boolean; requirePackages?: boolean } = {}): void {
  if (!object(prefix, v, violations)) {
    if (v === undefined && opts.requirePackages) violations.push({ field: prefix, description: "is required" });
    return;
  }
  checkKnownKeys(prefix, v, TOP, violations);
  if (opts.packagesOnly) {
    for (const k of TOP) {
      if (k !== "contents" && populated(v[k])) violations.push({ field: `${prefix}.${k}`, description: "only contents.packages may be set on an overlay" });
    }
  }
  const contents = v["contents"];
  if (object(`${prefix}.contents`, contents, violations)) {
    checkKnownKeys(`${prefix}.contents`, contents, CONTENTS, violations);
    strings(`${prefix}.contents.packages`, contents["packages"], violations);
    if (opts.packagesOnly) {
      for (const k of CONTENTS) {
        if (k !== "packages" && populated(contents[k])) violations.push({ field: `${prefix}.contents.${k}`, description: "only contents.packages may be set on an overlay" });
      }
    } else {
      strings(`${prefix}.contents.runtimeRepositories`, contents["runtimeRepositories"], violations);
      entries(`${prefix}.contents.runtimeKeyring`, contents["runtimeKeyring"], ENTRY, violations, (p, o) => {
        str(`${p}.name`, o["name"], violations, true);
        if (typeof o["name"] === "string" && o["name"] !== "" && !KEY_FILE.test(o["name"])) {
          violations.push({ field: `${p}.name`, description: "must be a safe file name (letters, digits, . _ -; not starting with a dot)" });
        }
        str(`${p}.content`, o["content"], violations, true);
      });
    }
  }
  if (opts.requirePackages) {
    const packages = isObject(contents) ? contents["packages"] : undefined;
    if (!Array.isArray(packages) || packages.length === 0) violations.push({ field: `${prefix}.contents.packages`, description: "at least one package is required" });
  }
  if (opts.packagesOnly) return;
  if (v["environment"] !== undefined) stringMap(`${prefix}.environment`, v["environment"], RESERVED_ENV, violations);
  if (v["annotations"] !== undefined) stringMap(`${prefix}.annotations`, v["annotations"], RESERVED_ANNOTATIONS, violations);
  const accounts = v["accounts"];
  if (object(`${prefix}.accounts`, accounts, violations)) {
    checkKnownKeys(`${prefix}.accounts`, accounts, ACCOUNTS, violations);
    str(`${prefix}.accounts.runAs`, accounts["runAs"], violations);
    entries(`${prefix}.accounts.users`, accounts["users"], USER, violations, (p, o) => {
      str(`${p}.username`, o["username"], violations, true);
      int32(`${p}.uid`, o["uid"], violations);
      int32(`${p}.gid`, o["gid"], violations);
      for (const k of ["groupName", "homeDir", "shell"]) str(`${p}.${k}`, o[k], violations);
    });
    entries(`${prefix}.accounts.groups`, accounts["groups"], GROUP, violations, (p, o) => {
      str(`${p}.groupname`, o["groupname"], violations, true);
      int32(`${p}.gid`, o["gid"], violations);
      strings(`${p}.members`, o["members"], violations);
    });
  }
  const certificates = v["certificates"];
  if (object(`${prefix}.certificates`, certificates, violations)) {
    checkKnownKeys(`${prefix}.certificates`, certificates, CERTIFICATES, violations);
    strings(`${prefix}.certificates.providers`, certificates["providers"], violations);
    entries(`${prefix}.certificates.additional`, certificates["additional"], ENTRY, violations, (p, o) => {
      str(`${p}.name`, o["name"], violations, true);
      str(`${p}.content`, o["content"], violations, true);
    });
  }
}

/** An overlay's config as reads render it: packages only (Overlay: "Reads render only package content"). */
export function packagesOnly(config: unknown): { contents: { packages: string[] } } {
  const contents = isObject(config) && isObject(config["contents"]) ? config["contents"] : {};
  const packages = Array.isArray(contents["packages"]) ? (contents["packages"] as unknown[]).filter((p): p is string => typeof p === "string") : [];
  return { contents: { packages } };
}
