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

/**
 * The ratio of two servers measured in the same slices (`a[i]` and `b[i]` within seconds of each
 * other, as `--interleave` and `bench:floor` measure them): the median of the slices' own ratios,
 * which a drift of the machine over minutes moves far less than the ratio of two medians, with a
 * distribution-free confidence interval of that median from the order statistics (the sign test's
 * interval: no assumption on the ratios' spread, no random draw). `undefined` when either side is
 * missing or the two do not have the same number of slices.
 */
export interface PairedRatio {
  median: number;
  /** The interval: `[low, high]` holds the true median ratio with probability `coverage` at least. */
  low: number;
  high: number;
  /** The slices compared. */
  slices: number;
  /** The interval's coverage (for example 0.96 for 9 slices): under 0.95 when there are too few slices for more. */
  coverage: number;
}

export function pairedRatio(a: Measure[] | undefined, b: Measure[] | undefined): PairedRatio | undefined {
  if (!a?.length || !b?.length || a.length !== b.length) return undefined;
  const ratios = a.map((measure, slice) => measure.rps / b[slice].rps).sort((x, y) => x - y);
  const n = ratios.length;
  const middle = n % 2 ? ratios[(n - 1) / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  // The largest k whose two tails, P(Binomial(n, ½) < k) each, leave at least 95% between: [x(k), x(n+1-k)].
  let k = 1;
  while (k < n / 2 && 1 - 2 * binomialBelow(n, k + 1) >= 0.95) k++;
  return { median: middle, low: ratios[k - 1], high: ratios[n - k], slices: n, coverage: 1 - 2 * binomialBelow(n, k) };
}

/** P(X < k) for X ~ Binomial(n, ½). */
function binomialBelow(n: number, k: number): number {
  let total = 0;
  let choose = 1;
  for (let i = 0; i < k; i++) {
    total += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return total / 2 ** n;
}

/**
 * Whether a paired ratio meets `target` (a least ratio): `met` when the whole interval is at or
 * above it, `not met` when the whole interval is below, `cannot tell` when the interval holds it
 * (the machine's noise is wider than the gap: more slices, or a quieter machine, decide).
 */
export function verdict(ratio: PairedRatio, target: number): 'met' | 'not met' | 'cannot tell' {
  if (ratio.low >= target) return 'met';
  if (ratio.high < target) return 'not met';
  return 'cannot tell';
}

/** `0.97 (0.91–1.02, 9 slices, 96%)`. */
export function pairedCell(ratio: PairedRatio | undefined): string {
  if (!ratio) return '–';
  return `${ratio.median.toFixed(2)} (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}, ${ratio.slices} slices, ${Math.floor(ratio.coverage * 100)}%)`;
}
