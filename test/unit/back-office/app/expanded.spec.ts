import { ApiError } from '../../../../src/back-office/app/api-wire.js';
import { collectExpanded, expandedReferences, expandPaths, referenceId, referenceIds, refusedExpand } from '../../../../src/back-office/app/expanded.js';
import type { FieldMetadata } from '../../../../src/back-office/app/metadata.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function expandedSpec(): void {
  const captain: FieldMetadata = { path: 'captain', type: 'reference', target: 'Pilot', expandable: true };
  const crew: FieldMetadata = { path: 'crew', type: 'references', target: 'Pilot', expandable: true };
  const author: FieldMetadata = { path: 'author', type: 'reference', target: 'Pilot' };
  const name: FieldMetadata = { path: 'name', type: 'string' };

  describe('references as the routes answer them with expand (the back office app)', () => {
    it('asks to expand the reference fields the metadata says are expandable, and no other', () => {
      expect(expandPaths([name, captain, author, crew])).toEqual(['captain', 'crew']);
      expect(expandPaths([name, author])).toEqual([]);
      expect(expandPaths([name, captain, author, crew], 1)).toEqual(['captain']);
      expect(expandPaths([{ path: 'code', type: 'string', expandable: true }])).toEqual([]);
    });

    it('reads the identifier of a reference of either shape: an identifier, an expanded document, or nothing (a document gone is null)', () => {
      expect(referenceId('6b07')).toBe('6b07');
      expect(referenceId({ _id: '6b07', name: 'Ada' })).toBe('6b07');
      expect([null, undefined, '', {}].map(referenceId)).toEqual([undefined, undefined, undefined, undefined]);
      expect(referenceIds(['a', { _id: 'b' }, null])).toEqual(['a', 'b']);
      expect(referenceIds({ _id: 'c' })).toEqual(['c']);
      expect(referenceIds(null)).toEqual([]);
    });

    it('collects the documents expanded in place, by identifier, and leaves identifiers and nulls alone', () => {
      const ada = { _id: 'a', name: 'Ada' };
      const bob = { _id: 'b', name: 'Bob' };
      const found = collectExpanded(
        [name, captain, crew, author],
        [
          { name: 'x', captain: ada, crew: [bob, ada], author: 'c' },
          { captain: null, crew: [] },
        ],
        new Map(),
      );
      expect([...found]).toEqual([
        ['a', ada],
        ['b', bob],
      ]);
    });

    it('compares a read with expand with the same document read without it: the names found, the identifiers left without a document', () => {
      const own = { _id: 'm', captain: 'gone', crew: ['a', 'b'], author: 'c' };
      const expanded = { _id: 'm', captain: null, crew: [{ _id: 'a', name: 'Ada' }], author: 'c' };
      const { found, missing } = expandedReferences([captain, crew, author], own, expanded);
      expect([...found.keys()]).toEqual(['a']);
      expect([...missing].sort()).toEqual(['b', 'gone']);
      // A field the expanded read does not hold says nothing of its identifiers.
      expect(expandedReferences([captain], { captain: 'x' }, {}).missing.size).toBe(0);
    });

    it('tells a refusal of the expand alone (a 400 naming expand) from any other failure', () => {
      expect(refusedExpand(new ApiError(400, 'MR_INVALID_QUERY', 'no', [{ path: 'expand.owner', message: 'no' }]))).toBe(true);
      expect(refusedExpand(new ApiError(400, 'MR_INVALID_QUERY', 'no', [{ path: 'expand', message: 'no' }]))).toBe(true);
      expect(refusedExpand(new ApiError(400, 'MR_INVALID_QUERY', 'no', [{ path: 'query.expanded', message: 'no' }]))).toBe(false);
      expect(refusedExpand(new ApiError(400, 'MR_INVALID_QUERY', 'no', [{ path: 'expandable', message: 'no' }]))).toBe(false);
      expect(refusedExpand(new ApiError(403, 'HTTP_403', 'no', [{ path: 'expand', message: 'no' }]))).toBe(false);
      expect(refusedExpand(new Error('expand'))).toBe(false);
    });
  });
}
