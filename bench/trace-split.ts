import type { TraceEvent } from './servers/serve.js';

/** Where one request's time went in the server, in milliseconds. */
export interface TraceSplit {
  /** From the request's arrival to its answer's last byte handed to the OS. */
  total: number;
  /** The part of `total` during which at least one database command was in flight: the engine's (and the network's) time. */
  engine: number;
  /** The rest: the time no command was in flight, spent in Node (the framework, the library or the hand-written code, the driver's encoding). */
  outside: number;
  /** The database commands the request started. */
  commands: number;
}

/**
 * Splits the traced events of ONE request (see `serveTrace` in bench/servers/serve.ts) into the time
 * a database command was in flight and the time none was: the union of the commands' intervals,
 * clipped to the request, against the rest. Commands whose reply is missing count until the answer.
 * Throws when the events hold no request or no answer, or more than one of either.
 */
export function splitTrace(events: readonly TraceEvent[]): TraceSplit {
  const arrivals = events.filter((event) => event.what === 'request');
  const answers = events.filter((event) => event.what === 'answered');
  if (arrivals.length !== 1 || answers.length !== 1)
    throw new Error(`a trace of one request holds one arrival and one answer, not ${arrivals.length} and ${answers.length}`);
  const start = arrivals[0]!.at;
  const end = answers[0]!.at;
  const replies = new Map(events.filter((event) => event.what === 'reply').map((event) => [event.id, event.at]));
  const intervals = events
    .filter((event) => event.what === 'command')
    .map((event) => [Math.max(start, event.at), Math.min(end, replies.get(event.id) ?? end)] as const)
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  let engine = 0;
  let reached = start;
  for (const [from, to] of intervals) {
    if (to <= reached) continue;
    engine += to - Math.max(from, reached);
    reached = to;
  }
  const total = end - start;
  return { total, engine, outside: total - engine, commands: events.filter((event) => event.what === 'command').length };
}
