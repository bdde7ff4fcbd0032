import mongoose from 'mongoose';
import { performance } from 'node:perf_hooks';
import { startEngine } from '../scripts/mongo-engine.js';
import { encodeCursor, LIBRARY_CURSOR_KEY } from '../src/repository/search-cursor.js';
import { DEFAULT_SEARCH_OPTIONS } from '../src/query/search-defaults.js';
import { startServer, stopServer } from './harness.js';
import { seed } from './seed.js';

/**
 * `npm run bench:engine-costs [-- --sizes 1000,10000,100000] [-- --samples 5] [-- --stop-ms 20000]`:
 * what each kind of request costs as a collection grows, through the library's generated routes
 * (issue 26, "where the embedded engine stops"), on the engine `MODEL_ROUTES_ENGINE` chooses (run it
 * once per FerretDB backend: `MODEL_ROUTES_ENGINE=ferretdb-sqlite` for SQLite).
 *
 * Per size: the spec's companies (one owner per ten) seeded by `seed()`, the generated bench server
 * (its `search.maxTimeMS` is 60 s, so slow requests are measured rather than refused), and requests
 * sent one at a time over HTTP: one warm-up, then the median of `samples` (of 3 for a request whose
 * warm-up took over 5 s: marked `n=3`). Every page request but the `match_count` one sends
 * `Prefer: count=none`, so a row is the cost of its one query. A request whose median passes 1 s is
 * then sent once to a second generated server with the library's default `maxTimeMS`
 * (`BENCH_MAX_TIME_MS`): a 422 `MR_QUERY_TIMEOUT` there marks its cell.
 *
 * Keyset, page 500: the cursor of the document at rank 9,979 in the order `niceName, _id` (the last
 * of page 499 of 20), made with the library's own `encodeCursor` from the document the driver reads
 * at that rank, checked equal to the server's `status.next` of page 1 made the same way; so the
 * measured request is the one a client walking 499 pages sends. Where the collection has fewer
 * than 10,000 documents, page 500 is its last page (rank size - 20), as for `skip`.
 *
 * The sizes stop early when the sorted page at the last size, grown in proportion, would pass
 * `--stop-ms` (default 20 s). Prints one Markdown table: rows are request kinds, columns sizes.
 */
const sizes = (argument('--sizes') ?? '1000,10000,100000').split(',').map(Number);
const samples = Number(argument('--samples') ?? 5);
const stopMs = Number(argument('--stop-ms') ?? 20_000);
const DEFAULT_MAX_TIME_MS = DEFAULT_SEARCH_OPTIONS.maxTimeMS;
const PAGE = 20;
const DEEP_PAGE = 500;

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

interface Row {
  kind: string;
  path: (turn: number) => string;
  count?: 'exact';
}

interface Cell {
  ms: number;
  n: number;
  refused?: boolean;
}

