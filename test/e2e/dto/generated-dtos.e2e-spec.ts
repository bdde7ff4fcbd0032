/**
 * The bodies of the generated routes are checked by class-validator DTO classes generated from the
 * schema (or the user's), with one detail per failed constraint at its dotted path; the same
 * answers with the usual global ValidationPipe and ClassSerializerInterceptor.
 */
import type { INestApplication } from '@nestjs/common';
import { ModelRoutesModule } from '../../../src/index.js';
import { Contact, Gadget, Maker } from '../../fixtures/dto-models.js';
import { bootTestApp, testAdapter, useNestValidation, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function generatedDtosSpec(): void {
  const engine = useEngine();

  const CONFIGURATIONS: Array<[string, ((app: INestApplication) => void) | undefined]> = [
    ['without a global pipe', undefined],
    ['with a global ValidationPipe and ClassSerializerInterceptor', useNestValidation],
  ];

  describe.each(CONFIGURATIONS)('generated DTOs, %s', (_label, configure) => {
    let t: TestApp;
    let maker: { _id: string };
    const valid = () => ({
      name: 'Widget',
      code: 'ab-12',
      score: 50,
      count: 3,
      active: true,
      releasedAt: '2024-05-01T00:00:00.000Z',
      color: 'red',
      maker: maker._id,
      partners: [maker._id],
      tags: ['a', 'b'],
      size: { width: 2, unit: 'cm' },
      lines: [{ sku: 'ab', qty: 1 }],
      extra: { any: ['thing', 1] },
      pin: '1234',
    });

    beforeAll(async () => {
      t = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Gadget, Maker, Contact] }), configure });
      maker = (await t.http().post('/maker').send({ name: 'Acme' }).expect(201)).body;
    });
    afterAll(() => t?.close());

    it('accepts a body with every type and constraint met, and stores it as sent', async () => {
      const created = (await t.http().post('/gadget').send(valid()).expect(201)).body;
      const { pin: _pin, ...visible } = valid();
      expect(created).toMatchObject({ ...visible, status: 'draft' });
      expect(created).not.toHaveProperty('pin');
      const stored = await t.connection.model('Gadget').findById(created._id).lean<Record<string, unknown>>();
      expect(stored).toMatchObject({ pin: '1234', count: 3, releasedAt: new Date('2024-05-01T00:00:00.000Z') });
    });

    it('leaves the rules of a string that Mongoose trims or lower-cases to Mongoose, which checks them after', async () => {
      const created = (
        await t
          .http()
          .post('/gadget')
          .send({ ...valid(), fit: ' M ' })
          .expect(201)
      ).body;
      expect(created.fit).toBe('m');
      const refused = await t
        .http()
        .post('/gadget')
        .send({ ...valid(), fit: 'XL' });
      expectError(refused, 400, 'MR_VALIDATION_FAILED');
      expect(refused.body.details).toEqual([{ path: 'fit', message: expect.stringContaining('is not a valid enum value') }]);
    });

    it('takes a date that exists, a leap day and a date without its time included', async () => {
      for (const releasedAt of ['2024-02-29', '2023-12-31T23:59:59.999Z', '2024-02-29T12:00:00+02:00']) {
        const created = (
          await t
            .http()
            .post('/gadget')
            .send({ ...valid(), releasedAt })
            .expect(201)
        ).body;
        expect(new Date(created.releasedAt).getTime()).toBe(new Date(releasedAt).getTime());
      }
    });

    it.each<[string, Record<string, unknown>, Array<{ path: string; message: string }>]>([
      ['a required field missing', { name: undefined }, [{ path: 'name', message: 'name is required' }]],
      ['a required field null', { name: null }, [{ path: 'name', message: 'name is required' }]],
      ['a string of another type (one failure, not one per rule)', { name: 42 }, [{ path: 'name', message: 'name must be a string' }]],
      ['minlength', { name: 'ab' }, [{ path: 'name', message: 'name must be longer than or equal to 3 characters' }]],
      ['maxlength', { name: 'x'.repeat(21) }, [{ path: 'name', message: 'name must be shorter than or equal to 20 characters' }]],
      ['match', { code: 'AB12' }, [{ path: 'code', message: expect.stringContaining('code must match') }]],
      ['a number of another type (one failure, not one per rule)', { score: '12' }, [{ path: 'score', message: 'score must be a number' }]],
      ['min', { score: -1 }, [{ path: 'score', message: 'score must not be less than 0' }]],
      ['max', { score: 101 }, [{ path: 'score', message: 'score must not be greater than 100' }]],
      ['an integer (Int32)', { count: 1.5 }, [{ path: 'count', message: 'count must be an integer number' }]],
      ['a boolean', { active: 'yes' }, [{ path: 'active', message: 'active must be a boolean value' }]],
      ['a date', { releasedAt: 'someday' }, [{ path: 'releasedAt', message: 'releasedAt must be a valid ISO 8601 date string' }]],
      // The trial of 2026-11-29: February 30th was stored as March 2nd.
      ['a date that does not exist', { releasedAt: '2019-02-30' }, [{ path: 'releasedAt', message: 'releasedAt must be a valid ISO 8601 date string' }]],
      ['enum', { color: 'blue' }, [{ path: 'color', message: 'color must be one of the following values: red, green' }]],
      ['a reference', { maker: 'nope' }, [{ path: 'maker', message: 'maker must be a mongodb id' }]],
      [
        'an array of references, per element',
        { partners: ['nope', '0123456789abcdef01234567', null] },
        [
          { path: 'partners.0', message: 'partners must be a mongodb id' },
          { path: 'partners.2', message: 'partners must be a mongodb id' },
        ],
      ],
      ['an array of strings, per element', { tags: ['a', 3] }, [{ path: 'tags.1', message: 'tags must be a string' }]],
      ['an array where one is expected', { tags: 'a' }, [{ path: 'tags', message: 'tags must be an array' }]],
      ['a nested object: min', { size: { width: 0, unit: 'cm' } }, [{ path: 'size.width', message: 'width must not be less than 1' }]],
      ['a nested object: required', { size: { width: 2 } }, [{ path: 'size.unit', message: 'unit is required' }]],
      ['a nested object: enum', { size: { unit: 'mm' } }, [{ path: 'size.unit', message: 'unit must be one of the following values: cm, in' }]],
      [
        'an array of sub-documents, with positions',
        {
          lines: [
            { sku: 'ab', qty: 1 },
            { sku: 'x', qty: 0 },
          ],
        },
        [
          { path: 'lines.1.sku', message: 'sku must be longer than or equal to 2 characters' },
          { path: 'lines.1.qty', message: 'qty must not be less than 1' },
        ],
      ],
      [
        'several fields at once',
        { score: 500, color: 'blue' },
        [
          { path: 'score', message: 'score must not be greater than 100' },
          { path: 'color', message: 'color must be one of the following values: red, green' },
        ],
      ],
    ])('POST refuses %s: 400 MR_VALIDATION_FAILED, one detail per failed constraint, nothing stored', async (_case, change, details) => {
      const response = await expectRefusedUnchanged(
        t.connection,
        () =>
          t
            .http()
            .post('/gadget')
            .send({ ...valid(), ...change }),
        { status: 400, code: 'MR_VALIDATION_FAILED', details },
      );
      expect(response.body.message).toBe(`Validation failed for ${[...new Set(details.map((detail) => detail.path))].join(', ')}`);
    });

    it.each([
      ['a readonly field', { serial: 'x' }, "Field 'serial' cannot be written"],
      ['a hidden field (as an unknown one)', { secret: 'x' }, "Unknown field 'secret'"],
      ['an unknown field', { nope: 1 }, "Unknown field 'nope'"],
      ['_id', { _id: '0123456789abcdef01234567' }, "Field '_id' cannot be written"],
      ['a timestamp', { createdAt: '2024-01-01' }, "Field 'createdAt' cannot be written"],
      ['an unknown nested field', { size: { unit: 'cm', depth: 3 } }, "Unknown field 'size.depth'"],
      ['a __proto__ key', JSON.parse('{"__proto__": {"x": 1}}'), "Key '__proto__' is not allowed"],
    ])('POST refuses %s before any value rule: 400 MR_INVALID_BODY', async (_case, change, message) => {
      const response = await t
        .http()
        .post('/gadget')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ ...valid(), ...change }));
      if (testAdapter() === 'fastify' && Object.hasOwn(change, '__proto__')) {
        // Fastify's JSON parser refuses a __proto__ key itself, before any route (test/e2e/hostile-requests).
        expectError(response, 400, 'MR_INVALID_JSON');
        return;
      }
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.message).toBe(message);
    });

    describe('PUT and PATCH', () => {
      let gadget: { _id: string };
      beforeAll(async () => {
        gadget = (await t.http().post('/gadget').send(valid()).expect(201)).body;
      });

      it('take any subset of the fields, and merge nested objects', async () => {
        const updated = (
          await t
            .http()
            .patch(`/gadget/${gadget._id}`)
            .send({ score: 7, size: { width: 9 } })
            .expect(200)
        ).body;
        expect(updated).toMatchObject({ name: 'Widget', score: 7, size: { width: 9, unit: 'cm' } });
      });

      it('clear a field that is not required with null', async () => {
        const updated = (await t.http().put(`/gadget/${gadget._id}`).send({ color: null }).expect(200)).body;
        expect(updated).not.toHaveProperty('color');
      });

      it.each<[string, Record<string, unknown>, Array<{ path: string; message: string }>]>([
        ['null on a required field', { name: null }, [{ path: 'name', message: 'name is required' }]],
        ['null on a required nested field', { size: { unit: null } }, [{ path: 'size.unit', message: 'unit is required' }]],
        ['an element of an array of sub-documents, checked whole', { lines: [{ sku: 'abc' }] }, [{ path: 'lines.0.qty', message: 'qty is required' }]],
        ['a value rule', { count: 'three' }, [{ path: 'count', message: 'count must be an integer number' }]],
      ])('refuse %s and change nothing', async (_case, body, details) => {
        await expectRefusedUnchanged(t.connection, () => t.http().patch(`/gadget/${gadget._id}`).send(body), {
          status: 400,
          code: 'MR_VALIDATION_FAILED',
          details,
        });
      });
    });

    describe("the user's DTOs (dto: { create, update })", () => {
      it('create: a DTO extending the generated one keeps its rules and adds its own', async () => {
        expectError(await t.http().post('/contact').send({ name: 'Ada', email: 'not-an-email' }), 400, 'MR_VALIDATION_FAILED');
        const missing = await t.http().post('/contact').send({ email: 'ada@example.com' });
        expectError(missing, 400, 'MR_VALIDATION_FAILED');
        expect(missing.body.details).toEqual([{ path: 'name', message: 'name is required' }]);
        const invalid = await t.http().post('/contact').send({ name: 'Ada', email: 'not-an-email' });
        expect(invalid.body.details).toEqual([{ path: 'email', message: 'email must be an email' }]);
        await t.http().post('/contact').send({ name: 'Ada', email: 'ada@example.com' }).expect(201);
      });

      it("update: the user's own DTO decides, separately from create", async () => {
        const contact = (await t.http().post('/contact').send({ name: 'Bob', email: 'bob@example.com' }).expect(201)).body;
        const renamed = await t.http().put(`/contact/${contact._id}`).send({ name: 'Robert' });
        expectError(renamed, 400, 'MR_VALIDATION_FAILED');
        expect(renamed.body.details).toEqual([{ path: 'name', message: 'property name should not exist' }]);
        const long = await t.http().patch(`/contact/${contact._id}`).send({ phone: '0123456789012' });
        expect(long.body.details).toEqual([{ path: 'phone', message: 'phone must be shorter than or equal to 12 characters' }]);
        expect((await t.http().patch(`/contact/${contact._id}`).send({ phone: '555-0100' }).expect(200)).body).toMatchObject({
          name: 'Bob',
          phone: '555-0100',
        });
      });

      it("the schema's validators still run on write", async () => {
        const contact = (await t.http().post('/contact').send({ name: 'Cy', email: 'cy@example.com' }).expect(201)).body;
        const response = await t.http().patch(`/contact/${contact._id}`).send({ phone: '000' });
        expectError(response, 400, 'MR_VALIDATION_FAILED');
        expect(response.body.details).toEqual([{ path: 'phone', message: 'phone 000 is not a phone number' }]);
      });
    });
  });
}
