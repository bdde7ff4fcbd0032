import { median, rotated, validMeasure } from '../../../bench/measure.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function measureSpec(): void {
  /** The benchmark harness prints no number from a run that is not a measure (issue 12, item 5). */
  describe('validMeasure', () => {
    const run = (overrides: Partial<{ total: number; ms: number; non2xx: number; errors: number; timeouts: number }> = {}) => {
      const { total = 100, ms = 2000, non2xx = 0, errors = 0, timeouts = 0 } = overrides;
      const start = new Date('2026-11-22T12:00:00Z');
      return { requests: { total }, start, finish: new Date(start.getTime() + ms), latency: { p50: 4, p99: 9 }, non2xx, errors, timeouts };
    };

    it("gives requests/s over the run's own time, and its latency", () => {
      expect(validMeasure(run(), 'generated get one')).toEqual({ rps: 50, p50: 4, p99: 9, requests: 100 });
      // A fixed amount that took less than a second.
      expect(validMeasure(run({ total: 24, ms: 400 }), 'generated search')).toEqual({ rps: 60, p50: 4, p99: 9, requests: 24 });
    });

    it.each([
      ['no request completed', run({ total: 0 })],
      ['a run of 0 s', run({ ms: 0 })],
      ['3 non-2xx answers', run({ non2xx: 3 })],
      ['2 errors', run({ errors: 2 })],
      ['1 timeouts', run({ timeouts: 1 })],
    ])('refuses a run with %s, naming it', (reason, result) => {
      expect(() => validMeasure(result, 'handwritten reverse reference (POST)')).toThrow(
        `benchmark handwritten reverse reference (POST): not a valid measure (${reason}`,
      );
    });
  });

  describe('median', () => {
    const m = (rps: number) => ({ rps, p50: rps, p99: rps, requests: rps });

    it('takes the middle round, and the range of all', () => {
      expect(median([m(30), m(10), m(20)])).toEqual({ rps: 20, p50: 20, p99: 20, requests: 20, min: 10, max: 30 });
    });

    it('takes the lower middle of an even count, so that it is a measured round', () => {
      expect(median([m(40), m(10)])).toEqual({ rps: 10, p50: 10, p99: 10, requests: 10, min: 10, max: 40 });
    });

    it('is undefined without rounds', () => {
      expect(median([])).toBeUndefined();
      expect(median(undefined)).toBeUndefined();
    });
  });

  describe('rotated', () => {
    it('starts each interleaved slice one server further, every server once', () => {
      const servers = ['generated', 'handwritten', 'peer'];
      expect([0, 1, 2, 3].map((slice) => rotated(servers, slice))).toEqual([
        ['generated', 'handwritten', 'peer'],
        ['handwritten', 'peer', 'generated'],
        ['peer', 'generated', 'handwritten'],
        ['generated', 'handwritten', 'peer'],
      ]);
      expect(rotated([], 5)).toEqual([]);
    });
  });
}
