/**
 * Pagination as async iteration (AIP-158): `for await (const x of client.groups.list(...))` walks every page
 * lazily, requesting the next page only when the current one is used up. Every walk is bounded (see
 * {@link Paginator.pages}): a server whose pages never end gets a {@link PaginationError}, not an endless walk,
 * and one whose pages are many and large gets a {@link ListingTooLargeError} once the walks hold more page bytes
 * than their budget ({@link WalkBounds.maxBytes}), before the page over it is parsed.
 */
import { ListingTooLargeError, PaginationError, type RequestInfo } from "./errors";

/** List parameters every List endpoint takes (sent as the seed's snake_case names). */
export interface ListParams {
  /** Page size; the server defaults to 50 and caps at 200. */
  pageSize?: number;
  /** `field [asc|desc]`, e.g. `name`, `created_at desc`; default `uid asc`. Must not change between pages. */
  orderBy?: string;
  /** Rows to skip before the first returned. */
  skip?: number;
  /** Exact name. */
  name?: string;
  /** Only strict descendants of this uid. */
  descendantsOf?: string;
  /** Only direct children of this uid. */
  childrenOf?: string;
  /** Only ancestors of this uid. */
  ancestorsOf?: string;
  /** Only objects in this root. */
  inRoot?: string;
  /** Only these uids. */
  ids?: readonly string[];
}

/** One page of a List response. */
export interface Page<T> {
  items: T[];
  /** Token for the next page; undefined on the last page. */
  nextPageToken: string | undefined;
  /** Count of all matches (int64 sent as a string, converted). */
  totalCount: number | undefined;
  /** Rows skipped by `skip`. */
  skipped: number;
}

/**
 * Told the size of each page's body, in bytes, once it is read and before it is parsed; it may throw to stop the
 * walk there (the budget of {@link WalkBounds.maxBytes}).
 */
export type OnPageBytes = (bytes: number) => void;

/** Fetches and checks one page; calls `onBytes` with the body's size before parsing it. */
export type FetchPage<T> = (pageToken: string | undefined, onBytes?: OnPageBytes) => Promise<Page<T>>;

/**
 * How a listing fetches pages in two steps, so the next request can be in flight while a page is validated:
 * `raw` returns the parsed JSON of one page (calling `onBytes` as {@link FetchPage} does); `validate` checks it
 * and makes it a page.
 */
export interface TwoStepFetch<T> {
  raw(pageToken: string | undefined, onBytes?: OnPageBytes): Promise<unknown>;
  validate(raw: unknown): Page<T>;
}

/** Bytes of List pages one walk may hold unless the client says otherwise ({@link WalkBounds.maxBytes}): 256 MiB. */
export const DEFAULT_MAX_WALK_BYTES = 256 * 1024 * 1024;

/**
 * Page bytes held by walks, shared by the walks of one client: a walk adds each page's body size as it arrives
 * and, unless `keep` is set, takes its bytes off again when it ends (its rows are then its caller's). With
 * `keep` (a command that holds every row it listed until it ends, such as the export), nothing is taken off, so
 * the budget bounds all of the command's Lists together.
 */
export interface WalkLedger {
  /** Bytes counted now. */
  held: number;
  /** Whether a walk's bytes stay counted after it ends. */
  keep: boolean;
}

/** Most pages one walk reads unless the client says otherwise ({@link WalkBounds.maxPages}). */
export const DEFAULT_MAX_PAGES = 10_000;
/** Most pages in a row without a row that a walk reads before it gives up (AIP-158 allows a short, even empty, page). */
export const MAX_EMPTY_PAGES = 3;

