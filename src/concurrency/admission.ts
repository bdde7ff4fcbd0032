import { EventEmitter } from 'node:events';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isDatabaseUnavailable } from '../errors/error-response.mapper.js';
import { FixedLimit, GradientLimit, type ConcurrencyLimit, type GradientLimitOptions } from './adaptive-limit.js';

/**
 * The admission limit of one `forRoot` registration (`forRoot({ admission })`): how many requests
 * to its generated routes do their database work at once, and how many wait for a place.
 *
 * By default the limit adapts: it follows how long the admitted requests take, between `min` and
 * `max`, shrinking when they take longer than their routes' best times by more than the engine's
 * room can explain, growing when they do not and the limit is reached; a request of a slow route
 * takes more than one place under it (see `GradientLimit`); and a
 * request that cannot start within `maxWait` is answered 503 at once rather than started to time
 * out. `concurrency` fixes it instead.
 *
 * @publicApi
 */
export interface AdmissionOptions {
  /**
   * A fixed limit: requests to the generated routes that do their work at once, whatever their
   * times; the others wait in the queue. Unset (the default), the limit adapts between `min` and `max`.
   */
  concurrency?: number;
  /**
   * The least the adaptive limit goes down to, and where it starts, in places: a request takes one,
   * or more when its route's recent time is longer than `search.maxTimeMS / 4 / max` (50 ms by
   * default; see `GradientLimit`). Default 8 (or `max` when lower): the few requests in flight that a
   * healthy load needs to keep an app and its database busy on a small machine, at most 8 × 50 ms of
   * work at once. Not with `concurrency`.
   */
  min?: number;
  /**
   * The most the adaptive limit goes up to. Default a quarter of the connection pool's
   * `maxPoolSize` (the driver's default pool of 100 gives 25), at least 1: a search holds up to
   * three connections at once (its page, its count, the collection's count), and the pool keeps
   * room for your own code. Not with `concurrency`.
   */
  max?: number;
  /**
   * Requests that may wait for a place, in arrival order; past it a request is answered 503
   * `MR_OVERLOADED` with `Retry-After` at once, without touching the database. Default twice `max`
   * (`maxWait` is what bounds a wait then), or `concurrency` when fixed; 0: none waits.
   */
  queue?: number;
  /**
   * Milliseconds a request may wait for a place. One that would wait longer, by the queue ahead of
   * it and the admitted requests' recent times, is answered 503 `MR_OVERLOADED` at once; one that
   * has waited that long when its turn comes is answered so then. Default a fifth of
   * `search.maxTimeMS` (1000 ms of the default 5000) when the limit adapts; no bound with a fixed
   * `concurrency` unless given.
   */
  maxWait?: number;
  /** Seconds a refused client is told to wait (`Retry-After`). Default 1. */
  retryAfter?: number;
  /**
   * Exports that stream at once (`GET /<plural>/export`): each holds a database cursor and its
   * connection to the client for as long as the client reads, so an export takes a place under
   * the limit only for its first page, and one of these for the rest. Past it an export is
   * answered 503 `MR_OVERLOADED` with `Retry-After` at once. Default 2.
   */
  exports?: number;
  /**
   * Imports at once (`POST /<plural>/import`): each holds its place under the limit while its
   * file arrives (at its client's pace, within `search.importBodyTimeout`) and while its rows are
   * written, so that a few slow uploads of files cannot take every place. Past it an import is
   * answered 503 `MR_OVERLOADED` with `Retry-After` at once, before its body is read. Default 2.
   */
  imports?: number;
}

/**
 * The admission limit in force, every number given: `concurrency` is the fixed limit, or where the
 * adaptive one (`adaptive`) starts; `maxWait` unset: no bound on a wait.
 */
export interface ResolvedAdmissionOptions {
  concurrency: number;
  queue: number;
  retryAfter: number;
  exports: number;
  imports: number;
  maxWait?: number;
  adaptive?: GradientLimitOptions;
}

/** The driver's default `maxPoolSize`, used when the connection does not say its own. */
export const DEFAULT_POOL_SIZE = 100;

/**
 * `admission` of `forRoot`, checked and completed from the connection's pool size and the search
 * time limit (`search.maxTimeMS`, whose default is 5000); `false` turns the limit off.
 */
