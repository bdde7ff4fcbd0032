import { EventEmitter } from 'node:events';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';

/**
 * Limits of the image work of one `forRoot` registration (`forRoot({ images })`).
 *
 * @publicApi
 */
export interface ImageOptions {
  /**
   * The largest image a field with `variants` accepts, in pixels (width × height), counted twice
   * when the image is interlaced or progressive and twice again at more than 8 bits per sample:
   * such an image is decoded whole, in memory, before it can be resized. Checked at upload (413
   * `MR_IMAGE_TOO_LARGE`) and before each resize. A field's `variants.maxPixels` wins. Default
   * 25,000,000 (a 6000 × 4000 photo).
   */
  maxPixels?: number;
  /** Resizes run at once; the others wait in the queue. Default 2 (libuv's pool has 4 threads, shared with file and DNS work). */
  concurrency?: number;
  /** Resizes that may wait for a place; past it a resize is a 503 `MR_IMAGE_BUSY` with `Retry-After`. Default 16. */
  queue?: number;
  /** Seconds one resize may take (sharp's `timeout`); past it a 503 `MR_IMAGE_BUSY` with `Retry-After`. Default 10. */
  timeout?: number;
}

export type ResolvedImageOptions = Required<ImageOptions>;

/** Seconds a client is told to wait (`Retry-After`) when the resizes are all taken. */
export const RETRY_AFTER_SECONDS = 2;

/** `images` of `forRoot`, checked and completed. */
export function resolveImageOptions(options: ImageOptions = {}): ResolvedImageOptions {
  const resolved = { maxPixels: 25_000_000, concurrency: 2, queue: 16, timeout: 10, ...options };
  const minimum = { maxPixels: 1, concurrency: 1, queue: 0, timeout: 1 };
  for (const [key, least] of Object.entries(minimum) as Array<[keyof ResolvedImageOptions, number]>) {
    const value = resolved[key];
    if (!Number.isSafeInteger(value) || value < least) {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `ModelRoutesModule.forRoot({ images }): ${key} must be an integer of at least ${least} (got ${JSON.stringify(value)}).`,
      );
    }
  }
  return resolved;
}

/** The 503 of an image resize that found no place, or ran out of time. */
export function imageBusy(where: string, why: string): ModelRoutesException {
  const message = `${where}: ${why}; try again in ${RETRY_AFTER_SECONDS} seconds`;
  return new ModelRoutesException('MR_IMAGE_BUSY', message, [{ path: 'file', message }], { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

/**
 * The image resizes of one registration: at most `concurrency` at once, at most `queue` waiting
 * (in arrival order), the rest refused. Emits `'queued'` when a resize starts to wait (with the
 * number waiting), which tests use to know where a request is without timing it.
 */
export class ImageWork extends EventEmitter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly options: ResolvedImageOptions) {
    super();
  }

  /** Resizes running now. */
  get running(): number {
    return this.active;
  }

  /** Resizes waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `job` when a place is free; a 503 `MR_IMAGE_BUSY` when the queue is full. */
  async run<T>(job: () => Promise<T>, where: string): Promise<T> {
    if (this.active < this.options.concurrency) {
      this.active++;
    } else {
      if (this.waiting.length >= this.options.queue) {
        throw imageBusy(
          where,
          `${this.options.concurrency} images are being resized and ${this.options.queue} wait (forRoot({ images: { concurrency, queue } }))`,
        );
      }
      // The place is handed over by the job that ends: `active` stays as it is.
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.emit('queued', this.waiting.length);
      });
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
