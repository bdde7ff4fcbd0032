/**
 * Property-based tests: random JSON bodies and query strings against the generated routes.
 * Whatever a client sends, the answer is never a 5xx; a refusal has the one error shape; a
 * success has the documented shape (every response is also checked against the OpenAPI
 * document); and a refused write leaves the data exactly as it was.
 *
 * Seeded, so that a commit always runs the same cases (CI included): the seed is in the title of
 * the top-level describe. Environment:
 * - PROPERTY_SEED: unset, the fixed DEFAULT_SEED below; `random` for a new seed on each run (to
 *   explore locally); or a number, to run the cases of that seed again.
 * - PROPERTY_RUNS: runs per property (default 150).
 * - PROPERTY_PATH: with PROPERTY_SEED, replays one failure of one property straight away (run
 *   that test alone, with `-t` and the start of its name).
 *
 * When a property fails, fast-check prints the counterexample (shrunk), its seed and its path;
 * `PROPERTY_SEED=<seed> PROPERTY_PATH=<path> npm test -- test/e2e/property -t '<start of the test
 * name, e.g. PUT /account/:account_id with>'` replays it. Then add the counterexample to
 * `describe('regressions')` at the end of this file as a plain example test, named after what went
 * wrong, that asserts the expected answer (not the wrong one): it fails until the fix lands, and
 * guards the fix afterwards whatever seed a later run draws.
 */
