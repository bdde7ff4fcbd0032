/**
 * Where a list page stands, as its URL keeps it (`#/company?sort=-employees&after=<cursor>&from=21`),
 * and its pager's links. A sorted list pages with cursors: "Next page" sends the page's
 * `status.next` back as `after` (never a `skip`, which costs the database the documents it skips
 * and stops at `search.maxSkip`); an unsorted one, in natural order, which no cursor can continue,
 * with `skip`. "Previous page" of a cursor page is the page the tab showed before it, remembered
 * in a `PageTrail`. A pure module (no DOM), unit-tested without a browser.
 */
import type { Envelope } from './api-wire.js';

/** The parameters of a list's URL that say where its page starts; the others (sort, filters) say which list it is. */
const PAGING = ['after', 'from', 'skip'];

/** Where a list page starts. */
export interface ListPosition {
  /** The cursor it continues after (the `status.next` of the page before it). */
  after?: string;
  /** The documents skipped before it: an unsorted list, or a link made before cursors. */
  skip: number;
  /**
   * The rank of its first row (1 for the first page), for the position text only (the search never
   * sends it). Unknown for a cursor link that lost it.
   */
  from?: number;
}

/** The position a list's URL gives: `after` wins over `skip`; `from` is a positive whole number or unknown. */
export function positionOf(params: URLSearchParams): ListPosition {
  const after = params.get('after') || undefined;
  const count = (name: string) => (/^\d+$/.test(params.get(name) ?? '') ? Number(params.get(name)) : undefined);
  if (after) {
    const from = count('from');
    return { after, skip: 0, from: from && from > 0 ? from : undefined };
  }
  const skip = count('skip') ?? 0;
  return { skip, from: skip + 1 };
}

/** The list's own parameters (its sort and filters), without the position: which list it is. */
export function listParams(params: URLSearchParams): URLSearchParams {
  const list = new URLSearchParams(params);
  for (const name of PAGING) list.delete(name);
  return list;
}

/** The hash of the page of the list `here` + `list` at `position`. */
export function pageHash(here: string, list: URLSearchParams, position: ListPosition): string {
  const query = listParams(list);
  if (position.after) {
    query.set('after', position.after);
    if (position.from !== undefined) query.set('from', String(position.from));
  } else if (position.skip > 0) query.set('skip', String(position.skip));
  const text = query.toString();
  return text ? `${here}?${text}` : here;
}

/** A pager's text and links; a link absent is a button shown disabled. */
export interface PagerLinks {
  /** `21–40 of 57 matching (120 in total)`. */
  text: string;
  previous?: { href: string; label: 'Previous page' | 'First page' };
  next?: string;
}

/**
 * The pager of the page at `position` whose answer is `status`. `previous` is the hash of the
 * page before a cursor page, when the tab remembers it (`PageTrail`); without it, the way back is
 * the first page.
 */
export function pagerLinks(
  here: string,
  list: URLSearchParams,
  position: ListPosition,
  status: Envelope['status'],
  pageSize: number,
  previous?: string,
): PagerLinks {
  const { count, search_count: shown } = status;
  const { from } = position;
  // The app asks for exact counts (SEARCH_PREFER); a proxy that drops the header gets what the page shows.
  const matching = status.match_count ?? (from ?? 1) - 1 + shown;
  const range = from === undefined ? `${shown} shown` : `${shown ? from : 0}–${from - 1 + shown}`;
  const text = `${range} of ${matching} matching (${count} in total)`;
  const links: PagerLinks = { text };
  if (position.after) links.previous = previous ? { href: previous, label: 'Previous page' } : { href: pageHash(here, list, { skip: 0 }), label: 'First page' };
  else if (position.skip > 0) links.previous = { href: pageHash(here, list, { skip: Math.max(0, position.skip - pageSize) }), label: 'Previous page' };
  // A sorted search says where the next page starts; an unsorted one has no cursor, and pages by skip.
  if (status.next) links.next = pageHash(here, list, { after: status.next, skip: 0, from: from === undefined ? undefined : from + shown });
  else if (!list.get('sort') && position.skip + shown < matching) links.next = pageHash(here, list, { skip: position.skip + pageSize });
  return links;
}

/** The part of `sessionStorage` a trail uses. */
export interface TrailStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * The pages a browser tab walked with cursors: for each cursor, the hash of the page whose
 * `status.next` it was, so that "Previous page" goes back there, after a reload or a Back too. A
 * cursor only leads forward, and the page before one cannot be searched for; the URL could carry
 * every cursor before it, but they are long. Kept in the tab's `sessionStorage`, the latest
 * `limit` entries (oldest dropped: that page's "Previous" becomes "First page"); a storage that
 * fails (full, or disabled) only loses the way back.
 */
export class PageTrail {
  static readonly KEY = 'model-routes-back-office:page-trail';

  constructor(
    private readonly storage: TrailStorage | undefined,
    private readonly limit = 200,
  ) {}

  /** The hash of the page whose `status.next` is `cursor`, on the list `here` + `list`. */
  before(here: string, list: URLSearchParams, cursor: string): string | undefined {
    return this.entries().find(([key]) => key === this.key(here, list, cursor))?.[1];
  }

  /** Remembers that `cursor` came after the page `hash` of the list `here` + `list`. */
  record(here: string, list: URLSearchParams, cursor: string, hash: string): void {
    const key = this.key(here, list, cursor);
    const entries = this.entries().filter(([known]) => known !== key);
    entries.push([key, hash]);
    try {
      this.storage?.setItem(PageTrail.KEY, JSON.stringify(entries.slice(-this.limit)));
    } catch {
      // No way back remembered: "First page" instead.
    }
  }

  private key(here: string, list: URLSearchParams, cursor: string): string {
    return `${pageHash(here, list, { skip: 0 })}\n${cursor}`;
  }

  private entries(): Array<[string, string]> {
    try {
      const entries: unknown = JSON.parse(this.storage?.getItem(PageTrail.KEY) ?? '[]');
      return Array.isArray(entries)
        ? entries.filter((entry): entry is [string, string] => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string')
        : [];
    } catch {
      return [];
    }
  }
}
