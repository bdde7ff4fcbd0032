import { duration, exportTable, pairedRatio, targetsCell, type ExportRun } from '../../../bench/export-table.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function exportTableSpec(): void {
  /** `npm run bench:export`'s table (issue 27, "Measured"). */
  describe('bench:export table', () => {
    const run = (server: ExportRun['server'], round: number, ms: number, peakMiB = 10, extra: Partial<ExportRun> = {}): ExportRun => ({
      format: 'csv',
      size: 100_000,
      server,
      round,
      ms,
      bytes: 7_500_000,
      idleMiB: 120,
      peakMiB,
      cpuMs: ms / 2,
      ...extra,
    });

    it('writes a duration in ms under a second, in seconds above', () => {
      expect(duration(850.4)).toBe('850 ms');
      expect(duration(12_345)).toBe('12.35 s');
    });

    it("takes the ratio as the median of each round's pair, not as the ratio of the medians", () => {
      // Round 2 ran in a slow minute for both: its pair still reads 1.0.
      const generated = [run('generated', 1, 1100), run('generated', 2, 3000), run('generated', 3, 1200)];
      const hand = [run('hand', 1, 1000), run('hand', 2, 3000), run('hand', 3, 1000)];
      expect(pairedRatio(generated, hand)).toBeCloseTo(1.1);
      expect(pairedRatio(generated, [])).toBeUndefined();
    });

    it('meets the time target at 1.2 and the memory target at 50 MiB, judged on the highest peak of the rounds', () => {
      expect(targetsCell(1.2, [run('generated', 1, 1000, 50)])).toBe('time yes, RSS yes');
      expect(targetsCell(1.21, [run('generated', 1, 1000, 10), run('generated', 2, 1000, 50.1)])).toBe('time NO, RSS NO');
      expect(targetsCell(undefined, [])).toBe('time –, RSS –');
    });

    it('prints a row per size and format, sizes ascending, formats in their order, with the medians and ranges', () => {
      const runs = [
        run('generated', 1, 11_000, 12, { format: 'xlsx', bytes: 4_000_000 }),
        run('hand', 1, 10_000, 9, { format: 'xlsx', bytes: 4_000_000 }),
        run('generated', 1, 2000, 30),
        run('generated', 2, 2400, 60),
        run('hand', 1, 1900, 5, { bytes: 7_400_000 }),
        run('hand', 2, 2000, 5, { bytes: 7_400_000 }),
        run('generated', 1, 90, 1, { size: 1000, format: 'json', bytes: 130_000 }),
      ];
      const lines = exportTable(runs);
      expect(lines[0]).toMatch(/^\| format \| companies \| generated \| hand-written \| generated \/ hand-written \| bytes \|/);
      expect(lines.slice(2)).toEqual([
        '| json | 1,000 | 90 ms | not run | – | 130,000 / – | 1.0 | – | 45 ms / – | time –, RSS yes |',
        '| csv | 100,000 | 2.20 s (2.00 s–2.40 s) | 1.95 s (1.90 s–2.00 s) | 1.13 | 7,500,000 / 7,400,000 | 45.0 (max 60.0) | 5.0 | 1.10 s / 975 ms | time ' +
          'yes, RSS NO |',
        '| xlsx | 100,000 | 11.00 s | 10.00 s | 1.10 | 4,000,000 | 12.0 | 9.0 | 5.50 s / 5.00 s | time yes, RSS yes |',
      ]);
    });
  });
}
