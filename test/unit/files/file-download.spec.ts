import fc from 'fast-check';
import { rangeOf } from '../../../src/files/file-download.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileDownloadSpec(): void {
  /** The seed of the property below: fixed, so that every run checks the same ranges. */
  const SEED = 2006;
  const ETAG = '"abc"';
  const range = (value: string, size = 100, ifRange?: string) => rangeOf({ range: value, ...(ifRange && { 'if-range': ifRange }) }, ETAG, size);

  describe('rangeOf', () => {
    it.each([
      ['bytes=0-9', { start: 0, end: 10 }],
      ['bytes=90-', { start: 90, end: 100 }],
      ['bytes=90-500', { start: 90, end: 100 }],
      ['bytes=-10', { start: 90, end: 100 }],
      ['bytes=-500', { start: 0, end: 100 }],
      ['bytes=100-', 'unsatisfiable'],
      ['bytes=-0', 'unsatisfiable'],
      ['bytes=5-1', undefined],
      ['bytes=0-1,5-6', undefined],
      ['items=0-1', undefined],
      ['bytes=-', undefined],
    ])('%s', (header, expected) => {
      expect(range(header)).toEqual(expected);
    });

    it('ignores a Range whose If-Range is not the current ETag', () => {
      expect(range('bytes=0-9', 100, '"old"')).toBeUndefined();
      expect(range('bytes=0-9', 100, ETAG)).toEqual({ start: 0, end: 10 });
    });

    it(`always answers a range within the file (fast-check seed ${SEED})`, () => {
      fc.assert(
        fc.property(fc.nat(1e6), fc.option(fc.nat(2e6)), fc.option(fc.nat(2e6)), fc.integer({ min: 1, max: 1e6 }), (_unused, first, last, size) => {
          const header = `bytes=${first ?? ''}-${last ?? ''}`;
          const result = rangeOf({ range: header }, ETAG, size);
          if (result && result !== 'unsatisfiable') {
            expect(result.start).toBeGreaterThanOrEqual(0);
            expect(result.end).toBeGreaterThan(result.start);
            expect(result.end).toBeLessThanOrEqual(size);
          }
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
  });
}
