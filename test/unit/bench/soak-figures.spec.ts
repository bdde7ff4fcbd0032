import {
  burstTally,
  goodput,
  goodputRatio,
  parseRetryAfter,
  percentile,
  sweepRow,
  sweepTable,
  type Answer,
  type SweepRow,
} from '../../../bench/soak-figures.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function soakFiguresSpec(): void {
  const ok = (ms: number): Answer => ({ status: 200, ms });
  const shed = (ms = 1): Answer => ({ status: 503, code: 'MR_OVERLOADED', ms });

  describe('soak figures', () => {
    describe('goodput', () => {
      it('counts the 2xx answers only, per second', () => {
        expect(goodput({ '200': 90, '201': 10, '503': 400, '404': 3 }, 4)).toBe(25);
      });

      it('is 0 without time or without 2xx', () => {
        expect(goodput({ '200': 5 }, 0)).toBe(0);
        expect(goodput({ '503': 5 }, 2)).toBe(0);
      });
    });

    describe('parseRetryAfter', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');

      it('reads a whole number of seconds, with or without blanks, from a string or the first of an array', () => {
        expect(parseRetryAfter('1', now)).toBe(1);
        expect(parseRetryAfter(' 120 ', now)).toBe(120);
        expect(parseRetryAfter('0', now)).toBe(0);
        expect(parseRetryAfter(['3', '9'], now)).toBe(3);
      });

      it('reads an HTTP date as the seconds until it, rounded up, and 0 for a date already past', () => {
        expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2);
        expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:01 GMT', now + 500)).toBe(1);
        expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
      });

      it('gives undefined for no header and for what is neither seconds nor a date', () => {
        expect(parseRetryAfter(undefined, now)).toBeUndefined();
        expect(parseRetryAfter('', now)).toBeUndefined();
        expect(parseRetryAfter('1.5', now)).toBeUndefined();
        expect(parseRetryAfter('-3', now)).toBeUndefined();
        expect(parseRetryAfter('soon', now)).toBeUndefined();
      });
    });

    describe('percentile', () => {
      it('takes the nearest rank of the sorted values, rounded, and 0 without values', () => {
        const values = Array.from({ length: 100 }, (_, i) => 100 - i + 0.4);
        expect(percentile(values, 0.99)).toBe(100);
        expect(percentile(values, 0.5)).toBe(51);
        expect(percentile([7.6], 0.99)).toBe(8);
        expect(percentile([], 0.99)).toBe(0);
      });
    });

    describe('sweepRow', () => {
      it('gives the goodput, the p99 of the 2xx, the shed share, the other 5xx and the rest', () => {
        const answers: Answer[] = [
          ...Array.from({ length: 6 }, (_, i) => ok(10 * (i + 1))),
          { status: 201, ms: 5 },
          shed(),
          shed(),
          { status: 503, code: 'MR_DATABASE_UNAVAILABLE', ms: 3 },
          { status: 500, code: 'MR_INTERNAL', ms: 3 },
          { status: 404, code: 'MR_NOT_FOUND', ms: 3 },
          { status: 0, ms: 10000 },
        ];
        expect(sweepRow({ connections: 8, mode: 'honours Retry-After', seconds: 2, answers })).toEqual({
          connections: 8,
          mode: 'honours Retry-After',
          answers: 13,
          goodput: 3.5,
          admittedP99: 60,
          shedShare: 2 / 13,
          otherFivexx: 2,
          other: 2,
        });
      });

      it('holds a step without answers at 0', () => {
        expect(sweepRow({ connections: 1, mode: 'ignores Retry-After', seconds: 2, answers: [] })).toMatchObject({ goodput: 0, admittedP99: 0, shedShare: 0 });
      });
    });

    const row = (connections: number, mode: SweepRow['mode'], value: number): SweepRow => ({
      connections,
      mode,
      answers: 10,
      goodput: value,
      admittedP99: 100,
      shedShare: 0.5,
      otherFivexx: 0,
      other: 0,
    });

    describe('sweepTable', () => {
      it('prints one row per step, in the order run, under its header', () => {
        const table = sweepTable([
          { ...row(1, 'honours Retry-After', 106.25), shedShare: 0 },
          { ...row(100, 'ignores Retry-After', 41.96), shedShare: 0.988, otherFivexx: 2, other: 1, admittedP99: 4321 },
        ]);
        expect(table).toEqual([
          '| connections | mode | goodput (2xx/s) | admitted p99 | 503 share | 5xx (not 503) | other (4xx, errors) | answers |',
          '|---:|---|---:|---:|---:|---:|---:|---:|',
          '| 1 | honours Retry-After | 106.3 | 100 ms | 0.0% | 0 | 0 | 10 |',
          '| 100 | ignores Retry-After | 42.0 | 4321 ms | 98.8% | 2 | 1 | 10 |',
        ]);
      });
    });

    describe('goodputRatio', () => {
      const rows = [
        row(1, 'honours Retry-After', 100),
        row(8, 'honours Retry-After', 200),
        row(100, 'honours Retry-After', 150),
        row(1, 'ignores Retry-After', 100),
        row(100, 'ignores Retry-After', 40),
      ];

      it("compares the largest step's goodput with the best of the same mode", () => {
        expect(goodputRatio(rows, 'honours Retry-After', 0.8)).toMatchObject({
          ratio: 0.75,
          ok: false,
          largest: { connections: 100 },
          best: { connections: 8 },
        });
        expect(goodputRatio(rows, 'honours Retry-After', 0.75)).toMatchObject({ ok: true });
        expect(goodputRatio(rows, 'ignores Retry-After', 0.8)).toMatchObject({ ratio: 0.4, ok: false, best: { connections: 1 } });
      });

      it('passes when the largest step is the best, fails when no step had goodput, and is undefined for a mode not run', () => {
        expect(goodputRatio([row(1, 'honours Retry-After', 10), row(32, 'honours Retry-After', 12)], 'honours Retry-After', 0.8)).toMatchObject({
          ratio: 1,
          ok: true,
        });
        expect(goodputRatio([row(1, 'honours Retry-After', 0), row(32, 'honours Retry-After', 0)], 'honours Retry-After', 0.8)).toMatchObject({
          ratio: 0,
          ok: false,
        });
        expect(goodputRatio(rows.slice(0, 3), 'ignores Retry-After', 0.8)).toBeUndefined();
      });
    });

    describe('burstTally', () => {
      it('counts the 200s, the shed, the 422 MR_QUERY_TIMEOUT, the other 5xx and the rest, with the latency of the 200s and of every admitted', () => {
        const answers: Answer[] = [
          ...Array.from({ length: 100 }, (_, i) => ok(i + 1)),
          ...Array.from({ length: 50 }, () => shed(2)),
          { status: 422, code: 'MR_QUERY_TIMEOUT', ms: 5100 },
          { status: 422, code: 'MR_QUERY_TIMEOUT', ms: 5200 },
          { status: 500, code: 'MR_INTERNAL', ms: 40 },
          { status: 400, code: 'MR_RELATION_FILTER_TOO_BROAD', ms: 3 },
          { status: 0, ms: 30000 },
        ];
        expect(burstTally(answers)).toEqual({
          sent: 155,
          ok: 100,
          shed: 50,
          queryTimeout: 2,
          otherFivexx: 1,
          other: 2,
          okP99: 100,
          okMax: 100,
          admittedP99: 5200,
          admittedMax: 30000,
          others: { '422 MR_QUERY_TIMEOUT': 2, '500 MR_INTERNAL': 1, '400 MR_RELATION_FILTER_TOO_BROAD': 1, 'no answer': 1 },
        });
      });

      it('holds a burst of shed answers only at 0 admitted', () => {
        expect(burstTally([shed(), shed()])).toMatchObject({ sent: 2, ok: 0, shed: 2, okP99: 0, okMax: 0, admittedP99: 0, others: {} });
      });
    });
  });
}
