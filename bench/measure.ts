import type autocannon from 'autocannon';

/** One run of one scenario against one server. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** Requests completed. */
  requests: number;
  /** The mean latency, ms (autocannon's, unrounded), where the run reported it. */
  mean?: number;
}

/**
 * The measure of a run, or the reason it is not one: a wrong route answers fast 404s, a stalled
 * server answers nothing, and neither may print a number (or a ratio of Infinity or NaN).
 */
export function validMeasure(
  result: Pick<autocannon.Result, 'non2xx' | 'errors' | 'timeouts' | 'start' | 'finish'> & {
    requests: { total: number };
    latency: { p50: number; p99: number; mean?: number };
  },
  what: string,
): Measure {
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  const problems = [
    result.requests.total === 0 && 'no request completed',
    result.non2xx > 0 && `${result.non2xx} non-2xx answers`,
    result.errors > 0 && `${result.errors} errors`,
    result.timeouts > 0 && `${result.timeouts} timeouts`,
    !(seconds > 0) && `a run of ${seconds} s`,
  ].filter(Boolean);
  if (problems.length) throw new Error(`benchmark ${what}: not a valid measure (${problems.join(', ')})`);
  // Requests over the run's own time: right for a timed run and for a fixed amount alike.
  return {
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    ...(result.latency.mean !== undefined && { mean: result.latency.mean }),
  };
}

/** The round of median requests/s (the lower middle one of an even count), and the range of all rounds. */
export function median(measures: Measure[] | undefined): (Measure & { min: number; max: number }) | undefined {
  if (!measures?.length) return undefined;
  const sorted = [...measures].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], min: sorted[0].rps, max: sorted[sorted.length - 1].rps };
}

/** `items` starting at position `by` (modulo their number), wrapping round: the order of one interleaved slice. */
export function rotated<T>(items: readonly T[], by: number): T[] {
  const start = items.length ? by % items.length : 0;
  return [...items.slice(start), ...items.slice(0, start)];
}
