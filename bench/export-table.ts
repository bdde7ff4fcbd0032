/** What `npm run bench:export` measures and its table (unit-tested apart from the servers). */

/** The formats of an export, in the order the library lists them. */
export const EXPORT_BENCH_FORMATS = ['csv', 'ndjson', 'json', 'xlsx'] as const;
export type ExportBenchFormat = (typeof EXPORT_BENCH_FORMATS)[number];

/** The two servers: the library's export route, and the same export written by hand. */
export const EXPORT_SERVERS = ['generated', 'hand'] as const;
export type ExportServer = (typeof EXPORT_SERVERS)[number];

/** Issue 27's targets: the generated export within 1.2 times the hand-written one's time, its server's peak RSS at most 50 MiB above idle. */
export const TIME_TARGET = 1.2;
export const RSS_TARGET_MIB = 50;

/** One download of a whole export from a fresh server. */
export interface ExportRun {
  format: ExportBenchFormat;
  size: number;
  server: ExportServer;
  round: number;
  /** Wall time of the download, request sent to last byte received, ms. */
  ms: number;
  bytes: number;
  /** The server's `VmRSS` just before the request (after a warm-up export), MiB. */
  idleMiB: number;
  /** The highest RSS seen during the export (sampled `VmRSS`, or `VmHWM` reset before it) minus `idleMiB`, MiB. */
  peakMiB: number;
  /** The server process's CPU time (user + system) during the export, ms. */
  cpuMs: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A duration: `850 ms` under a second, else `12.34 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/**
 * The generated/hand-written ratio of the wall times: the median of each round's ratio (the two
 * servers of a round measured back to back, seconds apart, so a slow minute weighs on both), `–`
 * without a round where both ran.
 */
export function pairedRatio(generated: ExportRun[], hand: ExportRun[]): number | undefined {
  const ratios = generated.flatMap((run) => {
    const other = hand.find((candidate) => candidate.round === run.round);
    return other ? [run.ms / other.ms] : [];
  });
  return ratios.length ? median(ratios) : undefined;
}

function timeCell(runs: ExportRun[]): string {
  if (!runs.length) return 'not run';
  const times = runs.map((run) => run.ms);
  return runs.length === 1 ? duration(times[0]!) : `${duration(median(times))} (${duration(Math.min(...times))}–${duration(Math.max(...times))})`;
}

/** The peak above idle: the median of the rounds, and the highest when the rounds differ. */
function memoryCell(runs: ExportRun[]): string {
  if (!runs.length) return '–';
  const peaks = runs.map((run) => run.peakMiB);
  const [middle, highest] = [median(peaks), Math.max(...peaks)];
  return runs.length === 1 || highest.toFixed(1) === middle.toFixed(1) ? middle.toFixed(1) : `${middle.toFixed(1)} (max ${highest.toFixed(1)})`;
}

/** The bytes of each server's export (the same every round: the first), `generated / hand` when they differ, one number when not. */
function bytesCell(generated: ExportRun[], hand: ExportRun[]): string {
  const [g, h] = [generated[0]?.bytes, hand[0]?.bytes];
  const show = (bytes: number | undefined) => (bytes === undefined ? '–' : bytes.toLocaleString('en'));
  return g === h ? show(g) : `${show(g)} / ${show(h)}`;
}

/** Whether the generated export meets the targets: its paired ratio, and its highest peak of the rounds. */
export function targetsCell(ratio: number | undefined, generated: ExportRun[]): string {
  const time = ratio === undefined ? 'time –' : `time ${ratio <= TIME_TARGET ? 'yes' : 'NO'}`;
  const peak = generated.length ? Math.max(...generated.map((run) => run.peakMiB)) : undefined;
  const rss = peak === undefined ? 'RSS –' : `RSS ${peak <= RSS_TARGET_MIB ? 'yes' : 'NO'}`;
  return `${time}, ${rss}`;
}

/** The Markdown table: a row per size and format (sizes ascending, formats in their order), the rounds' medians. */
export function exportTable(runs: ExportRun[]): string[] {
  const lines = [
    '| format | companies | generated | hand-written | generated / hand-written | bytes | generated peak RSS above idle, MiB | hand-written peak RSS above ' +
      'idle, MiB | server CPU, generated / hand-written | targets (≤ 1.2x, ≤ 50 MiB) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  const sizes = [...new Set(runs.map((run) => run.size))].sort((a, b) => a - b);
  for (const size of sizes) {
    for (const format of EXPORT_BENCH_FORMATS) {
      const of = (server: ExportServer) => runs.filter((run) => run.size === size && run.format === format && run.server === server);
      const [generated, hand] = [of('generated'), of('hand')];
      if (!generated.length && !hand.length) continue;
      const ratio = pairedRatio(generated, hand);
      const cpu = (list: ExportRun[]) => (list.length ? duration(median(list.map((run) => run.cpuMs))) : '–');
      lines.push(
        `| ${format} | ${size.toLocaleString('en')} | ${timeCell(generated)} | ${timeCell(hand)} | ${ratio === undefined ? '–' : ratio.toFixed(2)} | ` +
          `${bytesCell(generated, hand)} | ${memoryCell(generated)} | ${memoryCell(hand)} | ${cpu(generated)} / ${cpu(hand)} | ` +
          `${targetsCell(ratio, generated)} |`,
      );
    }
  }
  return lines;
}
