import { importTable, pairedRatio, rowsPerSecond, type ImportRun } from '../../../bench/import-table.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function importTableSpec(): void {
  /** `npm run bench:import`'s table (issue 27, "Measured"). */
  describe('bench:import table', () => {
    const run = (server: ImportRun['server'], round: number, ms: number, peakMiB = 10, extra: Partial<ImportRun> = {}): ImportRun => ({
      format: 'csv',
      rows: 10_000,
      server,
      round,
      ms,
      idleMiB: 120,
      peakMiB,
      cpuMs: ms / 2,
      ...extra,
    });

    it('counts rows per second of wall time', () => {
      expect(rowsPerSecond(run('hand', 1, 2000))).toBe(5000);
    });

    it("takes the ratio of the rows per second as the median of each round's pair, below 1 when the library is slower", () => {
      // Round 2 ran in a slow minute for both: its pair still reads 0.5.
      const generated = [run('generated', 1, 4000), run('generated', 2, 12_000), run('generated', 3, 5000)];
      const hand = [run('hand', 1, 2000), run('hand', 2, 6000), run('hand', 3, 1000)];
      expect(pairedRatio(generated, hand)).toBeCloseTo(0.5);
      expect(pairedRatio(generated, [])).toBeUndefined();
    });

    it('prints a row per size and format, sizes ascending, formats in their order, with the medians and ranges', () => {
      const runs = [
        run('generated', 1, 20_000, 30, { format: 'ndjson' }),
        run('hand', 1, 2000, 8, { format: 'ndjson' }),
        run('generated', 1, 10_000, 40),
        run('generated', 2, 12_500, 60),
        run('hand', 1, 1000, 5),
        run('hand', 2, 1250, 5),
        run('generated', 1, 400, 1, { rows: 200 }),
      ];
      const lines = importTable(runs);
      expect(lines[0]).toMatch(/^\| format \| rows \| generated, rows\/s \| hand-written, rows\/s \| generated \/ hand-written \|/);
      expect(lines.slice(2)).toEqual([
        '| csv | 200 | 500 | not run | – | 400 ms / – | 200 ms / – | 1,000 / – | 1.0 | – |',
        '| csv | 10,000 | 900 (800–1,000) | 9,000 (8,000–10,000) | 0.10 | 11.25 s / 1.13 s | 5.63 s / 563 ms | 563 / 56 | 50.0 (max 60.0) | 5.0 |',
        '| ndjson | 10,000 | 500 | 5,000 | 0.10 | 20.00 s / 2.00 s | 10.00 s / 1.00 s | 1,000 / 100 | 30.0 | 8.0 |',
      ]);
    });
  });
}
