import { pick } from '../../../bench/harness.js';
import { OWNER_FILTER, QUICK_FASTIFY_SCENARIOS, SCENARIOS, onlyArguments, countArgument, selectScenarios } from '../../../bench/scenarios.js';

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

    it(
      'measures expand and a filter across the owner on both Nest apps with one request, expand on the peer with ?populate, outside --quick on ' + 'Fastify',
      () => {
        const ids = { company: () => '', user: () => '', companyAndNewOwner: () => ({ company: '', owner: '' }) };
        const expanded = SCENARIOS.find((candidate) => candidate.name === 'search with owner expanded (limit 20)')!;
        expect(expanded.request.generated!(ids)).toEqual({ method: 'GET', path: '/companies?limit=20&expand=owner' });
        expect(expanded.request.handwritten).toBe(expanded.request.generated);
        expect(expanded.request.peer!(ids)).toEqual({ method: 'GET', path: '/api/v1/Company?limit=20&populate=owner' });
        const filtered = SCENARIOS.find((candidate) => candidate.name === 'search filtered on owner.niceName (limit 20)')!;
        expect(filtered.request.generated!(ids)).toEqual({
          method: 'POST',
          path: '/companies',
          body: { query: { 'owner.niceName': { $regex: '^user-1' } }, limit: 20 },
        });
        expect(filtered.request.handwritten).toBe(filtered.request.generated);
        expect(filtered.request.peer).toBeUndefined();
        expect(filtered.peerNote).toMatch(/^no equivalent/);
        for (const scenario of [expanded, filtered]) {
          expect(scenario.setup).toBeUndefined();
          expect(QUICK_FASTIFY_SCENARIOS).not.toContain(scenario.name);
        }
      },
    );

    it('filters on a prefix that a bounded number of the seeded users (user-0 to user-499) have: under maxRelationIds', () => {
      const pattern = new RegExp(OWNER_FILTER['owner.niceName'].$regex);
      const matching = Array.from({ length: 500 }, (_, index) => `user-${index}`).filter((name) => pattern.test(name));
      expect(matching).toHaveLength(111);
    });

    it('sends the serialization scenario as an admin every other request', () => {
      const scenario = SCENARIOS.find((candidate) => candidate.name.includes('serialization group'))!;
      const ids = { company: () => '', user: () => '', companyAndNewOwner: () => ({ company: '', owner: '' }) };
      const groups = [1, 2, 3, 4].map(() => scenario.request.generated!(ids).headers?.['x-groups']);
      expect(new Set(groups)).toEqual(new Set(['admin', 'staff']));
      expect(groups[0]).not.toBe(groups[1]);
    });
  });

  describe('--rounds and --seconds', () => {
    it("are undefined when absent (the plan's then), the number given otherwise", () => {
      expect(countArgument(['node', 'run.js'], 'rounds')).toBeUndefined();
      expect(countArgument(['node', 'run.js', '--rounds', '2'], 'rounds')).toBe(2);
      expect(countArgument(['node', 'run.js', '--rounds', '2', '--seconds', '6'], 'seconds')).toBe(6);
    });

    it.each([[['--rounds']], [['--rounds', '0']], [['--rounds', '1.5']], [['--rounds', '--quick']]])('refuses %j', (argv) => {
      expect(() => countArgument(argv, 'rounds')).toThrow('--rounds needs a whole number, at least 1');
    });
  });

  /** Every write of a reference changes its document on every server (a write of what is there is free on FerretDB). */
  describe('pick().companyAndNewOwner', () => {
    it.each([
      [5000, 500],
      [500, 50],
      [60, 7],
    ])('over %i companies and %i users, through many passes, never gives a company the owner it has', (companies, users) => {
      const data = { companies: Array.from({ length: companies }, (_, k) => `c${k}`), users: Array.from({ length: users }, (_, k) => `u${k}`) };
      // As seed() stores them: company k owned by user k mod users.
      const owners = new Map(data.companies.map((company, k) => [company, data.users[k % users]]));
      const ids = pick(data);
      let unchanged = 0;
      for (let request = 0; request < companies * 4; request++) {
        // The other scenarios move the shared counters too.
        if (request % 3 === 0) ids.company();
        if (request % 5 === 0) ids.user();
        const { company, owner } = ids.companyAndNewOwner();
        if (owners.get(company) === owner) unchanged++;
        owners.set(company, owner);
      }
      expect(unchanged).toBe(0);
    });
  });
}
