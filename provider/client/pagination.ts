/**
 * Pagination as async iteration (AIP-158): `for await (const x of client.groups.list(...))` walks every page
 * lazily, requesting the next page only when the current one is used up.
 */

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
 * How a listing fetches pages in two steps, so the next request can be in flight while a page is validated:
 * `raw` returns the parsed JSON of one page; `validate` checks it and makes it a page.
 */
export interface TwoStepFetch<T> {
  raw(pageToken: string | undefined): Promise<unknown>;
  validate(raw: unknown): Page<T>;
}

/** A lazily paged listing. Iterate it for items, `pages()` for whole pages, or `collect()` for an array. */
export class Paginator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (pageToken: string | undefined) => Promise<Page<T>>,
    /** The parameters the listing was made with. */
    readonly params: ListParams,
    private readonly twoStep?: TwoStepFetch<T>,
  ) {}

  /**
   * Every page in order; stops after the page without a next token.
   * @param prefetch send the next page's request before validating the current page (when the whole listing
   *   will be read: the request is wasted if the caller stops early). Default false.
   */
  async *pages(prefetch = false): AsyncGenerator<Page<T>> {
    if (prefetch && this.twoStep) {
      yield* this.prefetchingPages(this.twoStep);
      return;
    }
    let token: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await this.fetchPage(token);
      yield page;
      token = page.nextPageToken;
      // A server that hands back a token it already gave would loop forever; stop instead.
      if (token !== undefined) {
        if (seen.has(token)) return;
        seen.add(token);
      }
    } while (token !== undefined);
  }

  private async *prefetchingPages(f: TwoStepFetch<T>): AsyncGenerator<Page<T>> {
    const seen = new Set<string>();
    let pending: Promise<unknown> | undefined = f.raw(undefined);
    while (pending) {
      const raw: unknown = await pending;
      const next: unknown = (raw as { nextPageToken?: unknown } | null)?.nextPageToken;
      const token: string | undefined = typeof next === "string" && next !== "" && !seen.has(next) ? next : undefined;
      if (token !== undefined) seen.add(token);
      pending = token === undefined ? undefined : f.raw(token);
      pending?.catch(() => undefined); // observed below, or dropped when validation fails first
      yield f.validate(raw);
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
