/**
 * How many requests an admission limit lets work at once, and how that number follows what the
 * engine can do. A fixed limit never moves; an adaptive one (`GradientLimit`) is told how long each
 * admitted request's work took and moves between its bounds.
 */
export interface ConcurrencyLimit {
  /** Places now: requests that may work at once, each taking its `places` (a whole number, at least 1). */
  readonly current: number;
  /**
   * How many places one request of this kind takes: 1, or more for a kind whose recent time is long
   * (see `GradientLimit`). At most half of `current` (and 1 at least), so that one request alone
   * always has room and a slow kind never holds every place.
   */
  places(kind: object | undefined): number;
  /**
   * One admitted request's work is over.
   *
   * @param kind what the request was (its route): each kind's times are compared with its own
   * @param elapsed milliseconds from its admission to the end of its work
   * @param ok whether the work succeeded; a failure only ever counts as a sign of overload, when it was slow
   * @param admittedAt the limit's `generation` when it was admitted (see `generation`)
   * @param busy places taken when it was admitted, its own included
   */
  done(kind: object, elapsed: number, ok: boolean, admittedAt: number, busy: number): void;
  /** Changes each time the limit shrinks: a request admitted before a decrease does not count towards the next one. */
  readonly generation: number;
}

/** A limit that never moves (`forRoot({ admission: { concurrency } })`). */
export class FixedLimit implements ConcurrencyLimit {
  readonly generation = 0;

  constructor(readonly current: number) {}

  places(): number {
    return 1;
  }

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
   * (the engine is making work wait that it would do at once): the limit halves. Also the measure
   * of a place: `slow / max` of a kind's recent time (see `GradientLimit.places`).
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
/** How fast a kind's recent time follows its requests' (a share per request): a few slow ones are enough. */
const RECENT_WEIGHT = 0.25;
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
 * The limit counts places, not requests: a kind whose recent time (a moving average of its
 * requests', slow ones included) is longer than `slow / max` takes one place per `slow / max` of it
 * (`places`), at most half the limit, so that the other kinds keep the other half (a kind slow by
 * nature is not run alone). So the work admitted at once, at its kinds' recent times, is about
 * `current × slow / max` at most, `slow` at the limit's `max`, however the places are shared; a limit that a steady
 * load of fast reads grew does not let a burst of slow searches all in at once, even on a route
 * whose other queries are fast (its recent time rises with the first of them to end).
 *
 * It never leaves `[min, max]`. Pure: its clock is the times it is given, so tests drive it with numbers.
 */
export class GradientLimit implements ConcurrencyLimit {
  private limit: number;
  private changes = 0;
  private readonly best = new Map<object, number>();
  private readonly recent = new Map<object, number>();
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

  places(kind: object | undefined): number {
    const time = kind && this.recent.get(kind);
    if (!time) return 1;
    return Math.max(1, Math.min(Math.floor(this.current / 2), Math.ceil((time * this.options.max) / this.options.slow)));
  }

  done(kind: object, elapsed: number, ok: boolean, admittedAt: number, busy: number): void {
    if (ok || elapsed > this.options.slow) {
      const recent = this.recent.get(kind);
      this.recent.set(kind, recent === undefined ? elapsed : recent + (elapsed - recent) * RECENT_WEIGHT);
    }
    if (elapsed > this.options.slow) {
      if (admittedAt === this.changes) this.set(this.limit / 2);
      return;
    }
    if (!ok) return;
    const best = this.best.get(kind);
    this.best.set(kind, best === undefined || elapsed < best ? elapsed : best + (elapsed - best) * BASELINE_DRIFT);
    this.window.push(best === undefined ? 1 : elapsed / Math.max(best, 0.05));
    // The limit bounded the work when one more request of this kind would not have found its places.
    if (busy + this.places(kind) > this.current) this.filled = true;
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
