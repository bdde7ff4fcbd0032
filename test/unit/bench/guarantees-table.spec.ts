import { ALL, GENERATED, GUARANTEE_NAMES, guaranteesTable, guaranteeVariants, PLAIN, SAME, type VariantMeasure } from '../../../bench/guarantees-table.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function guaranteesTableSpec(): void {
  describe('bench:guarantees table', () => {
    it('measures the generated server, the plain hand-written one, each guarantee alone, all of them, then those the generated routes give', () => {
      const variants = guaranteeVariants();
      expect(variants.map((variant) => variant.label)).toEqual([GENERATED, PLAIN, ...GUARANTEE_NAMES.map((name) => `hand-written + ${name}`), ALL, SAME]);
      expect(variants.find((variant) => variant.label === ALL)).toMatchObject({ app: 'handwritten', guarantees: ['all'] });
      expect(variants.find((variant) => variant.label === PLAIN)).toMatchObject({ app: 'handwritten', guarantees: [] });
      // The generated routes of a resource without overrides run without AsyncLocalStorage: the same guarantees leave `context` out.
      expect(variants.find((variant) => variant.label === SAME)).toMatchObject({ app: 'handwritten', guarantees: ['bound', 'check', 'version', 'queue'] });
    });

    it('measures three servers when brief: the generated one, the plain hand-written one and the one with the same guarantees', () => {
      expect(guaranteeVariants(true).map((variant) => variant.label)).toEqual([GENERATED, PLAIN, SAME]);
    });

    it('gives the medians of the rounds, the CPU each guarantee adds, and the generated server against the hand-written one with all of them', () => {
      const runs = (variant: string, values: Array<[number, number]>): VariantMeasure[] =>
        values.map(([rps, cpu]) => ({ adapter: 'fastify', scenario: 'modify', variant, rps, cpu }));
      const table = guaranteesTable([
        ...runs(GENERATED, [
          [400, 1000],
          [420, 980],
          [410, 990],
        ]),
        ...runs(PLAIN, [
          [500, 800],
          [480, 820],
          [490, 810],
        ]),
        ...runs('hand-written + check', [
          [450, 860],
          [470, 850],
          [460, 870],
        ]),
        ...runs(ALL, [
          [420, 960],
          [400, 970],
          [410, 950],
        ]),
        ...runs(SAME, [
          [430, 950],
          [410, 960],
          [420, 940],
        ]),
      ]);
      expect(table[0]).toBe('Fastify, modify:');
      expect(table).toContain('| generated | 410 | 990 µs | +180 µs | 0.84 |');
      expect(table).toContain('| hand-written | 490 | 810 µs |  |  |');
      expect(table).toContain('| hand-written + check (the body checked with a class-validator DTO) | 460 | 860 µs | +50 µs | 0.94 |');
      expect(table).toContain('| hand-written + all | 410 | 960 µs | +150 µs | 0.84 |');
      expect(table).toContain('Generated / hand-written with the same guarantees (bound, check, version, queue): 0.98 in req/s, +40 µs of CPU per request.');
      // Variants not measured have no row.
      expect(table.some((line) => line.startsWith('| hand-written + bound'))).toBe(false);
    });

    it('makes one table per platform and scenario, with a negative difference signed', () => {
      const table = guaranteesTable([
        { adapter: 'express', scenario: 'create', variant: PLAIN, rps: 300, cpu: 1200 },
        { adapter: 'express', scenario: 'create', variant: 'hand-written + queue', rps: 310, cpu: 1150 },
        { adapter: 'fastify', scenario: 'create', variant: PLAIN, rps: 350, cpu: 900 },
      ]);
      expect(table.filter((line) => line.endsWith(':'))).toEqual(['Express, create:', 'Fastify, create:']);
      expect(table).toContain("| hand-written + queue (one document's writes queued (FerretDB)) | 310 | 1150 µs | −50 µs | 1.03 |");
    });
  });
}
