import { cpus, loadavg, totalmem } from 'node:os';
import mongoose, { Types } from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';
import { cpuOf } from './file-transfer.js';
import { measure, spawnServer, stopServer, toRequest, type Load } from './harness.js';
import { rotated } from './measure.js';
import {
  isHooked,
  isScoped,
  REFUSED_NAME,
  RULE_SCENARIOS,
  RULE_VARIANTS,
  rulesTable,
  TENANT_HEADER,
  TENANTS,
  VARIANT_ROUTES,
  type RuleScenario,
  type RulesRun,
  type RuleVariant,
} from './rules-table.js';
import type { BenchRequest } from './scenarios.js';

/** `search.estimateLimit` as the bench's server has it: the library's default. */
const ESTIMATE_LIMIT = 1000;

/**
 * `npm run bench:rules [-- --quick] [--rounds <n>] [--seconds <n>] [--search-requests <n>] [--per-tenant <n>] [--adapter express|fastify]`
 * (issue 28, "How it is proven"): what a resource's rules cost. One server (`bench/servers/rules.ts`)
 * serves four resources identical but for their rules (`bench/rules-models.ts`): `plain` (none, the
 * baseline), `scoped` (a row scope: the tenant of the request's `x-tenant` header), `hooked` (an
 * injectable hooks class whose `beforeCreate` / `beforeUpdate` make a trivial check), `ruled` (both).
 * Each has its own collection, seeded with the same documents: two tenants, `--per-tenant` each
 * (default 2,500: 5,000 documents per collection, as `npm run bench`'s companies), interleaved,
 * with an index on `tenant` (declared on every resource).
 *
 * Scenarios, each on the four resources, every request as tenant `north`: create, get one (a
 * `north` document, another each time), and an unfiltered page of 20 (`GET /<plural>?limit=20`)
 * with the default count policy (none named: the library's `search.count`, `exact`), and with
 * `Prefer: count=exact`, `count=estimated` and `count=none`.
 *
 * Per round: a fresh server process, then the setup checked on every resource (any failure stops
 * the run, exit 1): a scoped page holds only `north`'s documents and counts `north`'s alone, an
 * unscoped one both tenants'; a get of a `south` id is a 404 where scoped, a 200 where not; a create
 * named `REFUSED_NAME` is a 403 where hooked, a 201 where not. Then per scenario (their order
 * rotated each round) the four resources one after the other (their order rotated too), each a
 * warm-up then a measured run (autocannon, `measure` in `bench/harness.ts`: a non-2xx answer, an
 * error or a timeout fails the run): create and get one for `--seconds` (default 6) on 8
 * connections, the searches `--search-requests` (default 30) one at a time (see `searchLoad`); the
 * server's CPU time read from `/proc` around the measured run; after a create run, its documents are deleted and the collection compacted (FerretDB's
 * `VACUUM ANALYZE`). Prints a Markdown table (`bench/rules-table.ts`): requests/s and latency per
 * resource, and each ratio to the baseline as the median of the rounds' ratios (the four resources
 * of a round are measured seconds apart). `--quick`: 100 documents per tenant, one round, 24
 * requests per run (the searches 6), no warm-up (a check of the harness, not a measure).
 */
const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes('--quick');
const rounds = Number(option('--rounds') ?? (quick ? 1 : 3));
const seconds = Number(option('--seconds') ?? 6);
const perTenant = Number(option('--per-tenant') ?? (quick ? 100 : 2500));
const searchRequests = Number(option('--search-requests') ?? 30);
const adapter = option('--adapter') === 'fastify' ? 'fastify' : 'express';
const CONNECTIONS = 8;
const load: Load = quick ? { connections: CONNECTIONS, amount: 24 } : { connections: CONNECTIONS, duration: seconds };
const warmup: Load = quick ? { connections: CONNECTIONS, amount: 0 } : { connections: CONNECTIONS, duration: Math.ceil(seconds / 3) };
/**
 * The searches, one request at a time (`searchRequests` after 3 of warm-up): an exact count, and a
 * scoped page's `status.count`, is a `countDocuments` that FerretDB answers by reading every
 * document it counts (0.1–0.3 s for 5,000, one at a time on this machine), so that on 8 connections
 * a run of 10,000 documents per collection completed 0–5 such searches per second, a run of a single
 * request, each waiting seconds in the engine's queue (2026-11-26). One at a time, the latency is
 * the request's own.
 */
