import { Agent, request as httpRequest } from 'node:http';
import { parseRetryAfter, type Answer, type ClientMode, type SweepStep } from './soak-figures.js';
import { call, CYCLE, makePicker, type Context, type Seeded } from './soak-traffic.js';

/**
 * The concurrency sweep and the burst of slow searches. The sweep's clients are closed loops of
 * this file over keep-alive `node:http` agents (autocannon ignores `Retry-After`): each runs the
 * soak's cycle and, on a 503 `MR_OVERLOADED`, sends the same request again, after waiting the
 * `Retry-After` it was given (`honours Retry-After`) or at once (`ignores Retry-After`, as
 * autocannon does). The burst sends many slow searches at once and waits for every answer.
 */

/** One request as sent: what the cycle's step built. */
interface Sent {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The answer to one request: status 0 and `error` when there was none (socket error, the client's time-out). */
interface Received extends Answer {
  body: string;
  retryAfter?: number;
  error?: string;
}

/** Sends one request on `agent` and reads the whole answer; never rejects. */
function send(port: number, agent: Agent, sent: Sent, timeoutMs: number): Promise<Received> {
  const start = performance.now();
  const body = sent.body === undefined ? undefined : JSON.stringify(sent.body);
  return new Promise((resolve) => {
    let settled = false;
    const done = (received: Omit<Received, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...received, ms: performance.now() - start });
    };
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: sent.method,
        path: sent.path,
        agent,
        // A Content-Type only with a body: Fastify answers 400 to an empty body declared as JSON.
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...sent.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          done({ status: res.statusCode ?? 0, body: text, code: errorCode(text), retryAfter: parseRetryAfter(res.headers['retry-after']) });
        });
        res.on('error', (error) => done({ status: 0, body: '', error: error.message }));
      },
    );
    req.setTimeout(timeoutMs, () => {
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    });
    req.on('error', (error) => done({ status: 0, body: '', error: error.message }));
    req.end(body);
  });
}

/** The `code` of an error body (`{"code":"MR_OVERLOADED",...}` or nested in `error`), if any. */
function errorCode(text: string): string | undefined {
  return /"code"\s*:\s*"([A-Z_]+)"/.exec(text)?.[1];
}

/** What one step of the sweep measured, with the first few answers that were neither 2xx nor shed. */
export interface SweepMeasure extends SweepStep {
  samples: string[];
  /** Shed answers that came without a `Retry-After` (the honouring client then has nothing to wait for). */
  shedWithoutRetryAfter: number;
}

/**
 * Runs `connections` closed-loop clients of the soak's cycle for `seconds`. Answers that arrive after
 * the step's end are not counted (they are waited for, so that the next step starts on an idle app).
 */
export async function sweepStep(url: string, data: Seeded, connections: number, mode: ClientMode, seconds: number, next: () => number): Promise<SweepMeasure> {
  const port = Number(new URL(url).port);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const picker = makePicker(data, next);
  const answers: Answer[] = [];
  const samples: string[] = [];
  let shedWithoutRetryAfter = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const client = async () => {
    const context: Context = {};
    let index = 0;
    while (performance.now() < end) {
      const step = CYCLE[index % CYCLE.length]!;
      const received = await send(port, agent, step.build(picker, context), 10000);
      if (performance.now() > end) break;
      answers.push({ status: received.status, code: received.code, ms: received.ms });
      if (received.status === 503 && received.code === 'MR_OVERLOADED') {
        if (received.retryAfter === undefined) shedWithoutRetryAfter++;
        // The same request again: at once, or after the wait it was told (cut at the step's end).
        if (mode === 'honours Retry-After' && received.retryAfter) await sleep(Math.min(received.retryAfter * 1000, end - performance.now()));
        continue;
      }
      if (received.status >= 200 && received.status < 300) step.keep?.(received.body, context);
      else if (samples.length < 5) samples.push(`${step.kind}: ${received.status || received.error} ${received.body.slice(0, 160)}`);
      index++;
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  agent.destroy();
  return { connections, mode, seconds, answers, samples, shedWithoutRetryAfter };
}

/**
 * The burst's search: companies whose owner's name matches a prefix every seeded user has (so the
 * condition across the reference becomes `owner $in [~1,000 ids]`), each page with its owners
 * expanded, sorted on an unindexed field, counted exactly.
 */
export const BURST_SEARCH = {
  path: `/companies?${new URLSearchParams({ 'owner.niceName[regex]': '^Soak user', expand: 'owner', sort: '-employees', limit: '100' }).toString()}`,
  headers: { prefer: 'count=exact' },
};

/**
 * Adds users until there are `total` whose name starts with "Soak user" (the soak's seed names its
 * users so), through the app as the seed does, 16 at a time. They own nothing: only the
 * burst's condition across the reference sees them.
 */
export async function seedBurstOwners(url: string, existing: number, total: number): Promise<void> {
  for (let start = existing; start < total; start += 16) {
    const batch = Array.from({ length: Math.min(16, total - start) }, (_, k) =>
      call(url, 'POST', '/user', { niceName: `Soak user ${start + k}`, birth: '1990-01-01' }),
    );
    await Promise.all(batch);
  }
}

/** One burst search alone first: its answer's status, match count and time, or the error that makes the burst meaningless. */
export async function probeBurstSearch(url: string): Promise<{ ms: number; matches: unknown; counted: unknown }> {
  const start = performance.now();
  const { body } = await call(url, 'GET', BURST_SEARCH.path, undefined, BURST_SEARCH.headers);
  const status = (body as { status?: { match_count?: unknown; counted?: unknown } }).status;
  return { ms: Math.round(performance.now() - start), matches: status?.match_count, counted: status?.counted };
}

/** Sends `count` burst searches at once, each on its own keep-alive connection, and waits for every answer (the client gives up after 30 s). */
export async function burst(url: string, count: number): Promise<{ answers: Answer[]; ms: number; samples: string[] }> {
  const port = Number(new URL(url).port);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const start = performance.now();
  const received = await Promise.all(Array.from({ length: count }, () => send(port, agent, { method: 'GET', ...BURST_SEARCH }, 30000)));
  const ms = Math.round(performance.now() - start);
  agent.destroy();
  const samples = [
    ...new Set(
      received
        .filter((answer) => !(answer.status >= 200 && answer.status < 300) && !(answer.status === 503 && answer.code === 'MR_OVERLOADED'))
        .map((answer) => `${answer.status || answer.error} ${answer.body.slice(0, 200)}`),
    ),
  ].slice(0, 5);
  return { answers: received.map(({ status, code, ms: took }) => ({ status, code, ms: took })), ms, samples };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
