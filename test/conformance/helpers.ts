/**
 * Conformance-suite helpers: raw HTTP against an emulator (undici, no provider client), and assertions that
 * parse every successful body with the provider's zod schema and every error body with `Status`, so a drift
 * between the emulator and the provider's schemas fails a test.
 */
import { decodeJwt } from "jose";
import { request } from "undici";
import { expect } from "vitest";
import { z } from "zod";
import type { Emulator } from "../../emulator";
import {
  AccountAssociation,
  Advisory,
  Group,
  GroupInvite,
  Identity,
  IdentityProvider,
  Repo,
  Role,
  RoleBinding,
  Status,
  Tag,
  listEnvelope,
} from "../../provider/client/schemas";

/** UIDP shapes and the timestamp format of the contract. */
export const ROOT_UID = /^[0-9a-f]{40}$/;
export const CHILD_SEGMENT = /^[0-9a-f]{16}$/;
export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
export const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";
export const PRECONDITION_FAILURE = "type.googleapis.com/google.rpc.PreconditionFailure";
export const RESOURCE_INFO = "type.googleapis.com/google.rpc.ResourceInfo";

/** Any JSON object the tests inspect. */

export type Json = any;

/** A raw HTTP answer. */
export interface Res {
  status: number;
  body: Json;
  /** Milliseconds from send to the end of the body. */
  ms: number;
}

/** Options of {@link http}. */
export interface HttpOptions {
  method?: string;
  /** Bearer token; null or undefined sends none. */
  token?: string | null | undefined;
  /** A JSON body. */
  json?: unknown;
  /** An `application/x-www-form-urlencoded` body. */
  form?: Record<string, string>;
  /** A body sent as is with `content-type: application/json` (for malformed or hostile JSON). */
  raw?: string;
}

/** One request to any URL; the body is parsed as JSON when there is one. */
export async function http(url: string, o: HttpOptions = {}): Promise<Res> {
  const headers: Record<string, string> = {};
  if (o.token) headers["authorization"] = `Bearer ${o.token}`;
  let body: string | null = null;
  if (o.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(o.json);
  } else if (o.raw !== undefined) {
    headers["content-type"] = "application/json";
    body = o.raw;
  } else if (o.form !== undefined) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(o.form).toString();
  }
  const started = Date.now();
  const res = await request(url, { method: (o.method ?? "GET") as "GET", headers, body });
  const text = await res.body.text();
  let parsed: Json = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.statusCode, body: parsed, ms: Date.now() - started };
}

/** One API request with the owner's token (or `token`; null sends none). `path` may carry a query string. */
export async function api(emu: Emulator, method: string, path: string, body?: unknown, token: string | null = emu.token): Promise<Res> {
  return http(`${emu.url}${path}`, { method, token, json: body });
}