const searchLoad: Load = quick ? { connections: 1, amount: 6 } : { connections: 1, amount: searchRequests };
const searchWarmup: Load = quick ? { connections: 1, amount: 0 } : { connections: 1, amount: 3 };
const loadOf = (scenario: RuleScenario) => (scenario.startsWith('search') ? { load: searchLoad, warmup: searchWarmup } : { load, warmup });
/** The names the create scenario gives, in turn; each deleted apart after a create run. */
const CREATED = Array.from({ length: 8 }, (_, index) => `rules-new-${index}`);
const PAGE = 20;

if (![rounds, seconds, perTenant, searchRequests].every((value) => Number.isInteger(value) && value >= 1) || perTenant < PAGE) {
  throw new Error(`bench:rules: --rounds, --seconds and --search-requests take whole numbers of at least 1, --per-tenant at least ${PAGE}`);
}

const engine = await startEngine();
const started = { at: new Date(), load: loadavg() };
const db = `bench_rules_${Date.now().toString(36)}`;
const runs: RulesRun[] = [];
let failure: string | undefined;
const connection = await mongoose.createConnection(engine.uri, { dbName: db }).asPromise();
try {
  const ids = await seedRules(perTenant);
  for (let round = 1; round <= rounds; round++) await measureRound(round, ids);
} catch (error) {
  failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
} finally {
  await connection.dropDatabase().catch(() => undefined);
  await connection.close();
  await engine.stop();
}
if (failure) {
  process.stderr.write(`\nFAILED: ${failure}\n`);
  process.exit(1);
}
print();

interface SeededIds {
  north: string[];
  south: string[];
}

/** The same documents in every resource's collection: `perTenant` per tenant, interleaved (so an unscoped page holds both). */
async function seedRules(count: number): Promise<SeededIds> {
  const seeding = performance.now();
  const ids = { north: [] as Types.ObjectId[], south: [] as Types.ObjectId[] };
  const documents = Array.from({ length: 2 * count }, (_, i) => {
    const tenant = TENANTS[i % 2]!;
    const _id = new Types.ObjectId();
    ids[tenant].push(_id);
    return { _id, tenant, niceName: `item-${i}`, employees: i % 200, location: ['Paris', 'Lyon', 'London', 'Berlin', 'Madrid'][i % 5], __v: 0 };
  });
  for (const variant of RULE_VARIANTS) {
    const collection = connection.db!.collection(VARIANT_ROUTES[variant].collection);
    for (let i = 0; i < documents.length; i += 1000) await collection.insertMany(documents.slice(i, i + 1000));
    // The engine's statistics up to date (FerretDB on PostgreSQL answers `collStats` after an `ANALYZE`), as in `seed()`.
    await connection.db!.command({ collStats: VARIANT_ROUTES[variant].collection });
  }
  process.stderr.write(
    `[rules] ${documents.length.toLocaleString('en')} documents seeded in each of ${RULE_VARIANTS.length} collections in ` +
      `${((performance.now() - seeding) / 1000).toFixed(1)} s\n`,
  );
  return { north: ids.north.map(String), south: ids.south.map(String) };
}

/**
 * Deletes what the create runs and the checks added to a resource's collection, then compacts it
 * (`VACUUM ANALYZE` on FerretDB). The last creates autocannon sent may still be in the server when
 * its run ends (seen: one document written after the delete): so half a second first, and the
 * delete again while documents are left over, three times at most.
 */
async function reset(variant: RuleVariant): Promise<void> {
  const collection = connection.db!.collection(VARIANT_ROUTES[variant].collection);
  let left = 0;
  for (let attempt = 1; attempt <= 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    for (const niceName of [...CREATED, REFUSED_NAME]) await collection.deleteMany({ niceName });
    left = await collection.countDocuments();
    if (left === 2 * perTenant) break;
  }
  if (left !== 2 * perTenant) throw new Error(`${variant}: ${left} documents after the reset, not ${2 * perTenant}`);
  await connection.db!.command({ compact: VARIANT_ROUTES[variant].collection });
}

