import { median, pairedCell, pairedRatio, verdict, type Measure } from './measure.js';
import type { AppName, Scenario, ServerName } from './scenarios.js';

/** The measures of each scenario (by name), per server: one per round. */
export type Results = Map<string, Partial<Record<ServerName, Measure[]>>>;

/** The database commands of one request of each scenario (by name), per app on Express, by name in the order started. */
export type CommandCounts = Map<string, Partial<Record<AppName, string[]>>>;

/** The median round's requests/s with the range of the rounds and its latency, or `not run`. */
export function cell(measures: Measure[] | undefined, absent = 'no equivalent'): string {
  const m = median(measures);
  return m ? `${Math.round(m.rps)} req/s (${Math.round(m.min)}–${Math.round(m.max)}), p50 ${m.p50} ms, p99 ${m.p99} ms` : absent;
}

/** The ratio of the medians' requests/s, `–` when either server did not run the scenario. */
export function ratio(a?: Measure[], b?: Measure[]): string {
  const [x, y] = [median(a), median(b)];
  return x && y ? (x.rps / y.rps).toFixed(2) : '–';
}

/** Today's table: the three apps on Express, the peer included. */
export function expressTable(scenarios: Scenario[], results: Results): string[] {
  const lines = [
    '| scenario | generated | hand-written | express-restify-mongoose | generated / hand-written | generated / peer |',
    '|---|---|---|---|---|---|',
  ];
  for (const scenario of scenarios) {
    const row = results.get(scenario.name) ?? {};
    const peer = row.peer ? cell(row.peer) + (scenario.peerNote ? ` (${scenario.peerNote})` : '') : (scenario.peerNote ?? 'no equivalent');
    lines.push(
      `| ${scenario.name} | ${cell(row.generated)} | ${cell(row.handwritten)} | ${peer} | ${ratio(row.generated, row.handwritten)} | ` +
        `${ratio(row.generated, row.peer)} |`,
    );
  }
  return lines;
}

/**
 * The two Nest apps on Fastify: generated against hand-written on the same platform, and what a user
 * of the generated routes gains by switching (generated on Fastify / generated on Express). A
 * scenario not run on Fastify (`--quick` runs a few) says so.
 */
export function fastifyTable(scenarios: Scenario[], results: Results): string[] {
  const lines = [
    '| scenario | generated on Fastify | hand-written on Fastify | generated / hand-written (Fastify) | generated: Fastify / Express |',
    '|---|---|---|---|---|',
  ];
  for (const scenario of scenarios) {
    const row = results.get(scenario.name) ?? {};
    if (!row['generated-fastify'] && !row['handwritten-fastify']) continue;
    lines.push(
      `| ${scenario.name} | ${cell(row['generated-fastify'], 'not run')} | ${cell(row['handwritten-fastify'], 'not run')} | ` +
        `${ratio(row['generated-fastify'], row['handwritten-fastify'])} | ${ratio(row['generated-fastify'], row.generated)} |`,
    );
  }
  return lines;
}

/** A request's commands: their number, then how many of each name (`4 (2 aggregate, 2 find)`); `–` when not counted. */
export function commandsCell(names: string[] | undefined): string {
  if (!names) return '–';
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const parts = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => `${count} ${name}`);
  return parts.length ? `${names.length} (${parts.join(', ')})` : '0';
}

/** The database commands per request of each counted scenario, one column per app (counted on Express: the platform sends the same ones). */
export function commandsTable(scenarios: Scenario[], counts: CommandCounts): string[] {
  const lines = ['| scenario | generated | hand-written | express-restify-mongoose |', '|---|---|---|---|'];
  for (const scenario of scenarios) {
    const row = counts.get(scenario.name);
    if (row) lines.push(`| ${scenario.name} | ${commandsCell(row.generated)} | ${commandsCell(row.handwritten)} | ${commandsCell(row.peer)} |`);
  }
  return lines;
}

/** A target of the bench table: the least ratio of the generated routes against another server of the same scenario. */
export interface Target {
  against: 'handwritten' | 'peer';
  least: number;
}

/**
 * Issue 40's targets: every read and write at 0.95 or more of the hand-written controller on the
 * same platform, every search at 1.0 or more of express-restify-mongoose (which runs on Express).
 */
export const TARGETS: Record<string, Target> = {
  'get one': { against: 'handwritten', least: 0.95 },
  'forward reference': { against: 'handwritten', least: 0.95 },
  modify: { against: 'handwritten', least: 0.95 },
  'modify a reference': { against: 'handwritten', least: 0.95 },
  create: { against: 'handwritten', least: 0.95 },
  'create with a reference': { against: 'handwritten', least: 0.95 },
  'search (POST, filter, limit 20)': { against: 'peer', least: 1 },
  'search (GET, query string)': { against: 'peer', least: 1 },
  'search with owner expanded (limit 20)': { against: 'peer', least: 1 },
};

/**
 * The targets of the scenarios run, on both platforms, judged on the slices' paired ratios
 * (`pairedRatio`: interleaved runs only): `met`, `not met`, or `cannot tell` when the interval holds the target.
 */
export function targetsTable(scenarios: Scenario[], results: Results): string[] {
  const lines = ['| scenario | platform | against | paired ratio (interval) | target | verdict |', '|---|---|---|---|---|---|'];
  for (const scenario of scenarios) {
    const target = TARGETS[scenario.name];
    const row = results.get(scenario.name);
    if (!target || !row) continue;
    for (const [platform, generated, handwritten] of [
      ['Express', 'generated', 'handwritten'],
      ['Fastify', 'generated-fastify', 'handwritten-fastify'],
    ] as const) {
      const against = target.against === 'peer' ? 'peer' : handwritten;
      const ratio = pairedRatio(row[generated], row[against]);
      if (!ratio) continue;
      const name = target.against === 'peer' ? 'express-restify-mongoose' : 'hand-written';
      lines.push(`| ${scenario.name} | ${platform} | ${name} | ${pairedCell(ratio)} | ${target.least.toFixed(2)} | ${verdict(ratio, target.least)} |`);
    }
  }
  return lines;
}
