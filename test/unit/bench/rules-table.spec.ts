import { cpuPerRequest, pairedRatio, rulesTable, type RulesRun } from '../../../bench/rules-table.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function rulesTableSpec(): void {
  /** `npm run bench:rules`'s table (issue 28, "How it is proven"). */
  describe('bench:rules table', () => {
    const run = (variant: RulesRun['variant'], round: number, rps: number, cpuMs: number, extra: Partial<RulesRun> = {}): RulesRun => ({
      scenario: 'create',
      variant,
      round,
      rps,
      p50: round,
      p99: 10 * round,
      requests: rps * 6,
      cpuMs,
      ...extra,
    });
    const runs = [run('plain', 1, 1000, 6000), run('plain', 2, 500, 3300), run('scoped', 1, 900, 5940), run('scoped', 2, 400, 2880)];

    it('counts server CPU per request in µs', () => {
      expect(cpuPerRequest(run('plain', 1, 1000, 6000))).toBe(1000);
    });

    it("takes each ratio to the baseline as the median of the rounds' ratios (a slow round weighs on both)", () => {
      expect(pairedRatio(runs, 'create', 'scoped', (measured) => measured.rps)).toBeCloseTo(0.85);
      expect(pairedRatio(runs, 'create', 'scoped', cpuPerRequest)).toBeCloseTo((1.1 + 1200 / 1100) / 2);
      expect(pairedRatio(runs, 'get one', 'scoped', (measured) => measured.rps)).toBeUndefined();
    });

    it('prints a row per scenario and resource that ran, in their orders, the median round and the ranges', () => {
      const lines = rulesTable([...runs, run('ruled', 1, 300, 1800, { scenario: 'get one' })]);
      expect(lines[0]).toMatch(/^\| scenario \| rules \| requests\/s \| p50 \/ p99, ms \| requests\/s, rules \/ baseline \|/);
      expect(lines.slice(2)).toEqual([
        '| create | none (baseline) | 500 (500–1,000) | 2 / 20 | 1 | 1050 | 1 |',
        '| create | row scope | 400 (400–900) | 2 / 20 | 0.85 | 1150 | 1.10 |',
        '| get one | row scope + before-hooks | 300 | 1 / 10 | – | 1000 | – |',
      ]);
    });
  });
}