/** What bounds one walk of a listing, and the request it is named by in errors. */
export interface WalkBounds {
  /** Method and path of the List (`GET /iam/v2beta1/groups`), named in a {@link PaginationError}. */
  request: RequestInfo;
  /** Most pages read; default {@link DEFAULT_MAX_PAGES}. */
  maxPages?: number;
  /**
   * Most bytes of page bodies the walks sharing `ledger` hold at once (this walk's alone without a ledger);
   * default {@link DEFAULT_MAX_WALK_BYTES}. Setting `platform:maxWalkBytes`.
   */
  maxBytes?: number;
  /** The count this walk adds its page bytes to, shared with the client's other walks; default its own. */
  ledger?: WalkLedger;
}

/**
 * Keeps count of one walk and says when it must stop. A server that always answers with a fresh `nextPageToken`
 * would otherwise be followed forever; the walk ends with a {@link PaginationError} when it has read `maxPages`
 * pages, more rows than the largest `totalCount` the server announced, {@link MAX_EMPTY_PAGES} empty pages in a
 * row, or a token it already followed; and with a {@link ListingTooLargeError} when the page bodies it and the
 * walks sharing its ledger read pass the byte budget (checked as each body arrives, before it is parsed).
 */
class Walk {
  pages = 0;
  items = 0;
  /** Bytes of page bodies this walk read. */
  bytes = 0;
  /** Page bodies counted by {@link charge} (with prefetching, one may be ahead of {@link pages}). */
  private charged = 0;
  /** Set by {@link release}: later bodies (a prefetch in flight when the walk ended) are not counted. */
  private ended = false;
  private empty = 0;
  private total: number | undefined;
  private readonly seen = new Set<string>();
  /** Most pages this walk reads. */
  readonly maxPages: number;
  private readonly maxBytes: number;
  private readonly ledger: WalkLedger;
  constructor(private readonly bounds: WalkBounds | undefined) {
    this.maxPages = bounds?.maxPages ?? DEFAULT_MAX_PAGES;
    this.maxBytes = bounds?.maxBytes ?? DEFAULT_MAX_WALK_BYTES;
    this.ledger = bounds?.ledger ?? { held: 0, keep: false };
  }

  /**
   * Counts a page body of `bytes` (before it is parsed).
   * @throws ListingTooLargeError when the walks sharing the ledger would hold more than the budget.
   */
  readonly charge: OnPageBytes = (bytes) => {
    // A page prefetched before the walk ended (on an error) arrives after it: its rows are never used.
    if (this.ended) return;
    this.bytes += bytes;
    this.charged++;
    this.ledger.held += bytes;
    if (this.ledger.held > this.maxBytes) {
      const shared = this.ledger.held !== this.bytes ? `, ${this.ledger.held} bytes with the other Lists ${this.ledger.keep ? "of this command" : "in progress"}` : "";
      throw new ListingTooLargeError(this.bounds?.request ?? { method: "GET", path: "(a listing)" }, this.charged, this.items, this.bytes, this.maxBytes, shared);
    }
  };

  /** Takes this walk's bytes off a ledger that does not keep them (once, when the walk ends). */
  release(): void {
    if (!this.ledger.keep) this.ledger.held -= this.bytes;
    this.bytes = 0;
    this.ended = true;
  }

  /** Whether `token` was already followed in this walk. */
  followed(token: string): boolean {
    return this.seen.has(token);
  }

  /**
   * Counts a page and returns the token to follow, or undefined at the end.
   * @throws PaginationError when the next page would break a bound.
   */
  next(items: number, token: string | undefined, totalCount: number | undefined): string | undefined {
    this.pages++;
    this.items += items;
    this.empty = items === 0 ? this.empty + 1 : 0;
    if (typeof totalCount === "number" && Number.isFinite(totalCount)) this.total = Math.max(this.total ?? 0, totalCount);
    if (token === undefined || token === "") return undefined;
    const max = this.maxPages;
    if (this.seen.has(token)) this.fail("it sent a page token it had already sent (the walk would repeat itself)");
    if (this.pages >= max) this.fail(`it still sent a next page token after ${max} pages (the most one walk reads: setting platform:maxPages, client option maxPages)`);
    if (this.total !== undefined && this.items > this.total) this.fail(`it sent ${this.items} rows, more than the ${this.total} its totalCount announced, and still a next page token`);
    if (this.empty >= MAX_EMPTY_PAGES) this.fail(`it sent ${this.empty} empty pages in a row, each with a next page token`);
    this.seen.add(token);
    return token;
  }

