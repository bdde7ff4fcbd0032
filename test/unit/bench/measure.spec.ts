import { median, pairedCell, pairedRatio, rotated, validMeasure, verdict } from '../../../bench/measure.js';

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

  /** Issue 40, item 4: a target is judged on the slices' own ratios, with an interval, not on two medians. */
  describe('pairedRatio', () => {
    const slices = (...rps: number[]) => rps.map((value) => ({ rps: value, p50: 1, p99: 1, requests: value }));

    it("takes the median of each slice's own ratio, which a drift shared by both servers does not move", () => {
      // The machine slows by half over the run; the generated routes serve 0.9 of the other server in every slice.
      const other = slices(1000, 900, 800, 700, 600, 500, 500, 450, 400);
      const generated = slices(...other.map((measure) => measure.rps * 0.9));
      const ratio = pairedRatio(generated, other)!;
      expect(ratio.median).toBeCloseTo(0.9, 10);
      expect([ratio.low, ratio.high].map((bound) => bound.toFixed(10))).toEqual(['0.9000000000', '0.9000000000']);
    });

    it('gives the sign test interval of the median: the 2nd and 8th of 9 ratios, at 96%', () => {
      const other = slices(100, 100, 100, 100, 100, 100, 100, 100, 100);
      const generated = slices(90, 101, 97, 94, 99, 103, 96, 92, 98);
      expect(pairedRatio(generated, other)).toEqual({ median: 0.97, low: 0.92, high: 1.01, slices: 9, coverage: 1 - 20 / 512 });
    });

    it('widens to the whole range when the slices are too few for 95%, and says its coverage', () => {
      const ratio = pairedRatio(slices(90, 110, 100, 95, 105), slices(100, 100, 100, 100, 100))!;
      expect(ratio).toEqual({ median: 1, low: 0.9, high: 1.1, slices: 5, coverage: 1 - 2 / 32 });
      // An even count: the mean of the two middle ratios.
      expect(pairedRatio(slices(90, 100, 110, 120), slices(100, 100, 100, 100))!.median).toBeCloseTo(1.05, 10);
    });

    it('is undefined when a side is missing or the slices do not pair', () => {
      expect(pairedRatio(undefined, slices(1))).toBeUndefined();
      expect(pairedRatio(slices(1, 2), slices(1))).toBeUndefined();
      expect(pairedRatio([], [])).toBeUndefined();
    });

    it('judges a target met, not met, or not decided by this run', () => {
      const judged = (low: number, high: number) => verdict({ median: (low + high) / 2, low, high, slices: 9, coverage: 0.96 }, 0.95);
      expect(judged(0.95, 1.1)).toBe('met');
      expect(judged(0.8, 0.949)).toBe('not met');
      expect(judged(0.9, 1.0)).toBe('cannot tell');
      expect(pairedCell(pairedRatio(slices(90, 101, 97, 94, 99, 103, 96, 92, 98), slices(100, 100, 100, 100, 100, 100, 100, 100, 100)))).toBe(
        '0.97 (0.92–1.01, 9 slices, 96%)',
      );
      expect(pairedCell(undefined)).toBe('–');
    });
  });
}
