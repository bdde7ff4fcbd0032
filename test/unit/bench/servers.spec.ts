import { QUICK_FASTIFY_SCENARIOS, SCENARIOS, SERVERS, scenariosFor, serverApp } from '../../../bench/scenarios.js';
import { commandsCell, commandsTable, fastifyTable, expressTable, ratio, type CommandCounts, type Results } from '../../../bench/table.js';
import type { Measure } from '../../../bench/measure.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function serversSpec(): void {
  /** Both Nest platforms in the benchmark (issue 12, item 4). */
  describe('serverApp', () => {
    it('runs each Nest app on Express and on Fastify, and the peer on Express', () => {
      expect(SERVERS.map(serverApp)).toEqual([
        { app: 'generated', adapter: 'express' },
        { app: 'handwritten', adapter: 'express' },
        { app: 'peer', adapter: 'express' },
        { app: 'generated', adapter: 'fastify' },
        { app: 'handwritten', adapter: 'fastify' },
      ]);
    });
  });

  describe('scenariosFor', () => {
    const names = (list: typeof SCENARIOS) => list.map((scenario) => scenario.name);

    it('gives a Fastify server the same scenarios as its Express counterpart in a full run', () => {
      expect(names(scenariosFor('generated-fastify', SCENARIOS, false))).toEqual(names(scenariosFor('generated', SCENARIOS, false)));
      expect(names(scenariosFor('handwritten-fastify', SCENARIOS, false))).toEqual(names(SCENARIOS));
    });

    it('sends the same request on both platforms', () => {
      for (const scenario of scenariosFor('handwritten-fastify', SCENARIOS, false)) {
        expect(scenario.request[serverApp('handwritten-fastify').app]).toBe(scenario.request.handwritten);
      }
    });

    it('leaves out the scenarios an app has no request for', () => {
      expect(names(scenariosFor('peer', SCENARIOS, false))).not.toContain('forward reference');
      expect(names(scenariosFor('peer', SCENARIOS, true))).toEqual(names(scenariosFor('peer', SCENARIOS, false)));
    });

    it('runs only a few scenarios on Fastify in --quick, every scenario on Express', () => {
      expect(names(scenariosFor('generated-fastify', SCENARIOS, true))).toEqual(QUICK_FASTIFY_SCENARIOS);
      expect(names(scenariosFor('handwritten-fastify', SCENARIOS, true))).toEqual(QUICK_FASTIFY_SCENARIOS);
      expect(scenariosFor('generated', SCENARIOS, true)).toEqual(SCENARIOS);
    });

    it('names only scenarios that exist in QUICK_FASTIFY_SCENARIOS', () => {
      for (const name of QUICK_FASTIFY_SCENARIOS) expect(names(SCENARIOS)).toContain(name);
    });

    it('keeps --only on Fastify in --quick: a selection outside the quick set runs nothing there', () => {
      const dto = SCENARIOS.filter((scenario) => scenario.name === 'create with DTO validation');
      expect(scenariosFor('generated-fastify', dto, true)).toEqual([]);
      expect(scenariosFor('generated-fastify', dto, false)).toEqual(dto);
    });
  });

  describe('the tables', () => {
    const at = (rps: number): Measure[] => [{ rps, p50: 10, p99: 20, requests: 10 * rps }];
    const results: Results = new Map([
      ['get one', { generated: at(100), handwritten: at(80), peer: at(10), 'generated-fastify': at(150), 'handwritten-fastify': at(120) }],
      ['forward reference', { generated: at(50), handwritten: at(50) }],
    ]);
    const scenarios = SCENARIOS.filter((scenario) => ['get one', 'forward reference'].includes(scenario.name));

    it('computes a ratio of medians, and – when a side did not run', () => {
      expect(ratio(at(150), at(100))).toBe('1.50');
      expect(ratio(at(150), undefined)).toBe('–');
    });

    it('keeps the Express table as it was', () => {
      const lines = expressTable(scenarios, results);
      expect(lines[0]).toBe('| scenario | generated | hand-written | express-restify-mongoose | generated / hand-written | generated / peer |');
      expect(lines[2]).toMatch(/^\| get one \| 100 req\/s .* \| 1\.25 \| 10\.00 \|$/);
    });

    it('prints generated/hand-written on Fastify and generated Fastify/Express, and skips the scenarios not run on Fastify', () => {
      const lines = fastifyTable(scenarios, results);
      expect(lines[0]).toBe(
        '| scenario | generated on Fastify | hand-written on Fastify | generated / hand-written (Fastify) | generated: Fastify / Express |',
      );
      expect(lines).toHaveLength(3);
      expect(lines[2]).toMatch(/^\| get one \| 150 req\/s \(150–150\), p50 10 ms, p99 20 ms \| 120 req\/s .* \| 1\.25 \| 1\.50 \|$/);
    });
  });

  /** The database commands per request, printed with the tables (issue 25). */
  describe('the commands table', () => {
    it('gives the number of commands, then how many of each name', () => {
      expect(commandsCell(['aggregate', 'find', 'aggregate', 'find'])).toBe('4 (2 aggregate, 2 find)');
      expect(commandsCell(['find'])).toBe('1 (1 find)');
      expect(commandsCell([])).toBe('0');
      expect(commandsCell(undefined)).toBe('–');
    });

    it('prints a row per counted scenario, – for an app without the scenario', () => {
      const counts: CommandCounts = new Map([
        ['search filtered on owner.niceName (limit 20)', { generated: ['find', 'aggregate', 'aggregate', 'find'], handwritten: ['find', 'aggregate', 'find'] }],
      ]);
      const lines = commandsTable(SCENARIOS, counts);
      expect(lines[0]).toBe('| scenario | generated | hand-written | express-restify-mongoose |');
      expect(lines.slice(2)).toEqual(['| search filtered on owner.niceName (limit 20) | 4 (2 aggregate, 2 find) | 3 (1 aggregate, 2 find) | – |']);
    });
  });
}
