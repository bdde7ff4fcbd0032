import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { DocumentBuilder } from '@nestjs/swagger';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { createTestApp, testAdapter, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';
import { seededRandom } from '../../support/seeded-random.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function elementRoutesSpec(): void {
  /** Issue 23, item 17: element routes for arrays of sub-documents (`POST /pet/:pet_id/vaccinations`...). */
  const engine = useEngine();

  @Schema()
  class Vaccination {
    @Prop({ required: true, maxlength: 40 }) name!: string;
    @Prop() date?: Date;
    @Prop({ min: 1, max: 5 }) dose?: number;
    @Prop() signedBy?: string;
    @Prop() lotCode?: string;
    @Prop({ type: { clinic: String, room: String }, _id: false }) place?: { clinic?: string; room?: string };
  }

  @Schema({ _id: false })
  class Weight {
    @Prop({ required: true }) kg!: number;
  }

  @GeneratedResource({ readonly: ['vaccinations.signedBy'], writeOnly: ['vaccinations.lotCode'], elements: { vaccinations: { maxElements: 5 } } })
  @Schema()
  class Pet {
    @Prop({ required: true }) name!: string;
    @Prop({ type: [SchemaFactory.createForClass(Vaccination)] }) vaccinations?: Vaccination[];
    @Prop({ type: [SchemaFactory.createForClass(Weight)] }) weights?: Weight[];
  }

  let t: TestApp;
  let pet: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Pet] });
    // One listening server for the concurrent requests (supertest would otherwise listen and close one per request).
    await t.app.listen(0, '127.0.0.1');
  });
  beforeEach(async () => {
    await t.connection.model('Pet').deleteMany({});
    pet = (
      await t
        .http()
        .post('/pet')
        .send({ name: 'Rex', vaccinations: [{ name: 'Rabies', dose: 1 }] })
        .expect(201)
    ).body._id;
  });

  const stored = async () =>
    (await t.connection.model('Pet').findById(pet).select('+vaccinations.lotCode').lean()) as unknown as {
      vaccinations: Array<Record<string, unknown>>;
      __v: number;
    };
  const firstId = async () => String((await stored()).vaccinations[0]._id);

  describe('POST /pet/:pet_id/vaccinations', () => {
    it('appends one element, answers 201 with the pet, the new element in Location, and a new ETag', async () => {
      const before = await t.http().get(`/pet/${pet}`).expect(200);
      const response = await t
        .http()
        .post(`/pet/${pet}/vaccinations`)
        .send({ name: 'Lepto', date: '2026-01-02T00:00:00.000Z', place: { clinic: 'North' } })
        .expect(201);
      expect(response.body.vaccinations.map((item: { name: string }) => item.name)).toEqual(['Rabies', 'Lepto']);
      const added = response.body.vaccinations[1];
      expect(added).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Lepto', date: '2026-01-02T00:00:00.000Z', place: { clinic: 'North' } });
      expect(response.headers.location).toBe(`/pet/${pet}/vaccinations/${added._id}`);
      expect(response.headers.etag).toBeDefined();
      expect(response.headers.etag).not.toBe(before.headers.etag);
    });

    it('leaves out null values, as a create does, and keeps a write-only value without answering it', async () => {
      const response = await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Lepto', date: null, lotCode: 'L-7' }).expect(201);
      expect(response.body.vaccinations[1]).toEqual({ _id: expect.any(String), name: 'Lepto' });
      expect((await stored()).vaccinations[1]).toMatchObject({ name: 'Lepto', lotCode: 'L-7' });
      expect('date' in (await stored()).vaccinations[1]).toBe(false);
    });

    it('checks the element as a whole write checks it, with paths relative to the element', async () => {
      const missing = await t.http().post(`/pet/${pet}/vaccinations`).send({ date: 'soon' });
      expectError(missing, 400, 'MR_VALIDATION_FAILED');
      expect(missing.body.details.map((detail: { path: string }) => detail.path).sort()).toEqual(['date', 'name']);
      const tooMany = await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'x', dose: 9 });
      expectError(tooMany, 400, 'MR_VALIDATION_FAILED');
      expect(tooMany.body.details).toEqual([{ path: 'dose', message: expect.any(String) }]);
      const place = await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'x', place: 'North' });
      expectError(place, 400, 'MR_VALIDATION_FAILED');
      expect(place.body.details[0].path).toBe('place');
      expect((await stored()).vaccinations).toHaveLength(1);
    });

    it('refuses unknown, readonly, identifier and operator fields, and a body that is not an object', async () => {
      for (const [body, path] of [
        [{ name: 'x', nope: 1 }, 'nope'],
        [{ name: 'x', signedBy: 'me' }, 'signedBy'],
        [{ name: 'x', _id: MISSING_ID }, '_id'],
        [{ name: 'x', $set: { name: 'y' } }, '$set'],
        [{ name: 'x', place: { clinic: 'a', extra: 1 } }, 'place.extra'],
        // Fastify's JSON parser refuses a __proto__ key itself, before any route (test/e2e/hostile-requests).
        ...(testAdapter() === 'fastify' ? [] : [[{ name: 'x', ['__proto__']: { polluted: true } }, '__proto__'] as const]),
      ] as const) {
        const response = await t.http().post(`/pet/${pet}/vaccinations`).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expectError(response, 400, 'MR_INVALID_BODY');
        expect(response.body.details[0].path).toBe(path);
      }
      for (const body of ['[]', '"x"', '1', 'null']) {
        expectError(await t.http().post(`/pet/${pet}/vaccinations`).set('Content-Type', 'application/json').send(body), 400, 'MR_INVALID_BODY');
      }
      expect((await stored()).vaccinations).toHaveLength(1);
    });

    it('answers 404 for a missing pet and 400 for a malformed id, writing nothing', async () => {
      expectError(await t.http().post(`/pet/${MISSING_ID}/vaccinations`).send({ name: 'x' }), 404, 'MR_NOT_FOUND');
      expectError(await t.http().post('/pet/nope/vaccinations').send({ name: 'x' }), 400, 'MR_INVALID_ID');
      expect(await t.connection.model('Pet').countDocuments()).toBe(1);
    });

    it('stops at maxElements with a 409 MR_ARRAY_FULL naming the field, whatever the flood', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          t
            .http()
            .post(`/pet/${pet}/vaccinations`)
            .send({ name: `V${i}` }),
        ),
      );
      const statuses = results.map((response) => response.status).sort();
      expect(statuses.filter((status) => status === 201)).toHaveLength(4);
      for (const response of results.filter((candidate) => candidate.status !== 201)) {
        expectError(response, 409, 'MR_ARRAY_FULL');
        expect(response.body.details).toEqual([{ path: 'vaccinations', message: 'holds at most 5 elements' }]);
      }
      expect((await stored()).vaccinations).toHaveLength(5);
    });

    it('keeps every one of concurrent appends (the array is never read and written back)', async () => {
      await t.connection.model('Pet').updateOne({ _id: pet }, { $set: { vaccinations: [] } });
      const names = ['A', 'B', 'C', 'D', 'E'];
      const results = await Promise.all(names.map((name) => t.http().post(`/pet/${pet}/vaccinations`).send({ name })));
      expect(results.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
      expect((await stored()).vaccinations.map((item) => item.name).sort()).toEqual(names);
    });

    it('honours If-Match: 412 and nothing written for a stale ETag', async () => {
      const { etag } = (await t.http().get(`/pet/${pet}`).expect(200)).headers;
      await t.http().post(`/pet/${pet}/vaccinations`).set('If-Match', etag).send({ name: 'A' }).expect(201);
      expectError(await t.http().post(`/pet/${pet}/vaccinations`).set('If-Match', etag).send({ name: 'B' }), 412, 'MR_PRECONDITION_FAILED');
      expect((await stored()).vaccinations.map((item) => item.name)).toEqual(['Rabies', 'A']);
    });
  });

  describe('GET /pet/:pet_id/vaccinations/:element_id', () => {
    it("answers the element with the pet's ETag, and 304 for If-None-Match", async () => {
      await t.connection.model('Pet').updateOne({ _id: pet }, { $set: { 'vaccinations.0.lotCode': 'L-1' } });
      const id = await firstId();
      const response = await t.http().get(`/pet/${pet}/vaccinations/${id}`).expect(200);
      expect(response.body).toEqual({ _id: id, name: 'Rabies', dose: 1 });
      expect(response.headers.etag).toBe((await t.http().get(`/pet/${pet}`)).headers.etag);
      await t.http().get(`/pet/${pet}/vaccinations/${id}`).set('If-None-Match', response.headers.etag).expect(304);
    });

    it('answers 404 MR_ELEMENT_NOT_FOUND for an unknown element, 404 MR_NOT_FOUND for a missing pet, 400 for malformed ids', async () => {
      const unknown = await t.http().get(`/pet/${pet}/vaccinations/${MISSING_ID}`);
      expectError(unknown, 404, 'MR_ELEMENT_NOT_FOUND');
      expect(unknown.body.message).toBe(`Pet '${pet}' has no element '${MISSING_ID}' in vaccinations`);
      expectError(await t.http().get(`/pet/${MISSING_ID}/vaccinations/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
      for (const id of ['nope', '123', 'g'.repeat(24), `${MISSING_ID}0`, 'x'.repeat(5000), '%00', '$where']) {
        expectError(await t.http().get(`/pet/${pet}/vaccinations/${encodeURIComponent(id)}`), 400, 'MR_INVALID_ID');
      }
      expectError(await t.http().get(`/pet/nope/vaccinations/${MISSING_ID}`), 400, 'MR_INVALID_ID');
    });
  });

  describe('PATCH /pet/:pet_id/vaccinations/:element_id', () => {
    it('changes only the fields sent, merging nested objects; null removes one; hidden and readonly values are kept', async () => {
      await t.connection
        .model('Pet')
        .updateOne(
          { _id: pet },
          { $set: { 'vaccinations.0.lotCode': 'L-1', 'vaccinations.0.signedBy': 'Dr Who', 'vaccinations.0.place': { clinic: 'N', room: '1' } } },
        );
      const id = await firstId();
      const response = await t
        .http()
        .patch(`/pet/${pet}/vaccinations/${id}`)
        .send({ dose: 2, place: { room: '2' }, date: '2026-03-04T00:00:00.000Z' })
        .expect(200);
      expect(response.body.vaccinations).toEqual([
        { _id: id, name: 'Rabies', dose: 2, signedBy: 'Dr Who', place: { clinic: 'N', room: '2' }, date: '2026-03-04T00:00:00.000Z' },
      ]);
      const cleared = await t.http().patch(`/pet/${pet}/vaccinations/${id}`).send({ dose: null }).expect(200);
      expect(cleared.body.vaccinations[0].dose).toBeUndefined();
      expect((await stored()).vaccinations[0]).toMatchObject({ lotCode: 'L-1', signedBy: 'Dr Who', name: 'Rabies' });
    });

    it('checks the values sent with the paths of the element; a required field cannot be cleared', async () => {
      const id = await firstId();
      for (const [body, path, code] of [
        [{ dose: 'two' }, 'dose', 'MR_VALIDATION_FAILED'],
        [{ dose: 7 }, 'dose', 'MR_VALIDATION_FAILED'],
        [{ name: null }, 'name', 'MR_VALIDATION_FAILED'],
        [{ name: 'x'.repeat(41) }, 'name', 'MR_VALIDATION_FAILED'],
        [{ date: 'soon' }, 'date', 'MR_VALIDATION_FAILED'],
        [{ signedBy: 'me' }, 'signedBy', 'MR_INVALID_BODY'],
        [{ _id: MISSING_ID }, '_id', 'MR_INVALID_BODY'],
        [{ nope: 1 }, 'nope', 'MR_INVALID_BODY'],
        [{ place: { nope: 1 } }, 'place.nope', 'MR_INVALID_BODY'],
      ] as const) {
        const response = await t.http().patch(`/pet/${pet}/vaccinations/${id}`).send(body);
        expectError(response, 400, code);
        expect(response.body.details[0].path).toBe(path);
      }
      expect((await stored()).vaccinations[0]).toMatchObject({ name: 'Rabies', dose: 1 });
    });

    it('answers 404 for an unknown element or pet and 400 for malformed ids, writing nothing', async () => {
      const id = await firstId();
      const before = (await stored()).__v;
      expectError(await t.http().patch(`/pet/${pet}/vaccinations/${MISSING_ID}`).send({ dose: 2 }), 404, 'MR_ELEMENT_NOT_FOUND');
      expectError(await t.http().patch(`/pet/${MISSING_ID}/vaccinations/${id}`).send({ dose: 2 }), 404, 'MR_NOT_FOUND');
      expectError(await t.http().patch(`/pet/${pet}/vaccinations/nope`).send({ dose: 2 }), 400, 'MR_INVALID_ID');
      expect((await stored()).__v).toBe(before);
    });

    it('honours If-Match', async () => {
      const id = await firstId();
      const { etag } = (await t.http().get(`/pet/${pet}/vaccinations/${id}`).expect(200)).headers;
      const changed = await t.http().patch(`/pet/${pet}/vaccinations/${id}`).set('If-Match', etag).send({ dose: 2 }).expect(200);
      expect(changed.headers.etag).not.toBe(etag);
      expectError(await t.http().patch(`/pet/${pet}/vaccinations/${id}`).set('If-Match', etag).send({ dose: 3 }), 412, 'MR_PRECONDITION_FAILED');
      expect((await stored()).vaccinations[0].dose).toBe(2);
    });

    it('keeps concurrent changes of different elements and fields, and appends made meanwhile', async () => {
      await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Lepto' }).expect(201);
      await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Parvo' }).expect(201);
      const [a, b, c] = (await stored()).vaccinations.map((item) => String(item._id));
      // The element deleted is one no other request of the batch names: which of a PATCH and a
      // DELETE of one element runs first is the server's order, not the test's (a 404 either way).
      await Promise.all([
        t.http().patch(`/pet/${pet}/vaccinations/${a}`).send({ dose: 2 }).expect(200),
        t.http().patch(`/pet/${pet}/vaccinations/${b}`).send({ dose: 3 }).expect(200),
        t
          .http()
          .patch(`/pet/${pet}/vaccinations/${a}`)
          .send({ place: { clinic: 'S' } })
          .expect(200),
        t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Flu' }).expect(201),
        t.http().delete(`/pet/${pet}/vaccinations/${c}`).expect(200),
      ]);
      const items = (await stored()).vaccinations;
      expect(items.map((item) => item.name)).toEqual(['Rabies', 'Lepto', 'Flu']);
      expect(items[0]).toMatchObject({ dose: 2, place: { clinic: 'S' } });
      expect(items[1]).toMatchObject({ dose: 3 });
    });
  });

  describe('DELETE /pet/:pet_id/vaccinations/:element_id', () => {
    it('removes the element (hidden values included) and answers the pet', async () => {
      await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Lepto', lotCode: 'L-2' }).expect(201);
      const [, second] = (await stored()).vaccinations.map((item) => String(item._id));
      const response = await t.http().delete(`/pet/${pet}/vaccinations/${second}`).expect(200);
      expect(response.body.vaccinations.map((item: { name: string }) => item.name)).toEqual(['Rabies']);
      expect((await stored()).vaccinations).toHaveLength(1);
      expectError(await t.http().delete(`/pet/${pet}/vaccinations/${second}`), 404, 'MR_ELEMENT_NOT_FOUND');
      expectError(await t.http().delete(`/pet/${MISSING_ID}/vaccinations/${second}`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().delete(`/pet/${pet}/vaccinations/%20`), 400, 'MR_INVALID_ID');
    });

    it('honours If-Match', async () => {
      const id = await firstId();
      const { etag } = (await t.http().get(`/pet/${pet}`).expect(200)).headers;
      await t.http().post(`/pet/${pet}/vaccinations`).send({ name: 'Lepto' }).expect(201);
      expectError(await t.http().delete(`/pet/${pet}/vaccinations/${id}`).set('If-Match', etag), 412, 'MR_PRECONDITION_FAILED');
      expect((await stored()).vaccinations).toHaveLength(2);
    });
  });

  describe('a whole-document write of the array', () => {
    it('refuses two elements with one _id (the element routes would see one), naming the second, and writes nothing', async () => {
      const before = (await t.http().get(`/pet/${pet}`).expect(200)).body;
      const [first] = before.vaccinations;
      const response = await t
        .http()
        .patch(`/pet/${pet}`)
        .send({ vaccinations: [{ _id: first._id, name: 'A' }, { name: 'B' }, { _id: first._id, name: 'C' }] });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details).toEqual([{ path: 'vaccinations.2._id', message: 'repeats the _id of element 0: each element has its own' }]);
      expect((await t.http().get(`/pet/${pet}`).expect(200)).body).toEqual(before);
      // Each element sent back with its own _id (the array as read) is a write like any other.
      await t
        .http()
        .patch(`/pet/${pet}`)
        .send({ vaccinations: before.vaccinations.map(({ _id, name }: { _id: string; name: string }) => ({ _id, name })) })
        .expect(200);
    });
  });

  describe('which arrays have element routes', () => {
    it('none for an array whose elements have no _id (`_id: false`)', async () => {
      expectNoRoute(await t.http().post(`/pet/${pet}/weights`).send({ kg: 3 }));
      expectNoRoute(await t.http().get(`/pet/${pet}/weights/${MISSING_ID}`));
    });

    it('a 405 with Allow for a method an element path does not serve', async () => {
      const response = await t.http().put(`/pet/${pet}/vaccinations/${MISSING_ID}`).send({});
      expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
      expect((await t.http().put(`/pet/${pet}/vaccinations`).send({})).headers.allow).toBe('POST');
    });

    it('a route option disables or guards one element route; an unknown field or route is refused at startup', async () => {
      @GeneratedResource({ path: 'cat', elements: { vaccinations: { deleteElement: false, patchElement: { enabled: false } } } })
      @Schema()
      class Cat {
        @Prop() name?: string;
        @Prop({ type: [SchemaFactory.createForClass(Vaccination)] }) vaccinations?: Vaccination[];
      }
      const app = await createTestApp(engine, { resources: [Cat] });
      try {
        const cat = (
          await app
            .http()
            .post('/cat')
            .send({ vaccinations: [{ name: 'A' }] })
            .expect(201)
        ).body;
        const id = cat.vaccinations[0]._id;
        await app.http().get(`/cat/${cat._id}/vaccinations/${id}`).expect(200);
        expect((await app.http().delete(`/cat/${cat._id}/vaccinations/${id}`)).status).toBe(405);
        expect((await app.http().patch(`/cat/${cat._id}/vaccinations/${id}`).send({})).status).toBe(405);
      } finally {
        await app.close();
      }
      expect(() => ModelRoutesModule.forRoot({ resources: [Pet], elements: { nope: false } as never })).toThrow(/there is no route 'nope'/);
      expect(() => ModelRoutesModule.forRoot({ resources: [Pet], elements: { maxElements: 0 } })).toThrow(/maxElements must be an integer of at least 1/);
      @GeneratedResource({ path: 'dog', elements: { weights: { addElement: false } } })
      @Schema()
      class Dog {
        @Prop({ type: [SchemaFactory.createForClass(Weight)] }) weights?: Weight[];
      }
      expect(() => ModelRoutesModule.forRoot({ resources: [Dog] })).toThrow(/names no array of sub-documents with element routes/);
    });
  });

  describe('OpenAPI', () => {
    it('documents each element route: operationId, element parameter, bodies, answers and errors', async () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('elements').setVersion('1').build()) as unknown as {
        paths: Record<string, Record<string, any>>;
        components: { schemas: Record<string, any> };
      };
      const list = document.paths['/pet/{pet_id}/vaccinations'];
      const one = document.paths['/pet/{pet_id}/vaccinations/{element_id}'];
      expect(Object.keys(list)).toEqual(['post']);
      expect(Object.keys(one).sort()).toEqual(['delete', 'get', 'patch']);
      expect([list.post, one.get, one.patch, one.delete].map((operation) => operation.operationId)).toEqual([
        'pet_vaccinations_addElement',
        'pet_vaccinations_findElement',
        'pet_vaccinations_patchElement',
        'pet_vaccinations_deleteElement',
      ]);
      expect(one.get.parameters.find((parameter: { name: string }) => parameter.name === 'element_id')).toMatchObject({
        in: 'path',
        required: true,
        schema: { pattern: '^[0-9a-fA-F]{24}$' },
      });
      expect(list.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PetVaccinationsElementDto' });
      expect(one.patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PetVaccinationsElementPatchDto' });
      const add = document.components.schemas.PetVaccinationsElementDto;
      expect(add.required).toEqual(['name']);
      expect(add.additionalProperties).toBe(false);
      expect(Object.keys(add.properties)).not.toContain('signedBy');
      expect(add.properties).toHaveProperty('lotCode');
      expect(document.components.schemas.PetVaccinationsElementPatchDto.required).toBeUndefined();
      // The element routes refuse `_id` in a body (the element's id is the path's): their bodies do not list it.
      expect(Object.keys(add.properties)).not.toContain('_id');
      expect(Object.keys(document.components.schemas.PetVaccinationsElementPatchDto.properties)).not.toContain('_id');
      // A whole write may keep its elements' ids: its item class lists `_id`.
      expect(Object.keys(document.components.schemas.PetVaccinationsItemDto.properties)).toContain('_id');
      expect(list.post.responses['201'].headers.Location).toBeDefined();
      expect(list.post.responses['409'].description).toContain('MR_ARRAY_FULL');
      expect(one.get.responses['200'].content['application/json'].schema.properties).toHaveProperty('signedBy');
      expect(one.get.responses['200'].content['application/json'].schema.properties).not.toHaveProperty('lotCode');
      expect(one.get.responses['404'].description).toContain('MR_ELEMENT_NOT_FOUND');
      expect(one.patch.responses['412']).toBeDefined();
      expect(document.paths['/pet/{pet_id}/weights']).toBeUndefined();
    });
  });

  const SEED = Number(process.env.ELEMENT_FUZZ_SEED ?? 23017);

  describe('hostile requests to the element routes', () => {
    it('a body over the size limit is a 413 and a deeply nested one a 400, writing nothing', async () => {
      const id = await firstId();
      const huge = { name: 'x', place: { clinic: 'y'.repeat(200 * 1024) } };
      expectError(await t.http().post(`/pet/${pet}/vaccinations`).send(huge), 413, 'MR_PAYLOAD_TOO_LARGE');
      expectError(await t.http().patch(`/pet/${pet}/vaccinations/${id}`).send(huge), 413, 'MR_PAYLOAD_TOO_LARGE');
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 60; i++) deep = { place: deep };
      const nested = await t
        .http()
        .post(`/pet/${pet}/vaccinations`)
        .send({ name: 'x', ...deep });
      expect(nested.status).toBe(400);
      expectError(await t.http().post(`/pet/${pet}/vaccinations`).set('Content-Type', 'text/plain').send('name=x'), 415, 'MR_UNSUPPORTED_MEDIA_TYPE');
      expect((await stored()).vaccinations).toHaveLength(1);
    });

    it(`never answers a 5xx to random bodies and identifiers, and a refusal changes nothing (seed ${SEED})`, async () => {
      const next = seededRandom(SEED);
      const pick = <V>(values: readonly V[]): V => values[Math.floor(next() * values.length)];
      const id = await firstId();
      const values = [null, 0, -1, 1e308, 3, 'x', '', 'x'.repeat(50), true, [], [1, 'a'], {}, { a: 1 }, { $gt: '' }, '2026-01-01', '\u0000', '\ud800'];
      const keys = ['name', 'date', 'dose', 'place', 'signedBy', 'lotCode', '_id', '__v', '$set', 'a.b', 'constructor', 'nope', 'clinic'];
      const ids = [id, MISSING_ID, 'nope', '0', '%24where', 'x'.repeat(300), encodeURIComponent('{"$gt":""}'), '..', '%2e%2e'];
      for (let round = 0; round < 60; round++) {
        const body: Record<string, unknown> = {};
        const size = Math.floor(next() * 4);
        for (let i = 0; i < size; i++) {
          const key = pick(keys);
          body[key] = key === 'place' && next() < 0.5 ? { [pick(['clinic', 'room', 'x'])]: pick(values) } : pick(values);
        }
        const before = JSON.stringify((await stored()).vaccinations);
        const element = pick(ids);
        const method = pick(['post', 'patch', 'get', 'delete'] as const);
        const url = method === 'post' ? `/pet/${pick([pet, pet, 'nope'])}/vaccinations` : `/pet/${pet}/vaccinations/${element}`;
        const response = method === 'get' || method === 'delete' ? await t.http()[method](url) : await t.http()[method](url).send(body);
        const what =
          `round ${round} (seed ${SEED}): ${method.toUpperCase()} ${url} ${JSON.stringify(body)} → ${response.status} ` + `${JSON.stringify(response.body)}`;
        expect({ what, server: response.status >= 500 }).toEqual({ what, server: false });
        if (response.status >= 400) {
          expect(response.body.code).toMatch(/^MR_/);
          expect(JSON.stringify((await stored()).vaccinations)).toBe(before);
        }
        // Keep the first element: a DELETE that succeeded is put back, so the next rounds address it.
        if (method === 'delete' && response.status === 200) {
          const rest = (await stored()).vaccinations;
          await t.connection.model('Pet').updateOne({ _id: pet }, { $set: { vaccinations: [{ _id: id, name: 'Rabies', dose: 1 }, ...rest] } });
        }
      }
    }, 120_000);
  });
}
