/** What `npm run bench:rules` measures and its table (issue 28; unit-tested apart from the servers). */
import { median } from './export-table.js';

/** The header the bench's row scope reads the tenant from (every request of the bench sends it). */
export const TENANT_HEADER = 'x-tenant';
/** The two tenants seeded, the same number of documents each; every measured request is `north`'s. */
export const TENANTS = ['north', 'south'] as const;
/** A name the bench's before-hooks refuse (403): the check that the hooks are in place. */
export const REFUSED_NAME = 'refused-by-the-hook';

/** The four resources of the rules' server, identical but for their rules; `plain` is the baseline. */
export const RULE_VARIANTS = ['plain', 'scoped', 'hooked', 'ruled'] as const;
export type RuleVariant = (typeof RULE_VARIANTS)[number];

/** What each resource has: the table's words. */
export const VARIANT_RULES: Record<RuleVariant, string> = {
  plain: 'none (baseline)',
  scoped: 'row scope',
  hooked: 'before-hooks',
  ruled: 'row scope + before-hooks',
};

/** Each resource's route path, plural and collection (`bench/rules-models.ts`). */
export const VARIANT_ROUTES: Record<RuleVariant, { path: string; plural: string; collection: string }> = {
  plain: { path: 'plain', plural: 'plains', collection: 'rules_plain' },
  scoped: { path: 'scoped', plural: 'scopeds', collection: 'rules_scoped' },
  hooked: { path: 'hooked', plural: 'hookeds', collection: 'rules_hooked' },
  ruled: { path: 'ruled', plural: 'ruleds', collection: 'rules_ruled' },
};

export const isScoped = (variant: RuleVariant) => variant === 'scoped' || variant === 'ruled';
export const isHooked = (variant: RuleVariant) => variant === 'hooked' || variant === 'ruled';

/**
 * The scenarios, in their order: a create, a get one, and an unfiltered page of 20 under each count
 * policy: the default (the library's `search.count`, `exact`), and each `Prefer: count=` named.
 */
export const RULE_SCENARIOS = [
  'create',
  'get one',
  'search, default count',
  'search, Prefer: count=exact',
  'search, Prefer: count=estimated',
  'search, Prefer: count=none',
] as const;
export type RuleScenario = (typeof RULE_SCENARIOS)[number];

/** One timed run of one scenario on one resource. */
export interface RulesRun {
  scenario: RuleScenario;
  variant: RuleVariant;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** The server process's CPU time (user + system) during the timed run (not the warm-up), ms. */
  cpuMs: number;
}

/** Server CPU per request, µs. */
export function cpuPerRequest(run: RulesRun): number {
  return (run.cpuMs * 1000) / run.requests;
}

/**
 * `variant`/baseline of `value` (requests/s, or CPU per request): the median of each round's ratio
 * (the resources of a round measured back to back, seconds apart, on the same server process), or
 * `undefined` without a round where both ran.
 */
export function pairedRatio(runs: RulesRun[], scenario: RuleScenario, variant: RuleVariant, value: (run: RulesRun) => number): number | undefined {
  const of = (which: RuleVariant) => runs.filter((run) => run.scenario === scenario && run.variant === which);
  const base = of('plain');
  const ratios = of(variant).flatMap((run) => {
    const other = base.find((candidate) => candidate.round === run.round);
    return other ? [value(run) / value(other)] : [];
  });
  return ratios.length ? median(ratios) : undefined;
}

/** The run of median requests/s (the lower middle one of an even count). */
function medianRun(runs: RulesRun[]): RulesRun {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const rate = (value: number) => Math.round(value).toLocaleString('en');

/**
 * The Markdown table: a row per scenario and resource (in their orders): requests/s, median
 * (range) of the rounds; p50 / p99 of the median round; the paired ratio to the baseline; server
 * CPU per request, the median of the rounds, and its paired ratio.
 */
export function rulesTable(runs: RulesRun[]): string[] {
  const lines = [
    '| scenario | rules | requests/s | p50 / p99, ms | requests/s, rules / baseline | server CPU per request, µs | CPU per request, rules / baseline |',
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const scenario of RULE_SCENARIOS) {
    for (const variant of RULE_VARIANTS) {
      const of = runs.filter((run) => run.scenario === scenario && run.variant === variant);
      if (!of.length) continue;
      const middle = medianRun(of);
      const rates = of.map((run) => run.rps);
      const spread = of.length > 1 ? ` (${rate(Math.min(...rates))}–${rate(Math.max(...rates))})` : '';
      const show = (ratio: number | undefined) => (variant === 'plain' ? '1' : ratio === undefined ? '–' : ratio.toFixed(2));
      lines.push(
        `| ${scenario} | ${VARIANT_RULES[variant]} | ${rate(middle.rps)}${spread} | ${middle.p50} / ${middle.p99} | ` +
          `${show(pairedRatio(runs, scenario, variant, (run) => run.rps))} | ${Math.round(median(of.map(cpuPerRequest)))} | ` +
          `${show(pairedRatio(runs, scenario, variant, cpuPerRequest))} |`,
      );
    }
  }
  return lines;
}