export function resolveAdmissionOptions(
  options: AdmissionOptions | false | undefined,
  poolSize: number | undefined,
  maxTimeMS = 5000,
): ResolvedAdmissionOptions | false {
  if (options === false) return false;
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw invalid(`admission must be an object or false (got ${JSON.stringify(options)})`);
  }
  const given = options ?? {};
  const fixed = given.concurrency !== undefined;
  if (fixed && (given.min !== undefined || given.max !== undefined)) {
    throw invalid('give either a fixed concurrency or the bounds min and max of the adaptive limit, not both');
  }
  const pool = Number.isSafeInteger(poolSize) && poolSize! > 0 ? poolSize! : DEFAULT_POOL_SIZE;
  const max = given.max ?? Math.max(1, Math.floor(pool / 4));
  const min = given.min ?? Math.min(8, max);
  const concurrency = given.concurrency ?? min;
  const numbers = {
    concurrency,
    min,
    max,
    queue: given.queue ?? (fixed ? concurrency : 2 * max),
    retryAfter: given.retryAfter ?? 1,
    exports: given.exports ?? 2,
    imports: given.imports ?? 2,
    maxWait: given.maxWait ?? (fixed ? undefined : Math.max(1, Math.floor(maxTimeMS / 5))),
  };
  const minimum = { min: 1, max: 1, concurrency: 1, queue: 0, retryAfter: 0, exports: 1, imports: 1, maxWait: 1 };
  for (const [key, least] of Object.entries(minimum) as Array<[keyof typeof numbers, number]>) {
    const value = numbers[key];
    if (value === undefined && key === 'maxWait') continue;
    if (!Number.isSafeInteger(value) || value! < least) throw invalid(`${key} must be an integer of at least ${least} (got ${JSON.stringify(value)})`);
  }
  if (min > max) throw invalid(`min (${min}) must not be above max (${max})`);
  const { queue, retryAfter, exports, imports, maxWait } = numbers;
  return {
    concurrency,
    queue,
    retryAfter,
    exports,
    imports,
    ...(maxWait !== undefined && { maxWait }),
    // A request slower than a quarter of the time limit is a sign of overload whatever its route.
    ...(!fixed && { adaptive: { min, max, initial: min, slow: Math.max(1, maxTimeMS / 4) } }),
  };
}

function invalid(problem: string): ModelRoutesConfigError {
  return new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `ModelRoutesModule.forRoot({ admission }): ${problem}.`);
}

/**
 * One admitted request's place. It is given back once, when the request is over (`end`: answered,
 * refused, or its connection closed) and no work runs under it any more (`hold` / `unhold`): a
 * client that goes away while its query runs does not free the place before the query ends. How
 * long it was held, and whether its work failed (`fail`), teach an adaptive limit.
 */
export class AdmissionTicket {
  private holds = 0;
  private ended = false;
  private left = false;
  private failure: Failure = 'none';

  constructor(private readonly giveBack: (failure: Failure) => void) {}

  /** Work that uses the database starts under this place. */
  hold(): void {
    this.holds++;
  }

  /** That work is over. */
  unhold(): void {
    this.holds--;
    this.settle();
  }

  /**
   * The request's work failed with `error`: its time says nothing of its route's, unless it was
   * slow; a database that cannot be reached says nothing of the load at all (see `Failure`).
   */
  fail(error?: unknown): void {
    this.failure = isDatabaseUnavailable(error) ? { outage: error } : 'failed';
  }

  /** The request is over; the place is given back as soon as no work holds it. */
  end(): void {
    this.ended = true;
    this.settle();
  }

  private settle(): void {
    if (this.ended && this.holds === 0 && !this.left) {
      this.left = true;
      this.giveBack(this.failure);
    }
  }
}

/** How an admitted request's work ended: it did not fail, it failed, or the database could not be reached (`outage`: the error). */
type Failure = 'none' | 'failed' | { outage: unknown };

/** A request waiting for a place: when it came, and how it is let in or refused. */
interface Waiting {
  since: number;
  kind: object | undefined;
  admit(ticket: AdmissionTicket): void;
  refuse(error: ModelRoutesException): void;
}

/**
 * The admission limit of one registration: its generated routes' requests at work take at most its
 * limit's `current` places (one each when fixed; adapting to their times, and more than one for a
 * slow route's: `GradientLimit`), at most `queue`
 * waiting (in arrival order) and for at most `maxWait`, the rest refused at once with a 503
 * `MR_OVERLOADED` and `Retry-After`. A request whose client goes away while it waits leaves the
 * queue without running. Emits `'queued'` when a request starts to wait (with the number waiting),
 * `'withdrawn'` when one leaves the queue because its client went away, `'shed'` when one is
 * refused, `'left'` when one gives its place back, and `'exports'` or `'imports'` when one takes a
 * place under that bound (with the number taken), which tests use to know where requests are
 * without timing them.
 */
