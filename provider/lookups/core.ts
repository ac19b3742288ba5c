/**
 * The lookups' core: the program's client, the argument shapes and checks, {@link LookupError} and the
 * single-match rule, and the `...Output` twins. One file per collection beside it holds that collection's
 * lookups; `index.ts` exports them all.
 *
 * Read-only lookups for Pulumi programs. Dynamic providers have no `invoke` (README, How it works), so these are plain
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
import type { PlatformClient, ReadableCollection } from "../client/client";
import { PlatformError } from "../client/errors";
import { markReported } from "../client/reported";
import { nearestName, printable } from "../text";
import type { ListParams, Page } from "../client/pagination";
import { clientFromSettings } from "../clientFactory";
import { resolveSettings } from "../config";
import { warnUnknownConfigKeys } from "../configCheck";

/**
 * A `TypeError` for a lookup called with bad arguments, marked like every error of this package so that a program
 * failing with it prints the message alone (see `client/reported.ts`).
 */
function usageError(message: string): TypeError {
  return markReported(new TypeError(message));
}

let programClient: PlatformClient | undefined;

/**
 * The program process's client, created on first use from stack config and environment (the provider's settings:
 * API URL and version, token or workload identity, retry policy; see `config.ts`), then kept for the process.
 * @throws SettingsError when the API URL or credentials are missing.
 */
