/** What `npm run bench:import` measures and its table (unit-tested apart from the servers). */
import { duration, median } from './export-table.js';

/** The formats the import bench sends: the two an import reads as a stream. */
export const IMPORT_BENCH_FORMATS = ['csv', 'ndjson'] as const;
export type ImportBenchFormat = (typeof IMPORT_BENCH_FORMATS)[number];

/** The two servers: the library's import route, and a hand-written import with `insertMany` batches. */
export const IMPORT_SERVERS = ['generated', 'hand'] as const;
export type ImportServer = (typeof IMPORT_SERVERS)[number];

/** One import of a whole file into an empty collection, by a fresh server. */
export interface ImportRun {
  format: ImportBenchFormat;
  /** Rows in the file, each created (the harness checks the report and the collection). */
  rows: number;
  server: ImportServer;
  round: number;
  /** Wall time of the request, first byte sent to the report received, ms. */
  ms: number;
  /** The server's `VmRSS` just before the request (after a warm-up import), MiB. */
  idleMiB: number;
  /** The highest RSS seen during the import (sampled `VmRSS`, or `VmHWM` reset before it) minus `idleMiB`, MiB. */
  peakMiB: number;
  /** The server process's CPU time (user + system) during the import, ms. */
  cpuMs: number;
}

/** Rows written per second of wall time. */
export function rowsPerSecond(run: ImportRun): number {
  return run.rows / (run.ms / 1000);
}

/**
 * The generated/hand-written ratio of the rows per second (below 1: the library is slower): the
 * median of each round's ratio (the two servers of a round measured back to back, so a slow minute
 * weighs on both), `undefined` without a round where both ran.
 */
export function pairedRatio(generated: ImportRun[], hand: ImportRun[]): number | undefined {
  const ratios = generated.flatMap((run) => {
    const other = hand.find((candidate) => candidate.round === run.round);
    return other ? [rowsPerSecond(run) / rowsPerSecond(other)] : [];
  });
  return ratios.length ? median(ratios) : undefined;
}

/** A whole number with thousands separators. */
const count = (value: number) => Math.round(value).toLocaleString('en');

/** Rows per second: the median of the rounds, and their range when there are several. */
function rateCell(runs: ImportRun[]): string {
  if (!runs.length) return 'not run';
  const rates = runs.map(rowsPerSecond);
  return runs.length === 1 ? count(rates[0]!) : `${count(median(rates))} (${count(Math.min(...rates))}–${count(Math.max(...rates))})`;
}

/** A median of the rounds, written by `show`; `–` without a run. */
function medianCell(runs: ImportRun[], of: (run: ImportRun) => number, show: (value: number) => string): string {
  return runs.length ? show(median(runs.map(of))) : '–';
}

/** The peak above idle: the median of the rounds, and the highest when the rounds differ. */
function memoryCell(runs: ImportRun[]): string {
  if (!runs.length) return '–';
  const peaks = runs.map((run) => run.peakMiB);
  const [middle, highest] = [median(peaks), Math.max(...peaks)];
  return runs.length === 1 || highest.toFixed(1) === middle.toFixed(1) ? middle.toFixed(1) : `${middle.toFixed(1)} (max ${highest.toFixed(1)})`;
}

/** The server's CPU time per row, µs. */
const cpuPerRow = (run: ImportRun) => (run.cpuMs * 1000) / run.rows;

/** The Markdown table: a row per size and format (sizes ascending, formats in their order), the rounds' medians. */
export function importTable(runs: ImportRun[]): string[] {
  const lines = [
    '| format | rows | generated, rows/s | hand-written, rows/s | generated / hand-written | wall time, generated / hand-written | server CPU, generated / ' +
      'hand-written | server CPU per row, µs | generated peak RSS above idle, MiB | hand-written peak RSS above idle, MiB |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const sizes = [...new Set(runs.map((run) => run.rows))].sort((a, b) => a - b);
  for (const size of sizes) {
    for (const format of IMPORT_BENCH_FORMATS) {
      const of = (server: ImportServer) => runs.filter((run) => run.rows === size && run.format === format && run.server === server);
      const [generated, hand] = [of('generated'), of('hand')];
      if (!generated.length && !hand.length) continue;
      const ratio = pairedRatio(generated, hand);
      const pair = (at: (run: ImportRun) => number, show: (value: number) => string) => `${medianCell(generated, at, show)} / ${medianCell(hand, at, show)}`;
      lines.push(
        `| ${format} | ${size.toLocaleString('en')} | ${rateCell(generated)} | ${rateCell(hand)} | ${ratio === undefined ? '–' : ratio.toFixed(2)} | ` +
          `${pair((run) => run.ms, duration)} | ${pair((run) => run.cpuMs, duration)} | ${pair(cpuPerRow, count)} | ${memoryCell(generated)} | ` +
          `${memoryCell(hand)} |`,
      );
    }
  }
  return lines;
}
