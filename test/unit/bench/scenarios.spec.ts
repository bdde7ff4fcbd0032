import { SCENARIOS, onlyArguments, countArgument, selectScenarios } from '../../../bench/scenarios.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function scenariosSpec(): void {
  /** `npm run bench -- --only <text>` runs a part of the scenarios (issue 11, item 5). */
  describe('onlyArguments', () => {
    it('takes each --only text whole, commas included', () => {
      expect(onlyArguments(['node', 'run.js', '--quick', '--only', 'search, 100 items', '--only', 'DTO'])).toEqual(['search, 100 items', 'DTO']);
      expect(onlyArguments(['node', 'run.js', '--quick'])).toEqual([]);
    });

    it('refuses an --only without a text', () => {
      expect(() => onlyArguments(['node', 'run.js', '--only'])).toThrow('--only needs a text');
      expect(() => onlyArguments(['node', 'run.js', '--only', '--quick'])).toThrow('--only needs a text');
    });
  });

  describe('selectScenarios', () => {
    it('keeps every scenario when no text is given', () => {
      expect(selectScenarios(SCENARIOS, [])).toBe(SCENARIOS);
    });

    it('keeps the scenarios whose name contains one of the texts, in their order', () => {
      const names = selectScenarios(SCENARIOS, ['serialization group', 'DTO validation']).map((scenario) => scenario.name);
      expect(names).toEqual(['create with DTO validation', 'search, 100 items, with a serialization group']);
    });

    it('refuses a text that names no scenario', () => {
      expect(() => selectScenarios(SCENARIOS, ['DTO', 'serialisation'])).toThrow("--only 'serialisation': no such scenario");
    });
  });

  describe('SCENARIOS', () => {
    it('serves the two cost scenarios with a global ValidationPipe, on both Nest servers and not on the peer', () => {
      for (const name of ['create with DTO validation', 'search, 100 items, with a serialization group']) {
        const scenario = SCENARIOS.find((candidate) => candidate.name === name)!;
        expect(scenario.setup).toBe('pipes');
        expect(scenario.request.generated).toBeDefined();
        expect(scenario.request.handwritten).toBe(scenario.request.generated);
        expect(scenario.request.peer).toBeUndefined();
        expect(scenario.peerNote).toMatch(/^no equivalent/);
      }
    });

    it('sends the serialization scenario as an admin every other request', () => {
      const scenario = SCENARIOS.find((candidate) => candidate.name.includes('serialization group'))!;
      const ids = { company: () => '', user: () => '' };
      const groups = [1, 2, 3, 4].map(() => scenario.request.generated!(ids).headers?.['x-groups']);
      expect(new Set(groups)).toEqual(new Set(['admin', 'staff']));
      expect(groups[0]).not.toBe(groups[1]);
    });
  });

  describe('--rounds and --seconds', () => {
    it('are undefined when absent (the plan\'s then), the number given otherwise', () => {
      expect(countArgument(['node', 'run.js'], 'rounds')).toBeUndefined();
      expect(countArgument(['node', 'run.js', '--rounds', '2'], 'rounds')).toBe(2);
      expect(countArgument(['node', 'run.js', '--rounds', '2', '--seconds', '6'], 'seconds')).toBe(6);
    });

    it.each([[['--rounds']], [['--rounds', '0']], [['--rounds', '1.5']], [['--rounds', '--quick']]])('refuses %j', (argv) => {
      expect(() => countArgument(argv, 'rounds')).toThrow('--rounds needs a whole number, at least 1');
    });
  });
}