export function programClientFromConfig(): PlatformClient {
  warnUnknownConfigKeys();
  if (!programClient) {
    const s = resolveSettings((key) => pulumi.runtime.getConfig(key), process.env, Object.keys(pulumi.runtime.allConfig()));
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
  /**
   * The same filter by the name the singular lookups use (`getGroup({ parentUid })`): only direct children of this
   * uid. Giving it and `childrenOf` with different values is an error.
   */
  parentUid?: string;
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
  /** For a `NO_MATCH` by name: the names looked at without the name filter, and the nearest one when one is close. */
  readonly nearby?: NearbyNames | undefined;

  /**
   * @param what the kind of object, singular and plural, e.g. `["group", "groups"]`.
   * @param nearby for a `NO_MATCH` by name: what {@link nearbyNames} found (named in the message).
   */
  constructor(
    reason: LookupFailure,
    lookup: string,
    what: readonly [singular: string, plural: string],
    filters: Record<string, unknown>,
    matchCount: number | undefined,
    uids: readonly string[],
    nearby?: NearbyNames,
  ) {
    const f = describeFilters(filters);
    let message: string;
    if (reason === "NO_MATCH") {
      message = `${lookup}: no ${what[0]} matches ${f}`;
      if (nearby) {
        const looked = `${nearby.complete ? "" : "the first "}${nearby.looked} ${nearby.looked === 1 ? what[0] : what[1]}${filters["parentUid"] !== undefined ? ` under parentUid` : ""}`;
        message += nearby.near !== undefined ? `; did you mean "${printable(nearby.near)}"? (looked at ${looked})` : `; looked at ${looked}, none with a close name`;
      }
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
    this.nearby = nearby;
  }
}

/** What a name lookup that matched nothing could see: how many names, whether that was all, and the nearest. */
export interface NearbyNames {
  /** How many objects were read without the name filter (at most {@link NEARBY_LIMIT}). */
  looked: number;
  /** True when that was every object in scope. */
  complete: boolean;
  /** The nearest name (Levenshtein distance, case ignored, within a third of the name's length, at least 2), if any. */
  near?: string | undefined;
}

/** The most objects a failed name lookup reads to suggest a name (two pages of 500). */
export const NEARBY_LIMIT = 1000;


/** The most uids an `AMBIGUOUS` {@link LookupError} lists (and the most matches a singular lookup reads). */
export const AMBIGUOUS_UID_LIMIT = 100;

// ---------------------------------------------------------------------------------------------------------
// Internals (shared by the per-collection files; not exported from the package)
// ---------------------------------------------------------------------------------------------------------

const MAX_PAGE_SIZE = 200;

/** What an argument's value must be: a non-empty string, a non-negative integer, a boolean, or an array of non-empty strings. */
type Kind = "string" | "number" | "boolean" | "string[]";
/** A lookup's known argument names and the kind of each ({@link checkArgs} refuses any other name). */
export type ArgSpec = Readonly<Record<string, Kind>>;

/** The {@link PagingArgs} every plural lookup takes. */
export const PAGING: ArgSpec = { orderBy: "string", pageSize: "number", skip: "number", limit: "number" };
/** The {@link UidpFilterArgs} every plural lookup takes. */
export const UIDP: ArgSpec = { ids: "string[]", childrenOf: "string", parentUid: "string", descendantsOf: "string", ancestorsOf: "string", inRoot: "boolean" };

function describeFilters(filters: Record<string, unknown>): string {
  const parts = Object.entries(filters).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length ? `{ ${parts.join(", ")} }` : "{}";
}

/** Drops keys whose value is undefined (for exactOptionalPropertyTypes and for JSON-shaped error messages). */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Checks `args` against `spec`: known keys only, values of the right type, non-empty strings, non-negative
 * integers. Returns `args` without undefined values.
 * @throws TypeError naming the lookup and the argument.
 */
export function checkArgs<T extends object>(fn: string, args: T | null | undefined, spec: ArgSpec): T {
  if (args === null || args === undefined) return {} as T;
  if (typeof args !== "object" || Array.isArray(args)) throw usageError(`${fn}: arguments must be an object, got ${JSON.stringify(args)}`);
  for (const [k, v] of Object.entries(args)) {
    const kind = spec[k];
    if (kind === undefined) throw usageError(`${fn}: unknown argument "${k}" (known: ${Object.keys(spec).join(", ")})`);
    if (v === undefined) continue;
    const bad = (want: string) => usageError(`${fn}: ${k} must be ${want}, got ${JSON.stringify(v)}`);
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
export function pick(args: object, keys: readonly string[]): Record<string, unknown> {
  const a = args as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}

/**
 * The client's List parameters for plural-lookup `args`.
 * @param serverSideOnly false when items are also filtered in this process (then `limit` must not shrink pages).
 */
export function listParams(
  args: PagingArgs & UidpFilterArgs & { name?: string; groupUid?: string },
  serverSideOnly = true,
  fn = "lookup",
): ListParams {
  const childrenOf = oneParent(fn, args);
  // Walking pages costs a round trip each: ask for the API's maximum unless a small limit needs fewer.
  const pageSize = args.pageSize ?? (args.limit !== undefined && serverSideOnly ? Math.min(Math.max(args.limit, 1), MAX_PAGE_SIZE) : MAX_PAGE_SIZE);
  return compact({
    pageSize,
    orderBy: args.orderBy,
    skip: args.skip,
    name: args.name,
    ids: args.ids,
    childrenOf,
    descendantsOf: args.descendantsOf,
    ancestorsOf: args.ancestorsOf,
    inRoot: args.inRoot === undefined ? undefined : String(args.inRoot),
  }) as ListParams;
}

/**
 * The one parent a plural lookup's `childrenOf`, `parentUid` and `groupUid` name together (each a spelling of
 * `uidp.children_of`), or undefined when none is given.
 * @throws TypeError naming the arguments when they name different parents.
 */
function oneParent(fn: string, args: { childrenOf?: string; parentUid?: string; groupUid?: string }): string | undefined {
  const given = (["childrenOf", "parentUid", "groupUid"] as const).filter((k) => args[k] !== undefined);
  const values = new Set(given.map((k) => args[k]));
  if (values.size > 1) {
    throw usageError(`${fn}: ${given.join(" and ")} name different parents (${given.map((k) => JSON.stringify(args[k])).join(", ")}); give one`);
  }
  return given.length ? args[given[0]!] : undefined;
}

/**
 * The client's List parameters for a plural lookup of a repo's children (tags, overlay bindings): `repoUid` is sent
 * as `uidp.children_of`, the other arguments as {@link listParams} sends them.
 * @throws TypeError when `repoUid` and `childrenOf` name different parents.
 */
export function underRepo(fn: string, args: PagingArgs & UidpFilterArgs & { name?: string; repoUid?: string }): ListParams {
  const { repoUid, ...rest } = args;
  if (repoUid !== undefined && rest.childrenOf !== undefined && repoUid !== rest.childrenOf) {
    throw usageError(`${fn}: repoUid and childrenOf name different parents ("${repoUid}", "${rest.childrenOf}"); give one`);
  }
  return listParams({ ...rest, ...(repoUid !== undefined ? { childrenOf: repoUid } : {}) }, true, fn);
}

/** Whether an array filter that matches nothing was given (then no request is made). */
export function emptySet(...filters: Array<readonly string[] | undefined>): boolean {
  return filters.some((f) => f !== undefined && f.length === 0);
}

/**
 * Collects up to `limit` items from `pages`, keeping those `keep` accepts; stops requesting pages once
 * `limit` is reached.
 */
export async function take<T>(pages: AsyncIterable<Page<T>>, limit = Infinity, keep?: (item: T) => boolean): Promise<T[]> {
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
export interface Matches<T> {
  pages: AsyncIterable<Page<T>>;
  keep?: (item: T) => boolean;
}

/**
 * The one object a singular lookup names: by uid (a GET), or by filters (a List that must match exactly one).
 * @throws TypeError when both or neither of uid and filters are given; LookupError when the filters match
 *   none or several; ApiError (e.g. NotFoundError for a uid that does not exist) from the API.
 */
export async function single<T extends { uid: string }>(
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
    if (given.length > 0) throw usageError(`${fn}: give either uid or filters (${filterKeys.join(", ")}), not both; got uid and ${given.join(", ")}`);
    return byUid(args.uid);
  }
  if (given.length === 0) throw usageError(`${fn}: give uid, or at least one of ${filterKeys.join(", ")}`);
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
export function outputOf<A extends object, R>(args: pulumi.Input<InputArgs<A>> | undefined, run: (a: A) => Promise<R>): pulumi.Output<R> {
  return pulumi.output(args ?? {}).apply((a) => run(compact(a as object) as A));
}

/** The argument spec of a plural lookup filtered by `name` (groups, identities, roles, repos, overlays). */
export const NAMED_SPEC: ArgSpec = { name: "string", ...UIDP, ...PAGING };

/**
 * The plural lookup of a named kind (`getGroups`, `getIdentities`, `getRoles`, `getRepos`, `getOverlays`): checks
 * `args`, then walks pages lazily up to `limit` (prefetching the next page when reading everything). An empty
 * `ids` returns `[]` without a request. `collection` is asked for only after the arguments pass, so a bad argument
 * is a TypeError whatever the client.
 * @throws TypeError for bad arguments; ApiError from the API.
 */
export async function namedList<T>(fn: string, args: object | undefined, collection: () => ReadableCollection<T>): Promise<T[]> {
  const a = checkArgs(fn, args as (PagingArgs & UidpFilterArgs & { name?: string }) | undefined, NAMED_SPEC);
  if (emptySet(a.ids)) return [];
  return take(collection().list(listParams(a, true, fn)).pages(a.limit === undefined), a.limit);
}

/**
 * The singular lookup of a named kind under a parent (`getGroup`, `getIdentity`, `getRole`, `getRepo`,
 * `getOverlay`): `uid` (one GET), or `name` and/or `parentUid` (a List of the parent's children) matching exactly one.
 * @throws TypeError for bad arguments; LookupError when the filters match none or several; ApiError from the API.
 */
export async function namedLookup<T extends { uid: string }>(
  fn: string,
  what: readonly [singular: string, plural: string],
  args: { uid?: string; name?: string; parentUid?: string },
  collection: () => ReadableCollection<T>,
): Promise<T> {
  const a = checkArgs(fn, args, { uid: "string", name: "string", parentUid: "string" });
  const scope = a.parentUid !== undefined ? { childrenOf: a.parentUid } : {};
  try {
    return await single(fn, what, a, ["name", "parentUid"], (uid) => collection().get(uid), () => ({
      pages: collection().list(listParams({ ...pick(a, ["name"]), ...scope })).pages(),
    }));
  } catch (err) {
    // Nothing by that name: read the names in the same scope (bounded) and name the nearest, as the org file does.
    if (!(err instanceof LookupError) || err.reason !== "NO_MATCH" || a.name === undefined) throw err;
    const seen = await take((collection() as ReadableCollection<T & { name?: string }>).list({ ...scope, pageSize: 500 }).pages(), NEARBY_LIMIT + 1);
    const names = seen.slice(0, NEARBY_LIMIT).map((x) => x.name).filter((n): n is string => typeof n === "string");
    throw new LookupError("NO_MATCH", fn, what, err.filters as Record<string, unknown>, 0, [], { looked: Math.min(seen.length, NEARBY_LIMIT), complete: seen.length <= NEARBY_LIMIT, near: nearestName(a.name, names) });
  }
}

/** A plural lookup: `(args?, client?) => Promise<T[]>` (client: the program's by default). */
export type ListLookup<A, T> = (args?: A, client?: PlatformClient) => Promise<T[]>;
/** A singular lookup: `(args, client?) => Promise<T>`. */
export type OneLookup<A, T> = (args: A, client?: PlatformClient) => Promise<T>;
/** The `...Output` twin of a plural lookup. */
export type ListLookupOutput<A, T> = (args?: pulumi.Input<InputArgs<A>>, client?: PlatformClient) => pulumi.Output<T[]>;
/** The `...Output` twin of a singular lookup. */
export type OneLookupOutput<A, T> = (args: pulumi.Input<InputArgs<A>>, client?: PlatformClient) => pulumi.Output<T>;

/**
 * The four lookups of a named kind under a parent (groups, identities, roles, repos, overlays): the plural
 * ({@link namedList}), the singular ({@link namedLookup}) and their `...Output` twins, on the kind's collection
 * of the given client (default the program's, {@link programClientFromConfig}).
 * @param names the lookups' names, e.g. `["getGroups", "getGroup"]`, as their errors name them.
 * @param what the kind in messages, singular and plural, e.g. `["group", "groups"]`.
 */
export function namedLookups<T extends { uid: string }, PA extends object, SA extends { uid?: string; name?: string; parentUid?: string }>(
  names: readonly [plural: string, singular: string],
  what: readonly [singular: string, plural: string],
  collection: (client: PlatformClient) => ReadableCollection<T>,
): { list: ListLookup<PA, T>; listOutput: ListLookupOutput<PA, T>; one: OneLookup<SA, T>; oneOutput: OneLookupOutput<SA, T> } {
  // async: a failure (bad arguments, no settings) is a rejected promise, never a synchronous throw.
  const list: ListLookup<PA, T> = async (args = {} as PA, client = programClientFromConfig()) => namedList(names[0], args, () => collection(client));
  const one: OneLookup<SA, T> = async (args, client = programClientFromConfig()) => namedLookup(names[1], what, args, () => collection(client));
  return {
    list,
    listOutput: (args = {} as pulumi.Input<InputArgs<PA>>, client) => outputOf<PA, T[]>(args, (a) => list(a, client)),
    one,
    oneOutput: (args, client) => outputOf<SA, T>(args, (a) => one(a, client)),
  };
}