export class Admission extends EventEmitter {
  private active = 0;
  /** Places the requests at work take (see `ConcurrencyLimit.places`): the limit bounds these. */
  private taken = 0;
  /** Exports streaming, imports running: each under its own bound, beside the limit. */
  private readonly bounded = { exports: 0, imports: 0 };
  private readonly waiting: Waiting[] = [];
  private shedCount = 0;
  private readonly limit: ConcurrencyLimit | undefined;
  /** The admitted requests' recent time, in milliseconds (a moving average): what a wait in the queue is estimated by. */
  private serviceTime = 0;
  /** The error of the last request that found the database unreachable, until one succeeds again: refusals then say so. */
  private outage: unknown;

  /**
   * @param now the clock of waits and times, in milliseconds (`performance.now` unless a test gives its own)
   */
  constructor(
    readonly options: ResolvedAdmissionOptions | false,
    private readonly now: () => number = () => performance.now(),
  ) {
    super();
    this.limit = options ? (options.adaptive ? new GradientLimit(options.adaptive) : new FixedLimit(options.concurrency)) : undefined;
  }

  /** Requests at work now. */
  get running(): number {
    return this.active;
  }

  /** Requests waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Places now: the fixed limit (a request each), or where the adaptive one stands (a slow route's request takes more than one). */
  get concurrency(): number {
    return this.limit?.current ?? Infinity;
  }

  /** Exports streaming and imports running now, each under its own bound (`exports`, `imports`). */
  get bounds(): { readonly exports: number; readonly imports: number } {
    return { ...this.bounded };
  }

  /** Requests refused since the start. */
  get shed(): number {
    return this.shedCount;
  }

  /**
   * A place for one request: at once when one is free (no promise), after those ahead of it
   * otherwise; a 503 `MR_OVERLOADED` when the queue is full, or when the wait it would have (the
   * requests ahead of it, at the admitted requests' recent pace) is longer than `maxWait`.
   * `undefined` when there is no limit.
   *
   * @param gone registers the call that withdraws the request from the queue, for when its client
   *   goes away while it waits: it then leaves the queue at once (`'withdrawn'`), its promise is
   *   rejected with the 503 nobody will read, and its work never runs. Called once a request has a
   *   place, it does nothing.
   * @param kind what the request is (its route): an adaptive limit compares each kind's times with
   *   its own best; none (an import, whose time is its client's) teaches it nothing
   */
  enter(gone?: (withdraw: () => void) => void, kind?: object): AdmissionTicket | Promise<AdmissionTicket> | undefined {
    const { options, limit } = this;
    if (!options || !limit) return undefined;
    if (this.fits(limit, kind)) return this.admit(kind);
    if (this.cannotWait(options, limit)) throw this.refuse();
    return new Promise<AdmissionTicket>((resolve, reject) => {
      const waiting: Waiting = { since: this.now(), kind, admit: resolve, refuse: reject };
      this.waiting.push(waiting);
      this.emit('queued', this.waiting.length);
      gone?.(() => {
        const at = this.waiting.indexOf(waiting);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        this.emit('withdrawn', this.waiting.length);
        reject(overloaded(options));
      });
    });
  }

  /**
   * A place for one export's stream, given back by the function returned (once, whatever the
   * number of calls); a 503 `MR_OVERLOADED` when `exports` streams run. Always a place without a limit.
   */
  enterExport(): () => void {
    return this.enterBounded('exports', 'exports streaming');
  }

  /** A place for one import, given back as an export's is; a 503 `MR_OVERLOADED` when `imports` imports run. */
  enterImport(): () => void {
    return this.enterBounded('imports', 'imports running');
  }

