import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { parseExpand } from '../../../src/query/expand.parser.js';
import { DEFAULT_SEARCH_OPTIONS } from '../../../src/query/search-defaults.js';
import type { RelationRules, SearchRules } from '../../../src/query/search-params.interface.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function expandParserSpec(): void {
  /** A company → owner (user) → company graph, with a hop that is declared for filters only. */
  function rules(search: Partial<SearchRules['search']> = {}, depthLeft = search.maxExpandDepth ?? DEFAULT_SEARCH_OPTIONS.maxExpandDepth): SearchRules {
    const settings = { ...DEFAULT_SEARCH_OPTIONS, ...search };
    const fields = { readable: new Set(['niceName', 'owner', 'company', 'mentor']), openPrefixes: [], hidden: new Set<string>() };
    const relation = (field: string): RelationRules | undefined => {
      if (depthLeft <= 0 || !['owner', 'company', 'mentor'].includes(field)) return undefined;
      return { field, isArray: false, expand: field !== 'mentor', filter: true, targetName: 'X', target: rules(search, depthLeft - 1) };
    };
    return { fields, search: settings, relation };
  }

  const refusal = (value: unknown, search?: Partial<SearchRules['search']>) => {
    try {
      parseExpand(value, rules(search));
    } catch (error) {
      const response = (error as ModelRoutesException).getResponse() as { code: string; details: Array<{ path: string }> };
      return `${response.code} ${response.details[0].path}`;
    }
    return 'accepted';
  };

  it('parses a list into a tree, a string and an array alike, each path once', () => {
    const tree = [{ field: 'owner', path: 'owner', children: [{ field: 'company', path: 'owner.company', children: [] }] }];
    expect(parseExpand('owner,owner.company', rules())).toEqual(tree);
    expect(parseExpand(['owner.company', 'owner', 'owner'], rules())).toEqual(tree);
    expect(parseExpand(' owner , owner.company ', rules())).toEqual(tree);
  });

  it.each([
    ['', 'MR_INVALID_QUERY expand'],
    ['owner,', 'MR_INVALID_QUERY expand'],
    [[], 'MR_INVALID_QUERY expand'],
    [{ owner: 1 }, 'MR_INVALID_QUERY expand'],
    [[1], 'MR_INVALID_QUERY expand'],
    ['niceName', 'MR_INVALID_QUERY expand.niceName'],
    ['mentor', 'MR_INVALID_QUERY expand.mentor'],
    ['__proto__', 'MR_INVALID_QUERY expand.__proto__'],
    ['owner.__proto__', 'MR_INVALID_QUERY expand.owner.__proto__'],
    ['owner..company', 'MR_INVALID_QUERY expand.owner..company'],
    ['owner.', 'MR_INVALID_QUERY expand.owner.'],
    ['owner.company.owner', 'MR_INVALID_QUERY expand.owner.company.owner'],
  ])('refuses %j: %s', (value, expected) => {
    expect(refusal(value)).toBe(expected);
  });

  it('counts every prefix against maxExpandPaths, and follows maxExpandDepth', () => {
    expect(refusal('owner,owner.company', { maxExpandPaths: 2 })).toBe('accepted');
    expect(refusal('owner.company,company', { maxExpandPaths: 2 })).toBe('MR_INVALID_QUERY expand');
    expect(refusal('owner.company', { maxExpandDepth: 1 })).toBe('MR_INVALID_QUERY expand.owner.company');
    expect(refusal('owner.company.owner', { maxExpandDepth: 3 })).toBe('accepted');
  });

  it('stays linear on a long list of one path', () => {
    expect(parseExpand(Array(100_000).fill('owner').join(','), rules())).toHaveLength(1);
  });
}
