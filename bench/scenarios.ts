/** One measured request pattern, as each server spells it; `undefined` where a server has no equivalent. */
export interface Scenario {
  name: string;
  /** Builds the request for one call, given ids from the seeded data. */
  request: Record<AppName, ((ids: Ids) => BenchRequest) | undefined>;
  /** What the peer does instead, when it differs. */
  peerNote?: string;
  /**
   * The app setup it needs: `'pipes'` starts the Nest servers with a global
   * `ValidationPipe({ whitelist, forbidNonWhitelisted, transform })` (`BENCH_PIPES=1`), in their own
   * processes, so that the other scenarios keep measuring the apps without one.
   */
  setup?: 'pipes';
}

/** The three apps: the library's generated routes, the hand-written controller, the peer. */
export type AppName = 'generated' | 'handwritten' | 'peer';

/** A server of the rotation: an app on a platform (the two Nest apps run on Express and on Fastify). */
export type ServerName = AppName | 'generated-fastify' | 'handwritten-fastify';

/** The rotation, in its order. */
export const SERVERS: ServerName[] = ['generated', 'handwritten', 'peer', 'generated-fastify', 'handwritten-fastify'];

/** The app a server runs (its `bench/servers/<app>.ts`) and its HTTP platform (`BENCH_ADAPTER`). */
export function serverApp(server: ServerName): { app: AppName; adapter: 'express' | 'fastify' } {
  return server.endsWith('-fastify') ? { app: server.replace('-fastify', '') as AppName, adapter: 'fastify' } : { app: server as AppName, adapter: 'express' };
}

/**
 * The scenarios `--quick` runs on the Fastify servers: the harness's check in CI, not a measure, and
 * two more servers over every scenario would make it minutes longer. A read, a search and a create
 * (the hand-written one sets its Location header through `@Res({ passthrough: true })`), all on the
 * plain apps (no second process per round). The full run measures every scenario on Fastify too.
 */
export const QUICK_FASTIFY_SCENARIOS = ['get one', 'search (POST, filter, limit 20)', 'create'];

/**
 * The scenarios `server` serves, in their order: those its app has a request for (the same request
 * on both platforms), and on Fastify in `--quick` only `QUICK_FASTIFY_SCENARIOS`.
 */
export function scenariosFor(server: ServerName, scenarios: Scenario[], quick: boolean): Scenario[] {
  const { app, adapter } = serverApp(server);
  return scenarios.filter((scenario) => scenario.request[app] && !(quick && adapter === 'fastify' && !QUICK_FASTIFY_SCENARIOS.includes(scenario.name)));
}

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Ids {
  company(): string;
  user(): string;
  /** A company, and a user who does not own it now: a write of the pair always changes the document (see `pick`). */
  companyAndNewOwner(): { company: string; owner: string };
}

/**
 * The names the create scenarios give, in turn: `bench-new-0` to `bench-new-7`. `reset()` deletes
 * the companies of one name at a time, each delete under the rows FerretDB deletes in one SQL
 * statement (it lists their ids: at most 65,535 on PostgreSQL, 32,766 on SQLite) as long as a server
 * creates fewer than about 240,000 companies (measured: up to 90,000 in a full run).
 */
export const CREATED_NAMES = Array.from({ length: 8 }, (_, index) => `bench-new-${index}`);
let created = 0;
const createdName = () => CREATED_NAMES[created++ % CREATED_NAMES.length];

const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const FILTER = { location: 'Paris', employees: { $gte: 10 } };
/**
 * The companies whose owner's name starts with `user-1`: 111 of the 500 seeded users (11 of 50 in
 * `--quick`), under the library's bound of 1,000 (`search.maxRelationIds`), ten companies each.
 */
export const OWNER_FILTER = { 'owner.niceName': { $regex: '^user-1' } };
const ours = (request: (ids: Ids) => BenchRequest) => ({ generated: request, handwritten: request });
/** Every other request is an admin's: both views of the `Venture` documents are measured. */
const alternating = (values: string[]) => {
  let turn = 0;
  return () => values[turn++ % values.length];
};
const groupHeader = alternating(['admin', 'staff']);

