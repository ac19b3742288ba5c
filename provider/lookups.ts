/**
 * Read-only lookups for Pulumi programs. Dynamic providers have no `invoke` (FACTS.md), so these are plain
 * async functions that call the API from the program process, each with an `...Output` twin that takes
 * `Input`s and returns an `Output`.
 *
 * For each of groups, identities, roles, role bindings, repos, tags, overlays, overlay bindings, subscriptions and
 * advisories there are:
 *
 * - a plural lookup (`getGroups`, …) that takes the List parameters (filters, `orderBy`, `pageSize`, `skip`) and
 *   a `limit`, walks pages lazily and returns an array (empty when nothing matches);
 * - a singular lookup (`getGroup`, …) that takes either a `uid` (one GET) or filters (one List), and returns
 *   exactly one object: when the filters match none or several it throws a {@link LookupError} that names the
 *   filters and, for several, lists every matching uid. The API allows duplicate names, so a lookup never picks
 *   one of several silently;
 * - an `...Output` twin of each (`getGroupsOutput`, `getGroupOutput`, …).
 *
 * Every function takes an optional last `client`; by default the program's client from stack config and
 * environment ({@link programClientFromConfig}, same settings as the provider, see `config.ts`).
 *
 * Arguments are checked before any request: an unknown argument name, a value of the wrong type or an empty
 * string filter is a `TypeError` naming it (an empty filter would otherwise silently match everything).
 *
 * @example
 * ```ts
 * const team = await getGroup({ name: "platform", parentUid: orgUid });
 * const bots = await getIdentities({ childrenOf: team.uid, orderBy: "name" });
 * const editorUid = getRoleOutput({ name: "editor" }).apply((r) => r.uid);
 * ```
 */
import * as pulumi from "@pulumi/pulumi";
import { listQuery } from "./client/client";
import { PlatformError } from "./client/errors";
import type { PlatformClient } from "./client/client";
import type { ListParams, Page } from "./client/pagination";
import { Paginator } from "./client/pagination";
import * as S from "./client/schemas";
import type {
  ApiAdvisory as Advisory,
  ApiGroup as Group,
  ApiIdentity as Identity,
  ApiOverlay as Overlay,
  ApiOverlayBinding as OverlayBinding,
  ApiRepo as Repo,
  ApiRole as Role,
  ApiRoleBinding as RoleBinding,
  ApiSubscription as Subscription,
  ApiTag as Tag,
  Parser,
} from "./client/types";
import { clientFromSettings } from "./clientFactory";
import { resolveSettings } from "./config";

let programClient: PlatformClient | undefined;

/**
 * The program process's client, created on first use from stack config and environment (the provider's settings:
 * API URL and version, token or workload identity, retry policy; see `config.ts`), then kept for the process.
 * @throws SettingsError when the API URL or credentials are missing.
 */
export function programClientFromConfig(): PlatformClient {
  if (!programClient) {
    const s = resolveSettings((key) => pulumi.runtime.getConfig(key));
    programClient = clientFromSettings(s);
  }
  return programClient;
}

// ---------------------------------------------------------------------------------------------------------
// Shared argument shapes
// ---------------------------------------------------------------------------------------------------------

/** Paging arguments every plural lookup takes. */
export interface PagingArgs {
  /**
   * `field [asc|desc]`, e.g. `name`, `created_at desc`; the fields allowed depend on the collection (the API
   * answers INVALID_ARGUMENT for others). Default: `uid asc`.
   */
  orderBy?: string;
  /**
   * Items per request (the API caps it at 200). Default: `limit` when a limit is given (capped at 200, so a small
   * limit costs one small request), else 200, so walking every page takes as few round trips as the API allows.
   */
  pageSize?: number;
  /** Matching items to skip before the first one returned. Default 0. */
  skip?: number;
  /** Stop after this many items; further pages are not requested. `0` returns `[]` without a request. Default: all. */
  limit?: number;
}

/** Hierarchy filters every plural lookup takes (the API's `uidp.*` List parameters). */
export interface UidpFilterArgs {
  /** Only these uids (`uidp.ids`). An empty array matches nothing (returns `[]` without a request). */
  ids?: readonly string[];
  /** Only direct children of this uid (`uidp.children_of`), e.g. the groups directly under a group. */
  childrenOf?: string;
  /** Only strict descendants of this uid, at any depth (`uidp.descendants_of`). */
  descendantsOf?: string;
  /** Only ancestors of this uid (`uidp.ancestors_of`). */
  ancestorsOf?: string;
  /** `true`: only root-level objects (single-segment uids); `false`: only non-root ones (`uidp.in_root`). */
  inRoot?: boolean;
}

/**
 * The `Input` form of an argument object, for the `...Output` twins: every field may be a `pulumi.Input`
 * (arrays may hold `Input`s too).
 */
export type InputArgs<T> = {
  [K in keyof T]: Exclude<T[K], undefined> extends readonly (infer E)[]
    ? pulumi.Input<ReadonlyArray<pulumi.Input<E>>>
    : pulumi.Input<Exclude<T[K], undefined>>;
};

/** Why a singular lookup by filters failed: nothing matched, or more than one object did. */
export type LookupFailure = "NO_MATCH" | "AMBIGUOUS";

/**
 * A singular lookup by filters did not find exactly one object. The message names the lookup and the filters
 * and, for {@link LookupFailure} `AMBIGUOUS`, says how many matched and lists their uids.
 * @example
 * ```ts
 * try { await getGroup({ name: "dup", parentUid: orgUid }); }
 * catch (e) { if (e instanceof LookupError && e.reason === "AMBIGUOUS") console.log(e.uids); }
 * ```
 */
