import type { Envelope } from '../../../../src/back-office/app/api-wire.js';
import { listParams, pageHash, pagerLinks, PageTrail, positionOf, type TrailStorage } from '../../../../src/back-office/app/list-paging.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function listPagingSpec(): void {
  describe("the back office list's paging (the URL's position, the pager's links, the trail of cursors)", () => {
    const here = '#/company';
    const sorted = new URLSearchParams('sort=-employees&niceName=acme');
    const status = (fields: Partial<Envelope['status']>): Envelope['status'] => ({
      count: 120,
      search_count: 20,
      match_count: 57,
      counted: 'exact',
      limit: 20,
      skip: 0,
      ...fields,
    });

    /** A `sessionStorage` of its own. */
    function storage(): TrailStorage & { items: Map<string, string> } {
      const items = new Map<string, string>();
      return { items, getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
    }

    it('reads the position from the URL: a cursor with the rank of its first row, else a skip; a cursor wins over a skip', () => {
      expect(positionOf(new URLSearchParams('sort=a&after=c1&from=21'))).toEqual({ after: 'c1', skip: 0, from: 21 });
      expect(positionOf(new URLSearchParams('sort=a&after=c1&skip=40&from=41'))).toEqual({ after: 'c1', skip: 0, from: 41 });
      expect(positionOf(new URLSearchParams('sort=a&after=c1'))).toEqual({ after: 'c1', skip: 0, from: undefined });
      for (const from of ['0', '-3', '2.5', 'x', '']) expect(positionOf(new URLSearchParams(`after=c1&from=${from}`)).from).toBeUndefined();
      expect(positionOf(new URLSearchParams('skip=40'))).toEqual({ skip: 40, from: 41 });
      expect(positionOf(new URLSearchParams('skip=-5'))).toEqual({ skip: 0, from: 1 });
      expect(positionOf(new URLSearchParams('after=&skip=20'))).toEqual({ skip: 20, from: 21 });
      expect(positionOf(new URLSearchParams(''))).toEqual({ skip: 0, from: 1 });
    });

    it('keeps the sort and filters of a list and drops its position; writes a page back as a hash', () => {
      expect(listParams(new URLSearchParams('sort=-employees&after=c1&from=21&skip=3&niceName=acme')).toString()).toBe('sort=-employees&niceName=acme');
      expect(pageHash(here, sorted, { after: 'c 1', skip: 0, from: 21 })).toBe('#/company?sort=-employees&niceName=acme&after=c+1&from=21');
      expect(pageHash(here, sorted, { after: 'c1', skip: 0 })).toBe('#/company?sort=-employees&niceName=acme&after=c1');
      expect(pageHash(here, new URLSearchParams('after=old&from=3'), { skip: 20 })).toBe('#/company?skip=20');
      expect(pageHash(here, new URLSearchParams(), { skip: 0 })).toBe('#/company');
      // The round trip: the hash of a page gives back its position.
      const position = { after: 'eyJ2IjoxfQ.x-_y', skip: 0, from: 41 };
      expect(positionOf(new URLSearchParams(pageHash(here, sorted, position).split('?')[1]))).toEqual(position);
    });

    it('continues a sorted list with its cursor (after, the next rank), never a skip', () => {
      const first = pagerLinks(here, sorted, { skip: 0, from: 1 }, status({ next: 'c1' }), 20);
      expect(first).toEqual({ text: '1–20 of 57 matching (120 in total)', next: '#/company?sort=-employees&niceName=acme&after=c1&from=21' });
      const second = pagerLinks(here, sorted, { after: 'c1', skip: 0, from: 21 }, status({ next: 'c2' }), 20, '#/company?sort=-employees&niceName=acme');
      expect(second).toEqual({
        text: '21–40 of 57 matching (120 in total)',
        previous: { href: '#/company?sort=-employees&niceName=acme', label: 'Previous page' },
        next: '#/company?sort=-employees&niceName=acme&after=c2&from=41',
      });
      const last = pagerLinks(here, sorted, { after: 'c2', skip: 0, from: 41 }, status({ search_count: 17 }), 20, second.next);
      expect(last).toEqual({ text: '41–57 of 57 matching (120 in total)', previous: { href: second.next, label: 'Previous page' } });
    });

    it('goes back to the first page from a cursor page whose page before is not remembered; a rank lost shows the rows shown', () => {
      expect(pagerLinks(here, sorted, { after: 'c1', skip: 0, from: 21 }, status({}), 20).previous).toEqual({
        href: '#/company?sort=-employees&niceName=acme',
        label: 'First page',
      });
      const lost = pagerLinks(here, sorted, { after: 'c1', skip: 0 }, status({ next: 'c2' }), 20);
      expect(lost.text).toBe('20 shown of 57 matching (120 in total)');
      expect(lost.next).toBe('#/company?sort=-employees&niceName=acme&after=c2');
    });

    it('pages an unsorted list (natural order: no cursor) with skip, as before; a sorted one opened with a skip continues with its cursor', () => {
      const unsorted = new URLSearchParams('niceName=acme');
      expect(pagerLinks(here, unsorted, { skip: 0, from: 1 }, status({}), 20)).toEqual({
        text: '1–20 of 57 matching (120 in total)',
        next: '#/company?niceName=acme&skip=20',
      });
      expect(pagerLinks(here, unsorted, { skip: 40, from: 41 }, status({ search_count: 17, skip: 40 }), 20)).toEqual({
        text: '41–57 of 57 matching (120 in total)',
        previous: { href: '#/company?niceName=acme&skip=20', label: 'Previous page' },
      });
      expect(pagerLinks(here, unsorted, { skip: 20, from: 21 }, status({ skip: 20 }), 20).previous?.href).toBe('#/company?niceName=acme');
      const old = pagerLinks(here, sorted, { skip: 20, from: 21 }, status({ skip: 20, next: 'c2' }), 20);
      expect(old).toEqual({
        text: '21–40 of 57 matching (120 in total)',
        previous: { href: '#/company?sort=-employees&niceName=acme', label: 'Previous page' },
        next: '#/company?sort=-employees&niceName=acme&after=c2&from=41',
      });
      // A sorted answer without a cursor is its last page, whatever the count says.
      expect(pagerLinks(here, sorted, { skip: 0, from: 1 }, status({}), 20).next).toBeUndefined();
    });

    it('counts from what the page shows when the answer has no match_count; an empty list is 0–0', () => {
      expect(pagerLinks(here, sorted, { after: 'c1', skip: 0, from: 21 }, status({ match_count: undefined, counted: 'none', next: 'c2' }), 20).text).toBe(
        '21–40 of 40 matching (120 in total)',
      );
      expect(pagerLinks(here, sorted, { skip: 0, from: 1 }, status({ search_count: 0, match_count: 0 }), 20).text).toBe('0–0 of 0 matching (120 in total)');
    });

    it("remembers the page before each cursor, per list, in the tab's storage, the latest entries only", () => {
      const tab = storage();
      const trail = new PageTrail(tab, 3);
      trail.record(here, sorted, 'c1', '#/company?sort=-employees&niceName=acme');
      trail.record(here, sorted, 'c2', '#/company?sort=-employees&niceName=acme&after=c1&from=21');
      // Survives a reload: a new trail on the same storage.
      const reloaded = new PageTrail(tab, 3);
      expect(reloaded.before(here, sorted, 'c2')).toBe('#/company?sort=-employees&niceName=acme&after=c1&from=21');
      expect(reloaded.before(here, sorted, 'c1')).toBe('#/company?sort=-employees&niceName=acme');
      // Another list, another resource: not the same entry.
      expect(reloaded.before(here, new URLSearchParams('sort=employees'), 'c1')).toBeUndefined();
      expect(reloaded.before('#/user', sorted, 'c1')).toBeUndefined();
      // Recorded again, an entry moves to the end; past the limit the oldest goes.
      trail.record(here, sorted, 'c1', '#/company?sort=-employees&niceName=acme');
      trail.record(here, sorted, 'c3', 'h3');
      trail.record(here, sorted, 'c4', 'h4');
      expect(['c1', 'c2', 'c3', 'c4'].map((cursor) => trail.before(here, sorted, cursor))).toEqual([
        '#/company?sort=-employees&niceName=acme',
        undefined,
        'h3',
        'h4',
      ]);
    });

    it('loses only the way back when the storage is missing, full or holds something else', () => {
      expect(new PageTrail(undefined).before(here, sorted, 'c1')).toBeUndefined();
      expect(() => new PageTrail(undefined).record(here, sorted, 'c1', 'h')).not.toThrow();
      const full: TrailStorage = {
        getItem: () => null,
        setItem: () => {
          throw new Error('QuotaExceededError');
        },
      };
      expect(() => new PageTrail(full).record(here, sorted, 'c1', 'h')).not.toThrow();
      const tab = storage();
      for (const junk of ['not json', '{"a":1}', '[["x"],[1,2],null]']) {
        tab.items.set(PageTrail.KEY, junk);
        expect(new PageTrail(tab).before(here, sorted, 'c1')).toBeUndefined();
        new PageTrail(tab).record(here, sorted, 'c1', 'h');
        expect(new PageTrail(tab).before(here, sorted, 'c1')).toBe('h');
      }
    });
  });
}
