import type { Engine } from '../scripts/mongo-engine.js';
import type { Seeded } from './soak-traffic.js';

/**
 * Fault (a): the database stops under load, and comes back. Workers send requests without pause
 * (reads, searches, creates) while the engine is suspended and resumed; every answer is recorded
 * with when it was sent and when it came back.
 */

/** One request of the outage's load. */
interface Outcome {
  sent: number;
  done: number;
  status?: number;
  code?: string;
  error?: string;
}

/** What the outage measured (times in ms, relative to the moment named). */
export interface OutageResult {
  requests: number;
  /** Status (or error) → count, over the whole phase. */
  answers: Record<string, number>;
  /**
   * Answers that are neither 2xx, nor 503 MR_DATABASE_UNAVAILABLE, nor the admission limit's 503
   * MR_OVERLOADED (a request that waited past `admission.maxWait` behind the outage, or was refused
   * at once by the queue's pace after it: retryable, with `Retry-After`), and transport errors: how
   * many, and the first 20.
   */
  unexpectedCount: number;
  unexpected: string[];
  /** Requests in flight when the engine stopped, answered 422 MR_QUERY_TIMEOUT or 500 MR_INTERNAL: status, code, when. */
  cancelledByEngine: string[];
  /** How long suspend() took (FerretDB finishes or cancels its queries, then exits). */
  suspendMs: number;
  /** From suspend() being called to the first 503 MR_DATABASE_UNAVAILABLE. */
  firstUnavailableMs?: number;
  /** Requests sent while the engine was down: how many, and how long the slowest took. */
  sentWhileDown: number;
  downP99Ms: number;
  downMaxMs: number;
  /** From the engine being up again to the first 2xx of a request sent after that, and to 20 in a row. */
  firstSuccessMs?: number;
  twentySuccessesMs?: number;
  appAlive: boolean;
}

/** How the outage is run. */
export interface OutagePlan {
  workers: number;
  /** Seconds of load before the engine stops, and while it is down. */
  beforeSeconds: number;
  downSeconds: number;
  /** Seconds after the resume within which 20 successes in a row must come. */
  recoverySeconds: number;
  /**
   * How the engine stops: killed (SIGKILL, a crash), or stopped (SIGTERM: FerretDB drains for about
   * 3 s). After a drained stop the driver's monitor sometimes never reconnects (see BENCHMARKS.md).
   */
  crash: boolean;
}

/** Runs the outage against the app at `url`; `alive` says whether the app's process still runs. */
export async function outage(url: string, engine: Engine, data: Seeded, plan: OutagePlan, next: () => number, alive: () => boolean): Promise<OutageResult> {
  if (!engine.suspend || !engine.resume) throw new Error(`the engine (${engine.kind}) cannot be suspended: the outage needs the embedded FerretDB`);
  const outcomes: Outcome[] = [];
  let running = true;
  const workers = Array.from({ length: plan.workers }, async () => {
    while (running) outcomes.push(await send(url, request(data, next)));
  });
  await sleep(plan.beforeSeconds * 1000);
  const stopping = performance.now();
  await engine.suspend({ crash: plan.crash });
  const down = performance.now();
  await sleep(plan.downSeconds * 1000);
  await engine.resume();
  const up = performance.now();
  const deadline = up + plan.recoverySeconds * 1000;
  while (performance.now() < deadline && twentyInARow(outcomes, up) === undefined) await sleep(100);
  running = false;
  await Promise.all(workers);
  return summarize(outcomes, { stopping, down, up }, alive());
}

function request(data: Seeded, next: () => number): { method: string; path: string; body?: unknown } {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const roll = next();
  if (roll < 0.5) return { method: 'GET', path: `/company/${pick(data.companies)}` };
  if (roll < 0.75) return { method: 'POST', path: '/companies', body: { query: { employees: { $gte: Math.floor(next() * 900) } }, limit: 20 } };
  return { method: 'POST', path: '/company', body: { niceName: `Outage ${Math.floor(next() * 1e9)}`, owner: pick(data.users), employees: 1 } };
}

