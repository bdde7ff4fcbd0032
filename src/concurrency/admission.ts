import { EventEmitter } from 'node:events';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';

/**
 * The admission limit of one `forRoot` registration (`forRoot({ admission })`): how many requests
 * to its generated routes do their database work at once, and how many wait for a place.
 *
 * @publicApi
 */
export interface AdmissionOptions {
  /**
   * Requests to the generated routes that do their work at once; the others wait in the queue.
   * Default: a quarter of the connection pool's `maxPoolSize` (the driver's default pool of 100
   * gives 25), at least 1: a search holds up to three connections at once (its page, its count,
   * the collection's count), and the pool keeps room for your own code.
   */
  concurrency?: number;
  /**
   * Requests that may wait for a place, in arrival order; past it a request is answered 503
   * `MR_OVERLOADED` with `Retry-After` at once, without touching the database. Default: as many as
   * `concurrency` (0: none waits).
   */
  queue?: number;
  /** Seconds a refused client is told to wait (`Retry-After`). Default 1. */
  retryAfter?: number;
  /**
   * Exports that stream at once (`GET /<plural>/export`): each holds a database cursor and its
   * connection to the client for as long as the client reads, so an export takes a place under
   * `concurrency` only for its first page, and one of these for the rest. Past it an export is
   * answered 503 `MR_OVERLOADED` with `Retry-After` at once. Default 2.
   */
  exports?: number;
  /**
   * Imports at once (`POST /<plural>/import`): each holds its place under `concurrency` while its
   * file arrives (at its client's pace, within `search.importBodyTimeout`) and while its rows are
   * written, so that a few slow uploads of files cannot take every place. Past it an import is
   * answered 503 `MR_OVERLOADED` with `Retry-After` at once, before its body is read. Default 2.
   */
  imports?: number;
}

/** The admission limit in force, every number given. */
export type ResolvedAdmissionOptions = Required<AdmissionOptions>;

/** The driver's default `maxPoolSize`, used when the connection does not say its own. */
export const DEFAULT_POOL_SIZE = 100;

/** `admission` of `forRoot`, checked and completed from the connection's pool size; `false` turns the limit off. */
export function resolveAdmissionOptions(options: AdmissionOptions | false | undefined, poolSize: number | undefined): ResolvedAdmissionOptions | false {
  if (options === false) return false;
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `ModelRoutesModule.forRoot({ admission }): admission must be an object or false (got ${JSON.stringify(options)}).`,
    );
  }
  const pool = Number.isSafeInteger(poolSize) && poolSize! > 0 ? poolSize! : DEFAULT_POOL_SIZE;
  const concurrency = options?.concurrency ?? Math.max(1, Math.floor(pool / 4));
  const resolved = { concurrency, queue: concurrency, retryAfter: 1, exports: 2, imports: 2, ...options };
  const minimum = { concurrency: 1, queue: 0, retryAfter: 0, exports: 1, imports: 1 };
  for (const [key, least] of Object.entries(minimum) as Array<[keyof ResolvedAdmissionOptions, number]>) {
    const value = resolved[key];
    if (!Number.isSafeInteger(value) || value < least) {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `ModelRoutesModule.forRoot({ admission }): ${key} must be an integer of at least ${least} (got ${JSON.stringify(value)}).`,
      );
    }
  }
  return resolved;
}

/**
 * One admitted request's place. It is given back once, when the request is over (`end`: answered,
 * refused, or its connection closed) and no work runs under it any more (`hold` / `unhold`): a
 * client that goes away while its query runs does not free the place before the query ends.
 */
export class AdmissionTicket {
  private holds = 0;
  private ended = false;
  private left = false;

  constructor(private readonly giveBack: () => void) {}

  /** Work that uses the database starts under this place. */
  hold(): void {
    this.holds++;
  }

  /** That work is over. */
  unhold(): void {
    this.holds--;
    this.settle();
  }

  /** The request is over; the place is given back as soon as no work holds it. */
  end(): void {
    this.ended = true;
    this.settle();
  }

  private settle(): void {
    if (this.ended && this.holds === 0 && !this.left) {
      this.left = true;
      this.giveBack();
    }
  }
}

/**
 * The admission limit of one registration: at most `concurrency` requests of its generated routes
 * at work, at most `queue` waiting (in arrival order), the rest refused at once with a 503
 * `MR_OVERLOADED` and `Retry-After`. A request whose client goes away while it waits leaves the
 * queue without running. Emits `'queued'` when a request starts to wait (with the number waiting),
 * `'withdrawn'` when one leaves the queue because its client went away, `'shed'` when one is
 * refused, `'left'` when one gives its place back, and `'exports'` or `'imports'` when one takes a
 * place under that bound (with the number taken), which tests use to know where requests are
 * without timing them.
 */
export class Admission extends EventEmitter {
  private active = 0;
  /** Exports streaming, imports running: each under its own bound, beside `concurrency`. */
  private readonly bounded = { exports: 0, imports: 0 };
  private readonly waiting: Array<() => void> = [];
  private shedCount = 0;

  constructor(readonly options: ResolvedAdmissionOptions | false) {
    super();
  }

  /** Requests at work now. */
  get running(): number {
    return this.active;
  }

  /** Requests waiting for a place. */
  get queued(): number {
    return this.waiting.length;
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
   * otherwise; a 503 `MR_OVERLOADED` when the queue is full. `undefined` when there is no limit.
   *
   * @param gone registers the call that withdraws the request from the queue, for when its client
   *   goes away while it waits: it then leaves the queue at once (`'withdrawn'`), its promise is
   *   rejected with the 503 nobody will read, and its work never runs. Called once a request has a
   *   place, it does nothing.
   */
  enter(gone?: (withdraw: () => void) => void): AdmissionTicket | Promise<AdmissionTicket> | undefined {
    const { options } = this;
    if (!options) return undefined;
    if (this.active < options.concurrency) {
      this.active++;
      return new AdmissionTicket(() => this.leave());
    }
    if (this.waiting.length >= options.queue) {
      this.shedCount++;
      this.emit('shed', this.shedCount);
      throw overloaded(options);
    }
    // The place is handed over by the request that leaves: `active` stays as it is.
    return new Promise<AdmissionTicket>((resolve, reject) => {
      const admit = () => resolve(new AdmissionTicket(() => this.leave()));
      this.waiting.push(admit);
      this.emit('queued', this.waiting.length);
      gone?.(() => {
        const at = this.waiting.indexOf(admit);
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

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
    this.emit('left', this.active);
  }
}

/**
 * The 503 of a request that found neither a place nor room in the queue, without a stack trace: it
 * would only name the guard that shed it, and under a flood of shed requests capturing one was a
 * tenth of a shed answer's CPU (see BENCHMARKS.md, "What a shed request costs").
 */
function overloaded(
  { concurrency, queue, retryAfter }: ResolvedAdmissionOptions,
  limited = `${concurrency} requests at work and ${queue} waiting: forRoot({ admission: { concurrency, queue } })`,
): ModelRoutesException {
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