async function measureRound(round: number, ids: SeededIds): Promise<void> {
  const child = await spawnServer('rules.js', { BENCH_URI: engine.uri, BENCH_DB: db, BENCH_ADAPTER: adapter });
  const pid = child.process.pid!;
  try {
    for (const variant of RULE_VARIANTS) await check(child.port, variant, ids);
    for (const variant of RULE_VARIANTS) await reset(variant);
    for (const [at, scenario] of rotated(RULE_SCENARIOS, round - 1).entries()) {
      for (const variant of rotated(RULE_VARIANTS, round - 1 + at)) {
        const next = requests(scenario, variant, ids);
        const what = `${scenario} on ${variant} r${round}`;
        let cpuBefore = 0;
        const plan = loadOf(scenario);
        const measured = await measure(child.port, next, plan.load, plan.warmup, what, async () => {
          cpuBefore = cpuOf(pid);
        });
        const cpuMs = cpuOf(pid) - cpuBefore;
        // One at a time, requests/s is 1 / the mean latency: autocannon's own time of a run of a fixed amount lasts at least a tick of its clock, a second.
        const rps = plan.load.connections === 1 && measured.mean ? 1000 / measured.mean : measured.rps;
        const run: RulesRun = { scenario, variant, round, rps, p50: measured.p50, p99: measured.p99, requests: measured.requests, cpuMs };
        runs.push(run);
        process.stderr.write(
          `[rules] r${round} ${scenario.padEnd(32)} ${variant.padEnd(7)} ${Math.round(run.rps).toString().padStart(6)} req/s  p50 ${run.p50} p99 ` +
            `${run.p99} ms  CPU ${Math.round((run.cpuMs * 1000) / run.requests)} µs/req  load ${loadavg()[0]!.toFixed(2)}\n`,
        );
        if (scenario === 'create') await reset(variant);
      }
    }
  } finally {
    await stopServer(child.process);
  }
}

/** The requests of a scenario on a resource, in turn: every one as tenant `north`. */
function requests(scenario: RuleScenario, variant: RuleVariant, ids: SeededIds): () => BenchRequest {
  const { path, plural } = VARIANT_ROUTES[variant];
  const headers = { [TENANT_HEADER]: 'north' };
  let turn = 0;
  switch (scenario) {
    case 'create':
      return () => ({
        method: 'POST',
        path: `/${path}`,
        headers,
        body: { niceName: CREATED[turn++ % CREATED.length], employees: 3, location: 'Lyon', tenant: 'north' },
      });
    case 'get one':
      return () => ({ method: 'GET', path: `/${path}/${ids.north[(turn += 7) % ids.north.length]}`, headers });
    case 'search, default count':
      return () => ({ method: 'GET', path: `/${plural}?limit=${PAGE}`, headers });
    case 'search, Prefer: count=exact':
      return () => ({ method: 'GET', path: `/${plural}?limit=${PAGE}`, headers: { ...headers, prefer: 'count=exact' } });
    case 'search, Prefer: count=estimated':
      return () => ({ method: 'GET', path: `/${plural}?limit=${PAGE}`, headers: { ...headers, prefer: 'count=estimated' } });
    case 'search, Prefer: count=none':
      return () => ({ method: 'GET', path: `/${plural}?limit=${PAGE}`, headers: { ...headers, prefer: 'count=none' } });
  }
}

/** What the checks read of an answer's JSON body, when it has it. */
interface AnswerBody {
  result: Array<{ tenant: string }>;
  status: { count?: number };
  tenant: string;
}

interface Answer {
  status: number;
  body: AnswerBody | undefined;
}

