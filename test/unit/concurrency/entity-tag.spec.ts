import { Types } from 'mongoose';
import {
  attachEtag,
  contentTag,
  etagOf,
  failedCondition,
  matchesStrongly,
  matchesWeakly,
  parseEntityTags,
  parseVersionTag,
  versionTag,
} from '../../../src/concurrency/entity-tag.js';
import { RouteCall } from '../../../src/call/route-call.js';
import type { RoutePlan } from '../../../src/call/route-plan.js';
import { takePrecondition } from '../../../src/call/call-context.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function entityTagSpec(): void {
  describe('version tags', () => {
    const id = new Types.ObjectId('6b02c1f0a4e3d2b1c0f9e8d7');

    it('name the _id and the version, quoted', () => {
      expect(versionTag(id, 3)).toBe('"6b02c1f0a4e3d2b1c0f9e8d7-3"');
      expect(parseVersionTag('"6b02c1f0a4e3d2b1c0f9e8d7-3"')).toEqual({ id: '6b02c1f0a4e3d2b1c0f9e8d7', version: 3 });
    });

    it('take a document without a version key as version 0', () => {
      expect(versionTag(id, undefined)).toBe('"6b02c1f0a4e3d2b1c0f9e8d7-0"');
    });

    it('keep an _id with quotes, dashes or spaces readable both ways', () => {
      const tag = versionTag('a "b"-c d', 12);
      expect(tag).toMatch(/^"[\x21\x23-\x7e]+"$/);
      expect(parseVersionTag(tag)).toEqual({ id: 'a "b"-c d', version: 12 });
    });

    it.each(['6b02-3', '"6b02-"', '"-3"', '"6b02-3x"', 'W/"6b02-3"', '"%E0%A4%A-1"', '"6b02-1234567890123456"'])('parse %s as no version tag', (tag) => {
      expect(parseVersionTag(tag)).toBeUndefined();
    });
  });

  describe('content tags', () => {
    it('change with any value, and not with the object', () => {
      const id = new Types.ObjectId();
      const a = contentTag({ _id: id, text: 'x', at: new Date(0) });
      expect(contentTag({ _id: id, text: 'x', at: new Date(0) })).toBe(a);
      expect(contentTag({ _id: id, text: 'y', at: new Date(0) })).not.toBe(a);
      expect(contentTag({ _id: id, text: 'x', at: new Date(1) })).not.toBe(a);
      expect(a).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    });
  });

  describe('If-Match / If-None-Match', () => {
    it('parse *, lists, repeated headers, and drop what is not a tag', () => {
      expect(parseEntityTags(' * ')).toBe('*');
      expect(parseEntityTags('"a", W/"b" ,"c"')).toEqual(['"a"', 'W/"b"', '"c"']);
      expect(parseEntityTags(['"a"', '"b"'])).toEqual(['"a"', '"b"']);
      expect(parseEntityTags('a, b')).toEqual([]);
    });

    it('compare strongly for If-Match (a weak tag never matches) and weakly for If-None-Match', () => {
      expect(matchesStrongly(['"a"'], '"a"')).toBe(true);
      expect(matchesStrongly(['W/"a"'], '"a"')).toBe(false);
      expect(matchesStrongly('*', '"a"')).toBe(true);
      expect(matchesWeakly(['W/"a"'], '"a"')).toBe(true);
      expect(matchesWeakly(['"b"'], '"a"')).toBe(false);
    });
  });

  describe('etagOf', () => {
    it('reads a tag attached to a document, invisible to JSON and to key listings', () => {
      const doc = attachEtag({ a: 1 }, '"x-1"');
      expect(etagOf(doc)).toBe('"x-1"');
      expect(JSON.stringify(doc)).toBe('{"a":1}');
      expect(Object.keys(doc)).toEqual(['a']);
      expect(etagOf({ ...doc })).toBeUndefined();
      expect(etagOf(null)).toBeUndefined();
    });
  });

  describe('failedCondition (RFC 9110 section 13.2.2, for a write)', () => {
    it('names If-Match when it names no version, else If-None-Match when it names the current one', () => {
      expect(failedCondition({}, '"a-1"')).toBeUndefined();
      expect(failedCondition({ ifMatch: ['"a-0"'] }, '"a-1"')).toBe('If-Match');
      expect(failedCondition({ ifMatch: ['"a-1"'], ifNoneMatch: ['W/"a-1"'] }, '"a-1"')).toBe('If-None-Match');
      expect(failedCondition({ ifNoneMatch: '*' }, '"a-1"')).toBe('If-None-Match');
      expect(failedCondition({ ifMatch: '*', ifNoneMatch: ['"a-0"'] }, '"a-1"')).toBeUndefined();
      expect(failedCondition({ ifMatch: ['"a-0"'], ifNoneMatch: '*' }, '"a-1"')).toBe('If-Match');
    });
  });

  describe('the request precondition', () => {
    it("goes to the first write of the route's document only", () => {
      const precondition = { resource: 'Company', id: 'c1', ifMatch: ['"c1-2"'], ifNoneMatch: '*' as const, used: false };
      const call = new RouteCall({ plan: {} as RoutePlan, request: { headers: {} }, response: {}, precondition, requiresIfMatch: false });
      const { context } = call;
      expect(takePrecondition(context, 'Company', 'other')).toBeUndefined();
      expect(takePrecondition(context, 'User', 'c1')).toBeUndefined();
      expect(takePrecondition(context, 'Company', 'c1')).toEqual({ ifMatch: ['"c1-2"'], ifNoneMatch: '*' });
      expect(takePrecondition(context, 'Company', 'c1')).toBeUndefined();
      // A context of no call has no precondition to give.
      expect(takePrecondition({}, 'Company', 'c1')).toBeUndefined();
    });
  });
}
