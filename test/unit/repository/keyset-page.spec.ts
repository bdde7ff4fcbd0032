import { Types } from 'mongoose';
import { KeysetPage, strip } from '../../../src/repository/keyset-page.js';
import { decodeCursor, encodeCursor, type CursorBinding } from '../../../src/repository/search-cursor.js';
import type { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function keysetPageSpec(): void {
  const SECRET = 'a-secret-of-sixteen';
  const id = new Types.ObjectId('6b0229b1c62bd98e28d0e9b2');
  const binding = (sort: Record<string, 1 | -1>, more: Partial<CursorBinding> = {}): CursorBinding => ({ resource: 'Company', sort, filter: {}, ...more });
  const after = (sort: Record<string, 1 | -1>, values: unknown[]) => new KeysetPage(binding(sort), SECRET).after(encodeCursor(values, binding(sort), SECRET));

  describe('KeysetPage.after: the expanded $or of prefixes', () => {
    it('ascending keys: $gt on each key after the equal prefix', () => {
      expect(after({ employees: 1, niceName: 1, _id: 1 }, [45, 'Globex', id])).toEqual({
        $or: [{ employees: { $gt: 45 } }, { employees: 45, niceName: { $gt: 'Globex' } }, { employees: 45, niceName: 'Globex', _id: { $gt: id } }],
      });
    });

    it('a descending key: $lt, and the documents without a value (they order last)', () => {
      expect(after({ employees: -1, _id: 1 }, [45, id])).toEqual({
        $or: [{ employees: { $lt: 45 } }, { employees: null }, { employees: 45, _id: { $gt: id } }],
      });
    });

    it('null ascending: every value follows it ($gt: null would match nothing)', () => {
      expect(after({ employees: 1, _id: 1 }, [null, id])).toEqual({ $or: [{ employees: { $ne: null } }, { employees: null, _id: { $gt: id } }] });
    });

    it('null descending: only the other documents without a value follow it', () => {
      expect(after({ employees: -1, _id: -1 }, [null, id])).toEqual({ employees: null, _id: { $lt: id } });
    });

    it('by _id alone: one condition', () => {
      expect(after({ _id: 1 }, [id])).toEqual({ _id: { $gt: id } });
    });

    it('Dates and ObjectIds come back as they were', () => {
      const when = new Date('2020-03-01T00:00:00.000Z');
      const values = decodeCursor(
        encodeCursor([when, id, 'x', 3, true, undefined], binding({ a: 1, b: 1, c: 1, d: 1, e: 1, _id: 1 }), SECRET),
        binding({ a: 1, b: 1, c: 1, d: 1, e: 1, _id: 1 }),
        SECRET,
      );
      expect(values).toEqual([when, id, 'x', 3, true, null]);
    });
  });

  describe('the binding', () => {
    const code = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as ModelRoutesException).code;
      }
      return 'none';
    };
    const cursor = encodeCursor([45, id], binding({ employees: 1, _id: 1 }, { filter: { location: 'Paris', owner: { $in: [id] } } }), SECRET);

    it('takes the filter whatever the order of its keys', () => {
      expect(code(() => decodeCursor(cursor, binding({ employees: 1, _id: 1 }, { filter: { owner: { $in: [id] }, location: 'Paris' } }), SECRET))).toBe('none');
    });

    it.each([
      ['another resource', binding({ employees: 1, _id: 1 }, { resource: 'Entrepreneur', filter: { location: 'Paris', owner: { $in: [id] } } })],
      ['another order of the same keys', binding({ _id: 1, employees: 1 }, { filter: { location: 'Paris', owner: { $in: [id] } } })],
      ['another filter', binding({ employees: 1, _id: 1 }, { filter: { location: 'Lyon', owner: { $in: [id] } } })],
      ['a scope', binding({ employees: 1, _id: 1 }, { scope: { owner: id }, filter: { location: 'Paris', owner: { $in: [id] } } })],
    ])('refuses %s: MR_INVALID_CURSOR', (_name, other) => {
      expect(code(() => decodeCursor(cursor, other, SECRET))).toBe('MR_INVALID_CURSOR');
    });

    it('refuses another key: MR_INVALID_CURSOR', () => {
      expect(
        code(() => decodeCursor(cursor, binding({ employees: 1, _id: 1 }, { filter: { location: 'Paris', owner: { $in: [id] } } }), 'another-secret-16')),
      ).toBe('MR_INVALID_CURSOR');
    });
  });

  describe('a value holding the NUL character (U+0000), refused as in every client string', () => {
    const sort = { niceName: 1 as const, _id: 1 as const };
    const refusal = (values: unknown[]) => {
      try {
        decodeCursor(encodeCursor(values, binding(sort), SECRET), binding(sort), SECRET);
      } catch (error) {
        const { code, details } = error as ModelRoutesException;
        return { code, details };
      }
      return 'none';
    };
    const nul = { code: 'MR_INVALID_CURSOR', details: [{ path: 'after', message: expect.stringContaining('must not contain the NUL character (U+0000)') }] };

    it.each([
      ['a string signed with the right key (a page that ended on a stored one)', ['Glo\u0000bex', id]],
      ['a string that is only the NUL character', ['\u0000', id]],
      ['a date tag that Date.parse would read past', [{ $date: '2020-03-01T00:00:00.000Z\u0000' }, id]],
    ])('%s: MR_INVALID_CURSOR naming after', (_name, values) => {
      expect(refusal(values)).toEqual(nul);
    });

    it('takes the same strings without it', () => {
      expect(refusal(['Globex', id])).toBe('none');
      expect(refusal(['Glo\u0001bex', id])).toBe('none');
    });
  });

  describe('strip: the sort fields read for the cursor only', () => {
    it('takes a whole top-level field out, or the sub-field of a selected object', () => {
      const doc = { _id: id, niceName: 'Acme', employees: 3, address: { street: 'Main', city: 'Paris' }, meta: { rank: 1 } };
      strip(doc, ['employees', 'address.city', 'meta.rank'], ['niceName', 'address.street']);
      expect(doc).toEqual({ _id: id, niceName: 'Acme', address: { street: 'Main' } });
    });

    it('adds no field that a selected one lies under, nor one under a selected one', () => {
      const page = new KeysetPage(binding({ address: 1, 'meta.rank': -1, 'profile.age': 1, _id: 1 }), SECRET);
      expect(page.unselected(['address.street', 'meta', 'niceName'])).toEqual(['profile.age']);
    });
  });
}