const engine = await startEngine();
const [, server = engine.description, backend] = /^([^(]*?)\s*\(([^;)]*)/.exec(engine.description) ?? [];
const label = backend ? `${server}, ${backend}` : server;
const cells = new Map<string, Map<number, Cell>>();
const notes: string[] = [];
const started = performance.now();
const measured: number[] = [];
try {
  let lastSort: { size: number; ms: number } | undefined;
  for (const size of sizes) {
    if (lastSort && (lastSort.ms * size) / lastSort.size > stopMs) {
      notes.push(
        `${size.toLocaleString('en')} not measured: the sorted page took ${Math.round(lastSort.ms).toLocaleString('en')} ms at ` +
          `${lastSort.size.toLocaleString('en')}, about ${Math.round((lastSort.ms * size) / lastSort.size / 1000)} s at ${size.toLocaleString('en')} ` +
          `in proportion (over ${stopMs / 1000} s).`,
      );
      break;
    }
    const sort = await measureSize(size);
    lastSort = { size, ms: sort };
    measured.push(size);
  }
} finally {
  await engine.stop();
}
const lines = [
  `${label}; medians in ms, one request at a time through HTTP (the generated routes, Express); † = a 422 \`MR_QUERY_TIMEOUT\` with the default ` +
    `\`maxTimeMS\` (${DEFAULT_MAX_TIME_MS} ms).`,
  '',
  `| request | ${measured.map((size) => `${size.toLocaleString('en')} companies`).join(' | ')} |`,
  `|---|${measured.map(() => '---:').join('|')}|`,
];
for (const [kind, bySize] of cells) {
  const shown = measured.map((size) => {
    const cell = bySize.get(size);
    if (!cell) return '';
    const ms = cell.ms >= 100 ? Math.round(cell.ms).toLocaleString('en') : cell.ms.toFixed(1);
    return `${ms}${cell.refused ? ' †' : ''}${cell.n !== samples ? ` (n=${cell.n})` : ''}`;
  });
  lines.push(`| ${kind} | ${shown.join(' | ')} |`);
}
for (const note of notes) lines.push('', note);
lines.push('', `Samples: ${samples} (after one warm-up); total ${Math.round((performance.now() - started) / 1000)} s.`);
process.stdout.write(`${lines.join('\n')}\n`);

/** Seeds `size` companies, measures every row through a fresh server, drops the data; returns the sorted page's median. */
async function measureSize(size: number): Promise<number> {
  const db = `engine_costs_${size}_${Date.now().toString(36)}`;
  const data = await seed(engine.uri, db, Math.max(1, size / 10), size);
  const connection = await mongoose.createConnection(engine.uri, { dbName: db, maxPoolSize: 1 }).asPromise();
  const generated = await startServer('generated', engine.uri, db);
  const limited = await startServer('generated', engine.uri, db, undefined, { BENCH_MAX_TIME_MS: String(DEFAULT_MAX_TIME_MS) });
  try {
    const companies = connection.db!.collection('companies');
    const user = (turn: number) => data.users[(turn * 13) % data.users.length]!;
    const deepStart = Math.min((DEEP_PAGE - 1) * PAGE, size - PAGE);
    const sorted = { niceName: 1, _id: 1 } as const;
    const cursorAt = async (rank: number) => {
      const [doc] = await companies.find({}).sort(sorted).skip(rank).limit(1).toArray();
      return encodeCursor([doc!.niceName, doc!._id], { resource: 'Company', sort: sorted, filter: {} }, LIBRARY_CURSOR_KEY);
    };
    // The server's own cursor after page 1 is the one made here from the driver's document: the binding is right.
    const first = (await get(generated.port, `/companies?sort=niceName&limit=${PAGE}`)) as { status: { next?: string } };
    const ours = await cursorAt(PAGE - 1);
    if (first.status.next !== ours) throw new Error(`engine-costs: the cursor made here (${ours}) is not the server's (${first.status.next})`);
    const deepCursor = await cursorAt(deepStart - 1);
    const range = 'employees[gte]=100&employees[lt]=120';
    const rows: Row[] = [
      { kind: 'equality on an indexed field: `GET /companies?owner=<id>&limit=20`', path: (turn) => `/companies?owner=${user(turn)}&limit=${PAGE}` },
      { kind: 'range: `?employees[gte]=100&employees[lt]=120&limit=20` (10% match)', path: () => `/companies?${range}&limit=${PAGE}` },
      { kind: 'sort: `?sort=niceName&limit=20`', path: () => `/companies?sort=niceName&limit=${PAGE}` },
      {
        kind: 'regex prefix: `?niceName[regex]=^company-99&limit=20`',
        path: () => `/companies?niceName[regex]=${encodeURIComponent('^company-99')}&limit=${PAGE}`,
      },
      { kind: 'skip, page 500 or the last (natural order): `?skip=9980&limit=20`', path: () => `/companies?skip=${deepStart}&limit=${PAGE}` },
      {
        kind: 'skip, page 500 or the last, sorted: `?sort=niceName&skip=9980&limit=20`',
        path: () => `/companies?sort=niceName&skip=${deepStart}&limit=${PAGE}`,
      },
      {
        kind: 'keyset, page 500 or the last, sorted: `?sort=niceName&limit=20&after=<cursor>`',
        path: () => `/companies?sort=niceName&limit=${PAGE}&after=${deepCursor}`,
      },
      { kind: 'reverse route: `GET /user/<id>/companies/owner?limit=20`', path: (turn) => `/user/${user(turn)}/companies/owner?limit=${PAGE}` },
      { kind: '`status.count` (no filter, `Prefer: count=none`): `?limit=20`', path: () => `/companies?limit=${PAGE}` },
      { kind: 'exact `match_count` of the range (`Prefer: count=exact`)', path: () => `/companies?${range}&limit=${PAGE}`, count: 'exact' },
    ];
    let sortMs = 0;
    for (const row of rows) {
      const cell = await measureRow(generated.port, limited.port, row);
      if (!cells.has(row.kind)) cells.set(row.kind, new Map());
      cells.get(row.kind)!.set(size, cell);
      if (row.kind.startsWith('sort:')) sortMs = cell.ms;
      process.stderr.write(
        `[engine-costs] ${size} ${row.kind}: ${cell.ms.toFixed(1)} ms (n=${cell.n})${cell.refused ? ' refused by the default maxTimeMS' : ''}\n`,
      );
    }
    return sortMs;
  } finally {
    await stopServer(generated.process);
    await stopServer(limited.process);
    await connection.dropDatabase();
    await connection.close();
  }
}

/** One warm-up, then the median of the samples; a slow one probed once against the default time limit. */
async function measureRow(port: number, limitedPort: number, row: Row): Promise<Cell> {
  const headers = { prefer: `count=${row.count ?? 'none'}` };
  const warm = performance.now();
  await get(port, row.path(0), headers);
  const n = performance.now() - warm > 5000 ? Math.min(3, samples) : samples;
  const times: number[] = [];
  for (let turn = 1; turn <= n; turn++) {
    const start = performance.now();
    await get(port, row.path(turn), headers);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)]!;
  if (ms < 1000) return { ms, n };
  const probed = performance.now();
  const response = await fetch(`http://127.0.0.1:${limitedPort}${row.path(0)}`, { headers });
  const body = (await response.json()) as { code?: string };
  if (response.status !== 200 && body.code !== 'MR_QUERY_TIMEOUT')
    throw new Error(`engine-costs: ${row.path(0)} answered ${response.status} ${JSON.stringify(body)}`);
  process.stderr.write(`[engine-costs] with the default maxTimeMS: ${response.status} ${body.code ?? ''} after ${Math.round(performance.now() - probed)} ms\n`);
  return { ms, n, refused: body.code === 'MR_QUERY_TIMEOUT' };
}

/** The JSON of a 200 answer, else an error naming the request. */
async function get(port: number, path: string, headers: Record<string, string> = { prefer: 'count=none' }): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  const body = (await response.json()) as unknown;
  if (response.status !== 200) throw new Error(`engine-costs: ${path} answered ${response.status} ${JSON.stringify(body)}`);
  return body;
}