async function send(url: string, call: { method: string; path: string; body?: unknown }): Promise<Outcome> {
  const sent = performance.now();
  try {
    const response = await fetch(`${url}${call.path}`, {
      method: call.method,
      headers: call.body === undefined ? {} : { 'content-type': 'application/json' },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      // Far above any bound checked: a request that hangs is recorded, not waited for forever.
      signal: AbortSignal.timeout(120000),
    });
    const text = await response.text();
    const code = response.ok ? undefined : ((JSON.parse(text) as { code?: string }).code ?? text.slice(0, 100));
    return { sent, done: performance.now(), status: response.status, code };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { sent, done: performance.now(), error: `${call.method} ${call.path}: ${cause ?? String(error)}` };
  }
}

/** When (ms after `up`) the 20th success in a row of the requests sent after `up` arrived. */
function twentyInARow(outcomes: Outcome[], up: number): number | undefined {
  let run = 0;
  for (const outcome of outcomes.filter((o) => o.sent >= up).sort((a, b) => a.done - b.done)) {
    run = isSuccess(outcome) ? run + 1 : 0;
    if (run === 20) return outcome.done - up;
  }
  return undefined;
}

const isSuccess = (outcome: Outcome) => outcome.status !== undefined && outcome.status < 300;
const isUnavailable = (outcome: Outcome) => outcome.status === 503 && outcome.code === 'MR_DATABASE_UNAVAILABLE';
const isShed = (outcome: Outcome) => outcome.status === 503 && outcome.code === 'MR_OVERLOADED';

/** The outage's moments: suspend() called, the engine down (suspend() resolved), the engine up again. */
interface Moments {
  stopping: number;
  down: number;
  up: number;
}

function summarize(outcomes: Outcome[], { stopping, down, up }: Moments, appAlive: boolean): OutageResult {
  const answers: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = outcome.error ? 'transport error' : `${outcome.status}${outcome.code ? ` ${outcome.code}` : ''}`;
    answers[key] = (answers[key] ?? 0) + 1;
  }
  const when = (o: Outcome) => `sent ${Math.round(o.sent - stopping)} ms after suspend() was called, answered after ${Math.round(o.done - o.sent)} ms`;
  const inFlightAtKill = (o: Outcome) => o.sent < down && o.done > stopping;
  // FerretDB answers the queries it is running when it is stopped with an error of its own ("context
  // canceled"): MaxTimeMSExpired (which the library maps, as it must, to 422 MR_QUERY_TIMEOUT) or an
  // InternalError (500 MR_INTERNAL). Those answers are shown apart; soak.ts checks each 500 of them
  // against the errors the app logged.
  const isEngineCancel = (o: Outcome) =>
    inFlightAtKill(o) && ((o.status === 422 && o.code === 'MR_QUERY_TIMEOUT') || (o.status === 500 && o.code === 'MR_INTERNAL'));
  const unexpected = outcomes
    .filter((o) => !isSuccess(o) && !isUnavailable(o) && !isShed(o) && !isEngineCancel(o))
    .map((o) => `${o.error ?? `${o.status} ${o.code}`} (${when(o)})`);
  const cancelled = outcomes.filter(isEngineCancel).map((o) => `${o.status} ${o.code} (${when(o)})`);
  const firstUnavailable = outcomes.filter(isUnavailable).sort((a, b) => a.done - b.done)[0];
  const whileDown = outcomes
    .filter((o) => o.sent >= down && o.sent < up)
    .map((o) => o.done - o.sent)
    .sort((a, b) => a - b);
  const firstSuccess = outcomes.filter((o) => o.sent >= up && isSuccess(o)).sort((a, b) => a.done - b.done)[0];
  return {
    requests: outcomes.length,
    answers,
    unexpectedCount: unexpected.length,
    unexpected: unexpected.slice(0, 20),
    cancelledByEngine: cancelled,
    suspendMs: Math.round(down - stopping),
    firstUnavailableMs: firstUnavailable && Math.round(firstUnavailable.done - stopping),
    sentWhileDown: whileDown.length,
    downP99Ms: Math.round(whileDown[Math.min(whileDown.length - 1, Math.floor(whileDown.length * 0.99))] ?? 0),
    downMaxMs: Math.round(whileDown.at(-1) ?? 0),
    firstSuccessMs: firstSuccess && Math.round(firstSuccess.done - up),
    twentySuccessesMs: roundOrUndefined(twentyInARow(outcomes, up)),
    appAlive,
  };
}

function roundOrUndefined(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.round(value);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
