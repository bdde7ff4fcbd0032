import { LOG_Y_RATIO, PALETTE, escapeXml, lineChartSvg, type LineChart } from '../../../bench/chart.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function chartSpec(): void {
  /** The scale measures as SVG charts in BENCHMARKS.md (issue 26, "Measured"). */
  describe('lineChartSvg', () => {
    /**
     * A minimal check that `svg` is well-formed XML: one root, every tag closed in order, attributes
     * quoted, no `<` or bare `&` in text or attributes. Returns the elements by name, in document order.
     */
    function elementsOf(svg: string): Array<{ name: string; attributes: Record<string, string>; text: string }> {
      const elements: Array<{ name: string; attributes: Record<string, string>; text: string }> = [];
      const open: Array<(typeof elements)[number]> = [];
      const token = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
      let roots = 0;
      let end = 0;
      for (const match of svg.trimEnd().matchAll(token)) {
        end = match.index + match[0].length;
        const [, closing, name, attributeText, selfClosing, text] = match;
        if (text !== undefined) {
          expect(text.replace(/&(lt|gt|amp|quot|apos);/g, '')).not.toMatch(/[&<>]/);
          if (open.length === 0) expect(text.trim()).toBe('');
          else open.at(-1)!.text += text;
          continue;
        }
        if (closing) {
          expect(open.pop()?.name).toBe(name);
          continue;
        }
        if (open.length === 0) roots++;
        const attributes = Object.fromEntries([...attributeText!.matchAll(/([\w:-]+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]));
        for (const value of Object.values(attributes)) expect(value.replace(/&(lt|gt|amp|quot|apos);/g, '')).not.toMatch(/[&<>]/);
        const element = { name: name!, attributes, text: '' };
        elements.push(element);
        if (!selfClosing) open.push(element);
      }
      // The sticky pattern stops at the first thing that is no tag and no text: it must have read everything.
      expect(end).toBe(svg.trimEnd().length);
      expect(open).toEqual([]);
      expect(roots).toBe(1);
      return elements;
    }

    const chart = (overrides: Partial<LineChart> = {}): LineChart => ({
      title: 'Scale: FerretDB <PostgreSQL> & co, 2026-11-26',
      xLabel: 'companies',
      yLabel: 'p50 (ms)',
      series: [
        {
          label: 'get one (generated)',
          kind: 'get one',
          dashed: false,
          points: [
            { x: 100000, y: 9 },
            { x: 1000, y: 3 },
            { x: 10000, y: 5 },
          ],
        },
        {
          label: 'get one (hand-written)',
          kind: 'get one',
          dashed: true,
          points: [
            { x: 1000, y: 2 },
            { x: 10000, y: 4 },
            { x: 100000, y: 8 },
          ],
        },
        {
          label: 'search <POST> & count (generated)',
          kind: 'search',
          dashed: false,
          points: [
            { x: 1000, y: 12 },
            { x: 10000, y: 50 },
            { x: 100000, y: 40 },
          ],
        },
      ],
      ...overrides,
    });
    const polylines = (svg: string) => elementsOf(svg).filter((element) => element.name === 'polyline');
    const coordinates = (points: string) => points.split(' ').map((pair) => pair.split(',').map(Number) as [number, number]);

    it('writes a well-formed SVG document with one polyline per series, labelled by its series', () => {
      const svg = lineChartSvg(chart());
      const elements = elementsOf(svg);
      expect(elements[0]!.name).toBe('svg');
      expect(elements[0]!.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
      const lines = polylines(svg);
      expect(lines).toHaveLength(3);
      // The series' label as the line's tooltip (its <title> child) and in the legend.
      const titles = elements.filter((element) => element.name === 'title').map((element) => element.text);
      expect(titles).toEqual(['get one (generated)', 'get one (hand-written)', 'search &lt;POST&gt; &amp; count (generated)']);
      const texts = elements.filter((element) => element.name === 'text').map((element) => element.text);
      expect(texts).toContain('Scale: FerretDB &lt;PostgreSQL&gt; &amp; co, 2026-11-26');
      expect(texts).toContain('search &lt;POST&gt; &amp; count (generated)');
      expect(elements.filter((element) => element.name === 'circle')).toHaveLength(9);
    });

    it('draws the points by increasing collection size, the sizes as ticks on a log scale', () => {
      const svg = lineChartSvg(chart());
      const [generated] = polylines(svg);
      const xs = coordinates(generated!.attributes.points!).map(([x]) => x);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
      expect(new Set(xs).size).toBe(3);
      // 1,000 → 10,000 and 10,000 → 100,000 are the same distance on a log scale.
      expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 0);
      const texts = elementsOf(svg)
        .filter((element) => element.name === 'text')
        .map((element) => element.text);
      expect(texts).toEqual(expect.arrayContaining(['1,000', '10,000', '100,000']));
      // Larger p50, higher on the page (smaller y).
      const ys = coordinates(generated!.attributes.points!).map(([, y]) => y);
      expect(ys[0]).toBeGreaterThan(ys[1]!);
      expect(ys[1]).toBeGreaterThan(ys[2]!);
    });

    it('draws generated solid and hand-written dashed, in one colour per request kind', () => {
      const [generated, handwritten, search] = polylines(lineChartSvg(chart()));
      expect(generated!.attributes['stroke-dasharray']).toBeUndefined();
      expect(handwritten!.attributes['stroke-dasharray']).toBeDefined();
      expect(generated!.attributes.stroke).toBe(handwritten!.attributes.stroke);
      expect(search!.attributes.stroke).not.toBe(generated!.attributes.stroke);
      expect([generated!.attributes.stroke, search!.attributes.stroke]).toEqual(PALETTE.slice(0, 2));
    });

    it('starts a linear y axis at 0, and takes a log one past a range of 100x', () => {
      const linear = elementsOf(lineChartSvg(chart()))
        .filter((element) => element.name === 'text')
        .map((element) => element.text);
      expect(linear).toContain('0');
      expect(linear.some((text) => text.includes('log scale'))).toBe(false);
      const wide = chart({
        series: [
          {
            label: 'sort',
            kind: 'sort',
            dashed: false,
            points: [
              { x: 1000, y: 5 },
              { x: 100000, y: 5 * LOG_Y_RATIO + 1 },
            ],
          },
        ],
      });
      const log = elementsOf(lineChartSvg(wide))
        .filter((element) => element.name === 'text')
        .map((element) => element.text);
      expect(log).toEqual(expect.arrayContaining(['1', '10', '100', '1,000', 'p50 (ms) (log scale)']));
      expect(log).not.toContain('0');
    });

    it('draws a single collection size in the middle, and leaves out points that are not numbers', () => {
      const svg = lineChartSvg(
        chart({
          series: [
            {
              label: 'one',
              kind: 'one',
              dashed: false,
              points: [
                { x: 500, y: 4 },
                { x: 1000, y: Number.NaN },
              ],
            },
          ],
        }),
      );
      const [line] = polylines(svg);
      expect(coordinates(line!.attributes.points!)).toHaveLength(1);
      expect(svg).not.toContain('NaN');
    });
  });

  describe('escapeXml', () => {
    it('escapes what would end a text or an attribute', () => {
      expect(escapeXml(`a<b>&"c"'d'`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;');
    });
  });
}