import fc from 'fast-check';
import type { Response } from 'supertest';
import type { TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoLeak } from '../../support/expect-error.js';
import { changedCollections, observe } from '../../support/db-snapshot.js';
import { SEED_IDS } from '../../fixtures/seed-data.js';
import { MISSING_ID } from '../../support/ids.js';
import { useSeededApp } from '../../support/seeded-app.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function propertySpec(): void {
  const engine = useEngine();
  let t: TestApp;

  /** Runs per property: about 150 (PROPERTY_RUNS overrides), the whole file well under 40 s on the embedded engine. */
  const NUM_RUNS = Number(process.env.PROPERTY_RUNS) || 150;
  const PROPERTY_TIMEOUT = 60_000;

  /** The seed of CI and of every run without PROPERTY_SEED. Change it only on purpose, in its own commit. */
  const DEFAULT_SEED = 20_260_522;
  const SEED = propertySeed(process.env.PROPERTY_SEED);
  const PATH = process.env.PROPERTY_PATH || undefined;
  fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });

  function propertySeed(value: string | undefined): number {
    if (!value) return DEFAULT_SEED;
    if (value === 'random') return (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0;
    const seed = Number(value);
    if (!Number.isInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer or 'random', not '${value}'`);
    return seed;
  }

  /** fc.assert with the file's seed, and PROPERTY_PATH when replaying one failure. */
  function assertProperty<T>(property: fc.IAsyncPropertyWithHooks<[T]>, runs?: number): Promise<void> {
    return fc.assert(property, PATH ? { path: PATH, endOnFailure: true } : runs ? { numRuns: Math.min(runs, NUM_RUNS) } : {});
  }

  const { ADA, BOB, ACME, ROOT } = SEED_IDS;

  // ---------------------------------------------------------------------------------------------
  // Support
  // ---------------------------------------------------------------------------------------------

  /** Sends `value` as the JSON text of the body, whatever it is (a primitive too). */
  function sendJson(method: 'post' | 'put', url: string, value: unknown): Promise<Response> {
    return t.http()[method](url).set('Content-Type', 'application/json').send(JSON.stringify(value));
  }

  /** Never a 5xx; a refusal has the one error shape; nothing leaks a stack or a driver message. */
  function expectAnswer(response: Response): void {
    const { status, body } = response;
    expect({ status, serverError: status >= 500, body }).toEqual({ status, serverError: false, body });
    expectNoLeak(response);
    if (status >= 400) {
      expect(body).toEqual({
        statusCode: status,
        error: expect.any(String),
        code: expect.stringMatching(/^MR_[A-Z_]+$/),
        message: expect.any(String),
        ...(body && 'details' in body ? { details: expect.any(Array) } : {}),
      });
    }
  }

  /** The search envelope of DESIGN.md section 3. */
  const isExpanded = (value: unknown): value is { _id: string } => typeof value === 'object' && value !== null;

  function expectEnvelope(response: Response, owner?: string): void {
    const { body } = response;
    expect({ status: response.status, keys: Object.keys(body ?? {}).sort() }).toEqual({ status: 200, keys: ['result', 'status'] });
    expect(body.status).toEqual({
      count: expect.any(Number),
      search_count: Array.isArray(body.result) ? body.result.length : -1,
      match_count: expect.any(Number),
      counted: 'exact',
      limit: expect.any(Number),
      skip: expect.any(Number),
    });
    expect(body.status.limit).toBeGreaterThanOrEqual(1);
    expect(body.status.limit).toBeLessThanOrEqual(100);
    expect(body.status.match_count).toBeLessThanOrEqual(body.status.count);
    for (const doc of body.result as Array<Record<string, unknown>>) {
      expect(doc._id).toMatch(/^[0-9a-f]{24}$/);
      expect(doc).not.toHaveProperty('__v');
      // A reverse route answers only the documents of its owner, whatever the query said.
      if (owner !== undefined) expect(isExpanded(doc.owner) ? doc.owner._id : doc.owner).toBe(owner);
      // An expanded owner is a user as its own route answers it.
      if (isExpanded(doc.owner)) expect(Object.keys(doc.owner).every((key) => ['_id', 'niceName', 'birth'].includes(key))).toBe(true);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Arbitraries
  // ---------------------------------------------------------------------------------------------

  const COMPANY_FIELDS = ['_id', 'niceName', 'owner', 'employees', 'location', '__v'];
  const OPERATORS = [
    '$eq',
    '$ne',
    '$gt',
    '$gte',
    '$lt',
    '$lte',
    '$in',
    '$nin',
    '$exists',
    '$regex',
    '$options',
    '$and',
    '$or',
    '$nor',
    '$not',
    '$elemMatch',
    '$all',
    '$size',
  ];
  const REFUSED_OPERATORS = ['$where', '$expr', '$function', '$accumulator', '$jsonSchema', '$text', '$mod', '$comment', '$lookup', '$out', '$merge', '$set'];
  const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

  /** Keys starting with `$`: allowlisted, refused, or random. */
  const dollarKey = fc.oneof(
    fc.constantFrom(...OPERATORS, ...REFUSED_OPERATORS),
    fc.string({ maxLength: 8 }).map((key) => `$${key}`),
  );
  const dollarObject = fc.dictionary(dollarKey, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });

  /** Scalars a client might send as a value: some castable, some not. */
  const scalar = fc.oneof(
    fc.constantFrom('Acme', 'abc', '10', '', 'not a date', '2000-01-01', ADA, BOB, 'xyz', '^a', 'i'),
    fc.integer({ min: -1000, max: 1000 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.string(),
  );

  /** MongoDB-looking filters: schema fields (and a few others), allowed and refused operators, nesting. */
  const filter = fc.letrec((tie) => ({
    filter: fc.dictionary(
      fc.oneof(
        fc.constantFrom(...COMPANY_FIELDS, 'owner.niceName', 'owner.birth', 'owner.nope', 'owner.__proto__', 'salary', ...FORBIDDEN_KEYS),
        fc.string({ maxLength: 6 }),
      ),
      tie('condition'),
      { maxKeys: 3 },
    ),
    logical: fc
      .record({ op: fc.constantFrom('$and', '$or', '$nor'), items: fc.array(tie('filter'), { maxLength: 3 }) })
      .map(({ op, items }) => ({ [op]: items })),
    condition: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.dictionary(dollarKey, fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), tie('condition')), { maxKeys: 3 }),
      tie('logical'),
      // Across the reference (declared `filter`): a condition on some, none or every referenced document.
      fc.record({ quantifier: fc.constantFrom('$some', '$none', '$every'), filter: tie('filter') }).map(({ quantifier, filter }) => ({ [quantifier]: filter })),
    ),
  })).filter;

  /** Filters a client could mean: schema fields, allowlisted operators, values castable or not. */
  const plausibleCondition = fc.oneof(
    scalar,
    fc.dictionary(fc.constantFrom('$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$exists', '$size'), scalar, { minKeys: 1, maxKeys: 2 }),
    fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
    fc.record({ $nin: fc.array(scalar, { maxLength: 4 }) }),
    fc.record({ $all: fc.array(scalar, { maxLength: 3 }) }),
    fc.record(
      {
        $regex: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('(', '[', '*', 'a{2,1}', '\\', '(?<n>a)', '^Ac')),
        $options: fc.constantFrom('', 'i', 'imsx'),
      },
      { requiredKeys: ['$regex'] },
    ),
    fc.record({ $not: fc.record({ $regex: fc.constantFrom('(', '^A', 'x') }) }),
    fc.record({ $elemMatch: fc.record({ $gt: scalar }) }),
  );
  const plausibleFilter = fc.letrec((tie) => ({
    filter: fc.oneof(
      { depthSize: 'small' },
      fc.dictionary(fc.constantFrom('_id', 'niceName', 'owner', 'employees', 'location'), plausibleCondition, { maxKeys: 3 }),
      fc
        .record({ op: fc.constantFrom('$and', '$or', '$nor'), items: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) })
        .map(({ op, items }) => ({ [op]: items })),
    ),
  })).filter;

  /** Search bodies: any JSON, objects over the documented keys (and `populate`), `$`-keyed objects. */
  const searchBody = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        query: fc.oneof(fc.jsonValue(), filter, dollarObject),
        limit: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.integer({ min: -5, max: 200 })),
        skip: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.integer({ min: -5, max: 20_000 })),
        sort: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.dictionary(fc.constantFrom(...COMPANY_FIELDS, 'passwordHash', '__proto__'), fc.constantFrom(1, -1, 2, 'asc', 'desc', 'sideways', 'constructor')),
        ),
        select: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.array(fc.constantFrom(...COMPANY_FIELDS, '+passwordHash', '-niceName', 'constructor'), { maxLength: 3 }),
        ),
        populate: fc.jsonValue({ maxDepth: 2 }),
        expand: fc.oneof(
          fc.jsonValue({ maxDepth: 1 }),
          fc.constantFrom('owner', 'owner,owner', 'owner.niceName', 'niceName', '__proto__', ['owner'], [], 'owner,'),
        ),
      },
      { requiredKeys: [] },
    ),
    fc.record({ query: filter }),
    fc.record(
      {
        query: plausibleFilter,
        limit: fc.integer({ min: 1, max: 150 }),
        skip: fc.integer({ min: 0, max: 5 }),
        sort: fc.constantFrom('-employees niceName', 'owner', { location: -1 }),
      },
      { requiredKeys: ['query'] },
    ),
    dollarObject,
  );

  /** Query-string keys: reserved ones, fields, `field[op]`, forbidden keys, and random text. */
  const queryKey = fc.oneof(
    fc.constantFrom('limit', 'skip', 'sort', 'select', 'expand', 'owner.niceName', ...COMPANY_FIELDS, 'passwordHash', ...FORBIDDEN_KEYS),
    fc
      .tuple(
        fc.constantFrom(...COMPANY_FIELDS, 'owner.niceName', 'owner.birth', 'salary', ...FORBIDDEN_KEYS),
        fc.oneof(
          fc.constantFrom(...OPERATORS, ...REFUSED_OPERATORS).map((op) => op.slice(1)),
          fc.string({ maxLength: 6 }),
        ),
      )
      .map(([field, op]) => `${field}[${op}]`),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
  );
  const queryValue = fc.oneof(
    fc.constantFrom(
      '1',
      '-1',
      '0',
      '1.5',
      'abc',
      'true',
      'false',
      ADA,
      `${ADA},${BOB}`,
      '-employees,niceName',
      'niceName owner',
      '+passwordHash',
      'owner',
      'owner.owner',
      'a'.repeat(300),
    ),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
  );
  const encodedQueryString = fc
    .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
    .map((pairs) => pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'));
  /** Query strings typed by hand: brackets, stray `%`, repeated `&` and `=`, left unencoded. */
  const rawQueryString = fc.string({
    unit: fc.constantFrom(...'abelmnoprstiyk019[]%&=_$.-,+~'.split('')),
    maxLength: 40,
  });
  /** Query strings a client could mean: schema fields, query-string operators, castable values or not. */
  const plausibleQueryString = fc
    .array(
      fc.tuple(
        fc
          .tuple(
            fc.constantFrom('_id', 'niceName', 'owner', 'employees', 'location'),
            fc.constantFrom('', '[eq]', '[ne]', '[gt]', '[gte]', '[lt]', '[lte]', '[in]', '[nin]', '[all]', '[exists]', '[regex]', '[size]'),
          )
          .map(([field, op]) => `${field}${op}`),
        fc.oneof(scalar.map(String), fc.constantFrom('true', '3', `${ADA},${BOB}`, 'Acme,Globex')),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((pairs) => pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&'));
  const queryString = fc.oneof(encodedQueryString, rawQueryString, plausibleQueryString);

  /** Write bodies: any JSON, records over the fields (writable and not), any-keyed objects. */
  const companyWriteBody = fc.oneof(
    fc.jsonValue(),
    // Only the schema's fields: many of these succeed, the rest exercise casts and validators.
    fc.record(
      {
        niceName: fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), scalar),
        owner: fc.oneof(fc.constantFrom(ADA, BOB, MISSING_ID), scalar),
        employees: fc.oneof(fc.integer(), fc.double(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), scalar),
        location: fc.oneof(fc.string({ unit: 'grapheme' }), scalar, fc.array(scalar, { maxLength: 2 })),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        niceName: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
        owner: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
        employees: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
        location: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
        _id: fc.constantFrom(MISSING_ID, ACME, 'x'),
        __v: fc.integer(),
        isAdmin: fc.boolean(),
        $set: dollarObject,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(
      fc.oneof(fc.constantFrom(...COMPANY_FIELDS, 'owner.x', ...FORBIDDEN_KEYS), fc.string({ maxLength: 6 }), dollarKey),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    ),
  );
  const accountWriteBody = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        email: fc.oneof(fc.string({ minLength: 1 }), fc.emailAddress(), scalar),
        passwordHash: fc.oneof(fc.string(), scalar),
        credits: fc.oneof(fc.integer({ min: -3, max: 1_000_000 }), fc.double(), scalar),
        profile: fc.oneof(
          fc.constant(null),
          fc.record({ displayName: fc.oneof(fc.string(), scalar), age: fc.oneof(fc.integer({ min: -3, max: 150 }), scalar) }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        email: fc.oneof(fc.constantFrom('root@example.com', 'new@example.com'), scalar),
        passwordHash: scalar,
        credits: fc.oneof(scalar, fc.jsonValue({ maxDepth: 2 })),
        profile: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.record({ displayName: scalar, age: scalar, isAdmin: fc.boolean(), $set: dollarObject }, { requiredKeys: [] }),
        ),
        createdAt: scalar,
        'profile.age': scalar,
      },
      { requiredKeys: [] },
    ),
  );

  // ---------------------------------------------------------------------------------------------
  // Properties
  // ---------------------------------------------------------------------------------------------

  describe(
    `generated routes of the fixture app (fast-check seed ${SEED}${SEED === DEFAULT_SEED ? ', the default' : ''}; PROPERTY_SEED=random ` + `explores)`,
    () => {
      // Its references may be expanded and filtered across: those surfaces get the random inputs too.
      useSeededApp(engine, (app) => (t = app), {
        references: { expand: true, filter: true },
        routes: { export: true, exportPost: true, updateMany: true, deleteMany: true },
      });

      describe('random searches', () => {
        // Test names name the route, not the seeded ids (new on every run), so that `-t` finds them again.
        it.each([
          ['/companies', '/companies', undefined],
          ['/user/:user_id/companies/owner', `/user/${ADA}/companies/owner`, ADA],
        ])(
          'POST %s with random JSON bodies: never a 5xx; the error shape or the envelope',
          async (_route, url, owner) => {
            await assertProperty(
              fc.asyncProperty(searchBody, async (body) => {
                const response = await sendJson('post', url, body);
                expectAnswer(response);
                if (response.status === 200) expectEnvelope(response, owner);
                else expect(response.status).toBeGreaterThanOrEqual(400);
              }),
            );
          },
          PROPERTY_TIMEOUT,
        );

        it.each([
          ['/companies', '/companies', undefined],
          ['/user/:user_id/companies/owner', `/user/${ADA}/companies/owner`, ADA],
        ])(
          'GET %s with random query strings: never a 5xx; the error shape or the envelope',
          async (_route, url, owner) => {
            await assertProperty(
              fc.asyncProperty(queryString, async (query) => {
                const response = await t.http().get(`${url}?${query}`);
                expectAnswer(response);
                if (response.status === 200) expectEnvelope(response, owner);
                else expect(response.status).toBeGreaterThanOrEqual(400);
              }),
            );
          },
          PROPERTY_TIMEOUT,
        );
      });

      describe('random exports (the search routes take the same searches: a third of the runs)', () => {
        /** An export's answer: the error shape, or a JSON array of documents. */
        const expectExport = (response: Response) => {
          expectAnswer(response);
          if (response.status !== 200) return expect(response.status).toBeGreaterThanOrEqual(400);
          expect(Array.isArray(response.body)).toBe(true);
          for (const doc of response.body as Array<Record<string, unknown>>) expect(doc._id).toMatch(/^[0-9a-f]{24}$/);
        };

        it(
          'POST /companies/export with random JSON bodies: never a 5xx; the error shape or the documents',
          async () => {
            await assertProperty(
              fc.asyncProperty(searchBody, async (body) =>
                expectExport(await t.http().post('/companies/export?format=json').set('Content-Type', 'application/json').send(JSON.stringify(body))),
              ),
              NUM_RUNS / 3,
            );
          },
          PROPERTY_TIMEOUT,
        );

        it(
          'GET /companies/export with random query strings: never a 5xx; the error shape or the documents',
          async () => {
            await assertProperty(
              fc.asyncProperty(queryString, async (query) => expectExport(await t.http().get(`/companies/export?${query}`).set('Accept', 'application/json'))),
              NUM_RUNS / 3,
            );
          },
          PROPERTY_TIMEOUT,
        );
      });

      describe('random bulk changes, dry runs (a third of the runs)', () => {
        /** A bulk change's answer: the error shape, or a dry run's report of documents named by id. */
        const answered = { reports: 0, refusals: 0 };
        const expectDryRun = (response: Response) => {
          expectAnswer(response);
          if (response.status !== 200) {
            answered.refusals += 1;
            return expect(response.status).toBeGreaterThanOrEqual(400);
          }
          answered.reports += 1;
          expect(response.body).toMatchObject({ dryRun: true, skipped: 0, refused: 0 });
          for (const item of response.body.items as Array<Record<string, unknown>>)
            expect(item).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), result: 'matched' });
        };

        it.each([
          ['DELETE', (query: string) => t.http().delete(`/companies?${query}&dryRun=true`)],
          ['PATCH', (query: string) => t.http().patch(`/companies?${query}&dryRun=true`).send({ employees: 1 })],
        ] as const)(
          '%s /companies with random query strings and dryRun=true: never a 5xx; the error shape or the report; nothing written',
          async (_method, send) => {
            Object.assign(answered, { reports: 0, refusals: 0 });
            const { before, after } = await observe(t.connection, () =>
              assertProperty(
                fc.asyncProperty(queryString, async (query) => expectDryRun(await send(query))),
                NUM_RUNS / 3,
              ),
            );
            expect(after.text).toBe(before.text);
            // Both kinds of answer were met: the property did not only see refusals.
            expect([answered.reports > 0, answered.refusals > 0]).toEqual([true, true]);
          },
          PROPERTY_TIMEOUT,
        );
      });

      describe('random writes', () => {
        it.each([
          ['POST', '/company', '/company', companyWriteBody],
          ['PUT', '/company/:company_id', `/company/${ACME}`, companyWriteBody],
          ['POST', '/account', '/account', accountWriteBody],
          ['PUT', '/account/:account_id', `/account/${ROOT}`, accountWriteBody],
        ] as const)(
          '%s %s with random JSON bodies: never a 5xx; a refusal has the error shape and changes nothing',
          async (method, _route, url, bodies) => {
            await assertProperty(
              fc.asyncProperty(bodies as fc.Arbitrary<unknown>, async (body) => {
                // A write that succeeded (e.g. {"niceName":"x"}) is legitimate; observe() undoes it for the next run.
                const { response, before, after } = await observe(t.connection, () => sendJson(method === 'POST' ? 'post' : 'put', url, body));
                expectAnswer(response);
                if (response.status >= 400) {
                  expect({ status: response.status, changedCollections: changedCollections(before, after) }).toEqual({
                    status: response.status,
                    changedCollections: [],
                  });
                  expect(after.parts).toEqual(before.parts);
                } else {
                  expect(response.status).toBe(method === 'POST' ? 201 : 200);
                  expect(response.body._id).toMatch(/^[0-9a-f]{24}$/);
                  expect(response.body).not.toHaveProperty('__v');
                  expect(response.body).not.toHaveProperty('passwordHash');
                }
              }),
            );
          },
          PROPERTY_TIMEOUT,
        );
      });

      /** Counterexamples the properties found, each a plain example test, so they stay fixed whatever seed runs. */
      describe('regressions', () => {
        /** Sends one write and asserts it was refused with `status` and `code` and changed no data. */
        async function expectRefusedWrite(method: 'post' | 'put', url: string, body: unknown, status: number, code: string): Promise<Response> {
          const { response, before, after } = await observe(t.connection, () => sendJson(method, url, body));
          expectError(response, status, code);
          expect({ changedCollections: changedCollections(before, after) }).toEqual({ changedCollections: [] });
          expect(after.parts).toEqual(before.parts);
          return response;
        }

        // Found by `PUT /account/:account_id with random JSON bodies` in CI (unseeded then): the value was stored
        // as is, and the answer (a 200 with "profile": true) broke its own OpenAPI schema.
        it(
          'POST /user/:user_id/companies/owner with {"select": ["_id"]}: 200, documents of _id alone, as the OpenAPI document allows (seed ' + '823262214)',
          async () => {
            const response = await sendJson('post', `/user/${ADA}/companies/owner`, { select: ['_id'] });
            expectEnvelope(response, undefined);
            expect(response.body.result.length).toBeGreaterThan(0);
            for (const doc of response.body.result) expect(Object.keys(doc)).toEqual(['_id']);
          },
        );

        it(
          'PUT /account/:account_id with {"profile": true}, a scalar for a nested object: 400 MR_VALIDATION_FAILED naming profile, data ' + 'unchanged',
          async () => {
            const response = await expectRefusedWrite('put', `/account/${ROOT}`, { profile: true }, 400, 'MR_VALIDATION_FAILED');
            expect(response.body.details).toContainEqual({ path: 'profile', message: expect.any(String) });
          },
        );

        // Found by the same property, same failure (PROPERTY_SEED=-1745067815 PROPERTY_PATH=11:0:0:1).
        it('PUT /account/:account_id with {"profile": []}, an array for a nested object: 400 MR_VALIDATION_FAILED naming profile, data unchanged', async () => {
          const response = await expectRefusedWrite('put', `/account/${ROOT}`, { profile: [] }, 400, 'MR_VALIDATION_FAILED');
          expect(response.body.details).toContainEqual({ path: 'profile', message: expect.any(String) });
        });
      });
    },
  );
}
