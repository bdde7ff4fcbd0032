import type { ChartSeries } from './chart.js';
import type { BenchRequest } from './scenarios.js';

/**
 * The paged list of the scale measures (issue 26): a sorted `GET /companies`, 20 per page, read at
 * page 1 and deep, with `skip` and with the cursor (`after=<status.next>`), on the generated routes
 * and the hand-written controller (which pages by keyset as a careful user writes it).
 */

/** The page size of the paged list. */
export const PAGE_LIMIT = 20;

/** The sorts it is read in: by a field no engine index serves on FerretDB, and by `_id`. */
export const PAGED_SORTS = ['niceName', '_id'] as const;
export type PagedSort = (typeof PAGED_SORTS)[number];

/** The three reads of a paged list, in the table's order. */
export const PAGED_READS = ['page 1', 'deep, skip', 'deep, cursor'] as const;
export type PagedRead = (typeof PAGED_READS)[number];

/**
 * Every request asks for no count of matches (`Prefer: count=none`, which the hand-written
 * controller honours too): the table measures paging, and an exact count of an unfiltered list is
 * the same whatever the page (see "`status.count` as the collection grows" in BENCHMARKS.md).
 */
export const PAGED_HEADERS = { prefer: 'count=none' };

/**
 * The deep page: page 500 (skip 9,980) where the collection holds 10,000 documents or more, else
 * its last full page (page 50 of 1,000: skip 980); at least page 2, so that a cursor leads to it.
 */
export function deepPage(size: number): { page: number; skip: number } {
  const page = Math.max(2, Math.min(500, Math.floor(size / PAGE_LIMIT)));
  return { page, skip: (page - 1) * PAGE_LIMIT };
}

/** Page 1, or the deep page with `skip`. */
export function skipRequest(sort: PagedSort, skip: number): BenchRequest {
  return { method: 'GET', path: `/companies?sort=${sort}&limit=${PAGE_LIMIT}${skip ? `&skip=${skip}` : ''}`, headers: PAGED_HEADERS };
}

/** The page after `cursor` (the `status.next` of the page before it): what a client at that page sends. */
export function cursorRequest(sort: PagedSort, cursor: string): BenchRequest {
  return { method: 'GET', path: `/companies?sort=${sort}&limit=${PAGE_LIMIT}&after=${encodeURIComponent(cursor)}`, headers: PAGED_HEADERS };
}

/** The request as the table prints it: `GET /companies?sort=niceName&limit=20&skip=9980 (page 500)`. */
export function requestLabel(sort: PagedSort, read: PagedRead, size: number): string {
  const { page, skip } = deepPage(size);
  const base = `GET /companies?sort=${sort}&limit=${PAGE_LIMIT}`;
  if (read === 'page 1') return `\`${base}\` (page 1)`;
  const last = page < 500 ? `, the last of ${size.toLocaleString('en-US')}` : '';
  return read === 'deep, skip' ? `\`${base}&skip=${skip}\` (page ${page}${last})` : `\`${base}&after=<cursor>\` (page ${page}${last})`;
}

/** The p50s of each server for one read of one sort at one size. */
export interface PagedMeasure {
  size: number;
  sort: PagedSort;
  read: PagedRead;
  generated: number;
  handwritten: number;
}

/** The Markdown table: `| companies | request | generated p50 | hand-written p50 | hand-written p50 / generated p50 |`. */
export function pagedTable(measures: PagedMeasure[]): string[] {
  const lines = ['| companies | request | generated p50 | hand-written p50 | hand-written p50 / generated p50 |', '|---|---|---|---|---|'];
  for (const m of measures) {
    lines.push(
      `| ${m.size.toLocaleString('en-US')} | ${requestLabel(m.sort, m.read, m.size)} | ${m.generated} ms | ${m.handwritten} ms | ` +
        `${(m.handwritten / Math.max(m.generated, 0.1)).toFixed(2)} |`,
    );
  }
  return lines;
}

/**
 * Per sort and size, the deep page's p50 over page 1's, with the cursor and with `skip`, on each
 * server: the issue's target is a cursor's page 500 within 2x of page 1 where an index serves the sort.
 */
export function depthRatios(measures: PagedMeasure[]): string[] {
  const lines: string[] = [];
  const find = (size: number, sort: PagedSort, read: PagedRead) => measures.find((m) => m.size === size && m.sort === sort && m.read === read);
  for (const first of measures.filter((m) => m.read === 'page 1')) {
    const cursor = find(first.size, first.sort, 'deep, cursor');
    const skip = find(first.size, first.sort, 'deep, skip');
    if (!cursor || !skip) continue;
    const ratio = (deep: number, top: number) => (deep / Math.max(top, 0.1)).toFixed(2);
    lines.push(
      `Sort by ${first.sort}, ${first.size.toLocaleString('en-US')} companies, page ${deepPage(first.size).page} / page 1: cursor ` +
        `${ratio(cursor.generated, first.generated)} generated, ${ratio(cursor.handwritten, first.handwritten)} hand-written; skip ` +
        `${ratio(skip.generated, first.generated)} generated, ${ratio(skip.handwritten, first.handwritten)} hand-written`,
    );
  }
  return lines;
}

/** The chart's lines: one per sort, read and server, generated solid and hand-written dashed in the colour of their sort and read. */
export function pagedSeries(measures: PagedMeasure[]): ChartSeries[] {
  const series: ChartSeries[] = [];
  for (const sort of PAGED_SORTS) {
    for (const read of PAGED_READS) {
      const points = measures.filter((m) => m.sort === sort && m.read === read);
      if (points.length === 0) continue;
      const kind = `sort=${sort}, ${read === 'page 1' ? 'page 1' : `page 500 (or last), ${read.slice('deep, '.length)}`}`;
      series.push(
        { label: `${kind} (generated)`, kind, dashed: false, points: points.map((m) => ({ x: m.size, y: m.generated })) },
        { label: `${kind} (hand-written)`, kind, dashed: true, points: points.map((m) => ({ x: m.size, y: m.handwritten })) },
      );
    }
  }
  return series;
}
