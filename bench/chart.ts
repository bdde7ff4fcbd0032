/**
 * A line chart as SVG text, for the scale measures of `npm run bench` (issue 26): x is the collection
 * size on a log scale (the measured sizes as its ticks), y the p50 in ms, one line per series. Pure:
 * it writes no file and reads no clock. Hand-written SVG, our own output: no dependency.
 */

/** One line: its points (any order; drawn by increasing x), its legend label, its colour group and stroke. */
export interface ChartSeries {
  label: string;
  /** Series of one kind share a colour (a request kind: the generated and hand-written lines of it). */
  kind: string;
  /** Dashed (the hand-written server) or solid (the generated routes). */
  dashed: boolean;
  points: Array<{ x: number; y: number }>;
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
}

/** The colours of the kinds, in the order kinds first appear (then again from the start). */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** Past this ratio of the largest y to the smallest, y is drawn on a log scale: a linear one would flatten the small values to the axis. */
export const LOG_Y_RATIO = 100;

const PLOT = { left: 70, top: 50, width: 520, height: 320 };
const LEGEND_X = PLOT.left + PLOT.width + 30;
const LEGEND_ROW = 18;
/** Wide enough for a character of the legend at 12 px (sans-serif averages under 7 px). */
const CHARACTER_WIDTH = 7;

/** `<`, `>`, `&` and quotes as entities: the text is safe in an element and in a quoted attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[char]};`);
}

/** The SVG document of `chart`. Points whose y is not a positive finite number on a log axis, or not finite, are left out. */
export function lineChartSvg(chart: LineChart): string {
  const points = chart.series
    .flatMap((series) => series.points)
    .filter((point) => Number.isFinite(point.x) && point.x > 0 && Number.isFinite(point.y) && point.y >= 0);
  const xs = [...new Set(points.map((point) => point.x))].sort((a, b) => a - b);
  const x = logScale(xs[0] ?? 1, xs.at(-1) ?? 1, PLOT.left, PLOT.width);
  const ys = points.map((point) => point.y);
  const positive = ys.filter((value) => value > 0);
  const logY = positive.length > 0 && Math.max(...positive) / Math.min(...positive) > LOG_Y_RATIO;
  const yAxis = logY ? logAxis(Math.min(...positive), Math.max(...positive)) : linearAxis(Math.max(0, ...ys));
  const y = (value: number) => PLOT.top + PLOT.height - yAxis.position(value) * PLOT.height;
  const colours = new Map<string, string>();
  for (const series of chart.series) if (!colours.has(series.kind)) colours.set(series.kind, PALETTE[colours.size % PALETTE.length]!);
  const width = Math.ceil(LEGEND_X + 38 + Math.max(0, ...chart.series.map((series) => series.label.length)) * CHARACTER_WIDTH + 10);
  const height = Math.max(PLOT.top + PLOT.height + 60, PLOT.top + chart.series.length * LEGEND_ROW + 20);
  const bottom = PLOT.top + PLOT.height;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${PLOT.left}" y="28" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
    '<g class="axes" stroke="#888">',
    `<line x1="${PLOT.left}" y1="${bottom}" x2="${PLOT.left + PLOT.width}" y2="${bottom}"/>`,
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${bottom}"/>`,
    '</g>',
    '<g class="x-ticks" text-anchor="middle">',
    ...xs.map(
      (value) =>
        `<line x1="${n(x(value))}" y1="${bottom}" x2="${n(x(value))}" y2="${bottom + 5}" stroke="#888"/><text x="${n(x(value))}" ` +
        `y="${bottom + 18}">${value.toLocaleString('en-US')}</text>`,
    ),
    '</g>',
    '<g class="y-ticks" text-anchor="end">',
    ...yAxis.ticks.map(
      (value) =>
        `<line x1="${PLOT.left}" y1="${n(y(value))}" x2="${PLOT.left + PLOT.width}" y2="${n(y(value))}" stroke="#eee"/><text x="${PLOT.left - 6}" ` +
        `y="${n(y(value) + 4)}">${value.toLocaleString('en-US')}</text>`,
    ),
    '</g>',
    `<text x="${PLOT.left + PLOT.width / 2}" y="${bottom + 40}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text x="18" y="${PLOT.top + PLOT.height / 2}" text-anchor="middle" transform="rotate(-90 18 ` +
      `${PLOT.top + PLOT.height / 2})">${escapeXml(chart.yLabel + (logY ? ' (log scale)' : ''))}</text>`,
    '<g class="series" fill="none" stroke-width="2">',
  ];
  for (const series of chart.series) {
    const drawn = series.points
      .filter((point) => Number.isFinite(point.x) && point.x > 0 && Number.isFinite(point.y) && point.y >= 0 && (!logY || point.y > 0))
      .sort((a, b) => a.x - b.x);
    const colour = colours.get(series.kind)!;
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<polyline stroke="${colour}"${dash} ` +
        `points="${drawn.map((point) => `${n(x(point.x))},${n(y(point.y))}`).join(' ')}"><title>${escapeXml(series.label)}</title></polyline>`,
      ...drawn.map((point) => `<circle cx="${n(x(point.x))}" cy="${n(y(point.y))}" r="3" fill="${colour}" stroke="none"/>`),
    );
  }
  out.push('</g>', '<g class="legend">');
  chart.series.forEach((series, index) => {
    const row = PLOT.top + index * LEGEND_ROW;
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<line x1="${LEGEND_X}" y1="${row}" x2="${LEGEND_X + 30}" y2="${row}" stroke="${colours.get(series.kind)}" stroke-width="2"${dash}/>`,
      `<text x="${LEGEND_X + 38}" y="${row + 4}">${escapeXml(series.label)}</text>`,
    );
  });
  out.push('</g>', '</svg>', '');
  return out.join('\n');
}

/** Coordinates with one decimal: short text, finer than a pixel. */
function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** x on a log scale from `min` to `max` over `[start, start + length]`, with a margin; one value sits in the middle. */
function logScale(min: number, max: number, start: number, length: number): (value: number) => number {
  const margin = length * 0.06;
  if (min === max) return () => start + length / 2;
  const [low, high] = [Math.log10(min), Math.log10(max)];
  return (value) => start + margin + ((Math.log10(value) - low) / (high - low)) * (length - 2 * margin);
}

interface Axis {
  ticks: number[];
  /** 0 at the bottom of the plot, 1 at its top. */
  position(value: number): number;
}

/** From 0 to a round number at or above `max`, ticks at a step of 1, 2 or 5 times a power of ten. */
function linearAxis(max: number): Axis {
  const top = max > 0 ? max : 1;
  const rough = top / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  const end = Math.ceil(top / step) * step;
  const ticks = Array.from({ length: Math.round(end / step) + 1 }, (_, index) => Number((index * step).toPrecision(12)));
  return { ticks, position: (value) => value / end };
}

/** From the power of ten at or below `min` to the one at or above `max`, a tick at each. */
function logAxis(min: number, max: number): Axis {
  const [low, high] = [Math.floor(Math.log10(min)), Math.ceil(Math.log10(max))];
  const ticks = Array.from({ length: high - low + 1 }, (_, index) => Number((10 ** (low + index)).toPrecision(12)));
  return { ticks, position: (value) => (Math.log10(value) - low) / (high - low) };
}