  private enterBounded(kind: 'exports' | 'imports', running: string): () => void {
    const { options } = this;
    if (!options) return () => undefined;
    if (this.bounded[kind] >= options[kind]) {
      this.shedCount++;
      this.emit('shed', this.shedCount);
      throw overloaded(options, `${options[kind]} ${running}: forRoot({ admission: { ${kind} } })`);
    }
    this.bounded[kind]++;
    this.emit(kind, this.bounded[kind]);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.bounded[kind]--;
    };
  }

  /**
   * The 503 a request would be answered now, counted as shed, when no place is free and it could
   * not wait (the queue is full, or its wait would pass `maxWait`); `undefined` otherwise, and the
   * request then goes on to `enter`. For a platform hook that refuses before the body is read.
   */
  refuseEarly(kind?: object): ModelRoutesException | undefined {
    const { options, limit } = this;
    if (!options || !limit || this.fits(limit, kind) || !this.cannotWait(options, limit)) return undefined;
    return this.refuse();
  }

  /** Whether a request of this kind finds its places free now, with none waiting ahead of it (a kind takes at most `current` places: alone, it always does). */
  private fits(limit: ConcurrencyLimit, kind: object | undefined): boolean {
    return this.waiting.length === 0 && this.taken + limit.places(kind) <= limit.current;
  }

  /** Whether one more request would find the queue full, or a wait longer than `maxWait` (those ahead of it, at the admitted requests' recent pace). */
  private cannotWait(options: ResolvedAdmissionOptions, limit: ConcurrencyLimit): boolean {
    const ahead = this.waiting.length;
    return ahead >= options.queue || (options.maxWait !== undefined && ((ahead + 1) * this.serviceTime) / limit.current > options.maxWait);
  }

  /** A place taken now, its time counted from now. */
  private admit(kind: object | undefined): AdmissionTicket {
    const limit = this.limit!;
    const since = this.now();
    const generation = limit.generation;
    const places = limit.places(kind);
    this.active++;
    const busy = (this.taken += places);
    return new AdmissionTicket((failure) => {
      const elapsed = this.now() - since;
      // A database that cannot be reached makes every request slow: that is no load to adapt to.
      if (typeof failure === 'object') this.outage = failure.outage;
      else if (kind) {
        limit.done(kind, elapsed, failure === 'none', generation, busy);
        if (failure === 'none') this.serviceTime = this.serviceTime === 0 ? elapsed : this.serviceTime + (elapsed - this.serviceTime) * 0.1;
      }
      if (failure === 'none') this.outage = undefined;
      this.active--;
      this.taken -= places;
      this.emit('left', this.active);
      this.next();
    });
  }

  /** Lets the requests waiting in as far as the limit allows; one that has waited past `maxWait` is refused instead of started late. */
  private next(): void {
    const { options, limit } = this;
    if (!options || !limit) return;
    while (this.waiting.length > 0 && this.taken + limit.places(this.waiting[0]!.kind) <= limit.current) {
      const waiting = this.waiting.shift()!;
      if (options.maxWait !== undefined && this.now() - waiting.since > options.maxWait) waiting.refuse(this.refuse());
      else waiting.admit(this.admit(waiting.kind));
    }
  }

  /**
   * Counts a refused request and makes its 503, naming the limit as it stands (an adaptive one's
   * places and the requests at work on them) and the options that set it; while the database
   * cannot be reached (the last request that ended found it so), the 503 says that instead, with
   * its cause: the queue is stuck behind the outage, not behind the load.
   */
  private refuse(): ModelRoutesException {
    this.shedCount++;
    this.emit('shed', this.shedCount);
    const options = this.options as ResolvedAdmissionOptions;
    if (this.outage !== undefined) return unavailable(options, this.outage);
    const waiting = `${this.waiting.length} waiting`;
    // An adaptive limit counts places, which a few requests of a slow route can fill: both are named.
    if (!options.adaptive) return overloaded(options, `${this.concurrency} requests at work and ${waiting}: forRoot({ admission: { concurrency, queue } })`);
    const atWork = `${this.active} request${this.active === 1 ? '' : 's'} at work on ${this.concurrency} places`;
    return overloaded(options, `${atWork} and ${waiting}: forRoot({ admission: { min, max, queue, maxWait } })`);
  }
}

/** The 503 of a request refused while the database cannot be reached, its cause the error of the last request that found it so. */
function unavailable({ retryAfter }: ResolvedAdmissionOptions, cause: unknown): ModelRoutesException {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    const error = new ModelRoutesException('MR_DATABASE_UNAVAILABLE', 'The database is unavailable; try again later', undefined, {
      'Retry-After': String(retryAfter),
    });
    return Object.assign(error, { cause });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The 503 of a request that found neither a place nor room in the queue, without a stack trace: it
 * would only name the guard that shed it, and under a flood of shed requests capturing one was a
 * tenth of a shed answer's CPU (see BENCHMARKS.md, "What a shed request costs").
 */
function overloaded({ retryAfter }: ResolvedAdmissionOptions, limited = 'its client went away while it waited'): ModelRoutesException {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ModelRoutesException(
      'MR_OVERLOADED',
      `The server is at its admission limit (${limited}); try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}`,
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
}
