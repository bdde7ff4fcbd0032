import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { goodput } from './soak-figures.js';

/**
 * The soak's data and traffic: users and companies created through the sample app's own routes,
 * then a cycle of 12 requests per connection (6 reads, 3 searches, 3 writes) in which every
 * request is meant to succeed: each connection deletes only the company it created itself.
 */

/** Ids of the documents the seed created; they are read and searched, never deleted. */
export interface Seeded {
  users: string[];
  companies: string[];
}

/** A small seeded PRNG (mulberry32): the same seed, the same values. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LOCATIONS = ['London', 'Paris', 'Lyon', 'Berlin', 'Madrid'];
/** The sample guards DELETE /company/:id with this key (sample-app/api-key.guard.ts). */
const API_KEY = { 'x-api-key': 'sample-key' };

/** Sends one JSON request and returns the parsed body; anything but a 2xx is an error. */
export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Creates `users` users and `companies` companies (owned by them), 16 requests at a time. */
export async function seed(url: string, users: number, companies: number, next: () => number): Promise<Seeded> {
  const userIds = await inBatches(users, (i) => call(url, 'POST', '/user', { niceName: `Soak user ${i}`, birth: '1990-01-01' }));
  const companyIds = await inBatches(companies, (i) =>
    call(url, 'POST', '/company', companyBody(`Soak company ${i}`, userIds[Math.floor(next() * userIds.length)]!, next)),
  );
  return { users: userIds, companies: companyIds };
}

async function inBatches(count: number, create: (i: number) => Promise<{ body: unknown }>): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 16) {
    const batch = Array.from({ length: Math.min(16, count - start) }, (_, k) => create(start + k));
    for (const { body } of await Promise.all(batch)) ids.push((body as { _id: string })._id);
  }
  return ids;
}

function companyBody(name: string, owner: string, next: () => number) {
  return { niceName: name, owner, employees: Math.floor(next() * 1000), location: LOCATIONS[Math.floor(next() * LOCATIONS.length)] };
}

/** One request of the cycle: its kind (for the report), and the request autocannon (or the sweep's client) sends. */
export interface Step {
  kind: string;
  build: (pick: Picker, context: Context) => { method: string; path: string; body?: unknown; headers?: Record<string, string> };
  /** Keeps what the response says for the next steps (the created company's id). */
  keep?: (body: string, context: Context) => void;
}

export interface Context {
  created?: string;
}

export interface Picker {
  user(): string;
  company(): string;
  number(max: number): number;
  location(): string;
}

/** The cycle every connection runs, in order: 50% reads, 25% searches, 25% writes. */
export const CYCLE: Step[] = [
  { kind: 'read company', build: (p) => ({ method: 'GET', path: `/company/${p.company()}` }) },
  {
    kind: 'create company',
    build: (p) => ({
      method: 'POST',
      path: '/company',
      body: { niceName: `Load ${p.number(1e9)}`, owner: p.user(), employees: p.number(1000), location: p.location() },
    }),
    keep: (body, context) => (context.created = (JSON.parse(body) as { _id?: string })._id),
  },
  { kind: 'read user', build: (p) => ({ method: 'GET', path: `/user/${p.user()}` }) },
  {
    kind: 'search (GET)',
    build: (p) => ({ method: 'GET', path: `/companies?location=${p.location()}&employees[gte]=${p.number(900)}&sort=-employees&limit=20` }),
  },
  { kind: 'read created', build: (p, c) => ({ method: 'GET', path: `/company/${c.created ?? p.company()}` }) },
  { kind: 'modify created', build: (p, c) => ({ method: 'PUT', path: `/company/${c.created ?? p.company()}`, body: { employees: p.number(1000) } }) },
  { kind: 'read company', build: (p) => ({ method: 'GET', path: `/company/${p.company()}` }) },
  {
    kind: 'search (POST)',
    build: (p) => ({ method: 'POST', path: '/companies', body: { query: { employees: { $lt: p.number(1000) } }, sort: { employees: -1 }, limit: 20 } }),
  },
  { kind: 'read owner', build: (p) => ({ method: 'GET', path: `/company/${p.company()}/owner` }) },
  { kind: 'search (reverse)', build: (p) => ({ method: 'GET', path: `/user/${p.user()}/companies/owner?limit=10` }) },
  { kind: 'read company', build: (p) => ({ method: 'GET', path: `/company/${p.company()}` }) },
  {
    kind: 'delete created',
    // Without a created company (its create failed, which the report shows), a read instead: never a seeded one.
    build: (p, c) => (c.created ? { method: 'DELETE', path: `/company/${c.created}`, headers: API_KEY } : { method: 'GET', path: `/company/${p.company()}` }),
  },
];