/** A query string from parameters; arrays become repeated parameters; undefined values are left out. */
export function qs(params: Record<string, string | number | boolean | string[] | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** Asserts HTTP 200 and returns the body parsed with the provider's schema. */
export function expectOk<T>(res: Res, schema: { parse(value: unknown): T }): T {
  expect(res.status, `expected 200, got ${res.status}: ${JSON.stringify(res.body)}`).toBe(200);
  return schema.parse(res.body);
}

/** A parsed List page: the provider's view plus the raw envelope. */
export interface ListPage {
  items: Json[];
  nextPageToken: string | undefined;
  totalCount: number;
  skipped: number;
  raw: Json;
}

/** Asserts HTTP 200 and a List envelope parsed with `listEnvelope(plural, item)`; totalCount must be a decimal string. */
export function expectList(res: Res, plural: string, item: z.ZodType): ListPage {
  expect(res.status, `expected 200, got ${res.status}: ${JSON.stringify(res.body)}`).toBe(200);
  const parsed = listEnvelope(plural, item).parse(res.body) as { items: unknown[]; nextPageToken?: string | undefined; totalCount?: number | undefined; skipped: number };
  expect(Array.isArray(res.body[plural]), `envelope key ${plural}`).toBe(true);
  expect(typeof res.body.totalCount, "totalCount is a string").toBe("string");
  expect(res.body.totalCount).toMatch(/^(0|[1-9]\d*)$/);
  expect(typeof res.body.skipped, "skipped is a number").toBe("number");
  return { items: parsed.items as Json[], nextPageToken: parsed.nextPageToken, totalCount: parsed.totalCount ?? NaN, skipped: parsed.skipped, raw: res.body };
}

/** A parsed google.rpc.Status. */
export type StatusBody = z.output<typeof Status>;

/**
 * Asserts an error: the HTTP status, a body that parses with `Status`, the code, and an ErrorInfo detail with
 * reason and domain (unless `errorInfo: false`: injected faults, whose ErrorInfo has its own test).
 */
export function expectStatus(res: Res, code: number, httpStatus: number, opts: { errorInfo?: boolean } = {}): StatusBody {
  expect({ status: res.status, code: res.body?.code }, `body: ${JSON.stringify(res.body)}`).toEqual({ status: httpStatus, code });
  const s = Status.parse(res.body);
  if (opts.errorInfo === false) return s;
  const info = s.details.find((d) => d["@type"] === ERROR_INFO) as Json;
  expect(info, `ErrorInfo in ${JSON.stringify(s.details)}`).toBeDefined();
  expect(typeof info.reason).toBe("string");
  expect(info.reason.length).toBeGreaterThan(0);
  expect(typeof info.domain).toBe("string");
  expect(info.domain.length).toBeGreaterThan(0);
  return s;
}

/** The BadRequest field violations of a Status (empty when none). */
export function fieldViolations(s: StatusBody): Array<{ field: string; description: string }> {
  const d = s.details.find((x) => x["@type"] === BAD_REQUEST) as Json;
  return d?.fieldViolations ?? [];
}

/** Asserts INVALID_ARGUMENT (3, HTTP 400) with a BadRequest naming every field in `fields`. */
export function expectInvalid(res: Res, fields: string[]): StatusBody {
  const s = expectStatus(res, 3, 400);
  expect(s.message).toMatch(/^Invalid argument: \S+: /);
  const got = fieldViolations(s).map((v) => v.field);
  for (const f of fields) expect(got, `violations ${JSON.stringify(fieldViolations(s))}`).toContain(f);
  return s;
}

/** The PreconditionFailure violations of a Status. */
export function preconditionViolations(s: StatusBody): Array<{ type: string; subject?: string; description: string }> {
  const d = s.details.find((x) => x["@type"] === PRECONDITION_FAILURE) as Json;
  return d?.violations ?? [];
}

/** Asserts FAILED_PRECONDITION (9, HTTP 400) with a PreconditionFailure; returns its violations. */
export function expectPrecondition(res: Res, type?: string): Array<{ type: string; subject?: string; description: string }> {
  const s = expectStatus(res, 9, 400);
  expect(s.message).toMatch(/^Precondition failed: /);
  const v = preconditionViolations(s);
  expect(v.length, JSON.stringify(s)).toBeGreaterThan(0);
  if (type) expect(v.map((x) => x.type)).toContain(type);
  return v;
}

/** Asserts NOT_FOUND (5, HTTP 404) with a ResourceInfo naming `uid`. */
export function expectNotFound(res: Res, uid: string): StatusBody {
  const s = expectStatus(res, 5, 404);
  const info = s.details.find((d) => d["@type"] === RESOURCE_INFO) as Json;
  expect(info, `ResourceInfo in ${JSON.stringify(s.details)}`).toBeDefined();
  expect(info.resourceName).toBe(uid);
  expect(typeof info.resourceType).toBe("string");
  return s;
}

/** The JWT payload of a token (not verified). */
export function jwtPayload(token: string): { iat?: number; exp?: number; sub?: string; aud?: string | string[]; iss?: string } {
  return decodeJwt(token);
}

/** A collection as the suite addresses it. */
export interface CollectionDef {
  name: CollectionName;
  api: "iam" | "registry" | "vulnerabilities";
  schema: z.ZodType;
  /** Accepts POST/PATCH/DELETE. */
  writable: boolean;
}

export type CollectionName =
  | "groups"
  | "identities"
  | "roles"
  | "roleBindings"
  | "identityProviders"
  | "accountAssociations"
  | "groupInvites"
  | "repos"
  | "tags"
  | "advisories";

/** Every List endpoint of the API. */
export const COLLECTIONS: Record<CollectionName, CollectionDef> = {
  groups: { name: "groups", api: "iam", schema: Group, writable: true },
  identities: { name: "identities", api: "iam", schema: Identity, writable: true },
  roles: { name: "roles", api: "iam", schema: Role, writable: true },
  roleBindings: { name: "roleBindings", api: "iam", schema: RoleBinding, writable: true },
  identityProviders: { name: "identityProviders", api: "iam", schema: IdentityProvider, writable: true },
  accountAssociations: { name: "accountAssociations", api: "iam", schema: AccountAssociation, writable: true },
  groupInvites: { name: "groupInvites", api: "iam", schema: GroupInvite, writable: true },
  repos: { name: "repos", api: "registry", schema: Repo, writable: true },
  tags: { name: "tags", api: "registry", schema: Tag, writable: false },
  advisories: { name: "advisories", api: "vulnerabilities", schema: Advisory, writable: false },
};
export const ALL_COLLECTIONS = Object.keys(COLLECTIONS) as CollectionName[];

/** `/<api>/v2beta1/<collection>`. */
export function base(c: CollectionName, version = "v2beta1"): string {
  return `/${COLLECTIONS[c].api}/${version}/${c}`;
}

/** One List page of a collection. */
export async function listPage(emu: Emulator, c: CollectionName, params: Record<string, string | number | boolean | string[] | undefined> = {}, token: string = emu.token): Promise<ListPage> {
  return expectList(await api(emu, "GET", `${base(c)}${qs(params)}`, undefined, token), c, COLLECTIONS[c].schema);
}

/** Every row a List returns, walking all pages (page_size 200 unless given). */
export async function listAll(emu: Emulator, c: CollectionName, params: Record<string, string | number | boolean | string[] | undefined> = {}, token: string = emu.token): Promise<Json[]> {
  const out: Json[] = [];
  let pageToken: string | undefined;
  for (let i = 0; i < 10_000; i++) {
    const page = await listPage(emu, c, { page_size: 200, ...params, page_token: pageToken }, token);
    out.push(...page.items);
    pageToken = page.nextPageToken;
    if (!pageToken) return out;
  }
  throw new Error("listAll: too many pages");
}

/** GET one row, parsed with the collection's schema. */
export async function getRow(emu: Emulator, c: CollectionName, uid: string, token: string = emu.token): Promise<Json> {
  return expectOk(await api(emu, "GET", `${base(c)}/${uid}`, undefined, token), COLLECTIONS[c].schema);
}

/** POST a row under `parent` and return the parsed body (asserting 200). */
export async function create(emu: Emulator, c: CollectionName, parent: string, body: unknown, token: string = emu.token): Promise<Json> {
  return expectOk(await api(emu, "POST", `${base(c)}/${parent}`, body, token), COLLECTIONS[c].schema);
}

/** Creates a group under `parent`. */
export async function mkGroup(emu: Emulator, parent: string, name: string, description = ""): Promise<Json> {
  return create(emu, "groups", parent, { name, description });
}

/** The uid of a built-in role by name. */
export async function builtinRole(emu: Emulator, name: string): Promise<string> {
  const page = await listPage(emu, "roles", { name });
  const role = page.items.find((r) => !String(r.uid).includes("/"));
  if (!role) throw new Error(`no built-in role ${name}`);
  return role.uid as string;
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Sleeps `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Schemas for emulator-only documents the provider has no schema for (discovery, JWKS, control, state). */
export const OidcDiscovery = z.looseObject({ issuer: z.string(), jwks_uri: z.string(), id_token_signing_alg_values_supported: z.array(z.string()).optional() });
export const Jwks = z.looseObject({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string().optional() })) });
export const IdToken = z.looseObject({ id_token: z.string() });
export const MintedToken = z.looseObject({ token: z.string() });
export const ControlSettingsSchema = z.looseObject({
  latencyMs: z.number(),
  errorRates: z.record(z.string(), z.number()),
  resetRate: z.number(),
  dropCreateResponses: z.number(),
  tokenTtlSeconds: z.number(),
  clockOffsetMs: z.number(),
  seed: z.number(),
});
export const StateDump = z.record(z.string(), z.array(z.looseObject({ uid: z.string() })));