export const SCENARIOS: Scenario[] = [
  {
    name: 'get one',
    request: {
      ...ours((ids) => ({ method: 'GET', path: `/company/${ids.company()}` })),
      peer: (ids) => ({ method: 'GET', path: `/api/v1/Company/${ids.company()}` }),
    },
  },
  {
    name: 'search (POST, filter, limit 20)',
    request: {
      ...ours(() => ({ method: 'POST', path: '/companies', body: { query: FILTER, limit: 20 } })),
      peer: () => ({ method: 'GET', path: `/api/v1/Company?query=${json(FILTER)}&limit=20` }),
    },
    peerNote: 'no POST search: GET ?query=<same filter>',
  },
  {
    name: 'search (GET, query string)',
    request: {
      ...ours(() => ({ method: 'GET', path: '/companies?location=Paris&limit=20' })),
      peer: () => ({ method: 'GET', path: `/api/v1/Company?query=${json({ location: 'Paris' })}&limit=20` }),
    },
  },
  {
    name: 'forward reference',
    request: { ...ours((ids) => ({ method: 'GET', path: `/company/${ids.company()}/owner` })), peer: undefined },
    peerNote: 'no equivalent (?populate= returns the company, not its owner)',
  },
  {
    name: 'reverse reference (GET)',
    request: {
      ...ours((ids) => ({ method: 'GET', path: `/user/${ids.user()}/companies/owner?limit=20` })),
      peer: (ids) => ({ method: 'GET', path: `/api/v1/Company?query=${json({ owner: ids.user() })}&limit=20` }),
    },
  },
  {
    name: 'reverse reference (POST)',
    request: {
      ...ours((ids) => ({ method: 'POST', path: `/user/${ids.user()}/companies/owner`, body: { query: { employees: { $gte: 10 } }, limit: 20 } })),
      peer: (ids) => ({ method: 'GET', path: `/api/v1/Company?query=${json({ owner: ids.user(), employees: { $gte: 10 } })}&limit=20` }),
    },
    peerNote: 'GET ?query= with the owner condition',
  },
  {
    name: 'search with owner expanded (limit 20)',
    request: {
      ...ours(() => ({ method: 'GET', path: '/companies?limit=20&expand=owner' })),
      peer: () => ({ method: 'GET', path: '/api/v1/Company?limit=20&populate=owner' }),
    },
    peerNote: '?populate=owner',
  },
  {
    name: 'search filtered on owner.niceName (limit 20)',
    request: { ...ours(() => ({ method: 'POST', path: '/companies', body: { query: OWNER_FILTER, limit: 20 } })), peer: undefined },
    peerNote:
      "no equivalent (a query on owner.niceName matches nothing: the companies hold the owner's id; ?populate's match empties the owner of the other " +
      'companies rather than leaving them out)',
  },
  {
    name: 'modify',
    request: {
      ...ours((ids) => ({ method: 'PUT', path: `/company/${ids.company()}`, body: { employees: changedEmployees() } })),
      peer: (ids) => ({ method: 'PATCH', path: `/api/v1/Company/${ids.company()}`, body: { employees: changedEmployees() } }),
    },
  },
  {
    name: 'modify a reference',
    request: {
      ...ours((ids) => {
        const { company, owner } = ids.companyAndNewOwner();
        return { method: 'PUT', path: `/company/${company}`, body: { owner } };
      }),
      peer: (ids) => {
        const { company, owner } = ids.companyAndNewOwner();
        return { method: 'PATCH', path: `/api/v1/Company/${company}`, body: { owner } };
      },
    },
    peerNote: 'stores the id unchecked; the generated and hand-written routes check that the user exists (one query)',
  },
  {
    name: 'create',
    request: {
      ...ours(() => ({ method: 'POST', path: '/company', body: { niceName: createdName(), employees: 3, location: 'Lyon' } })),
      peer: () => ({ method: 'POST', path: '/api/v1/Company', body: { niceName: createdName(), employees: 3, location: 'Lyon' } }),
    },
  },
  {
    name: 'create with a reference',
    request: {
      ...ours((ids) => ({ method: 'POST', path: '/company', body: { niceName: createdName(), employees: 3, owner: ids.user() } })),
      peer: (ids) => ({ method: 'POST', path: '/api/v1/Company', body: { niceName: createdName(), employees: 3, owner: ids.user() } }),
    },
    peerNote: 'stores the id unchecked; the generated and hand-written routes check that the user exists (one query)',
  },
  {
    name: 'create with DTO validation',
    request: { ...ours(() => ({ method: 'POST', path: '/company', body: { niceName: createdName(), employees: 3, location: 'Lyon' } })), peer: undefined },
    peerNote: 'no equivalent (no class-validator DTOs)',
    setup: 'pipes',
  },
  {
    name: 'search, 100 items, with a serialization group',
    request: { ...ours(() => ({ method: 'GET', path: '/ventures?location=Paris&limit=100', headers: { 'x-groups': groupHeader() } })), peer: undefined },
    peerNote: 'no equivalent (no class-transformer groups)',
    setup: 'pipes',
  },
];