/** What one autocannon run measured, with the answers per request kind. */
export interface TrafficResult {
  requests: number;
  rps: number;
  /** Successful (2xx) requests per second. */
  goodput: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  non2xx: number;
  p50: number;
  p99: number;
  max: number;
  /** Kind → status → count. */
  byKind: Record<string, Record<string, number>>;
  /** The first few answers that were not 2xx (nor shed): kind, status, body. */
  samples: string[];
  /** Requests the admission limit shed (503 `MR_OVERLOADED`, answered at once): counted apart, not failures. */
  shed: number;
  /** The latency of the admitted requests (every answer but the shed ones), in ms. */
  admitted: { count: number; p50: number; p99: number; max: number };
}

/** Drives the cycle on `connections` connections for `seconds` seconds. */
export async function drive(url: string, data: Seeded, connections: number, seconds: number, next: () => number): Promise<TrafficResult> {
  const picker = makePicker(data, next);
  const byKind: Record<string, Record<string, number>> = {};
  const samples: string[] = [];
  let shed = 0;
  // The latency of every answer but a 503 (no 503 other than the admission limit's is expected here:
  // the database is up), from autocannon's own per-response event.
  const admittedMs: number[] = [];
  // Without a callback autocannon answers its running instance (an EventEmitter), which is also the promise of its result.
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    // A request that takes 10 s is a failure of the soak, counted in `timeouts`.
    timeout: 10,
    requests: CYCLE.map((step) => ({
      setupRequest: (request: autocannon.Request, context: object) => {
        const call = step.build(picker, context as Context);
        // A Content-Type only with a body: Fastify answers 400 to an empty body declared as JSON.
        const json = call.body === undefined ? {} : { 'content-type': 'application/json' };
        return {
          ...request,
          method: call.method as autocannon.Request['method'],
          path: call.path,
          headers: { ...json, ...call.headers },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        };
      },
      onResponse: (status: number, body: string, context: object) => {
        const counts = (byKind[step.kind] ??= {});
        const overloaded = status === 503 && body.includes('"MR_OVERLOADED"');
        const key = overloaded ? '503 shed' : String(status);
        counts[key] = (counts[key] ?? 0) + 1;
        if (overloaded) shed++;
        if (status >= 200 && status < 300) step.keep?.(body, context as Context);
        else if (!overloaded && samples.length < 10) samples.push(`${step.kind}: ${status} ${body.slice(0, 200)}`);
      },
    })),
  }) as unknown as EventEmitter & PromiseLike<autocannon.Result>;
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status !== 503) admittedMs.push(ms);
  });
  const result = await instance;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]));
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    requests: result.requests.total,
    rps: result.requests.total / elapsed,
    goodput: goodput(statusCodes, elapsed),
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    // Shed requests are not failures: they are told at once to come back (their own column).
    non2xx: result.non2xx - shed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    byKind,
    samples,
    shed,
    admitted: percentiles(admittedMs),
  };
}

/** Picks the seeded documents and the values of the cycle's requests with `next` (the seeded generator). */
export function makePicker(data: Seeded, next: () => number): Picker {
  return {
    user: () => data.users[Math.floor(next() * data.users.length)]!,
    company: () => data.companies[Math.floor(next() * data.companies.length)]!,
    number: (max) => Math.floor(next() * max),
    location: () => LOCATIONS[Math.floor(next() * LOCATIONS.length)]!,
  };
}

function percentiles(values: number[]): TrafficResult['admitted'] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0) };
}
