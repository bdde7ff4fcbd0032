import { ImageWork, resolveImageOptions } from '../../../src/files/image-work.js';
import { weightedPixels } from '../../../src/files/image-pixels.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function imageWorkSpec(): void {
  function held(): { promise: Promise<void>; release: () => void } {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    return { promise, release };
  }

  describe('resolveImageOptions', () => {
    it('has bounded defaults: 25 megapixels, 2 at once, 16 waiting, 10 seconds', () => {
      expect(resolveImageOptions()).toEqual({ maxPixels: 25_000_000, concurrency: 2, queue: 16, timeout: 10 });
      expect(resolveImageOptions({ queue: 0 }).queue).toBe(0);
    });

    it.each([
      [{ maxPixels: 0 }, /maxPixels must be an integer of at least 1/],
      [{ concurrency: 0 }, /concurrency must be an integer of at least 1/],
      [{ queue: -1 }, /queue must be an integer of at least 0/],
      [{ timeout: 1.5 }, /timeout must be an integer of at least 1/],
    ])('refuses %p at startup, naming the option', (options, message) => {
      expect(() => resolveImageOptions(options)).toThrow(message);
    });
  });

  describe('weightedPixels', () => {
    it('counts an interlaced image twice, and twice again at more than 8 bits per sample', () => {
      const header = { width: 100, height: 50, interlaced: false, deep: false };
      expect(weightedPixels(header)).toBe(5000);
      expect(weightedPixels({ ...header, interlaced: true })).toBe(10_000);
      expect(weightedPixels({ ...header, deep: true })).toBe(10_000);
      expect(weightedPixels({ ...header, interlaced: true, deep: true })).toBe(20_000);
    });
  });

  describe('ImageWork', () => {
    it('runs at most `concurrency` jobs, queues at most `queue` in arrival order, refuses the rest with a 503 and Retry-After', async () => {
      const work = new ImageWork(resolveImageOptions({ concurrency: 2, queue: 2 }));
      const started: string[] = [];
      const jobs = Object.fromEntries(['a', 'b', 'c', 'd'].map((name) => [name, held()]));
      const run = (name: string) =>
        work.run(async () => {
          started.push(name);
          await jobs[name].promise;
          return name;
        }, 'Picture.image');
      const a = run('a');
      const b = run('b');
      const c = run('c');
      const d = run('d');
      await Promise.resolve();
      expect(started).toEqual(['a', 'b']);
      expect({ running: work.running, queued: work.queued }).toEqual({ running: 2, queued: 2 });
      const refused = await run('e').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ModelRoutesException);
      expect((refused as ModelRoutesException).getStatus()).toBe(503);
      expect(refused).toMatchObject({ code: 'MR_IMAGE_BUSY', headers: { 'Retry-After': '2' } });
      jobs.b.release();
      await expect(b).resolves.toBe('b');
      await new Promise((resolve) => setImmediate(resolve));
      expect(started).toEqual(['a', 'b', 'c']);
      for (const name of ['a', 'c', 'd']) jobs[name].release();
      await expect(Promise.all([a, c, d])).resolves.toEqual(['a', 'c', 'd']);
      expect({ running: work.running, queued: work.queued }).toEqual({ running: 0, queued: 0 });
    });

    it('frees its place when a job fails', async () => {
      const work = new ImageWork(resolveImageOptions({ concurrency: 1, queue: 0 }));
      await expect(work.run(() => Promise.reject(new Error('broken')), 'x')).rejects.toThrow('broken');
      await expect(work.run(() => Promise.resolve(1), 'x')).resolves.toBe(1);
    });
  });
}
