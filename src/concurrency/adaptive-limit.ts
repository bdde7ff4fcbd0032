/**
 * How many requests an admission limit lets work at once, and how that number follows what the
 * engine can do. A fixed limit never moves; an adaptive one (`GradientLimit`) is told how long each
 * admitted request's work took and moves between its bounds.
 */
export interface ConcurrencyLimit {
  /** Requests that may work at once now (a whole number, at least 1). */
  readonly current: number;
  /**
   * One admitted request's work is over.
   *
   * @param kind what the request was (its route): each kind's times are compared with its own
   * @param elapsed milliseconds from its admission to the end of its work
   * @param ok whether the work succeeded; a failure only ever counts as a sign of overload, when it was slow
   * @param admittedAt the limit's `generation` when it was admitted (see `generation`)
   * @param busy requests at work when it was admitted, itself included
   */
  done(kind: object, elapsed: number, ok: boolean, admittedAt: number, busy: number): void;
  /** Changes each time the limit shrinks: a request admitted before a decrease does not count towards the next one. */
  readonly generation: number;
}

/** A limit that never moves (`forRoot({ admission: { concurrency } })`). */
export class FixedLimit implements ConcurrencyLimit {
  readonly generation = 0;

  constructor(readonly current: number) {}

  done(): void {
    // A fixed limit learns nothing.
  }
}

/** The bounds and the latency targets of a `GradientLimit`. */
export interface GradientLimitOptions {
  min: number;
  max: number;
  /** The limit it starts from, within `min` and `max`. */
  initial: number;
  /**
   * Milliseconds past which one admitted request's work is a sign of overload whatever its kind
   * (the engine is making work wait that it would do at once): the limit halves.
   */
  slow: number;
}

/**
 * How much slower than its kind's best time the typical request of a window may be before the
 * limit shrinks: the engine on a few cores serves a few requests side by side at their best time;
 * past that they share it and each takes longer, with nothing more done per second.
 */
const TOLERANCE = 2;
/** How fast a kind's best time follows times above it (a share per request): slowly, so that overload is not learned as normal. */
const BASELINE_DRIFT = 0.005;
/** A window is the requests of about one limit's worth of work, and at least this many. */
const MIN_WINDOW = 8;

/**
 * An adaptive concurrency limit in the manner of a gradient limiter (Netflix's concurrency-limits,
 * Envoy's adaptive concurrency): each kind of request (route) keeps its best time (its minimum,
 * drifting up slowly); each window of about `current` finished requests compares the median of
 * their times against their kinds' best (`ratio`):
 *
 * - at most `TOLERANCE` times slower: when the window filled the limit (the limit bounded the
 *   work), it grows by its square root, so that it finds the engine's room quickly;
 * - slower: it shrinks in proportion (`current × TOLERANCE / ratio`, at most by half a window);
 * - any request slower than `slow` (a share of the query time limit), success or failure, halves
 *   it at once, but only once for the requests admitted at the same limit, so that a burst that
 *   is already running does not take it to its floor by itself.
 *
 * It never leaves `[min, max]`. Pure: its clock is the times it is given, so tests drive it with numbers.
 */
export class GradientLimit implements ConcurrencyLimit {
  private limit: number;
  private changes = 0;
  private readonly best = new Map<object, number>();
  private window: number[] = [];
  private filled = false;

  constructor(private readonly options: GradientLimitOptions) {
    this.limit = Math.min(options.max, Math.max(options.min, options.initial));
  }

  get current(): number {
    return Math.floor(this.limit);
  }

  get generation(): number {
    return this.changes;
  }

  done(kind: object, elapsed: number, ok: boolean, admittedAt: number, busy: number): void {
    if (elapsed > this.options.slow) {
      if (admittedAt === this.changes) this.set(this.limit / 2);
      return;
    }
    if (!ok) return;
    const best = this.best.get(kind);
    this.best.set(kind, best === undefined || elapsed < best ? elapsed : best + (elapsed - best) * BASELINE_DRIFT);
    this.window.push(best === undefined ? 1 : elapsed / Math.max(best, 0.05));
    if (busy >= this.current) this.filled = true;
    if (this.window.length < Math.max(MIN_WINDOW, this.current)) return;
    const ratio = median(this.window);
    if (ratio > TOLERANCE) this.set(Math.max(this.limit / 2, (this.limit * TOLERANCE) / ratio));
    else if (this.filled) this.set(this.limit + Math.sqrt(this.limit));
    else this.set(this.limit);
  }

  /** A new limit; the window starts again, since its requests ran under the old one. */
  private set(limit: number): void {
    const next = Math.min(this.options.max, Math.max(this.options.min, limit));
    if (Math.floor(next) < this.current) this.changes++;
    this.limit = next;
    this.window = [];
    this.filled = false;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
