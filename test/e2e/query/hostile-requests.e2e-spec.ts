/**
 * Hostile and malformed requests against every generated route of the fixture app.
 *
 * Each row is one request and the one answer it must get (status, `code`, the one error shape
 * of DESIGN.md section 3, and, where a path is named, the `details` entry for it). Around every
 * row the whole database (raw collections, hidden fields included) is snapshotted: a refused
 * request must leave the data exactly as it was. No answer may leak a stack or a driver message.
 */
import type { Response } from 'supertest';
import { testAdapter, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectNoLeak } from '../../support/expect-error.js';
import { observe } from '../../support/db-snapshot.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { SEED_IDS } from '../../fixtures/seed-data.js';
import { MISSING_ID } from '../../support/ids.js';
import { useSeededApp } from '../../support/seeded-app.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function hostileRequestsSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  const { ADA, BOB, ACME, UMBRELLA, ROOT } = SEED_IDS;

  // ---------------------------------------------------------------------------------------------
  // Support
  // ---------------------------------------------------------------------------------------------

  type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

  interface Row {
    name: string;
    method: Method;
    path: string;
    /** An object is sent as JSON; a string is sent as is, with `Content-Type: application/json`. */
    body?: unknown;
    /** A raw query string (without `?`), appended to the path untouched. */
    query?: string;
    status: number;
    /** The expected `code`. */
    code: string;
    /** A `details[].path` the answer must name. */
    detail?: string;
  }

  async function send(row: Pick<Row, 'method' | 'path' | 'body' | 'query'>): Promise<Response> {
    const url = row.query === undefined ? row.path : `${row.path}?${row.query}`;
    const http = t.http();
    const req =
      row.method === 'GET'
        ? http.get(url)
        : row.method === 'POST'
          ? http.post(url)
          : row.method === 'PUT'
            ? http.put(url)
            : row.method === 'DELETE'
              ? http.delete(url)
              : http.patch(url);
    if (row.body === undefined) return req;
    if (typeof row.body === 'string') return req.set('Content-Type', 'application/json').send(row.body);
    return req.send(row.body as object);
  }

  /**
   * Fastify's JSON parser refuses a body with a `__proto__` key or a `constructor.prototype` before
   * the library sees it: there the answer is its `MR_INVALID_JSON`, with no path.
   */
  function onAdapter(row: Row): Row {
    const prototypeKey = typeof row.body === 'string' && /"__proto__"\s*:|"constructor"\s*:\s*\{\s*"prototype"/.test(row.body);
    return testAdapter() === 'fastify' && prototypeKey ? { ...row, code: 'MR_INVALID_JSON', detail: undefined } : row;
  }

  /** Nests `leaf` inside `levels` `$and`s: `{ $and: [{ $and: [ ... leaf ... ] }] }`. */
  function nestAnd(levels: number, leaf: Record<string, unknown>): Record<string, unknown> {
    let query = leaf;
    for (let i = 0; i < levels; i++) query = { $and: [query] };
    return query;
  }

  /** A plain object nested `levels` deep: `{ a: { a: { ... 1 } } }`. */
  function nestObject(levels: number): unknown {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  }

  // ---------------------------------------------------------------------------------------------
  // The rows
  // ---------------------------------------------------------------------------------------------

  const Q = 'MR_INVALID_QUERY';
  const B = 'MR_INVALID_BODY';
  const V = 'MR_INVALID_VALUE';
  const VF = 'MR_VALIDATION_FAILED';
  const ID = 'MR_INVALID_ID';
  const NF = 'MR_NOT_FOUND';
  const JSN = 'MR_INVALID_JSON';
  const NOROUTE = 'MR_ROUTE_NOT_FOUND';
  const REVERSE_ADA = `/user/${ADA}/companies/owner`;

  const operatorInjection: Row[] = [
    {
      name: 'a BSON type marker as a filter value',
      method: 'POST',
      path: '/companies',
      body: { query: { owner: { _bsontype: 'ObjectId' } } },
      status: 400,
      code: Q,
      detail: 'query.owner._bsontype',
    },
    {
      name: 'a BSON type marker in $in',
      method: 'POST',
      path: '/companies',
      body: { query: { owner: { $in: [{ _bsontype: 'ObjectId' }] } } },
      status: 400,
      code: Q,
      detail: 'query.owner.$in.0._bsontype',
    },
    {
      name: 'a BSON type marker in a write',
      method: 'POST',
      path: '/company',
      body: { niceName: 'x', owner: { _bsontype: 'ObjectId' } },
      status: 400,
      code: B,
      detail: 'owner._bsontype',
    },
    {
      name: 'one condition in two spellings',
      method: 'GET',
      path: '/companies',
      query: 'niceName[eq]=a&niceName=b',
      status: 400,
      code: Q,
      detail: 'query.niceName',
    },
    {
      name: 'an enum value under $all',
      method: 'POST',
      path: '/accounts',
      body: { query: { plan: { $all: ['gold'] } } },
      status: 400,
      code: V,
      detail: 'query.plan.$all.0',
    },
    {
      name: 'an enum value under $not',
      method: 'POST',
      path: '/accounts',
      body: { query: { plan: { $not: { $eq: 'gold' } } } },
      status: 400,
      code: V,
      detail: 'query.plan.$not.$eq',
    },
    {
      name: 'a nested-quantifier $regex',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: '(a+)+$' } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$regex',
    },
    {
      name: 'a huge counted repetition in $regex',
      method: 'GET',
      path: '/companies',
      query: `niceName[regex]=${encodeURIComponent('.{0,1000}.{0,1000}x')}`,
      status: 400,
      code: Q,
      detail: 'query.niceName.$regex',
    },
    {
      name: '$where at the top of the query',
      method: 'POST',
      path: '/companies',
      body: { query: { $where: 'sleep(1000) || true' } },
      status: 400,
      code: Q,
      detail: 'query.$where',
    },
    {
      name: '$expr at the top of the query',
      method: 'POST',
      path: '/companies',
      body: { query: { $expr: { $gt: ['$employees', 1] } } },
      status: 400,
      code: Q,
      detail: 'query.$expr',
    },
    {
      name: '$function on a field',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $function: { body: 'function () { return true }', args: [], lang: 'js' } } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$function',
    },
    {
      name: '$accumulator at the top',
      method: 'POST',
      path: '/companies',
      body: { query: { $accumulator: { init: 'function () {}' } } },
      status: 400,
      code: Q,
      detail: 'query.$accumulator',
    },
    {
      name: '$jsonSchema on users',
      method: 'POST',
      path: '/users',
      body: { query: { $jsonSchema: { required: ['niceName'] } } },
      status: 400,
      code: Q,
      detail: 'query.$jsonSchema',
    },
    { name: '$text on users', method: 'POST', path: '/users', body: { query: { $text: { $search: 'ada' } } }, status: 400, code: Q, detail: 'query.$text' },
    {
      name: '$lookup smuggled as a filter key',
      method: 'POST',
      path: '/companies',
      body: { query: { $lookup: { from: 'accounts', localField: 'owner', foreignField: '_id', as: 'x' } } },
      status: 400,
      code: Q,
      detail: 'query.$lookup',
    },
    {
      name: '$merge smuggled as a filter key',
      method: 'POST',
      path: '/companies',
      body: { query: { $merge: 'accounts' } },
      status: 400,
      code: Q,
      detail: 'query.$merge',
    },
    {
      name: '$out smuggled as a filter key',
      method: 'POST',
      path: '/companies',
      body: { query: { $out: 'pwned' } },
      status: 400,
      code: Q,
      detail: 'query.$out',
    },
    { name: '$comment at the top', method: 'POST', path: '/companies', body: { query: { $comment: 'hello' } }, status: 400, code: Q, detail: 'query.$comment' },
    {
      name: '$mod on a field (not allowlisted)',
      method: 'POST',
      path: '/companies',
      body: { query: { employees: { $mod: [2, 0] } } },
      status: 400,
      code: Q,
      detail: 'query.employees.$mod',
    },
    {
      name: '$where inside $or',
      method: 'POST',
      path: '/companies',
      body: { query: { $or: [{ niceName: 'Acme' }, { $where: 'true' }] } },
      status: 400,
      code: Q,
      detail: 'query.$or.1.$where',
    },
    {
      name: '$expr inside $and',
      method: 'POST',
      path: '/companies',
      body: { query: { $and: [{ niceName: 'Acme' }, { $expr: { $eq: [1, 1] } }] } },
      status: 400,
      code: Q,
      detail: 'query.$and.1.$expr',
    },
    {
      name: '$function inside $nor',
      method: 'POST',
      path: '/companies',
      body: { query: { $nor: [{ employees: { $function: {} } }] } },
      status: 400,
      code: Q,
      detail: 'query.$nor.0.employees.$function',
    },
    {
      name: '$where inside $not',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $not: { $where: 'true' } } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$not.$where',
    },
    {
      name: '$where inside $elemMatch',
      method: 'POST',
      path: '/companies',
      body: { query: { location: { $elemMatch: { $where: 'true' } } } },
      status: 400,
      code: Q,
      detail: 'query.location.$elemMatch.$where',
    },
    {
      name: '$where deep in $or/$and/$nor',
      method: 'POST',
      path: '/companies',
      body: { query: { $or: [{ $and: [{ $nor: [{ $where: 'true' }] }] }] } },
      status: 400,
      code: Q,
      detail: 'query.$or.0.$and.0.$nor.0.$where',
    },
    {
      name: '$where inside the operand of $eq',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $eq: { $where: 'true' } } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$eq.$where',
    },
    {
      name: '$where next to an allowed operator',
      method: 'POST',
      path: '/companies',
      body: { query: { owner: { $ne: null, $where: 'true' } } },
      status: 400,
      code: Q,
      detail: 'query.owner.$where',
    },
    {
      name: '$where next to a legitimate $or',
      method: 'POST',
      path: '/companies',
      body: { query: { $or: [{ niceName: 'Acme' }], $where: 'true' } },
      status: 400,
      code: Q,
      detail: 'query.$where',
    },
    {
      name: '$where on the reverse route',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: { $where: 'this.owner != null' } },
      status: 400,
      code: Q,
      detail: 'query.$where',
    },
    {
      name: '$expr inside $or on the reverse route',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: { $or: [{ $expr: { $eq: [1, 1] } }] } },
      status: 400,
      code: Q,
      detail: 'query.$or.0.$expr',
    },
    {
      name: '$where oracle on a hidden field',
      method: 'POST',
      path: '/accounts',
      body: { query: { $where: "this.passwordHash.startsWith('h')" } },
      status: 400,
      code: Q,
      detail: 'query.$where',
    },
    { name: '$where in a query string operator', method: 'GET', path: '/companies', query: 'niceName[where]=1', status: 400, code: Q },
    { name: '$expr in a reverse query string', method: 'GET', path: REVERSE_ADA, query: 'employees[expr]=1', status: 400, code: Q },
  ];

  const unknownAndHiddenFields: Row[] = [
    { name: 'unknown field in query', method: 'POST', path: '/companies', body: { query: { isAdmin: true } }, status: 400, code: Q, detail: 'query.isAdmin' },
    {
      name: 'unknown field inside $or',
      method: 'POST',
      path: '/users',
      body: { query: { $or: [{ niceName: 'Ada' }, { role: 'admin' }] } },
      status: 400,
      code: Q,
      detail: 'query.$or.1.role',
    },
    {
      name: 'sub-path of a reference (no join)',
      method: 'POST',
      path: '/companies',
      body: { query: { 'owner.niceName': 'Ada' } },
      status: 400,
      code: Q,
      detail: 'query.owner.niceName',
    },
    { name: 'unknown field in sort', method: 'POST', path: '/companies', body: { sort: { salary: -1 } }, status: 400, code: Q, detail: 'sort.salary' },
    {
      name: 'unknown field in select',
      method: 'POST',
      path: '/companies',
      body: { select: ['niceName', 'secret'] },
      status: 400,
      code: Q,
      detail: 'select.secret',
    },
    {
      name: 'unknown field in reverse query',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: { revenue: { $gt: 1 } } },
      status: 400,
      code: Q,
      detail: 'query.revenue',
    },
    { name: 'unknown field in a query string', method: 'GET', path: '/companies', query: 'salary=1', status: 400, code: Q, detail: 'query.salary' },
    { name: 'unknown field in a query-string sort', method: 'GET', path: '/users', query: 'sort=-salary', status: 400, code: Q, detail: 'sort.salary' },
    {
      name: 'unknown field in a query-string select',
      method: 'GET',
      path: REVERSE_ADA,
      query: 'select=niceName,secret',
      status: 400,
      code: Q,
      detail: 'select.secret',
    },
    {
      name: 'hidden field, equality',
      method: 'POST',
      path: '/accounts',
      body: { query: { passwordHash: 'hash-abc' } },
      status: 400,
      code: Q,
      detail: 'query.passwordHash',
    },
    {
      name: 'hidden field, $regex oracle',
      method: 'POST',
      path: '/accounts',
      body: { query: { passwordHash: { $regex: '^hash' } } },
      status: 400,
      code: Q,
      detail: 'query.passwordHash',
    },
    {
      name: 'hidden field, $exists inside $or',
      method: 'POST',
      path: '/accounts',
      body: { query: { $or: [{ passwordHash: { $exists: true } }] } },
      status: 400,
      code: Q,
      detail: 'query.$or.0.passwordHash',
    },
    {
      name: 'hidden field, inside $not',
      method: 'POST',
      path: '/accounts',
      body: { query: { $nor: [{ passwordHash: { $not: { $regex: '^h' } } }] } },
      status: 400,
      code: Q,
      detail: 'query.$nor.0.passwordHash',
    },
    {
      name: 'hidden field, sort (ordering oracle)',
      method: 'POST',
      path: '/accounts',
      body: { sort: { passwordHash: 1 } },
      status: 400,
      code: Q,
      detail: 'sort.passwordHash',
    },
    {
      name: 'hidden field, select',
      method: 'POST',
      path: '/accounts',
      body: { select: ['email', 'passwordHash'] },
      status: 400,
      code: Q,
      detail: 'select.passwordHash',
    },
    { name: "hidden field, Mongoose '+' select", method: 'POST', path: '/accounts', body: { select: '+passwordHash' }, status: 400, code: Q },
    { name: 'hidden field, query string equality', method: 'GET', path: '/accounts', query: 'passwordHash=hash-abc', status: 400, code: Q },
    { name: 'hidden field, query string $regex', method: 'GET', path: '/accounts', query: 'passwordHash[regex]=%5Eh', status: 400, code: Q },
    { name: 'hidden field, query string sort', method: 'GET', path: '/accounts', query: 'sort=-passwordHash', status: 400, code: Q },
    { name: "hidden field, query string '+' select", method: 'GET', path: '/accounts', query: 'select=%2BpasswordHash', status: 400, code: Q },
  ];

  const regexRows: Row[] = [
    {
      name: '$regex of 257 characters',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: 'a'.repeat(257) } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$regex',
    },
    {
      name: '$regex of 260 characters (a ReDoS pattern) on the reverse route',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: { location: { $regex: '(a+)+'.repeat(52) } } },
      status: 400,
      code: Q,
      detail: 'query.location.$regex',
    },
    {
      name: '$options with g',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: 'a', $options: 'g' } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$options',
    },
    {
      name: '$options with u',
      method: 'POST',
      path: '/users',
      body: { query: { niceName: { $regex: 'a', $options: 'iu' } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$options',
    },
    {
      name: '$options not a string',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: 'a', $options: 1 } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$options',
    },
    { name: '$options without $regex', method: 'POST', path: '/companies', body: { query: { niceName: { $options: 'i' } } }, status: 400, code: Q },
    {
      name: '$regex a number',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: 123 } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$regex',
    },
    {
      name: '$regex an array',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $regex: ['a'] } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$regex',
    },
    {
      name: '$regex an object',
      method: 'POST',
      path: '/accounts',
      body: { query: { email: { $regex: { $where: 'true' } } } },
      status: 400,
      code: Q,
      detail: 'query.email.$regex',
    },
    {
      name: '$regex of 257 characters in a query string',
      method: 'GET',
      path: '/companies',
      query: `niceName[regex]=${'a'.repeat(257)}`,
      status: 400,
      code: Q,
    },
    { name: '$options e in a query string', method: 'GET', path: '/companies', query: 'niceName[regex]=a&niceName[options]=e', status: 400, code: Q },
  ];

  const sizeRows: Row[] = [
    { name: 'query nested 9 levels ($and)', method: 'POST', path: '/companies', body: { query: nestAnd(5, { niceName: 'Acme' }) }, status: 400, code: Q },
    {
      name: 'query nested 9 levels ($and) on the reverse route',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: nestAnd(5, { niceName: 'Acme' }) },
      status: 400,
      code: Q,
    },
    { name: 'literal nested 10 levels', method: 'POST', path: '/companies', body: { query: { location: { $eq: nestObject(10) } } }, status: 400, code: Q },
    { name: 'query nested 200 levels', method: 'POST', path: '/users', body: { query: nestAnd(200, { niceName: 'Ada' }) }, status: 400, code: Q },
    {
      name: '$or with 1001 conditions',
      method: 'POST',
      path: '/companies',
      body: { query: { $or: Array.from({ length: 1001 }, (_, i) => ({ niceName: `n${i}` })) } },
      status: 400,
      code: Q,
    },
    {
      name: '$in with 1001 items',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $in: Array.from({ length: 1001 }, (_, i) => `n${i}`) } } },
      status: 400,
      code: Q,
    },
    {
      name: 'literal object with 1001 keys',
      method: 'POST',
      path: '/users',
      body: { query: { niceName: { $eq: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])) } } },
      status: 400,
      code: Q,
    },
  ];

  const prototypeRows: Row[] = [
    {
      name: '__proto__ as a query field (raw JSON)',
      method: 'POST',
      path: '/companies',
      body: '{"query":{"__proto__":{"x":1}}}',
      status: 400,
      code: Q,
      detail: 'query.__proto__',
    },
    {
      name: 'constructor.prototype as a query field (raw JSON)',
      method: 'POST',
      path: '/companies',
      body: '{"query":{"constructor":{"prototype":{"x":1}}}}',
      status: 400,
      code: Q,
      detail: 'query.constructor',
    },
    {
      name: 'prototype as a query field (raw JSON)',
      method: 'POST',
      path: '/users',
      body: '{"query":{"prototype":1}}',
      status: 400,
      code: Q,
      detail: 'query.prototype',
    },
    {
      name: '__proto__ inside $or (raw JSON)',
      method: 'POST',
      path: '/companies',
      body: '{"query":{"$or":[{"__proto__":{"isAdmin":true}}]}}',
      status: 400,
      code: Q,
      detail: 'query.$or.0.__proto__',
    },
    {
      name: '__proto__ inside an $eq operand (raw JSON)',
      method: 'POST',
      path: '/companies',
      body: '{"query":{"location":{"$eq":{"__proto__":{"polluted":true}}}}}',
      status: 400,
      code: Q,
      detail: 'query.location.$eq.__proto__',
    },
    {
      name: '__proto__ at the top of a search body (raw JSON)',
      method: 'POST',
      path: '/companies',
      body: '{"__proto__":{"query":{"$where":"true"}}}',
      status: 400,
      code: Q,
      detail: '__proto__',
    },
    { name: '__proto__ in sort (raw JSON)', method: 'POST', path: '/companies', body: '{"sort":{"__proto__":1}}', status: 400, code: Q },
    { name: 'constructor in select', method: 'POST', path: '/companies', body: { select: ['constructor'] }, status: 400, code: Q },
    {
      name: '__proto__ in the reverse query (raw JSON)',
      method: 'POST',
      path: REVERSE_ADA,
      body: '{"query":{"__proto__":{"owner":{"$exists":true}}}}',
      status: 400,
      code: Q,
      detail: 'query.__proto__',
    },
    { name: '?__proto__[ne]=1', method: 'GET', path: '/companies', query: '__proto__[ne]=1', status: 400, code: Q },
    { name: '?constructor=1', method: 'GET', path: '/companies', query: 'constructor=1', status: 400, code: Q },
    { name: '?prototype[exists]=true', method: 'GET', path: '/users', query: 'prototype[exists]=true', status: 400, code: Q },
    { name: '?niceName[__proto__]=1', method: 'GET', path: '/companies', query: 'niceName[__proto__]=1', status: 400, code: Q },
    { name: '?sort=__proto__', method: 'GET', path: '/companies', query: 'sort=__proto__', status: 400, code: Q },
    { name: '?__proto__=1 on the reverse route', method: 'GET', path: REVERSE_ADA, query: '__proto__=1', status: 400, code: Q },
    {
      name: '__proto__ at the top of a create body (raw JSON)',
      method: 'POST',
      path: '/company',
      body: '{"niceName":"Evil","__proto__":{"isAdmin":true}}',
      status: 400,
      code: B,
      detail: '__proto__',
    },
    {
      name: 'constructor at the top of a create body',
      method: 'POST',
      path: '/user',
      body: '{"niceName":"Evil","constructor":{"prototype":{"isAdmin":true}}}',
      status: 400,
      code: B,
      detail: 'constructor',
    },
    {
      name: 'prototype at the top of a create body',
      method: 'POST',
      path: '/account',
      body: '{"email":"proto@example.com","prototype":{}}',
      status: 400,
      code: B,
      detail: 'prototype',
    },
    {
      name: '__proto__ nested in a create body (raw JSON)',
      method: 'POST',
      path: '/account',
      body: '{"email":"nested-proto@example.com","profile":{"__proto__":{"isAdmin":true}}}',
      status: 400,
      code: B,
      detail: 'profile.__proto__',
    },
    {
      name: '__proto__ at the top of an update body (raw JSON)',
      method: 'PUT',
      path: `/company/${ACME}`,
      body: '{"__proto__":{"niceName":"pwned"}}',
      status: 400,
      code: B,
      detail: '__proto__',
    },
    {
      name: 'constructor nested in an update body',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: '{"profile":{"constructor":{"prototype":{"isAdmin":true}}}}',
      status: 400,
      code: B,
      detail: 'profile.constructor',
    },
  ];

  const pagingRows: Row[] = [
    { name: 'limit 0', method: 'POST', path: '/companies', body: { limit: 0 }, status: 400, code: Q, detail: 'limit' },
    { name: 'limit -1', method: 'POST', path: '/users', body: { limit: -1 }, status: 400, code: Q, detail: 'limit' },
    { name: 'limit 1.5', method: 'POST', path: '/companies', body: { limit: 1.5 }, status: 400, code: Q, detail: 'limit' },
    { name: 'limit "abc"', method: 'POST', path: '/accounts', body: { limit: 'abc' }, status: 400, code: Q, detail: 'limit' },
    { name: 'limit an object', method: 'POST', path: REVERSE_ADA, body: { limit: { $gt: 0 } }, status: 400, code: Q, detail: 'limit' },
    { name: 'skip -1', method: 'POST', path: '/companies', body: { skip: -1 }, status: 400, code: Q, detail: 'skip' },
    { name: 'skip 10001', method: 'POST', path: '/companies', body: { skip: 10001 }, status: 400, code: Q, detail: 'skip' },
    { name: 'sort direction 2', method: 'POST', path: '/companies', body: { sort: { employees: 2 } }, status: 400, code: Q, detail: 'sort.employees' },
    {
      name: 'sort direction "sideways"',
      method: 'POST',
      path: '/users',
      body: { sort: { niceName: 'sideways' } },
      status: 400,
      code: Q,
      detail: 'sort.niceName',
    },
    {
      name: 'sort direction "constructor"',
      method: 'POST',
      path: '/companies',
      body: { sort: { niceName: 'constructor' } },
      status: 400,
      code: Q,
      detail: 'sort.niceName',
    },
    {
      name: 'sort direction an object',
      method: 'POST',
      path: REVERSE_ADA,
      body: { sort: { niceName: { $meta: 'textScore' } } },
      status: 400,
      code: Q,
      detail: 'sort.niceName',
    },
    { name: 'sort a number', method: 'POST', path: '/companies', body: { sort: 5 }, status: 400, code: Q, detail: 'sort' },
    { name: 'select a number', method: 'POST', path: '/companies', body: { select: 5 }, status: 400, code: Q, detail: 'select' },
    { name: 'select an object (not a list)', method: 'POST', path: '/accounts', body: { select: { email: 1 } }, status: 400, code: Q, detail: 'select' },
    { name: 'select a list of non-strings', method: 'POST', path: '/companies', body: { select: [1, 2] }, status: 400, code: Q, detail: 'select' },
    { name: 'unknown body key populate', method: 'POST', path: '/companies', body: { populate: 'owner' }, status: 400, code: Q, detail: 'populate' },
    { name: 'unknown body key $where', method: 'POST', path: '/companies', body: { $where: 'true' }, status: 400, code: Q, detail: '$where' },
    {
      name: 'unknown body key projection',
      method: 'POST',
      path: '/accounts',
      body: { projection: { passwordHash: 1 } },
      status: 400,
      code: Q,
      detail: 'projection',
    },
    { name: 'unknown body key filter on the reverse route', method: 'POST', path: REVERSE_ADA, body: { filter: {} }, status: 400, code: Q, detail: 'filter' },
    { name: '?limit=0', method: 'GET', path: '/companies', query: 'limit=0', status: 400, code: Q, detail: 'limit' },
    { name: '?limit=1.5', method: 'GET', path: '/users', query: 'limit=1.5', status: 400, code: Q, detail: 'limit' },
    { name: '?limit=abc', method: 'GET', path: REVERSE_ADA, query: 'limit=abc', status: 400, code: Q, detail: 'limit' },
    { name: '?limit twice', method: 'GET', path: '/companies', query: 'limit=1&limit=2', status: 400, code: Q, detail: 'limit' },
    { name: '?skip=10001', method: 'GET', path: '/accounts', query: 'skip=10001', status: 400, code: Q, detail: 'skip' },
    { name: '?sort=employees:sideways', method: 'GET', path: '/companies', query: 'sort=employees:sideways', status: 400, code: Q },
  ];

  const wrongTypeRows: Row[] = [
    { name: 'query a string', method: 'POST', path: '/companies', body: { query: 'niceName=Acme' }, status: 400, code: Q, detail: 'query' },
    { name: 'query an array', method: 'POST', path: '/companies', body: { query: [{ niceName: 'Acme' }] }, status: 400, code: Q, detail: 'query' },
    { name: 'query a number', method: 'POST', path: '/users', body: { query: 42 }, status: 400, code: Q, detail: 'query' },
    { name: 'query a boolean on the reverse route', method: 'POST', path: REVERSE_ADA, body: { query: true }, status: 400, code: Q, detail: 'query' },
    { name: '$or not an array', method: 'POST', path: '/companies', body: { query: { $or: { niceName: 'Acme' } } }, status: 400, code: Q, detail: 'query.$or' },
    {
      name: '$in not an array',
      method: 'POST',
      path: '/companies',
      body: { query: { niceName: { $in: 'Acme' } } },
      status: 400,
      code: Q,
      detail: 'query.niceName.$in',
    },
    { name: 'search body an array', method: 'POST', path: '/companies', body: '[{"query":{}}]', status: 400, code: B },
    { name: 'search body an empty array on the reverse route', method: 'POST', path: REVERSE_ADA, body: '[]', status: 400, code: B },
    { name: 'search body a JSON string', method: 'POST', path: '/companies', body: '"query"', status: 400, code: B },
  ];

  const massAssignmentRows: Row[] = [
    { name: 'create with _id', method: 'POST', path: '/company', body: { niceName: 'Evil', _id: MISSING_ID }, status: 400, code: B, detail: '_id' },
    { name: 'create with __v', method: 'POST', path: '/user', body: { niceName: 'Evil', __v: 7 }, status: 400, code: B, detail: '__v' },
    {
      name: 'create with createdAt',
      method: 'POST',
      path: '/account',
      body: { email: 'created@example.com', createdAt: '2000-01-01T00:00:00.000Z' },
      status: 400,
      code: B,
      detail: 'createdAt',
    },
    {
      name: 'create with updatedAt',
      method: 'POST',
      path: '/account',
      body: { email: 'updated@example.com', updatedAt: '2000-01-01T00:00:00.000Z' },
      status: 400,
      code: B,
      detail: 'updatedAt',
    },
    {
      name: 'create with isAdmin',
      method: 'POST',
      path: '/account',
      body: { email: 'admin@example.com', isAdmin: true },
      status: 400,
      code: B,
      detail: 'isAdmin',
    },
    { name: 'create with role', method: 'POST', path: '/user', body: { niceName: 'Evil', role: 'admin' }, status: 400, code: B, detail: 'role' },
    {
      name: 'create with $set',
      method: 'POST',
      path: '/company',
      body: { niceName: 'Evil', $set: { niceName: 'Worse' } },
      status: 400,
      code: B,
      detail: '$set',
    },
    {
      name: 'create with a dotted key',
      method: 'POST',
      path: '/account',
      body: { email: 'dotted@example.com', 'profile.age': 3 },
      status: 400,
      code: B,
      detail: 'profile.age',
    },
    {
      name: 'create with an operator inside a value',
      method: 'POST',
      path: '/user',
      body: { niceName: 'Evil', birth: { $gt: '2000-01-01' } },
      status: 400,
      code: B,
      detail: 'birth.$gt',
    },
    {
      name: 'create with an unknown nested key in profile',
      method: 'POST',
      path: '/account',
      body: { email: 'x@y.z', profile: { displayName: 'a', isAdmin: true } },
      status: 400,
      code: B,
      detail: 'profile.isAdmin',
    },
    {
      name: 'create with the hidden field written through a dotted key',
      method: 'POST',
      path: '/account',
      body: { email: 'hidden@example.com', 'passwordHash.x': 'y' },
      status: 400,
      code: B,
    },
    { name: 'update _id', method: 'PUT', path: `/company/${ACME}`, body: { _id: MISSING_ID }, status: 400, code: B, detail: '_id' },
    { name: 'update __v', method: 'PUT', path: `/company/${ACME}`, body: { __v: 99 }, status: 400, code: B, detail: '__v' },
    {
      name: 'update createdAt',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { createdAt: '2000-01-01T00:00:00.000Z' },
      status: 400,
      code: B,
      detail: 'createdAt',
    },
    {
      name: 'update updatedAt',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { updatedAt: '2000-01-01T00:00:00.000Z' },
      status: 400,
      code: B,
      detail: 'updatedAt',
    },
    { name: 'update isAdmin', method: 'PUT', path: `/user/${ADA}`, body: { isAdmin: true }, status: 400, code: B, detail: 'isAdmin' },
    { name: 'update with $set', method: 'PUT', path: `/company/${ACME}`, body: { $set: { niceName: 'pwned' } }, status: 400, code: B, detail: '$set' },
    { name: 'update with $unset', method: 'PUT', path: `/company/${ACME}`, body: { $unset: { niceName: 1 } }, status: 400, code: B, detail: '$unset' },
    {
      name: 'update with $inc next to a field',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { email: 'root@example.com', $inc: { credits: 1000 } },
      status: 400,
      code: B,
      detail: '$inc',
    },
    { name: 'update with a dotted key', method: 'PUT', path: `/account/${ROOT}`, body: { 'profile.age': 3 }, status: 400, code: B, detail: 'profile.age' },
    {
      name: 'update with an operator inside a value',
      method: 'PUT',
      path: `/company/${ACME}`,
      body: { niceName: { $ne: null } },
      status: 400,
      code: B,
      detail: 'niceName.$ne',
    },
    {
      name: 'update with an unknown nested key in profile',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { profile: { displayName: 'a', isAdmin: true } },
      status: 400,
      code: B,
      detail: 'profile.isAdmin',
    },
    { name: 'create body an array', method: 'POST', path: '/company', body: '[{"niceName":"Evil"}]', status: 400, code: B },
    { name: 'create body a JSON string', method: 'POST', path: '/user', body: '"Evil"', status: 400, code: B },
    { name: 'create body a number', method: 'POST', path: '/company', body: '42', status: 400, code: B },
    { name: 'create body null', method: 'POST', path: '/account', body: 'null', status: 400, code: B },
    { name: 'update body an array', method: 'PUT', path: `/company/${ACME}`, body: '[]', status: 400, code: B },
    { name: 'update body a JSON string', method: 'PUT', path: `/user/${ADA}`, body: '"Evil"', status: 400, code: B },
    { name: 'update body a number', method: 'PUT', path: `/account/${ROOT}`, body: '0', status: 400, code: B },
    { name: 'update body null', method: 'PUT', path: `/company/${ACME}`, body: 'null', status: 400, code: B },
  ];

  const castRows: Row[] = [
    { name: 'create with owner "xyz"', method: 'POST', path: '/company', body: { niceName: 'Cast', owner: 'xyz' }, status: 400, code: VF, detail: 'owner' },
    {
      name: 'create with birth "not a date"',
      method: 'POST',
      path: '/user',
      body: { niceName: 'Cast', birth: 'not a date' },
      status: 400,
      code: VF,
      detail: 'birth',
    },
    {
      name: 'create with employees "abc"',
      method: 'POST',
      path: '/company',
      body: { niceName: 'Cast', employees: 'abc' },
      status: 400,
      code: VF,
      detail: 'employees',
    },
    {
      name: 'create with credits "lots"',
      method: 'POST',
      path: '/account',
      body: { email: 'cast@example.com', credits: 'lots' },
      status: 400,
      code: VF,
      detail: 'credits',
    },
    {
      name: 'create with an object for a number',
      method: 'POST',
      path: '/account',
      body: { email: 'cast2@example.com', credits: { a: 1 } },
      status: 400,
      code: VF,
      detail: 'credits',
    },
    { name: 'update owner "xyz"', method: 'PUT', path: `/company/${ACME}`, body: { owner: 'xyz' }, status: 400, code: VF, detail: 'owner' },
    { name: 'update birth "not a date"', method: 'PUT', path: `/user/${ADA}`, body: { birth: 'not a date' }, status: 400, code: VF, detail: 'birth' },
    { name: 'update employees "abc"', method: 'PUT', path: `/company/${ACME}`, body: { employees: 'abc' }, status: 400, code: VF, detail: 'employees' },
    {
      name: 'update profile.age "old"',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { profile: { displayName: 'Root', age: 'old' } },
      status: 400,
      code: VF,
      detail: 'profile.age',
    },
    {
      name: 'patch a nested object with a scalar',
      method: 'PATCH',
      path: `/account/${ROOT}`,
      body: { profile: true },
      status: 400,
      code: VF,
      detail: 'profile',
    },
    { name: 'create with 1e400', method: 'POST', path: '/company', body: '{"niceName":"Big","employees":1e400}', status: 400, code: VF, detail: 'employees' },
    {
      name: 'search employees {$gt: "abc"}',
      method: 'POST',
      path: '/companies',
      body: { query: { employees: { $gt: 'abc' } } },
      status: 400,
      code: V,
      detail: 'query.employees.$gt',
    },
    { name: 'search owner "xyz"', method: 'POST', path: '/companies', body: { query: { owner: 'xyz' } }, status: 400, code: V, detail: 'query.owner' },
    {
      name: 'search birth {$lt: "not a date"}',
      method: 'POST',
      path: '/users',
      body: { query: { birth: { $lt: 'not a date' } } },
      status: 400,
      code: V,
      detail: 'query.birth.$lt',
    },
    { name: 'search employees {$in: ["abc"]}', method: 'POST', path: '/companies', body: { query: { employees: { $in: ['abc'] } } }, status: 400, code: V },
    // An operator the field's type cannot take is refused as a query error, by the field's type,
    // before any value is cast: MR_INVALID_QUERY (never MR_INVALID_VALUE), the same on Express and
    // Fastify, on FerretDB over PostgreSQL and over SQLite (the engine never sees the query).
    { name: '$regex on a Number field', method: 'POST', path: '/companies', body: { query: { employees: { $regex: '^1' } } }, status: 400, code: Q },
    { name: '$regex on _id', method: 'POST', path: '/companies', body: { query: { _id: { $regex: '^6' } } }, status: 400, code: Q },
    { name: '$regex on a Date field', method: 'POST', path: '/users', body: { query: { birth: { $regex: '1815' } } }, status: 400, code: Q },
    {
      name: '$regex on the reference field of the reverse route',
      method: 'POST',
      path: REVERSE_ADA,
      body: { query: { owner: { $regex: '.' } } },
      status: 400,
      code: Q,
    },
    { name: '$size on a Number field', method: 'POST', path: '/companies', body: { query: { employees: { $size: 1 } } }, status: 400, code: Q },
    {
      name: '$size on a String field inside $or',
      method: 'POST',
      path: '/accounts',
      body: { query: { $or: [{ email: { $size: 0 } }] } },
      status: 400,
      code: Q,
    },
    { name: '?employees[size]=1', method: 'GET', path: '/companies', query: 'employees[size]=1', status: 400, code: Q },
    { name: '?owner[regex]=a on the reverse route', method: 'GET', path: REVERSE_ADA, query: 'owner[regex]=a', status: 400, code: Q },
    { name: '?credits[regex]=1', method: 'GET', path: '/accounts', query: 'credits[regex]=1', status: 400, code: Q },
    { name: 'search ?employees=abc', method: 'GET', path: '/companies', query: 'employees=abc', status: 400, code: V, detail: 'query.employees' },
    { name: 'search ?owner[in]=xyz,abc', method: 'GET', path: '/companies', query: 'owner[in]=xyz,abc', status: 400, code: V },
    { name: 'reverse search owner "xyz"', method: 'POST', path: REVERSE_ADA, body: { query: { owner: 'xyz' } }, status: 400, code: V },
    { name: 'reverse search ?employees[lt]=abc', method: 'GET', path: REVERSE_ADA, query: 'employees[lt]=abc', status: 400, code: V },
  ];

  const validatorRows: Row[] = [
    { name: 'create company without niceName', method: 'POST', path: '/company', body: { employees: 3 }, status: 400, code: VF, detail: 'niceName' },
    { name: 'create company with an empty body', method: 'POST', path: '/company', body: {}, status: 400, code: VF, detail: 'niceName' },
    { name: 'create user without niceName', method: 'POST', path: '/user', body: { birth: '2000-01-01' }, status: 400, code: VF, detail: 'niceName' },
    { name: 'create account without email', method: 'POST', path: '/account', body: { credits: 1 }, status: 400, code: VF, detail: 'email' },
    {
      name: 'create account with credits -1',
      method: 'POST',
      path: '/account',
      body: { email: 'minus@example.com', credits: -1 },
      status: 400,
      code: VF,
      detail: 'credits',
    },
    {
      name: 'create account with profile.age -1',
      method: 'POST',
      path: '/account',
      body: { email: 'age@example.com', profile: { age: -1 } },
      status: 400,
      code: VF,
      detail: 'profile.age',
    },
    { name: 'update credits -1', method: 'PUT', path: `/account/${ROOT}`, body: { credits: -1 }, status: 400, code: VF, detail: 'credits' },
    {
      name: 'update profile.age -1',
      method: 'PUT',
      path: `/account/${ROOT}`,
      body: { profile: { displayName: 'Root', age: -1 } },
      status: 400,
      code: VF,
      detail: 'profile.age',
    },
    { name: 'update niceName null (required)', method: 'PUT', path: `/company/${ACME}`, body: { niceName: null }, status: 400, code: VF, detail: 'niceName' },
    { name: 'update email "" (required)', method: 'PUT', path: `/account/${ROOT}`, body: { email: '' }, status: 400, code: VF, detail: 'email' },
    { name: 'create a duplicate email', method: 'POST', path: '/account', body: { email: 'root@example.com' }, status: 409, code: 'MR_DUPLICATE_KEY' },
  ];

  const idRows: Row[] = [
    { name: 'GET /company/123', method: 'GET', path: '/company/123', status: 400, code: ID },
    { name: 'GET 24 non-hex characters', method: 'GET', path: '/company/zzzzzzzzzzzzzzzzzzzzzzzz', status: 400, code: ID },
    { name: 'GET an encoded $where', method: 'GET', path: '/company/%24where', status: 400, code: ID },
    { name: 'GET an encoded {"$ne":null}', method: 'GET', path: '/user/%7B%22%24ne%22%3Anull%7D', status: 400, code: ID },
    { name: 'GET 25 hex characters', method: 'GET', path: `/account/${ROOT}0`, status: 400, code: ID },
    { name: 'GET an encoded NUL byte', method: 'GET', path: '/user/%00', status: 400, code: ID },
    { name: 'PUT /company/123', method: 'PUT', path: '/company/123', body: { niceName: 'x' }, status: 400, code: ID },
    { name: 'DELETE an encoded $where', method: 'DELETE', path: '/company/%24where', status: 400, code: ID },
    { name: 'DELETE /user/123', method: 'DELETE', path: '/user/123', status: 400, code: ID },
    { name: 'DELETE a 23-character id', method: 'DELETE', path: `/account/${ROOT.slice(1)}`, status: 400, code: ID },
    { name: 'GET /company/123/owner', method: 'GET', path: '/company/123/owner', status: 400, code: ID },
    { name: 'GET /user/abc/companies/owner', method: 'GET', path: '/user/abc/companies/owner', status: 400, code: ID },
    { name: 'POST /user/abc/companies/owner', method: 'POST', path: '/user/abc/companies/owner', body: { query: {} }, status: 400, code: ID },
    { name: 'GET an unknown company', method: 'GET', path: `/company/${MISSING_ID}`, status: 404, code: NF },
    { name: 'GET an unknown user', method: 'GET', path: `/user/${MISSING_ID}`, status: 404, code: NF },
    { name: 'PUT an unknown company', method: 'PUT', path: `/company/${MISSING_ID}`, body: { niceName: 'Ghost' }, status: 404, code: NF },
    { name: 'PUT an unknown account', method: 'PUT', path: `/account/${MISSING_ID}`, body: { credits: 5 }, status: 404, code: NF },
    { name: 'DELETE an unknown company', method: 'DELETE', path: `/company/${MISSING_ID}`, status: 404, code: NF },
    { name: 'DELETE an unknown user', method: 'DELETE', path: `/user/${MISSING_ID}`, status: 404, code: NF },
    { name: 'DELETE an unknown account', method: 'DELETE', path: `/account/${MISSING_ID}`, status: 404, code: NF },
    { name: 'GET the owner of an unknown company', method: 'GET', path: `/company/${MISSING_ID}/owner`, status: 404, code: NF },
    { name: 'GET the owner of a company without one', method: 'GET', path: `/company/${UMBRELLA}/owner`, status: 404, code: 'MR_REFERENCE_UNSET' },
    { name: 'GET the companies of an unknown user', method: 'GET', path: `/user/${MISSING_ID}/companies/owner`, status: 404, code: NF },
    {
      name: 'POST a widening search of the companies of an unknown user',
      method: 'POST',
      path: `/user/${MISSING_ID}/companies/owner`,
      body: { query: { $or: [{ owner: { $exists: true } }, { owner: { $exists: false } }] } },
      status: 404,
      code: NF,
    },
    {
      name: 'create with an owner that names no user',
      method: 'POST',
      path: '/company',
      body: { niceName: 'Orphan', owner: MISSING_ID },
      status: 400,
      code: 'MR_REFERENCE_NOT_FOUND',
      detail: 'owner',
    },
    {
      name: 'update with an owner that names no user',
      method: 'PATCH',
      path: `/company/${ACME}`,
      body: { owner: MISSING_ID },
      status: 400,
      code: 'MR_REFERENCE_NOT_FOUND',
      detail: 'owner',
    },
  ];

  const malformedJsonRows: Row[] = [
    { name: '{bad on a search', method: 'POST', path: '/companies', body: '{bad', status: 400, code: JSN },
    { name: 'missing value on a create', method: 'POST', path: '/company', body: '{"niceName":}', status: 400, code: JSN },
    { name: 'trailing comma on an update', method: 'PUT', path: `/company/${ACME}`, body: '{"niceName":"x",}', status: 400, code: JSN },
    { name: 'trailing commas on the reverse search', method: 'POST', path: REVERSE_ADA, body: '{"query":{"niceName":"Acme",},}', status: 400, code: JSN },
    { name: 'single quotes on a create', method: 'POST', path: '/user', body: "{'niceName':'x'}", status: 400, code: JSN },
    { name: 'truncated body on a create', method: 'POST', path: '/account', body: '{"email":"trunc@example.com"', status: 400, code: JSN },
    { name: 'bare word on a search', method: 'POST', path: '/accounts', body: 'undefined', status: 400, code: JSN },
  ];

  const payloadRows: Row[] = [
    {
      name: 'a 120 kB search body',
      method: 'POST',
      path: '/companies',
      body: JSON.stringify({ query: { niceName: 'a'.repeat(120_000) } }),
      status: 413,
      code: 'MR_PAYLOAD_TOO_LARGE',
    },
    {
      name: 'a 200 kB create body',
      method: 'POST',
      path: '/company',
      body: JSON.stringify({ niceName: 'b'.repeat(200_000) }),
      status: 413,
      code: 'MR_PAYLOAD_TOO_LARGE',
    },
  ];

  const routeRows: Row[] = [
    { name: 'GET /nope', method: 'GET', path: '/nope', status: 404, code: NOROUTE },
    { name: 'POST to a company', method: 'POST', path: `/company/${ACME}`, body: { niceName: 'x' }, status: 405, code: 'MR_METHOD_NOT_ALLOWED' },
    { name: 'DELETE /companies', method: 'DELETE', path: '/companies', status: 405, code: 'MR_METHOD_NOT_ALLOWED' },
    { name: 'GET /company (no id)', method: 'GET', path: '/company', status: 405, code: 'MR_METHOD_NOT_ALLOWED' },
    { name: 'PUT /users', method: 'PUT', path: '/users', body: { niceName: 'x' }, status: 405, code: 'MR_METHOD_NOT_ALLOWED' },
    {
      name: 'PATCH the owner of a company',
      method: 'PATCH',
      path: `/company/${ACME}/owner`,
      body: { niceName: 'x' },
      status: 405,
      code: 'MR_METHOD_NOT_ALLOWED',
    },
    { name: 'GET a non-reference field as a reference route', method: 'GET', path: `/company/${ACME}/employees`, status: 404, code: NOROUTE },
  ];

  const ROWS: Row[] = [
    ...operatorInjection,
    ...unknownAndHiddenFields,
    ...regexRows,
    ...sizeRows,
    ...prototypeRows,
    ...pagingRows,
    ...wrongTypeRows,
    ...massAssignmentRows,
    ...castRows,
    ...validatorRows,
    ...idRows,
    ...malformedJsonRows,
    ...payloadRows,
    ...routeRows,
  ];

  const label = (row: Row) => {
    const url = row.query === undefined ? row.path : `${row.path}?${row.query}`;
    const shortUrl = url.length > 70 ? `${url.slice(0, 67)}...` : url;
    return `${row.method} ${shortUrl}: ${row.name} → ${row.status} ${row.code}`;
  };

  // ---------------------------------------------------------------------------------------------
  // The reverse routes can never be widened: these succeed, and return only the owner's documents.
  // ---------------------------------------------------------------------------------------------

  interface ReverseRow {
    name: string;
    method: 'GET' | 'POST';
    owner: string;
    body?: unknown;
    query?: string;
    /** The companies expected, by name, sorted. */
    expected: string[];
  }

  const REVERSE_ROWS: ReverseRow[] = [
    {
      name: '$or of $exists true and false',
      method: 'POST',
      owner: ADA,
      body: { query: { $or: [{ owner: { $exists: true } }, { owner: { $exists: false } }] } },
      expected: ['Acme', 'Globex'],
    },
    { name: 'an owner condition naming another user', method: 'POST', owner: ADA, body: { query: { owner: BOB } }, expected: [] },
    { name: 'owner $ne the route owner', method: 'POST', owner: ADA, body: { query: { owner: { $ne: ADA } } }, expected: [] },
    { name: 'owner $in both users', method: 'POST', owner: ADA, body: { query: { owner: { $in: [ADA, BOB] } } }, expected: ['Acme', 'Globex'] },
    { name: '$nor on the route owner', method: 'POST', owner: ADA, body: { query: { $nor: [{ owner: ADA }] } }, expected: [] },
    { name: '$or naming both users, on Bob', method: 'POST', owner: BOB, body: { query: { $or: [{ owner: ADA }, { owner: BOB }] } }, expected: ['Initech'] },
    {
      name: '$or with an always-true branch on niceName',
      method: 'POST',
      owner: BOB,
      body: { query: { $or: [{ niceName: { $exists: true } }, { niceName: { $exists: false } }] } },
      expected: ['Initech'],
    },
    { name: '?owner=<other user>', method: 'GET', owner: ADA, query: `owner=${BOB}`, expected: [] },
    { name: '?owner[ne]=<route owner>', method: 'GET', owner: ADA, query: `owner[ne]=${ADA}`, expected: [] },
    { name: '?owner[exists]=false', method: 'GET', owner: ADA, query: 'owner[exists]=false', expected: [] },
    { name: '?owner[in]=<both users>', method: 'GET', owner: BOB, query: `owner[in]=${ADA},${BOB}`, expected: ['Initech'] },
  ];

  describe('generated routes of the fixture app', () => {
    useSeededApp(engine, (app) => (t = app));

    describe('hostile requests', () => {
      it('has a row for every route and at least 110 rows, with unique names', () => {
        expect(ROWS.length).toBeGreaterThanOrEqual(110);
        expect(new Set(ROWS.map((row) => row.name)).size).toBe(ROWS.length);
        const routes = [
          ['GET', /^\/company\/[^/]+$/],
          ['PUT', /^\/company\/[^/]+$/],
          ['PATCH', /^\/company\/[^/]+$/],
          ['DELETE', /^\/company\/[^/]+$/],
          ['POST', /^\/company$/],
          ['GET', /^\/companies$/],
          ['POST', /^\/companies$/],
          ['GET', /^\/company\/[^/]+\/owner$/],
          ['GET', /^\/user\/[^/]+\/companies\/owner$/],
          ['POST', /^\/user\/[^/]+\/companies\/owner$/],
          ['GET', /^\/user\/[^/]+$/],
          ['PUT', /^\/user\/[^/]+$/],
          ['DELETE', /^\/user\/[^/]+$/],
          ['POST', /^\/user$/],
          ['GET', /^\/users$/],
          ['POST', /^\/users$/],
          ['GET', /^\/account\/[^/]+$/],
          ['PUT', /^\/account\/[^/]+$/],
          ['DELETE', /^\/account\/[^/]+$/],
          ['POST', /^\/account$/],
          ['GET', /^\/accounts$/],
          ['POST', /^\/accounts$/],
        ] as const;
        for (const [method, pattern] of routes) {
          expect({ method, pattern: String(pattern), rows: ROWS.some((row) => row.method === method && pattern.test(row.path)) }).toEqual({
            method,
            pattern: String(pattern),
            rows: true,
          });
        }
      });

      it.each(ROWS.map((row) => [label(row), onAdapter(row)] as const))('%s', async (_label, row) => {
        const response = await expectRefusedUnchanged(t.connection, () => send(row), { status: row.status, code: row.code });
        if (row.detail !== undefined) {
          expect((response.body.details ?? []).map((detail: { path: string }) => detail.path)).toContain(row.detail);
        }
      });
    });

    describe('reverse routes cannot be widened', () => {
      it.each(REVERSE_ROWS.map((row) => [`${row.method} /user/:user_id/companies/owner: ${row.name}`, row] as const))('%s', async (_label, row) => {
        const { response, after, before } = await observe(t.connection, () =>
          send({ method: row.method, path: `/user/${row.owner}/companies/owner`, body: row.body, query: row.query }),
        );

        expect(response.status).toBe(200);
        expectNoLeak(response);
        const result = response.body.result as Array<{ niceName: string; owner?: string }>;
        if (row.expected.length) {
          expect(result.length).toBeGreaterThan(0);
          for (const company of result) expect(company.owner).toBe(row.owner);
        } else {
          // Nothing may come back; the seed gives the route owner companies (unless the row is about
          // an owner with none), so an empty answer means the hostile condition was applied, not ignored.
          expect(result).toEqual([]);
          if (row.owner !== MISSING_ID) expect(await t.connection.model('Company').countDocuments({ owner: row.owner })).toBeGreaterThan(0);
        }
        expect(result.map((company) => company.niceName).sort()).toEqual(row.expected);
        expect(response.body.status).toEqual({
          count: 4,
          search_count: row.expected.length,
          match_count: row.expected.length,
          counted: 'exact',
          limit: 20,
          skip: 0,
        });
        expect(after.parts).toEqual(before.parts);
      });
    });
  });
}
