import type autocannon from 'autocannon';

/** One run of one scenario against one server. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
}

/**
 * The measure of a run, or the reason it is not one: a wrong route answers fast 404s, a stalled
 * server answers nothing, and neither may print a number (or a ratio of Infinity or NaN).
 */
export function validMeasure(
  result: Pick<autocannon.Result, 'non2xx' | 'errors' | 'timeouts'> & { requests: { average: number; total: number }; latency: { p50: number; p99: number } },
  what: string,
): Measure {
  const problems = [
    result.requests.total === 0 && 'no request completed',
    result.non2xx > 0 && `${result.non2xx} non-2xx answers`,
    result.errors > 0 && `${result.errors} errors`,
    result.timeouts > 0 && `${result.timeouts} timeouts`,
  ].filter(Boolean);
  if (problems.length || !(result.requests.average > 0)) {
    throw new Error(`benchmark ${what}: not a valid measure (${problems.join(', ') || `average ${result.requests.average} req/s`})`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** The round of median requests/s (the lower middle one of an even count), and the range of all rounds. */
export function median(measures: Measure[] | undefined): (Measure & { min: number; max: number }) | undefined {
  if (!measures?.length) return undefined;
  const sorted = [...measures].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], min: sorted[0].rps, max: sorted[sorted.length - 1].rps };
}