/**
 * Measured as the collection grows too (the scale table of `npm run bench`), beside the POST search
 * and the GET reverse route: get one, and an equality on an indexed path (the reference `owner`)
 * through the search route; FerretDB pushes both down to PostgreSQL as `_jsonb->'<path>' @> ...`
 * (issue 26).
 */
/**
 * A number of employees no company holds yet (the seed's are under 200), another at each call: every
 * modify changes its document, on every server. Until 2026-11-26 the scenario wrote 42 each time, so
 * from its second visit of a company the hand-written and peer servers sent an update that changed
 * nothing, which FerretDB answers without writing (twice the throughput of a real write there,
 * measured with the driver), while the generated routes' version increment made every one of theirs a write.
 */
let modifications = 0;
function changedEmployees(): number {
  return 200 + (modifications++ % 1_000_000);
}

export const SCALE_SCENARIOS: Scenario[] = [
  SCENARIOS.find((scenario) => scenario.name === 'get one')!,
  {
    name: 'search (GET, equality on an indexed field)',
    request: {
      ...ours((ids) => ({ method: 'GET', path: `/companies?owner=${ids.user()}&limit=20` })),
      peer: (ids) => ({ method: 'GET', path: `/api/v1/Company?query=${json({ owner: ids.user() })}&limit=20` }),
    },
  },
];

/**
 * The scenarios whose name contains one of `only` (all of them when none is given), in their order;
 * a text that names no scenario is an error, so that a typo does not run an empty benchmark.
 */
export function selectScenarios(scenarios: Scenario[], only: string[]): Scenario[] {
  if (only.length === 0) return scenarios;
  const unknown = only.filter((text) => !scenarios.some((scenario) => scenario.name.includes(text)));
  if (unknown.length)
    throw new Error(`--only ${unknown.map((text) => `'${text}'`).join(', ')}: no such scenario (${scenarios.map((s) => `'${s.name}'`).join(', ')})`);
  return scenarios.filter((scenario) => only.some((text) => scenario.name.includes(text)));
}

/** The `--only <text>` arguments, each its own (scenario names hold commas). */
export function onlyArguments(argv: string[]): string[] {
  const texts: string[] = [];
  argv.forEach((arg, index) => {
    if (arg !== '--only') return;
    const text = argv[index + 1];
    if (!text || text.startsWith('--')) throw new Error('--only needs a text: part of a scenario name');
    texts.push(text);
  });
  return texts;
}

/**
 * `--<name> <n>`, a whole number of at least 1: `--rounds 2` (rounds instead of the plan's 3),
 * `--seconds 6` (the measured seconds of each scenario instead of 10); `undefined` when absent.
 */
export function countArgument(argv: string[], name: 'rounds' | 'seconds' | 'one-at-a-time' | 'requests' | 'rate'): number | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const count = Number(argv[index + 1]);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--${name} needs a whole number, at least 1`);
  return count;
}

/**
 * `--sizes 1000,10000`: the collection sizes of the scale measures instead of the backend's
 * (whole numbers of at least 40, so that a deep page is at least page 2); `undefined` when absent.
 */
export function sizesArgument(argv: string[]): number[] | undefined {
  const index = argv.indexOf('--sizes');
  if (index < 0) return undefined;
  const sizes = (argv[index + 1] ?? '').split(',').map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 40))
    throw new Error('--sizes needs whole numbers of at least 40, comma-separated: --sizes 1000,10000');
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** `--<name> <text>` (`--charts docs/bench`); `undefined` when absent. */
export function stringArgument(argv: string[], name: 'charts'): string | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const text = argv[index + 1];
  if (!text || text.startsWith('--')) throw new Error(`--${name} needs a value`);
  return text;
}

/** The backend of an engine, from its description, for the charts' file names: `postgresql`, `sqlite` or `mongodb`. */
export function backendName(description: string): 'postgresql' | 'sqlite' | 'mongodb' {
  if (/SQLite/i.test(description)) return 'sqlite';
  if (/PostgreSQL/i.test(description)) return 'postgresql';
  return 'mongodb';
}