  private fail(why: string): never {
    throw new PaginationError(this.bounds?.request ?? { method: "GET", path: "(a listing)" }, this.pages, this.items, why);
  }
}

/** A lazily paged listing. Iterate it for items, `pages()` for whole pages, or `collect()` for an array. */
export class Paginator<T> implements AsyncIterable<T> {
  /**
   * @param fetchPage fetches and checks one page. @param params the listing's parameters.
   * @param twoStep the same fetch in two steps, for prefetching. @param bounds the request that names the walk in
   *   errors, and its page limit (see {@link Walk}'s rules).
   */
  constructor(
    private readonly fetchPage: FetchPage<T>,
    /** The parameters the listing was made with. */
    readonly params: ListParams,
    private readonly twoStep?: TwoStepFetch<T>,
    private readonly bounds?: WalkBounds,
  ) {}

  /**
   * Every page in order; stops after the page without a next token.
   * @param prefetch send the next page's request before validating the current page (when the whole listing
   *   will be read: the request is wasted if the caller stops early). Default false.
   * @throws PaginationError when the server's pages do not end: more than `maxPages` pages, more rows than its
   *   `totalCount`, {@link MAX_EMPTY_PAGES} empty pages in a row, or a page token it already sent.
   *   ListingTooLargeError when the page bodies read pass the byte budget ({@link WalkBounds.maxBytes}).
   */
  async *pages(prefetch = false): AsyncGenerator<Page<T>> {
    if (prefetch && this.twoStep) {
      yield* this.prefetchingPages(this.twoStep);
      return;
    }
    const walk = new Walk(this.bounds);
    let token: string | undefined;
    try {
      do {
        const page = await this.fetchPage(token, walk.charge);
        // The page first: a caller that stops here (a limit met) never meets a bound the next page would break.
        yield page;
        token = walk.next(page.items.length, page.nextPageToken, page.totalCount);
      } while (token !== undefined);
    } finally {
      walk.release();
    }
  }

  private async *prefetchingPages(f: TwoStepFetch<T>): AsyncGenerator<Page<T>> {
    const walk = new Walk(this.bounds);
    try {
      yield* this.prefetchWalk(f, walk);
    } finally {
      walk.release();
    }
  }

  private async *prefetchWalk(f: TwoStepFetch<T>, walk: Walk): AsyncGenerator<Page<T>> {
    let pending: Promise<unknown> | undefined = f.raw(undefined, walk.charge);
    while (pending) {
      const raw: unknown = await pending;
      // The next request goes out before this page is validated; the walk's bounds are checked right after, so a
      // walk that breaks one has sent at most one request more than the pages it counted.
      const next: unknown = (raw as { nextPageToken?: unknown } | null)?.nextPageToken;
      const ahead = typeof next === "string" && next !== "" && !walk.followed(next) && walk.pages + 1 < walk.maxPages ? next : undefined;
      pending = ahead === undefined ? undefined : f.raw(ahead, walk.charge);
      pending?.catch(() => undefined); // observed below, or dropped when validation or a bound fails first
      const page = f.validate(raw);
      const token = walk.next(page.items.length, page.nextPageToken, page.totalCount);
      if (token !== undefined && token !== ahead) pending = f.raw(token, walk.charge);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.items;
  }

  /**
   * Collects items into an array.
   * @param limit stop after this many items (no further pages are requested); default: all.
   */
  async collect(limit = Infinity): Promise<T[]> {
    const out: T[] = [];
    if (limit <= 0) return out;
    // Page by page, not item by item: one await per request instead of one per row. Reading everything, the
    // next request goes out before the current page is validated.
    for await (const page of this.pages(limit === Infinity)) {
      for (const item of page.items) {
        out.push(item);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }
}