export class LookupError extends PlatformError {
  /** `NO_MATCH` or `AMBIGUOUS`. */
  readonly reason: LookupFailure;
  /** The lookup that failed, e.g. `getGroup`. */
  readonly lookup: string;
  /** The filters as given (only those set). */
  readonly filters: Readonly<Record<string, unknown>>;
  /**
   * How many objects matched: 0 for `NO_MATCH`; for `AMBIGUOUS` the server's count, or, when that is not known
   * and more than {@link AMBIGUOUS_UID_LIMIT} matched, `undefined`.
   */
  readonly matchCount: number | undefined;
  /** uids of the matches (at most {@link AMBIGUOUS_UID_LIMIT}); empty for `NO_MATCH`. */
  readonly uids: readonly string[];

  /**
   * @param what the kind of object, singular and plural, e.g. `["group", "groups"]`.
   */
  constructor(
    reason: LookupFailure,
    lookup: string,
    what: readonly [singular: string, plural: string],
    filters: Record<string, unknown>,
    matchCount: number | undefined,
    uids: readonly string[],
  ) {
    const f = describeFilters(filters);
    let message: string;
    if (reason === "NO_MATCH") {
      message = `${lookup}: no ${what[0]} matches ${f}`;
    } else {
      const count = matchCount === undefined ? `more than ${uids.length}` : String(matchCount);
      const more = matchCount !== undefined && matchCount > uids.length ? `, and ${matchCount - uids.length} more` : matchCount === undefined ? ", and more" : "";
      message =
        `${lookup}: ${count} ${what[1]} match ${f}, expected exactly one: ${uids.join(", ")}${more}. ` +
        `Look it up by uid, or narrow the filters.`;
    }
    super(message);
    this.name = "LookupError";
    this.reason = reason;
    this.lookup = lookup;
    this.filters = filters;
    this.matchCount = matchCount;
    this.uids = uids;
  }
}

/** The most uids an `AMBIGUOUS` {@link LookupError} lists (and the most matches a singular lookup reads). */
export const AMBIGUOUS_UID_LIMIT = 100;

// ---------------------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------------------

const MAX_PAGE_SIZE = 200;

type Kind = "string" | "number" | "boolean" | "string[]";
type ArgSpec = Readonly<Record<string, Kind>>;

const PAGING: ArgSpec = { orderBy: "string", pageSize: "number", skip: "number", limit: "number" };
const UIDP: ArgSpec = { ids: "string[]", childrenOf: "string", descendantsOf: "string", ancestorsOf: "string", inRoot: "boolean" };

function describeFilters(filters: Record<string, unknown>): string {
  const parts = Object.entries(filters).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length ? `{ ${parts.join(", ")} }` : "{}";
}

/** Drops keys whose value is undefined (for exactOptionalPropertyTypes and for JSON-shaped error messages). */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Checks `args` against `spec`: known keys only, values of the right type, non-empty strings, non-negative
 * integers. Returns `args` without undefined values.
 * @throws TypeError naming the lookup and the argument.
 */
function checkArgs<T extends object>(fn: string, args: T | null | undefined, spec: ArgSpec): T {
  if (args === null || args === undefined) return {} as T;
  if (typeof args !== "object" || Array.isArray(args)) throw new TypeError(`${fn}: arguments must be an object, got ${JSON.stringify(args)}`);
  for (const [k, v] of Object.entries(args)) {
    const kind = spec[k];
    if (kind === undefined) throw new TypeError(`${fn}: unknown argument "${k}" (known: ${Object.keys(spec).join(", ")})`);
    if (v === undefined) continue;
    const bad = (want: string) => new TypeError(`${fn}: ${k} must be ${want}, got ${JSON.stringify(v)}`);
    switch (kind) {
      case "string":
        if (typeof v !== "string" || v === "") throw bad("a non-empty string");
        break;
      case "number":
        if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw bad("a non-negative integer");
        break;
      case "boolean":
        if (typeof v !== "boolean") throw bad("true or false");
        break;
      case "string[]":
        if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || x === "")) throw bad("an array of non-empty strings");
        break;
    }
  }
  return compact(args);
}

/** The filters of `args` named in `keys`, only those set. */
function pick(args: object, keys: readonly string[]): Record<string, unknown> {
  const a = args as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}

/**
 * The client's List parameters for plural-lookup `args`.
 * @param serverSideOnly false when items are also filtered in this process (then `limit` must not shrink pages).
 */
function listParams(args: PagingArgs & UidpFilterArgs & { name?: string }, serverSideOnly = true): ListParams {
  // Walking pages costs a round trip each: ask for the API's maximum unless a small limit needs fewer.
  const pageSize = args.pageSize ?? (args.limit !== undefined && serverSideOnly ? Math.min(Math.max(args.limit, 1), MAX_PAGE_SIZE) : MAX_PAGE_SIZE);
  return compact({
    pageSize,
    orderBy: args.orderBy,
    skip: args.skip,
    name: args.name,
    ids: args.ids,
    childrenOf: args.childrenOf,
    descendantsOf: args.descendantsOf,
    ancestorsOf: args.ancestorsOf,
    inRoot: args.inRoot === undefined ? undefined : String(args.inRoot),
  }) as ListParams;
}

/** Whether an array filter that matches nothing was given (then no request is made). */
function emptySet(...filters: Array<readonly string[] | undefined>): boolean {
  return filters.some((f) => f !== undefined && f.length === 0);
}

/**
 * A lazy listing with query parameters the client's `list` does not send (collection-specific filters), built
 * on the client's transport.
 */
