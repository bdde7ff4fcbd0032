import { pairedCell, pairedRatio, verdict } from './measure.js';
/** The variants `npm run bench:guarantees` measures, and its table (unit-tested apart from the servers). */

/** The guarantees of the library's write routes the hand-written server can add (`BENCH_HANDWRITTEN_GUARANTEES`). */
export const GUARANTEE_NAMES = ['bound', 'check', 'version', 'queue', 'context'] as const;

/** What each guarantee is, as the table's rows say it. */
const DESCRIPTIONS: Record<(typeof GUARANTEE_NAMES)[number], string> = {
  bound: '`maxTimeMS` on every query',
  check: 'the body checked with a class-validator DTO',
  version: 'the version incremented, `ETag` answered',
  queue: "one document's writes queued (FerretDB)",
  context: 'the work run in an `AsyncLocalStorage` context',
};

/** A server to measure: an app, and the guarantees the hand-written one adds. */
export interface Variant {
  label: string;
  app: 'generated' | 'handwritten';
  guarantees: string[];
}

/** One measured run of a variant. */
export interface VariantMeasure {
  adapter: 'express' | 'fastify';
  scenario: string;
  variant: string;
  rps: number;
  /** The server's CPU time per request, in microseconds. */
  cpu: number;
}

export const GENERATED = 'generated';
export const PLAIN = 'hand-written';
export const ALL = 'hand-written + all';
/**
 * The guarantees the generated write routes give (the `context` one no longer: a resource whose
 * controller overrides none of the generated handlers runs them without `AsyncLocalStorage`).
 */
export const GENERATED_GUARANTEES = GUARANTEE_NAMES.filter((name) => name !== 'context');
export const SAME = 'hand-written + the same';

/**
 * The generated server, the hand-written one as it is, with each guarantee alone, with all, and
 * with those the generated routes give; `brief`: the generated server, the plain hand-written one
 * and the one with the same guarantees.
 */
export function guaranteeVariants(brief = false): Variant[] {
  const same: Variant = { label: SAME, app: 'handwritten', guarantees: [...GENERATED_GUARANTEES] };
  if (brief) return [{ label: GENERATED, app: 'generated', guarantees: [] }, { label: PLAIN, app: 'handwritten', guarantees: [] }, same];
  return [
    { label: GENERATED, app: 'generated', guarantees: [] },
    { label: PLAIN, app: 'handwritten', guarantees: [] },
    ...GUARANTEE_NAMES.map((name) => ({ label: `hand-written + ${name}`, app: 'handwritten' as const, guarantees: [name] })),
    { label: ALL, app: 'handwritten', guarantees: ['all'] },
    same,
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * One table per platform and scenario: each variant's requests per second and CPU time per
 * request (medians of the rounds), its CPU time beside the plain hand-written server's, and its
 * throughput against it; under them, the generated server against the hand-written one that gives
 * all the guarantees.
 */
export function guaranteesTable(results: VariantMeasure[]): string[] {
  const lines: string[] = [];
  const groups = [...new Set(results.map((result) => `${result.adapter}\u0000${result.scenario}`))];
  for (const group of groups) {
    const [adapter, scenario] = group.split('\u0000') as [string, string];
    const of = (variant: string) => results.filter((result) => result.adapter === adapter && result.scenario === scenario && result.variant === variant);
    const summary = (variant: string) => {
      const runs = of(variant);
      return runs.length ? { rps: median(runs.map((run) => run.rps)), cpu: median(runs.map((run) => run.cpu)) } : undefined;
    };
    const plain = summary(PLAIN);
    lines.push(`${adapter === 'fastify' ? 'Fastify' : 'Express'}, ${scenario}:`, '');
    lines.push(
      '| server | req/s (8 connections) | CPU per request (fixed rate) | CPU added to the hand-written | req/s against the hand-written |',
      '|---|---|---|---|---|',
    );
    for (const variant of guaranteeVariants().filter((candidate) => summary(candidate.label))) {
      const measured = summary(variant.label);
      if (!measured) continue;
      const name =
        variant.guarantees.length === 1 && variant.guarantees[0] !== 'all'
          ? `${variant.label} (${DESCRIPTIONS[variant.guarantees[0] as keyof typeof DESCRIPTIONS]})`
          : variant.label;
      const added = plain && variant.label !== PLAIN && Number.isFinite(measured.cpu) ? `${signed(measured.cpu - plain.cpu)} µs` : '';
      const against = plain && variant.label !== PLAIN ? (measured.rps / plain.rps).toFixed(2) : '';
      const cpu = Number.isFinite(measured.cpu) ? `${measured.cpu.toFixed(0)} µs` : '–';
      lines.push(`| ${name} | ${measured.rps.toFixed(0)} | ${cpu} | ${added} | ${against} |`);
    }
    const generated = summary(GENERATED);
    const same = summary(SAME);
    if (generated && same) {
      lines.push(
        '',
        `Generated / hand-written with the same guarantees (${GENERATED_GUARANTEES.join(', ')}): ${(generated.rps / same.rps).toFixed(2)} in req/s, ` +
          `${signed(generated.cpu - same.cpu)} µs of CPU per request.`,
      );
    }
    // Issue 40's target (0.95 of the hand-written), judged on the slices' own ratios: against the plain server and against the one with the same guarantees.
    const slices = (variant: string) => of(variant).map((run) => ({ rps: run.rps, p50: 0, p99: 0, requests: 0 }));
    for (const other of [PLAIN, SAME]) {
      const paired = pairedRatio(slices(GENERATED), slices(other));
      if (paired) lines.push('', `Paired, generated / ${other}: ${pairedCell(paired)}, target 0.95: ${verdict(paired, 0.95)}.`);
    }
    lines.push('');
  }
  return lines;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(0)}`;
}
