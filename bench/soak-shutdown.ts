import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import type { SampleApp } from './soak-app.js';

/**
 * Fault (b): SIGTERM with requests in flight. Slow searches are sent on keep-alive connections,
 * one idle keep-alive connection is left open, then the app gets SIGTERM while a prober opens a
 * new connection every 25 ms until the process has exited.
 */

/** What the shutdown measured (times in ms after the SIGTERM). */
export interface ShutdownResult {
  inFlight: number;
  /** In-flight requests answered completely with a 2xx, those the admission limit shed at once (503 `MR_OVERLOADED`), and the others (with what happened). */
  completed: number;
  shed: number;
  failed: string[];
  /** When the last in-flight answer arrived. */
  lastAnsweredMs: number;
  /** When the idle keep-alive connection was closed by the server (undefined: it never was). */
  idleClosedMs?: number;
  /** Probes on new connections: answered (status), refused, other errors; when the first refusal came. */
  probes: Record<string, number>;
  firstRefusedMs?: number;
  /** A probe answered after a probe had been refused: the server listened again. */
  answeredAfterRefused: number;
  exitCode: number | null;
  exitSignal: string | null;
  shutdownMs: number;
}

/** A search that reads every company (an unanchored, case-insensitive `$regex`): slow on purpose. */
const SLOW_SEARCH = JSON.stringify({ query: { niceName: { $regex: 'company 1', $options: 'i' } }, sort: { employees: -1 }, limit: 100 });

/** Sends `inFlight` slow searches, SIGTERMs the app once they are sent, and watches it stop. */
export async function shutdown(app: SampleApp, inFlight: number): Promise<ShutdownResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const idle = await idleConnection(app.port);
  const answers = Array.from({ length: inFlight }, () => slowSearch(app.port, agent));
  await Promise.all(answers.map((answer) => answer.sent));
  // Time for the server to read the requests it was sent: a connection whose request it has not
  // read yet counts as idle, and closing idle connections is what a server does when it stops.
  await sleep(300);
  const term = performance.now();
  app.process.kill('SIGTERM');
  const probing = probe(app.port, app.exited);
  const results = await Promise.all(answers.map((answer) => answer.done));
  const exited = await app.exited;
  const probes = await probing;
  agent.destroy();
  const failed = results.filter((r) => !r.ok && !r.shed).map((r) => r.what);
  const shed = results.filter((r) => r.shed).length;
  return {
    inFlight,
    completed: results.length - failed.length - shed,
    shed,
    failed,
    lastAnsweredMs: Math.round(Math.max(...results.map((r) => r.at)) - term),
    idleClosedMs: idle.closedAt() === undefined ? undefined : Math.round(idle.closedAt()! - term),
    probes: probes.counts,
    firstRefusedMs: probes.firstRefused === undefined ? undefined : Math.round(probes.firstRefused - term),
    answeredAfterRefused: probes.answeredAfterRefused,
    exitCode: exited.code,
    exitSignal: exited.signal,
    shutdownMs: Math.round(exited.at - term),
  };
}

/** One keep-alive connection that served a request and stays open, idle; when did it close? */
async function idleConnection(port: number): Promise<{ closedAt: () => number | undefined }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let closedAt: number | undefined;
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/users?limit=1', agent }, (res) => {
      res.resume();
      res.once('end', resolve);
    });
    req.once('socket', (socket) => socket.once('close', () => (closedAt = performance.now())));
    req.once('error', reject);
    req.end();
  });
  return { closedAt: () => closedAt };
}

interface Answer {
  ok: boolean;
  /** Refused at once by the admission limit (503 `MR_OVERLOADED`): never in flight. */
  shed?: boolean;
  what: string;
  at: number;
}

function slowSearch(port: number, agent: Agent): { sent: Promise<void>; done: Promise<Answer> } {
  let req!: ClientRequest;
  const done = new Promise<Answer>((resolve) => {
    req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/companies', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.once('end', () =>
        resolve({
          ok: res.statusCode === 200 && isEnvelope(body),
          shed: res.statusCode === 503 && body.includes('"MR_OVERLOADED"'),
          what: `${res.statusCode} ${body.slice(0, 120)}`,
          at: performance.now(),
        }),
      );
      res.once('error', (error) => resolve({ ok: false, what: `response: ${String(error)}`, at: performance.now() }));
    });
    req.once('error', (error) => resolve({ ok: false, what: `${(error as { code?: string }).code ?? String(error)}`, at: performance.now() }));
  });
  const sent = new Promise<void>((resolve) => req.once('finish', () => resolve()));
  req.end(SLOW_SEARCH);
  return { sent, done };
}

function isEnvelope(body: string): boolean {
  try {
    return Array.isArray((JSON.parse(body) as { result?: unknown }).result);
  } catch {
    return false;
  }
}

/** New connections, one every 25 ms, until the process has exited. */
async function probe(port: number, exited: Promise<unknown>): Promise<{ counts: Record<string, number>; firstRefused?: number; answeredAfterRefused: number }> {
  let over = false;
  void exited.then(() => (over = true));
  const pending: Array<Promise<{ sent: number; outcome: string }>> = [];
  while (!over) {
    const sent = performance.now();
    pending.push(oneProbe(port).then((outcome) => ({ sent, outcome })));
    await sleep(25);
  }
  const probes = await Promise.all(pending);
  const counts: Record<string, number> = {};
  for (const { outcome } of probes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  const firstRefused = probes.find(({ outcome }) => outcome === 'ECONNREFUSED')?.sent;
  const answeredAfterRefused = probes.filter(({ sent, outcome }) => firstRefused !== undefined && sent > firstRefused && /^\d+$/.test(outcome)).length;
  return { counts, firstRefused, answeredAfterRefused };
}

/** A GET on a new connection: its status, or the error's code. */
function oneProbe(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/users?limit=1', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(String(res.statusCode)));
      res.once('error', () => resolve('response error'));
    });
    req.once('error', (error) => resolve((error as { code?: string }).code ?? 'error'));
    req.end();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