function listWith<T>(
  client: PlatformClient,
  api: string,
  collection: string,
  schema: Parser<T>,
  params: ListParams,
  extra: Record<string, string | readonly string[] | undefined>,
): Paginator<T> {
  const path = client.transport.base(api, collection);
  const envelope: Parser<Page<T>> = S.listEnvelope(collection, schema);
  return new Paginator((token) => client.transport.send("GET", path, envelope, { query: { ...listQuery(params, token), ...extra } }), params);
}

/**
 * Collects up to `limit` items from `pages`, keeping those `keep` accepts; stops requesting pages once
 * `limit` is reached.
 */
async function take<T>(pages: AsyncIterable<Page<T>>, limit = Infinity, keep?: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const page of pages) {
    for (const item of page.items) {
      if (keep && !keep(item)) continue;
      out.push(item);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/** A listing for a singular lookup by filters: its pages and, when some filters apply in this process, a predicate. */
interface Matches<T> {
  pages: AsyncIterable<Page<T>>;
  keep?: (item: T) => boolean;
}

/**
 * The one object a singular lookup names: by uid (a GET), or by filters (a List that must match exactly one).
 * @throws TypeError when both or neither of uid and filters are given; LookupError when the filters match
 *   none or several; ApiError (e.g. NotFoundError for a uid that does not exist) from the API.
 */
async function single<T extends { uid: string }>(
  fn: string,
  what: readonly [singular: string, plural: string],
  args: { uid?: string },
  filterKeys: readonly string[],
  byUid: (uid: string) => Promise<T>,
  byFilters: () => Matches<T>,
): Promise<T> {
  const filters = pick(args, filterKeys);
  const given = Object.keys(filters);
  if (args.uid !== undefined) {
    if (given.length > 0) throw new TypeError(`${fn}: give either uid or filters (${filterKeys.join(", ")}), not both; got uid and ${given.join(", ")}`);
    return byUid(args.uid);
  }
  if (given.length === 0) throw new TypeError(`${fn}: give uid, or at least one of ${filterKeys.join(", ")}`);
  const m = byFilters();
  const found: T[] = [];
  let total: number | undefined;
  let truncated = false;
  outer: for await (const page of m.pages) {
    if (total === undefined && !m.keep) total = page.totalCount;
    for (const item of page.items) {
      if (m.keep && !m.keep(item)) continue;
      if (found.length >= AMBIGUOUS_UID_LIMIT) {
        truncated = true;
        break outer;
      }
      found.push(item);
    }
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new LookupError("NO_MATCH", fn, what, filters, 0, []);
  const count = truncated ? (total !== undefined && total > found.length ? total : undefined) : found.length;
  throw new LookupError("AMBIGUOUS", fn, what, filters, count, found.map((x) => x.uid));
}

/** Runs a lookup on the values of `args` once they are known. */
function outputOf<A extends object, R>(args: pulumi.Input<InputArgs<A>> | undefined, run: (a: A) => Promise<R>): pulumi.Output<R> {
  return pulumi.output(args ?? {}).apply((a) => run(compact(a as object) as A));
}

// ---------------------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getGroups}: the List parameters of `/iam/v2/groups` plus `limit`. */
export interface GetGroupsArgs extends PagingArgs, UidpFilterArgs {
  /** Exact group name. Default: any name. */
  name?: string;
}

const GROUPS_SPEC: ArgSpec = { name: "string", ...UIDP, ...PAGING };

/**
 * Lists groups the caller can see, walking pages lazily.
 * @returns groups in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API (e.g. InvalidArgumentError for a bad `orderBy`);
 *   SettingsError when no client is given and none is configured.
 * @example const teams = await getGroups({ childrenOf: orgUid, orderBy: "name" });
 */
export async function getGroups(args: GetGroupsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Group[]> {
  const a = checkArgs("getGroups", args, GROUPS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(client.groups.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getGroups} with `Input` arguments and an `Output` result. */
export function getGroupsOutput(args: pulumi.Input<InputArgs<GetGroupsArgs>> = {}, client?: PlatformClient): pulumi.Output<Group[]> {
  return outputOf<GetGroupsArgs, Group[]>(args, (a) => getGroups(a, client));
}

/** Arguments of {@link getGroup}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetGroupArgs {
  /** The group's uid (one GET). */
  uid?: string;
  /** Exact group name. */
  name?: string;
  /** uid of the parent group: only its direct children match (`uidp.children_of`). Default: any parent. */
  parentUid?: string;
}

/**
 * Gets one group: by `uid`, or by filters that must match exactly one group.
 * @throws TypeError when both or neither of `uid` and filters are given, or for bad arguments;
 *   LookupError when the filters match no group, or several (listing their uids);
 *   NotFoundError when no group has that `uid`; other ApiErrors from the API.
 * @example
 * ```ts
 * const team = await getGroup({ name: "platform", parentUid: orgUid });
 * const same = await getGroup({ uid: team.uid });
 * ```
 */
export async function getGroup(args: GetGroupArgs, client: PlatformClient = programClientFromConfig()): Promise<Group> {
  const a = checkArgs("getGroup", args, { uid: "string", name: "string", parentUid: "string" });
  return single("getGroup", ["group", "groups"], a, ["name", "parentUid"], (uid) => client.groups.get(uid), () => ({
    pages: client.groups.list(listParams({ ...pick(a, ["name"]), ...(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {}) })).pages(),
  }));
}

/** {@link getGroup} with `Input` arguments and an `Output` result. */
export function getGroupOutput(args: pulumi.Input<InputArgs<GetGroupArgs>>, client?: PlatformClient): pulumi.Output<Group> {
  return outputOf<GetGroupArgs, Group>(args, (a) => getGroup(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Identities
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getIdentities}: the List parameters of `/iam/v2/identities` plus `limit`. */
export interface GetIdentitiesArgs extends PagingArgs, UidpFilterArgs {
  /** Exact identity name. Default: any name. */
  name?: string;
}

/**
 * Lists identities the caller can see, walking pages lazily. Identities in a group are its children
 * (`childrenOf: groupUid`); user identities are root-level (`inRoot: true`).
 * @returns identities in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const ci = await getIdentities({ childrenOf: teamUid, name: "github-actions" });
 */
export async function getIdentities(args: GetIdentitiesArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Identity[]> {
  const a = checkArgs("getIdentities", args, GROUPS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(client.identities.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getIdentities} with `Input` arguments and an `Output` result. */
export function getIdentitiesOutput(args: pulumi.Input<InputArgs<GetIdentitiesArgs>> = {}, client?: PlatformClient): pulumi.Output<Identity[]> {
  return outputOf<GetIdentitiesArgs, Identity[]>(args, (a) => getIdentities(a, client));
}

/** Arguments of {@link getIdentity}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetIdentityArgs {
  /** The identity's uid (one GET). */
  uid?: string;
  /** Exact identity name. */
  name?: string;
  /** uid of the group the identity is in (`uidp.children_of`). Default: any group. */
  parentUid?: string;
}

/**
 * Gets one identity: by `uid`, or by filters that must match exactly one identity.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no identity has that `uid`; other ApiErrors.
 * @example const ci = await getIdentity({ name: "github-actions", parentUid: teamUid });
 */
export async function getIdentity(args: GetIdentityArgs, client: PlatformClient = programClientFromConfig()): Promise<Identity> {
  const a = checkArgs("getIdentity", args, { uid: "string", name: "string", parentUid: "string" });
  return single("getIdentity", ["identity", "identities"], a, ["name", "parentUid"], (uid) => client.identities.get(uid), () => ({
    pages: client.identities.list(listParams({ ...pick(a, ["name"]), ...(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {}) })).pages(),
  }));
}

/** {@link getIdentity} with `Input` arguments and an `Output` result. */
export function getIdentityOutput(args: pulumi.Input<InputArgs<GetIdentityArgs>>, client?: PlatformClient): pulumi.Output<Identity> {
  return outputOf<GetIdentityArgs, Identity>(args, (a) => getIdentity(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------------------------------------

/**
 * Arguments of {@link getRoles}: the List parameters of `/iam/v2/roles` plus `limit`. Built-in roles are
 * root-level (`inRoot: true`); custom roles are children of the group that owns them.
 */
export interface GetRolesArgs extends PagingArgs, UidpFilterArgs {
  /** Exact role name, e.g. `viewer`, `editor`, `owner`, `registry.pull`. Default: every role. */
  name?: string;
}

/**
 * Lists roles (built-in and custom), walking pages lazily.
 * @returns roles in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const [editor] = await getRoles({ name: "editor" });
 */
export async function getRoles(args: GetRolesArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Role[]> {
  const a = checkArgs("getRoles", args, GROUPS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(client.roles.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getRoles} with `Input` arguments and an `Output` result. */
export function getRolesOutput(args: pulumi.Input<InputArgs<GetRolesArgs>> = {}, client?: PlatformClient): pulumi.Output<Role[]> {
  return outputOf<GetRolesArgs, Role[]>(args, (a) => getRoles(a, client));
}

/** Arguments of {@link getRole}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetRoleArgs {
  /** The role's uid (one GET). */
  uid?: string;
  /** Exact role name, e.g. `editor`. */
  name?: string;
  /** uid of the group owning a custom role (`uidp.children_of`). Default: any (built-in roles included). */
  parentUid?: string;
}

/**
 * Gets one role: by `uid`, or by filters that must match exactly one role. A custom role named like a
 * built-in one makes `{ name }` alone ambiguous: add `parentUid`, or use the uid.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no role has that `uid`; other ApiErrors.
 * @example const editor = await getRole({ name: "editor" });
 */
export async function getRole(args: GetRoleArgs, client: PlatformClient = programClientFromConfig()): Promise<Role> {
  const a = checkArgs("getRole", args, { uid: "string", name: "string", parentUid: "string" });
  return single("getRole", ["role", "roles"], a, ["name", "parentUid"], (uid) => client.roles.get(uid), () => ({
    pages: client.roles.list(listParams({ ...pick(a, ["name"]), ...(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {}) })).pages(),
  }));
}

/** {@link getRole} with `Input` arguments and an `Output` result. */
export function getRoleOutput(args: pulumi.Input<InputArgs<GetRoleArgs>>, client?: PlatformClient): pulumi.Output<Role> {
  return outputOf<GetRoleArgs, Role>(args, (a) => getRole(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Role bindings
// ---------------------------------------------------------------------------------------------------------

/**
 * Arguments of {@link getRoleBindings}: the List parameters of `/iam/v2/roleBindings` plus `limit`, and
 * `identityUid` / `roleUid`, which the List does not take and are applied in this process (every page in the
 * other filters' scope may be read; narrow with `childrenOf: groupUid`).
 */
export interface GetRoleBindingsArgs extends PagingArgs, UidpFilterArgs {
  /** Only bindings of this identity (filtered in this process). */
  identityUid?: string;
  /** Only bindings to this role (filtered in this process). */
  roleUid?: string;
}

const BINDINGS_SPEC: ArgSpec = { identityUid: "string", roleUid: "string", ...UIDP, ...PAGING };

function bindingFilter(a: { identityUid?: string; roleUid?: string }): ((b: RoleBinding) => boolean) | undefined {
  if (a.identityUid === undefined && a.roleUid === undefined) return undefined;
  return (b) =>
    (a.identityUid === undefined || (b.identityUid ?? b.identity?.uid) === a.identityUid) && (a.roleUid === undefined || (b.roleUid ?? b.role?.uid) === a.roleUid);
}

/**
 * Lists role bindings (hydrated with identity, group and role), walking pages lazily. A group's bindings are
 * its children: `childrenOf: groupUid`.
 * @returns bindings in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const bindings = await getRoleBindings({ childrenOf: teamUid, identityUid: ci.uid });
 */
export async function getRoleBindings(args: GetRoleBindingsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<RoleBinding[]> {
  const a = checkArgs("getRoleBindings", args, BINDINGS_SPEC);
  if (emptySet(a.ids)) return [];
  const keep = bindingFilter(a);
  return take(client.roleBindings.list(listParams(a, keep === undefined)).pages(a.limit === undefined), a.limit, keep);
}

/** {@link getRoleBindings} with `Input` arguments and an `Output` result. */
export function getRoleBindingsOutput(args: pulumi.Input<InputArgs<GetRoleBindingsArgs>> = {}, client?: PlatformClient): pulumi.Output<RoleBinding[]> {
  return outputOf<GetRoleBindingsArgs, RoleBinding[]>(args, (a) => getRoleBindings(a, client));
}

/** Arguments of {@link getRoleBinding}: `uid`, or filters (`groupUid`, `identityUid`, `roleUid`); exactly one of the two. */
export interface GetRoleBindingArgs {
  /** The binding's uid (one GET). */
  uid?: string;
  /** uid of the group the binding is in (`uidp.children_of`). Default: any group. */
  groupUid?: string;
  /** uid of the bound identity (filtered in this process). */
  identityUid?: string;
  /** uid of the bound role (filtered in this process). */
  roleUid?: string;
}

/**
 * Gets one role binding: by `uid`, or by filters that must match exactly one binding.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no binding has that `uid`; other ApiErrors.
 * @example const b = await getRoleBinding({ groupUid: teamUid, identityUid: ci.uid, roleUid: editor.uid });
 */
export async function getRoleBinding(args: GetRoleBindingArgs, client: PlatformClient = programClientFromConfig()): Promise<RoleBinding> {
  const a = checkArgs("getRoleBinding", args, { uid: "string", groupUid: "string", identityUid: "string", roleUid: "string" });
  return single("getRoleBinding", ["role binding", "role bindings"], a, ["groupUid", "identityUid", "roleUid"], (uid) => client.roleBindings.get(uid), () => {
    const keep = bindingFilter(a);
    return {
      pages: client.roleBindings.list(listParams(a.groupUid !== undefined ? { childrenOf: a.groupUid } : {})).pages(),
      ...(keep ? { keep } : {}),
    };
  });
}

/** {@link getRoleBinding} with `Input` arguments and an `Output` result. */
export function getRoleBindingOutput(args: pulumi.Input<InputArgs<GetRoleBindingArgs>>, client?: PlatformClient): pulumi.Output<RoleBinding> {
  return outputOf<GetRoleBindingArgs, RoleBinding>(args, (a) => getRoleBinding(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Repos
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getRepos}: the List parameters of `/registry/v2/repos` plus `limit`. Repos are children of a group. */
export interface GetReposArgs extends PagingArgs, UidpFilterArgs {
  /** Exact repo name, e.g. `nginx`. Default: any name. */
  name?: string;
}

/**
 * Lists registry repos, walking pages lazily.
 * @returns repos in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const repos = await getRepos({ childrenOf: orgUid, orderBy: "name" });
 */
export async function getRepos(args: GetReposArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Repo[]> {
  const a = checkArgs("getRepos", args, GROUPS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(client.repos.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getRepos} with `Input` arguments and an `Output` result. */
export function getReposOutput(args: pulumi.Input<InputArgs<GetReposArgs>> = {}, client?: PlatformClient): pulumi.Output<Repo[]> {
  return outputOf<GetReposArgs, Repo[]>(args, (a) => getRepos(a, client));
}

/** Arguments of {@link getRepo}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetRepoArgs {
  /** The repo's uid (one GET). */
  uid?: string;
  /** Exact repo name, e.g. `nginx`. */
  name?: string;
  /** uid of the group holding the repo (`uidp.children_of`). Default: any group. */
  parentUid?: string;
}

/**
 * Gets one registry repo: by `uid`, or by filters that must match exactly one repo.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no repo has that `uid`; other ApiErrors.
 * @example const nginx = await getRepo({ name: "nginx", parentUid: orgUid });
 */
export async function getRepo(args: GetRepoArgs, client: PlatformClient = programClientFromConfig()): Promise<Repo> {
  const a = checkArgs("getRepo", args, { uid: "string", name: "string", parentUid: "string" });
  return single("getRepo", ["repo", "repos"], a, ["name", "parentUid"], (uid) => client.repos.get(uid), () => ({
    pages: client.repos.list(listParams({ ...pick(a, ["name"]), ...(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {}) })).pages(),
  }));
}

/** {@link getRepo} with `Input` arguments and an `Output` result. */
export function getRepoOutput(args: pulumi.Input<InputArgs<GetRepoArgs>>, client?: PlatformClient): pulumi.Output<Repo> {
  return outputOf<GetRepoArgs, Repo>(args, (a) => getRepo(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getTags}: the List parameters of `/registry/v2/tags` plus `repoUid`, `digest` and `limit`. */
export interface GetTagsArgs extends PagingArgs, UidpFilterArgs {
  /** Exact tag name, e.g. `latest`. Default: any name. */
  name?: string;
  /** Only tags of this repo (sent as `uidp.children_of`; do not also give a different `childrenOf`). */
  repoUid?: string;
  /** Only tags pointing at this digest, e.g. `sha256:…` (the List's `digest` filter). */
  digest?: string;
}

const TAGS_SPEC: ArgSpec = { name: "string", repoUid: "string", digest: "string", ...UIDP, ...PAGING };

function tagPaginator(fn: string, client: PlatformClient, a: GetTagsArgs): Paginator<Tag> {
  if (a.repoUid !== undefined && a.childrenOf !== undefined && a.repoUid !== a.childrenOf) {
    throw new TypeError(`${fn}: repoUid and childrenOf name different parents ("${a.repoUid}", "${a.childrenOf}"); give one`);
  }
  const { repoUid, digest, ...rest } = a;
  const params = listParams({ ...rest, ...(repoUid !== undefined ? { childrenOf: repoUid } : {}) });
  return listWith(client, "registry", "tags", S.Tag, params, { digest });
}

/**
 * Lists registry tags, walking pages lazily.
 * @returns tags in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments (or `repoUid` and `childrenOf` that differ); ApiError from the API;
 *   SettingsError when not configured.
 * @example const tags = await getTags({ repoUid: nginx.uid, orderBy: "name" });
 */
export async function getTags(args: GetTagsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Tag[]> {
  const a = checkArgs("getTags", args, TAGS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(tagPaginator("getTags", client, a).pages(), a.limit);
}

/** {@link getTags} with `Input` arguments and an `Output` result. */
export function getTagsOutput(args: pulumi.Input<InputArgs<GetTagsArgs>> = {}, client?: PlatformClient): pulumi.Output<Tag[]> {
  return outputOf<GetTagsArgs, Tag[]>(args, (a) => getTags(a, client));
}

/** Arguments of {@link getTag}: `uid`, or filters (`name`, `repoUid`, `digest`); exactly one of the two. */
export interface GetTagArgs {
  /** The tag's uid (one GET). */
  uid?: string;
  /** Exact tag name, e.g. `latest`. */
  name?: string;
  /** uid of the tag's repo (`uidp.children_of`). Default: any repo, so `{ name: "latest" }` alone is usually ambiguous. */
  repoUid?: string;
  /** The digest the tag points at. */
  digest?: string;
}

/**
 * Gets one registry tag: by `uid`, or by filters that must match exactly one tag.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no tag has that `uid`; other ApiErrors.
 * @example const latest = await getTag({ repoUid: nginx.uid, name: "latest" });
 */
export async function getTag(args: GetTagArgs, client: PlatformClient = programClientFromConfig()): Promise<Tag> {
  const a = checkArgs("getTag", args, { uid: "string", name: "string", repoUid: "string", digest: "string" });
  return single("getTag", ["tag", "tags"], a, ["name", "repoUid", "digest"], (uid) => client.tags.get(uid), () => ({
    pages: tagPaginator("getTag", client, pick(a, ["name", "repoUid", "digest"]) as GetTagsArgs).pages(),
  }));
}

/** {@link getTag} with `Input` arguments and an `Output` result. */
export function getTagOutput(args: pulumi.Input<InputArgs<GetTagArgs>>, client?: PlatformClient): pulumi.Output<Tag> {
  return outputOf<GetTagArgs, Tag>(args, (a) => getTag(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Overlays
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getOverlays}: the List parameters of `/registry/v2beta1/overlays` plus `limit`. Overlays are children of a group. */
export interface GetOverlaysArgs extends PagingArgs, UidpFilterArgs {
  /** Exact overlay name. Default: any name. */
  name?: string;
}

/**
 * Lists package overlays, walking pages lazily (beta API versions only: the GA description keeps overlays beta).
 * @returns overlays in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const overlays = await getOverlays({ childrenOf: teamUid });
 */
export async function getOverlays(args: GetOverlaysArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Overlay[]> {
  const a = checkArgs("getOverlays", args, GROUPS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(client.overlays.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getOverlays} with `Input` arguments and an `Output` result. */
export function getOverlaysOutput(args: pulumi.Input<InputArgs<GetOverlaysArgs>> = {}, client?: PlatformClient): pulumi.Output<Overlay[]> {
  return outputOf<GetOverlaysArgs, Overlay[]>(args, (a) => getOverlays(a, client));
}

/** Arguments of {@link getOverlay}: `uid`, or filters (`name`, `parentUid`); exactly one of the two. */
export interface GetOverlayArgs {
  /** The overlay's uid (one GET). */
  uid?: string;
  /** Exact overlay name (unique within a group, not across groups). */
  name?: string;
  /** uid of the group holding the overlay (`uidp.children_of`). Default: any group. */
  parentUid?: string;
}

/**
 * Gets one package overlay: by `uid`, or by filters that must match exactly one overlay.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no overlay has that `uid`; other ApiErrors.
 * @example const tools = await getOverlay({ name: "debug-tools", parentUid: teamUid });
 */
export async function getOverlay(args: GetOverlayArgs, client: PlatformClient = programClientFromConfig()): Promise<Overlay> {
  const a = checkArgs("getOverlay", args, { uid: "string", name: "string", parentUid: "string" });
  return single("getOverlay", ["overlay", "overlays"], a, ["name", "parentUid"], (uid) => client.overlays.get(uid), () => ({
    pages: client.overlays.list(listParams({ ...pick(a, ["name"]), ...(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {}) })).pages(),
  }));
}

/** {@link getOverlay} with `Input` arguments and an `Output` result. */
export function getOverlayOutput(args: pulumi.Input<InputArgs<GetOverlayArgs>>, client?: PlatformClient): pulumi.Output<Overlay> {
  return outputOf<GetOverlayArgs, Overlay>(args, (a) => getOverlay(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Overlay bindings
// ---------------------------------------------------------------------------------------------------------

/**
 * Arguments of {@link getOverlayBindings}: the List parameters of `/registry/v2beta1/overlayBindings` plus
 * `repoUid`, `overlayUid` (the List's `overlay` filter) and `limit`.
 */
export interface GetOverlayBindingsArgs extends PagingArgs, UidpFilterArgs {
  /** Only bindings of this repo (sent as `uidp.children_of`; do not also give a different `childrenOf`). */
  repoUid?: string;
  /** Only bindings of this overlay, by uid (the List's `overlay` filter). */
  overlayUid?: string;
}

const BINDINGS_OF_OVERLAYS_SPEC: ArgSpec = { repoUid: "string", overlayUid: "string", ...UIDP, ...PAGING };

function overlayBindingPaginator(fn: string, client: PlatformClient, a: GetOverlayBindingsArgs): Paginator<OverlayBinding> {
  if (a.repoUid !== undefined && a.childrenOf !== undefined && a.repoUid !== a.childrenOf) {
    throw new TypeError(`${fn}: repoUid and childrenOf name different parents ("${a.repoUid}", "${a.childrenOf}"); give one`);
  }
  const { repoUid, overlayUid, ...rest } = a;
  return listWith(client, "registry", "overlayBindings", S.OverlayBinding, listParams({ ...rest, ...(repoUid !== undefined ? { childrenOf: repoUid } : {}) }), { overlay: overlayUid });
}

/**
 * Lists overlay bindings (each with its overlay expanded), walking pages lazily.
 * @returns bindings in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const bindings = await getOverlayBindings({ overlayUid: tools.uid });
 */
export async function getOverlayBindings(args: GetOverlayBindingsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<OverlayBinding[]> {
  const a = checkArgs("getOverlayBindings", args, BINDINGS_OF_OVERLAYS_SPEC);
  if (emptySet(a.ids)) return [];
  return take(overlayBindingPaginator("getOverlayBindings", client, a).pages(), a.limit);
}

/** {@link getOverlayBindings} with `Input` arguments and an `Output` result. */
export function getOverlayBindingsOutput(args: pulumi.Input<InputArgs<GetOverlayBindingsArgs>> = {}, client?: PlatformClient): pulumi.Output<OverlayBinding[]> {
  return outputOf<GetOverlayBindingsArgs, OverlayBinding[]>(args, (a) => getOverlayBindings(a, client));
}

/** Arguments of {@link getOverlayBinding}: `uid`, or filters (`repoUid`, `overlayUid`); exactly one of the two. */
export interface GetOverlayBindingArgs {
  /** The binding's uid (one GET). */
  uid?: string;
  /** uid of the binding's repo. */
  repoUid?: string;
  /** uid of the bound overlay. */
  overlayUid?: string;
}

/**
 * Gets one overlay binding: by `uid`, or by filters that must match exactly one binding.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no binding has that `uid`; other ApiErrors.
 * @example const b = await getOverlayBinding({ repoUid: app.uid, overlayUid: tools.uid });
 */
export async function getOverlayBinding(args: GetOverlayBindingArgs, client: PlatformClient = programClientFromConfig()): Promise<OverlayBinding> {
  const a = checkArgs("getOverlayBinding", args, { uid: "string", repoUid: "string", overlayUid: "string" });
  return single("getOverlayBinding", ["overlay binding", "overlay bindings"], a, ["repoUid", "overlayUid"], (uid) => client.overlayBindings.get(uid), () => ({
    pages: overlayBindingPaginator("getOverlayBinding", client, pick(a, ["repoUid", "overlayUid"]) as GetOverlayBindingsArgs).pages(),
  }));
}

/** {@link getOverlayBinding} with `Input` arguments and an `Output` result. */
export function getOverlayBindingOutput(args: pulumi.Input<InputArgs<GetOverlayBindingArgs>>, client?: PlatformClient): pulumi.Output<OverlayBinding> {
  return outputOf<GetOverlayBindingArgs, OverlayBinding>(args, (a) => getOverlayBinding(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------------------------------

/** Arguments of {@link getSubscriptions}: the List parameters of `/events/v2beta1/subscriptions` plus `limit`. */
export interface GetSubscriptionsArgs extends PagingArgs, UidpFilterArgs {}

/**
 * Lists event subscriptions, walking pages lazily. A group's subscriptions are its children: `childrenOf: groupUid`.
 * @returns subscriptions in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const hooks = await getSubscriptions({ childrenOf: teamUid });
 */
export async function getSubscriptions(args: GetSubscriptionsArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Subscription[]> {
  const a = checkArgs("getSubscriptions", args, { ...UIDP, ...PAGING });
  if (emptySet(a.ids)) return [];
  return take(client.subscriptions.list(listParams(a)).pages(a.limit === undefined), a.limit);
}

/** {@link getSubscriptions} with `Input` arguments and an `Output` result. */
export function getSubscriptionsOutput(args: pulumi.Input<InputArgs<GetSubscriptionsArgs>> = {}, client?: PlatformClient): pulumi.Output<Subscription[]> {
  return outputOf<GetSubscriptionsArgs, Subscription[]>(args, (a) => getSubscriptions(a, client));
}

/** Arguments of {@link getSubscription}: `uid`, or filters (`parentUid`, `sink`); exactly one of the two. */
export interface GetSubscriptionArgs {
  /** The subscription's uid (one GET). */
  uid?: string;
  /** uid of the group (`uidp.children_of`). */
  parentUid?: string;
  /** The exact sink URL (filtered in this process: the List has no sink filter). */
  sink?: string;
}

/**
 * Gets one event subscription: by `uid`, or by filters that must match exactly one subscription.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when none has that `uid`; other ApiErrors.
 * @example const hook = await getSubscription({ parentUid: teamUid, sink: "https://hooks.example.com/x" });
 */
export async function getSubscription(args: GetSubscriptionArgs, client: PlatformClient = programClientFromConfig()): Promise<Subscription> {
  const a = checkArgs("getSubscription", args, { uid: "string", parentUid: "string", sink: "string" });
  return single("getSubscription", ["subscription", "subscriptions"], a, ["parentUid", "sink"], (uid) => client.subscriptions.get(uid), () => ({
    pages: client.subscriptions.list(listParams(a.parentUid !== undefined ? { childrenOf: a.parentUid } : {})).pages(),
    ...(a.sink !== undefined ? { keep: (s: Subscription) => s.sink === a.sink } : {}),
  }));
}

/** {@link getSubscription} with `Input` arguments and an `Output` result. */
export function getSubscriptionOutput(args: pulumi.Input<InputArgs<GetSubscriptionArgs>>, client?: PlatformClient): pulumi.Output<Subscription> {
  return outputOf<GetSubscriptionArgs, Subscription>(args, (a) => getSubscription(a, client));
}

// ---------------------------------------------------------------------------------------------------------
// Advisories
// ---------------------------------------------------------------------------------------------------------

/**
 * Arguments of {@link getAdvisories}: the List parameters of `/vulnerabilities/v2/advisories` plus
 * `advisoryIds`, `artifactNames` and `limit`. An empty array filter matches nothing (returns `[]` without a
 * request).
 */
export interface GetAdvisoriesArgs extends PagingArgs, UidpFilterArgs {
  /** Only these advisory ids, e.g. `CGA-2x4m-7v6q-9r3c` (sent as repeated `advisory_ids`). */
  advisoryIds?: readonly string[];
  /** Only advisories about these artifacts, e.g. `nginx` (sent as repeated `artifact_names`). */
  artifactNames?: readonly string[];
}

const ADVISORIES_SPEC: ArgSpec = { advisoryIds: "string[]", artifactNames: "string[]", ...UIDP, ...PAGING };

function advisoryPaginator(client: PlatformClient, a: GetAdvisoriesArgs): Paginator<Advisory> {
  const { advisoryIds, artifactNames, ...rest } = a;
  return listWith(client, "vulnerabilities", "advisories", S.Advisory, listParams(rest), { advisory_ids: advisoryIds, artifact_names: artifactNames });
}

/**
 * Lists vulnerability advisories, walking pages lazily.
 * @returns advisories in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const nginxAdvisories = await getAdvisories({ artifactNames: ["nginx"], orderBy: "advisory_id" });
 */
export async function getAdvisories(args: GetAdvisoriesArgs = {}, client: PlatformClient = programClientFromConfig()): Promise<Advisory[]> {
  const a = checkArgs("getAdvisories", args, ADVISORIES_SPEC);
  if (emptySet(a.ids, a.advisoryIds, a.artifactNames)) return [];
  return take(advisoryPaginator(client, a).pages(), a.limit);
}

/** {@link getAdvisories} with `Input` arguments and an `Output` result. */
export function getAdvisoriesOutput(args: pulumi.Input<InputArgs<GetAdvisoriesArgs>> = {}, client?: PlatformClient): pulumi.Output<Advisory[]> {
  return outputOf<GetAdvisoriesArgs, Advisory[]>(args, (a) => getAdvisories(a, client));
}

/** Arguments of {@link getAdvisory}: `uid`, or filters (`advisoryId`, `artifactName`); exactly one of the two. */
export interface GetAdvisoryArgs {
  /** The advisory's uid (one GET). */
  uid?: string;
  /** The advisory id, e.g. `CGA-2x4m-7v6q-9r3c`. */
  advisoryId?: string;
  /** The artifact the advisory is about, e.g. `nginx`. */
  artifactName?: string;
}

/**
 * Gets one vulnerability advisory: by `uid`, or by filters that must match exactly one advisory.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no advisory has that `uid`; other ApiErrors.
 * @example const adv = await getAdvisory({ advisoryId: "CGA-2x4m-7v6q-9r3c" });
 */
export async function getAdvisory(args: GetAdvisoryArgs, client: PlatformClient = programClientFromConfig()): Promise<Advisory> {
  const a = checkArgs("getAdvisory", args, { uid: "string", advisoryId: "string", artifactName: "string" });
  return single("getAdvisory", ["advisory", "advisories"], a, ["advisoryId", "artifactName"], (uid) => client.advisories.get(uid), () => ({
    pages: advisoryPaginator(
      client,
      compact({
        advisoryIds: a.advisoryId === undefined ? undefined : [a.advisoryId],
        artifactNames: a.artifactName === undefined ? undefined : [a.artifactName],
      }) as GetAdvisoriesArgs,
    ).pages(),
  }));
}

/** {@link getAdvisory} with `Input` arguments and an `Output` result. */
export function getAdvisoryOutput(args: pulumi.Input<InputArgs<GetAdvisoryArgs>>, client?: PlatformClient): pulumi.Output<Advisory> {
  return outputOf<GetAdvisoryArgs, Advisory>(args, (a) => getAdvisory(a, client));
}
