/**
 * Types inside sub-documents (issue 23): a `Types.ObjectId` reference in a sub-document is an
 * ObjectId path whatever the spelling and the depth (item 14), other BSON-class spellings are the
 * schema types they name (item 19), and references at any depth follow the top-level rules:
 * existence on write, slugs, `onDelete` (item 15).
 */
import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { Types } from 'mongoose';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { Nurse, Pet, Vet } from '../../fixtures/clinic-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function subDocumentReferencesSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let document: OpenAPIObject;
  let vet: string;
  let pet: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Vet, Nurse, Pet] });
    document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
    vet = (await t.http().post('/vet').send({ name: 'Dr Who', code: 'who' }).expect(201)).body._id;
    await t.http().post('/nurse').send({ licence: 'rn-1' }).expect(201);
    pet = (await t.http().post('/pet').send({ name: 'Rex' }).expect(201)).body._id;
  });
  afterAll(() => t?.close());

  /** A write refused with 400 and this code, naming `path`, that changes nothing. */
  async function expectRefused(send: () => PromiseLike<unknown>, code: string, path: string): Promise<void> {
    await expectRefusedUnchanged(t.connection, send, { status: 400, code, details: expect.arrayContaining([expect.objectContaining({ path })]) });
  }

  describe('a Types.ObjectId reference inside a sub-document', () => {
    const spellings = [
      ['type: [Vaccination], Types.ObjectId', (value: unknown) => ({ vaccinations: [{ name: 'rabies', vet: value }] }), 'vaccinations.0.vet'],
      ['[SchemaFactory.createForClass(Booster)], Schema.Types.ObjectId', (value: unknown) => ({ boosters: [{ name: 'b', vet: value }] }), 'boosters.0.vet'],
      [
        '[SchemaFactory.createForClass(Booster)], Types.ObjectId',
        (value: unknown) => ({ boosters: [{ name: 'b', checkedBy: value }] }),
        'boosters.0.checkedBy',
      ],
      ['type: Visit (one sub-document), Types.ObjectId', (value: unknown) => ({ lastVisit: { reason: 'cough', vet: value } }), 'lastVisit.vet'],
    ] as const;

    it.each(spellings)('refuses what is no identifier, and stores an identifier (%s)', async (_name, body, path) => {
      for (const value of ['nope', { a: 1 }, 12]) {
        const response = await t.http().patch(`/pet/${pet}`).send(body(value));
        expect(response.status).toBe(400);
        expect(response.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
      }
      const stored = await t.http().patch(`/pet/${pet}`).send(body(vet)).expect(200);
      const read = path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown>)[part], stored.body);
      expect(read).toBe(vet);
      const raw = await t.connection.collection('pets').findOne({ _id: new Types.ObjectId(pet) });
      const rawValue = path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown>)[part], raw);
      expect(rawValue).toBeInstanceOf(Types.ObjectId);
    });

    it('is documented as an identifier in OpenAPI, not as an empty schema', () => {
      const text = JSON.stringify(document.components?.schemas);
      expect(text).not.toContain('{"anyOf":[{}]}');
      const schemas = document.components!.schemas as Record<string, { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }> }>;
      const pets = Object.entries(schemas).filter(([name]) => /^Pet/.test(name));
      expect(pets.length).toBeGreaterThan(0);
      const vaccinationVet = pets.map(([, schema]) => schema.properties?.vaccinations?.items?.properties?.vet).find(Boolean);
      expect(JSON.stringify(vaccinationVet)).toMatch(/"type":"string"/);
    });
  });

  describe('BSON-class spellings of other types', () => {
    it('casts mongoose.Types.Double and UUID inside a sub-document, refusing what they cannot hold', async () => {
      await expectRefused(
        () =>
          t
            .http()
            .patch(`/pet/${pet}`)
            .send({ vaccinations: [{ name: 'x', dose: 'twelve' }] }),
        'MR_VALIDATION_FAILED',
        'vaccinations.0.dose',
      );
      await expectRefused(
        () =>
          t
            .http()
            .patch(`/pet/${pet}`)
            .send({ vaccinations: [{ name: 'x', batch: 'not-a-uuid' }] }),
        'MR_VALIDATION_FAILED',
        'vaccinations.0.batch',
      );
      const uuid = '0b1d6c5e-8f2a-4c3b-9d4e-5f6a7b8c9d0e';
      const stored = await t
        .http()
        .patch(`/pet/${pet}`)
        .send({ vaccinations: [{ name: 'x', dose: 1.5, batch: uuid }] })
        .expect(200);
      expect(stored.body.vaccinations[0]).toMatchObject({ name: 'x', dose: 1.5, batch: uuid });
    });

    it('makes a top-level Types.ObjectId without ref an identifier', async () => {
      await expectRefused(() => t.http().patch(`/pet/${pet}`).send({ externalId: 'nope' }), 'MR_VALIDATION_FAILED', 'externalId');
      const stored = await t.http().patch(`/pet/${pet}`).send({ externalId: MISSING_ID }).expect(200);
      expect(stored.body.externalId).toBe(MISSING_ID);
    });
  });

  describe('references inside sub-documents follow the top-level rules', () => {
    it('refuses an identifier of no document at any depth, naming its position, and changes nothing', async () => {
      const sends: Array<[() => PromiseLike<unknown>, string]> = [
        [
          () =>
            t
              .http()
              .patch(`/pet/${pet}`)
              .send({
                vaccinations: [
                  { name: 'a', vet },
                  { name: 'b', vet: MISSING_ID },
                ],
              }),
          'vaccinations.1.vet',
        ],
        [
          () =>
            t
              .http()
              .post('/pet')
              .send({ name: 'Tom', vaccinations: [{ name: 'a', vet: MISSING_ID }] }),
          'vaccinations.0.vet',
        ],
        [
          () =>
            t
              .http()
              .put(`/pet/${pet}`)
              .send({ boosters: [{ name: 'b', vet: MISSING_ID }] }),
          'boosters.0.vet',
        ],
        [
          () =>
            t
              .http()
              .patch(`/pet/${pet}`)
              .send({ lastVisit: { vet: MISSING_ID } }),
          'lastVisit.vet',
        ],
        [
          () =>
            t
              .http()
              .patch(`/pet/${pet}`)
              .send({ lastVisit: { nurses: ['rn-1', 'rn-404'] } }),
          'lastVisit.nurses.1',
        ],
      ];
      for (const [send, path] of sends) await expectRefused(send, 'MR_REFERENCE_NOT_FOUND', path);
    });

    it('accepts the identifier of a resource identified by another field (a licence) and stores its _id', async () => {
      const nurse = (await t.http().get('/nurse/rn-1').expect(200)).body._id;
      const stored = await t
        .http()
        .patch(`/pet/${pet}`)
        .send({ vaccinations: [{ name: 'a', nurse: 'rn-1' }], lastVisit: { nurses: ['rn-1'] } })
        .expect(200);
      expect(stored.body.vaccinations[0].nurse).toBe(nurse);
      expect(stored.body.lastVisit.nurses).toEqual([nurse]);
    });

    it('refuses null inside an array of references in a sub-document', async () => {
      await expectRefused(
        () =>
          t
            .http()
            .patch(`/pet/${pet}`)
            .send({ lastVisit: { nurses: [null] } }),
        'MR_VALIDATION_FAILED',
        'lastVisit.nurses.0',
      );
    });

    it("applies onDelete: 'restrict' in an array of sub-documents and 'nullify' in a sub-document", async () => {
      const other = (await t.http().post('/vet').send({ name: 'Dr No' }).expect(201)).body._id;
      const cat = (
        await t
          .http()
          .post('/pet')
          .send({ name: 'Tom', boosters: [{ name: 'b', vet: other }] })
          .expect(201)
      ).body._id;
      const refused = await t.http().delete(`/vet/${other}`);
      expectError(refused, 409, 'MR_REFERENCED');
      expect(refused.body.details).toEqual([expect.objectContaining({ path: 'Pet.boosters.vet' })]);
      await t
        .http()
        .patch(`/pet/${cat}`)
        .send({ boosters: [], lastVisit: { reason: 'check', vet: other } })
        .expect(200);
      await t.http().delete(`/vet/${other}`).expect(200);
      const read = await t.http().get(`/pet/${cat}`).expect(200);
      expect(read.body.lastVisit).toMatchObject({ reason: 'check', vet: null });
    });
  });
}