async function call(port: number, request: BenchRequest): Promise<Answer> {
  const { path, ...rest } = toRequest(request);
  const response = await fetch(`http://127.0.0.1:${port}${path}`, rest);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The rules of a resource in place, and only those: the run stops on the first answer that says
 * otherwise, so a broken setup (no scope, no hook, a rule on the baseline) cannot print a number.
 */
async function check(port: number, variant: RuleVariant, ids: SeededIds): Promise<void> {
  const { path, plural } = VARIANT_ROUTES[variant];
  const north = { [TENANT_HEADER]: 'north' };
  function fail(what: string, answer: Answer): never {
    throw new Error(`check of ${variant}: ${what} (answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)})`);
  }
  for (const prefer of ['count=exact', 'count=estimated', 'count=none']) {
    const page = await call(port, { method: 'GET', path: `/${plural}?limit=${PAGE}`, headers: { ...north, prefer } });
    if (page.status !== 200 || !Array.isArray(page.body?.result) || page.body.result.length !== PAGE) fail(`a page of ${PAGE} (${prefer})`, page);
    const tenants = new Set((page.body.result as Array<{ tenant: string }>).map((document) => document.tenant));
    const count = page.body.status?.count as number;
    if (isScoped(variant)) {
      if (tenants.size !== 1 || !tenants.has('north')) fail(`a scoped page holds ${[...tenants].join(', ')}, not north's alone (${prefer})`, page);
      // Exact: every north document; an estimate counts them up to search.estimateLimit + 1 (the library's default bound, 1000); none, what the page shows.
      const expected = prefer === 'count=exact' ? perTenant : prefer === 'count=none' ? PAGE : Math.min(perTenant, ESTIMATE_LIMIT + 1);
      if (count !== expected) fail(`a scoped page counts ${count}, not ${expected} of north's ${perTenant} (${prefer})`, page);
    } else {
      if (tenants.size !== 2) fail(`an unscoped page holds ${[...tenants].join(', ')}, not both tenants (${prefer})`, page);
      // The collection's metadata may lag behind on an estimate; an exact count is exact.
      if (prefer === 'count=exact' ? count !== 2 * perTenant : !(count >= perTenant))
        fail(`an unscoped page counts ${count}, not ${2 * perTenant} (${prefer})`, page);
    }
  }
  const own = await call(port, { method: 'GET', path: `/${path}/${ids.north[0]}`, headers: north });
  if (own.status !== 200 || own.body?.tenant !== 'north') fail(`a get of north's document`, own);
  const other = await call(port, { method: 'GET', path: `/${path}/${ids.south[0]}`, headers: north });
  if (other.status !== (isScoped(variant) ? 404 : 200)) fail(`a get of south's document as north: ${isScoped(variant) ? '404' : '200'} expected`, other);
  const refused = await call(port, { method: 'POST', path: `/${path}`, headers: north, body: { niceName: REFUSED_NAME, tenant: 'north' } });
  if (refused.status !== (isHooked(variant) ? 403 : 201)) fail(`a create the hook refuses: ${isHooked(variant) ? '403' : '201'} expected`, refused);
}

function print(): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const timed = quick
    ? `create and get one ${load.amount} requests per run, the searches ${searchLoad.amount} one at a time, no warm-up`
    : `create and get one ${seconds} s per run after ${warmup.duration} s of warm-up, the searches ${searchLoad.amount} requests one at a time after ` +
      `${searchWarmup.amount}`;
  out();
  out(
    `Rules (issue 28): ${rounds} round(s), a fresh server per round, ${CONNECTIONS} connections (the searches 1), ${timed}; ` +
      `${perTenant.toLocaleString('en')} documents per tenant, 2 tenants; ${adapter === 'fastify' ? 'Fastify' : 'Express'}`,
  );
  out(
    `Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; engine: ` +
      `${engine.description.split(' at ')[0]}`,
  );
  out(`Load average at the start ${loads(started.load)}, at the end ${loads(loadavg())} (${started.at.toISOString()} to ${new Date().toISOString()})`);
  out(
    "requests/s: median (range) of the rounds (one at a time: 1 / the mean latency); p50 / p99 of the median round; ratios: the median of the rounds' " +
      'ratios to the baseline, measured seconds apart on the same server',
  );
  out();
  for (const line of rulesTable(runs)) out(line);
}
