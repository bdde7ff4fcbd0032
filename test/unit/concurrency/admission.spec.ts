import { Admission, resolveAdmissionOptions } from '../../../src/concurrency/admission.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function admissionOptionsSpec(): void {
  describe('resolveAdmissionOptions', () => {
    const adaptive = (min: number, max: number, slow = 1250) => ({ min, max, initial: min, slow });
    it('adapts by default between 8 (max if lower) and a quarter of maxPoolSize (at least 1), twice as many waiting, for a fifth of maxTimeMS at most', () => {
      const defaults = { retryAfter: 1, exports: 2, imports: 2 };
      expect(resolveAdmissionOptions(undefined, 100)).toEqual({ concurrency: 8, queue: 50, maxWait: 1000, adaptive: adaptive(8, 25), ...defaults });
      expect(resolveAdmissionOptions({}, 24)).toEqual({ concurrency: 6, queue: 12, maxWait: 1000, adaptive: adaptive(6, 6), ...defaults });
      expect(resolveAdmissionOptions({}, 10)).toEqual({ concurrency: 2, queue: 4, maxWait: 1000, adaptive: adaptive(2, 2), ...defaults });
      expect(resolveAdmissionOptions(undefined, 1)).toEqual({ concurrency: 1, queue: 2, maxWait: 1000, adaptive: adaptive(1, 1), ...defaults });
      // A pool the connection does not tell: the driver's default of 100.
      expect(resolveAdmissionOptions(undefined, undefined)).toEqual({ concurrency: 8, queue: 50, maxWait: 1000, adaptive: adaptive(8, 25), ...defaults });
      // The time limit of the searches sets the wait and what is slow.
      expect(resolveAdmissionOptions({ min: 4, max: 40 }, 100, 20_000)).toEqual({
        concurrency: 4,
        queue: 80,
        maxWait: 4000,
        adaptive: adaptive(4, 40, 5000),
        ...defaults,
      });
      expect(resolveAdmissionOptions({ queue: 0, retryAfter: 5, exports: 4, imports: 3, maxWait: 300 }, 100)).toEqual({
        concurrency: 8,
        queue: 0,
        maxWait: 300,
        retryAfter: 5,
        exports: 4,
        imports: 3,
        adaptive: adaptive(8, 25),
      });
      expect(resolveAdmissionOptions(false, 100)).toBe(false);
    });

    it('keeps a fixed limit when given concurrency: as many waiting, no bound on the wait unless given', () => {
      expect(resolveAdmissionOptions({ concurrency: 4 }, 100)).toEqual({ concurrency: 4, queue: 4, retryAfter: 1, exports: 2, imports: 2 });
      expect(resolveAdmissionOptions({ concurrency: 4, queue: 1, maxWait: 50 }, 100)).toEqual({
        concurrency: 4,
        queue: 1,
        maxWait: 50,
        retryAfter: 1,
        exports: 2,
        imports: 2,
      });
    });

    it.each([
      [{ concurrency: 0 }, /concurrency must be an integer of at least 1/],
      [{ queue: -1 }, /queue must be an integer of at least 0/],
      [{ retryAfter: 0.5 }, /retryAfter must be an integer of at least 0/],
      [{ imports: 0 }, /imports must be an integer of at least 1/],
      [{ maxWait: 0 }, /maxWait must be an integer of at least 1/],
      [{ min: 0 }, /min must be an integer of at least 1/],
      [{ min: 8, max: 4 }, /min \(8\) must not be above max \(4\)/],
      [{ concurrency: 4, max: 8 }, /either a fixed concurrency or the bounds min and max/],
      [true, /admission must be an object or false/],
    ])('refuses %p at startup, naming the option', (options, message) => {
      expect(() => resolveAdmissionOptions(options as never, 100)).toThrow(message);
    });
  });

  describe('Admission', () => {
    it('admits `concurrency` at once, queues `queue` in arrival order, refuses the next with MR_OVERLOADED and Retry-After', async () => {
      const admission = new Admission({ concurrency: 1, queue: 1, retryAfter: 3, exports: 2, imports: 2 });
      const first = admission.enter();
      expect(first).toBeDefined();
      expect(first).not.toBeInstanceOf(Promise);
      const second = admission.enter() as Promise<unknown>;
      expect(second).toBeInstanceOf(Promise);
      let refused: unknown;
      try {
        admission.enter();
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(ModelRoutesException);
      expect(refused).toMatchObject({ code: 'MR_OVERLOADED', headers: { 'Retry-After': '3' } });
      expect([admission.running, admission.queued, admission.shed]).toEqual([1, 1, 1]);
      (first as { end(): void }).end();
      const handed = (await second) as { end(): void };
      expect([admission.running, admission.queued]).toEqual([1, 0]);
      handed.end();
      handed.end();
      expect([admission.running, admission.queued]).toEqual([0, 0]);
    });

    it.each([
      ['exports', 'enterExport'],
      ['imports', 'enterImport'],
    ] as const)(
      'runs at most `%s` at once, apart from the requests at work; a place given back twice counts once; no limit without admission',
      (kind, enter) => {
        const admission = new Admission({ concurrency: 1, queue: 0, retryAfter: 2, exports: 2, imports: 2, [kind]: 2 });
        const other = kind === 'exports' ? 'enterImport' : 'enterExport';
        const first = admission[enter]();
        const second = admission[enter]();
        expect(() => admission[enter]()).toThrow(
          expect.objectContaining({ code: 'MR_OVERLOADED', headers: { 'Retry-After': '2' }, message: expect.stringContaining(`admission: { ${kind} }`) }),
        );
        expect(admission.shed).toBe(1);
        // The requests' places are the other limit's, and the other kind has its own.
        expect(admission.enter()).toBeDefined();
        expect(admission[other]()).toBeInstanceOf(Function);
        first();
        first();
        const third = admission[enter]();
        expect(() => admission[enter]()).toThrow(expect.objectContaining({ code: 'MR_OVERLOADED' }));
        second();
        third();
        const unbounded = new Admission(false);
        for (let i = 0; i < 5; i++) unbounded[enter]();
      },
    );

    it('sheds with an exception that carries no stack frames, and leaves the stack trace limit as it was', () => {
      const admission = new Admission({ concurrency: 0, queue: 0, retryAfter: 1, exports: 2, imports: 2 });
      const limit = Error.stackTraceLimit;
      let refused: Error | undefined;
      try {
        admission.enter();
      } catch (error) {
        refused = error as Error;
      }
      expect(refused).toBeInstanceOf(ModelRoutesException);
      expect(refused!.stack?.split('\n').filter((line) => line.trim().startsWith('at '))).toEqual([]);
      expect(Error.stackTraceLimit).toBe(limit);
      expect(new Error('after').stack).toMatch(/\n\s+at /);
    });

    it('lets everything in when turned off', () => {
      expect(new Admission(false).enter()).toBeUndefined();
    });
  });
}
