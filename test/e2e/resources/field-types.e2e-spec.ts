/**
 * Every field type the library supports, through HTTP and through a typed client: Maps and enum
 * arrays are checked and documented with their values' type, and a client generated from the
 * OpenAPI document (openapi-typescript) can create and search with every field type and read each
 * back with its type. The client's code is compiled in memory, strict, with the TypeScript
 * compiler; the same bodies and searches are then sent to the app, whose answers are checked
 * against the document.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIObject } from '@nestjs/swagger';
import { DocumentBuilder } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { Person, Quiet, Shelf, Specimen, Wallet } from '../../fixtures/field-types-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { bodyType, clientTypes, compile, COMPILE_TIMEOUT, queryType, typed } from '../../support/typed-client.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldTypesSpec(): void {
  const engine = useEngine();

  let t: TestApp;
  let document: OpenAPIObject;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Shelf, Specimen, Wallet, Person, Quiet] });
    document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('field types').build());
  });
  afterAll(() => t?.close());

  const schema = (name: string) => (document.components!.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>)[name];

  it('the document of every field type is valid OpenAPI 3', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  describe('Maps', () => {
    it("answers a value of the wrong type at its key's path, on create, replace and merge", async () => {
      const id = (await t.http().post('/specimen').send({ name: 'Flint' }).expect(201)).body._id;
      for (const send of [
        () =>
          t
            .http()
            .post('/specimen')
            .send({ name: 'x', measures: { daily: 'lots' } }),
        () =>
          t
            .http()
            .put(`/specimen/${id}`)
            .send({ name: 'x', measures: { daily: 'lots' } }),
        () =>
          t
            .http()
            .patch(`/specimen/${id}`)
            .send({ measures: { daily: 'lots' } }),
      ]) {
        const response = await send();
        expectError(response, 400, 'MR_VALIDATION_FAILED');
        expect(response.body.details).toEqual([{ path: 'measures.daily', message: 'measures must be a number' }]);
      }
      const both = await t
        .http()
        .post('/specimen')
        .send({ name: 'x', measures: { weekly: 3, daily: '5' }, labels: { en: 5 } });
      expect(both.body.details.map((detail: { path: string }) => detail.path)).toEqual(['measures.daily', 'labels.en']);
      expect((await t.http().get(`/specimen/${id}`).expect(200)).body).not.toHaveProperty('measures.daily');
      // An array is not a Map, whatever its elements.
      const array = await t
        .http()
        .post('/specimen')
        .send({ name: 'x', measures: [1] });
      expectError(array, 400, 'MR_VALIDATION_FAILED');
      expect(array.body.details).toEqual([{ path: 'measures', message: 'measures must be an object' }]);
    });

    it('tells every refused value of a body at once: a nested object of the wrong shape hides no other field', async () => {
      const id = (await t.http().post('/specimen').send({ name: 'Flint' }).expect(201)).body._id;
      for (const send of [
        () =>
          t
            .http()
            .post('/specimen')
            .send({ name: 'x', weight: 'heavy', location: 'Lyon', dimensions: [{ axis: 'x' }, 'y'], fragile: 'yes' }),
        () =>
          t
            .http()
            .put(`/specimen/${id}`)
            .send({ name: 'x', weight: 'heavy', location: 'Lyon', dimensions: [{ axis: 'x' }, 'y'], fragile: 'yes' }),
      ]) {
        const response = await send();
        expectError(response, 400, 'MR_VALIDATION_FAILED');
        // The shape's findings first, each standing for what the class says at or below its path; then the class's on the other fields.
        expect(response.body.details.map((detail: { path: string }) => detail.path)).toEqual(['location', 'dimensions.1', 'weight', 'fragile']);
        expect(response.body.details[0]).toEqual({ path: 'location', message: 'location must be an object' });
      }
      // One value alone keeps its one detail and its message.
      const alone = await t.http().patch(`/specimen/${id}`).send({ location: 'Lyon' });
      expect(alone.body).toMatchObject({
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed for location: location must be an object',
        details: [{ path: 'location', message: 'location must be an object' }],
      });
      expect((await t.http().get(`/specimen/${id}`).expect(200)).body).toEqual(expect.objectContaining({ name: 'Flint' }));
    });

    it("answers the value Mongoose cannot cast at its key's path, behind a DTO of the user's", async () => {
      const create = await t
        .http()
        .post('/wallet')
        .send({ holder: 'Ada', limits: { weekly: 10, daily: 'lots' } });
      expectError(create, 400, 'MR_VALIDATION_FAILED');
      expect(create.body.details).toEqual([{ path: 'limits.daily', message: 'Value "lots" cannot be converted to Number' }]);
      const id = (
        await t
          .http()
          .post('/wallet')
          .send({ holder: 'Ada', limits: { weekly: 10 } })
          .expect(201)
      ).body._id;
      for (const [method, body] of [
        ['patch', { limits: { daily: 'lots' } }],
        ['put', { holder: 'Ada', limits: { weekly: 10, daily: 'lots' } }],
      ] as const) {
        const response = await t.http()[method](`/wallet/${id}`).send(body);
        expectError(response, 400, 'MR_VALIDATION_FAILED');
        expect(response.body.details).toEqual([{ path: 'limits.daily', message: 'cannot be converted to Number' }]);
      }
    });

    it('answers a created document with its Maps, as every other route does', async () => {
      const created = (
        await t
          .http()
          .post('/specimen')
          .send({ name: 'Jade', measures: { daily: 5 }, labels: { en: 'jade' } })
          .expect(201)
      ).body;
      expect(created).toMatchObject({ measures: { daily: 5 }, labels: { en: 'jade' } });
      expect((await t.http().get(`/specimen/${created._id}`).expect(200)).body).toMatchObject({ measures: { daily: 5 }, labels: { en: 'jade' } });
    });

    it("documents a Map's values with their type, in documents and in bodies", () => {
      for (const name of ['Specimen', 'SpecimenCreateDto', 'SpecimenUpdateDto']) {
        expect(schema(name).properties.measures).toMatchObject({ type: 'object', additionalProperties: { type: 'number' } });
        expect(schema(name).properties.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
      }
    });
  });

  describe('enum arrays', () => {
    it('refuses each element outside the enum, at its index, on create and merge', async () => {
      const id = (
        await t
          .http()
          .post('/specimen')
          .send({ name: 'Opal', tags: ['rare'] })
          .expect(201)
      ).body._id;
      for (const send of [
        () =>
          t
            .http()
            .post('/specimen')
            .send({ name: 'x', tags: ['rare', 'vip'] }),
        () =>
          t
            .http()
            .patch(`/specimen/${id}`)
            .send({ tags: ['shiny', 'vip'] }),
      ]) {
        const response = await send();
        expectError(response, 400, 'MR_VALIDATION_FAILED');
        expect(response.body.details).toEqual([{ path: 'tags.1', message: 'tags must be one of the following values: rare, heavy, shiny' }]);
      }
    });

    it('documents the enum on the items, and a query-string filter by one element', () => {
      for (const name of ['Specimen', 'SpecimenCreateDto', 'SpecimenUpdateDto']) {
        expect(schema(name).properties.tags).toMatchObject({ type: 'array', items: { type: 'string', enum: ['rare', 'heavy', 'shiny'] } });
        expect(schema(name).properties.tags).not.toHaveProperty('enum');
      }
      const parameters = (document.paths['/specimens'].get as { parameters: Array<{ name: string; schema: object }> }).parameters;
      expect(parameters.find((parameter) => parameter.name === 'tags')?.schema).toMatchObject({ type: 'string', enum: ['rare', 'heavy', 'shiny'] });
    });
  });

  describe('virtuals', () => {
    it('answers those the schema asks for on every route that answers a document, computed without hidden fields', async () => {
      const created = (await t.http().post('/person').send({ first: 'Ada', last: 'Lovelace' }).expect(201)).body;
      expect(created).toMatchObject({ first: 'Ada', fullName: 'Ada Lovelace', pinState: 'unset', shout: 'LOVELACE' });
      expect(created).not.toHaveProperty('id');
      // Server code sets the hidden field: a virtual reading it still sees none, on every route.
      await t.connection.model('Person').updateOne({ _id: created._id }, { $set: { pin: '1234' } });
      const answers = [
        (await t.http().get(`/person/${created._id}`).expect(200)).body,
        (await t.http().get('/people').query({ first: 'Ada' }).expect(200)).body.result[0],
        (
          await t
            .http()
            .post('/people')
            .send({ query: { first: 'Ada' } })
            .expect(200)
        ).body.result[0],
        (await t.http().patch(`/person/${created._id}`).send({ last: 'King' }).expect(200)).body,
        (await t.http().put(`/person/${created._id}`).send({ first: 'Ada', last: 'Byron' }).expect(200)).body,
      ];
      expect(answers.map(({ fullName, pinState }) => ({ fullName, pinState }))).toEqual([
        { fullName: 'Ada Lovelace', pinState: 'unset' },
        { fullName: 'Ada Lovelace', pinState: 'unset' },
        { fullName: 'Ada Lovelace', pinState: 'unset' },
        { fullName: 'Ada King', pinState: 'unset' },
        { fullName: 'Ada Byron', pinState: 'unset' },
      ]);
      expect((await t.http().delete(`/person/${created._id}`).expect(200)).body).toMatchObject({ fullName: 'Ada Byron' });
    });

    it('leaves out a virtual its getter cannot compute, and all of them from a selection of fields', async () => {
      const created = (await t.http().post('/person').send({ first: 'Grace' }).expect(201)).body;
      expect(created).toMatchObject({ fullName: 'Grace', pinState: 'unset' });
      expect(created).not.toHaveProperty('shout');
      const selected = (await t.http().get('/people').query({ first: 'Grace', select: 'first' }).expect(200)).body.result[0];
      expect(selected).toEqual({ _id: created._id, first: 'Grace' });
    });

    it('refuses a filter, a sort or a selection of a virtual as of any unknown field', async () => {
      for (const send of [
        () => t.http().get('/people').query({ fullName: 'Ada' }),
        () => t.http().get('/people').query({ sort: 'fullName' }),
        () =>
          t
            .http()
            .post('/people')
            .send({ select: ['fullName'] }),
        () => t.http().post('/person').send({ first: 'x', fullName: 'y' }),
      ]) {
        expect((await send()).status).toBe(400);
      }
    });

    it('answers none the schema does not ask for', async () => {
      const created = (await t.http().post('/quiet').send({ first: 'Ada' }).expect(201)).body;
      expect(created).not.toHaveProperty('size');
      expect((await t.http().get(`/quiet/${created._id}`).expect(200)).body).not.toHaveProperty('size');
    });

    it('documents them read-only in documents, never in bodies nor searches', () => {
      for (const name of ['fullName', 'pinState', 'shout']) {
        expect(schema('Person').properties[name]).toMatchObject({ readOnly: true });
        expect(schema('PersonCreateDto').properties).not.toHaveProperty(name);
      }
      expect((schema('Person') as { required?: string[] }).required).not.toContain('fullName');
      expect(schema('Quiet').properties).not.toHaveProperty('size');
      const parameters = (document.paths['/people'].get as { parameters: Array<{ name: string }> }).parameters.map((parameter) => parameter.name);
      expect(parameters).not.toContain('fullName');
    });
  });

  describe('a client generated from the fixture app covering every field type', () => {
    let types: string;
    let shelf: string;

    beforeAll(async () => {
      types = await clientTypes(document);
      shelf = (await t.http().post('/shelf').send({ label: 'A' }).expect(201)).body._id;
    });

    /** One value of every field type a client writes. */
    const create = () => ({
      name: 'Ammonite',
      weight: 1.5,
      count: 7,
      fragile: true,
      foundAt: '2024-05-01T00:00:00.000Z',
      category: 'fossil',
      tags: ['rare', 'shiny'],
      readings: [3, 4.5],
      location: { room: 'B2', row: 3 },
      dimensions: [{ axis: 'x', length: 12 }],
      shelf,
      formerShelves: [shelf],
      measures: { daily: 5, weekly: 30 },
      labels: { en: 'ammonite' },
      notes: { found: ['by', 'a', 'child'], year: 1990 },
    });

    /** An equality search on each field the query string documents, with the value created. */
    const searches = () => [
      { name: 'Ammonite' },
      { weight: 1.5 },
      { count: 7 },
      { fragile: true },
      { foundAt: '2024-05-01T00:00:00.000Z' },
      { category: 'fossil' },
      { tags: 'rare' },
      { readings: 3 },
      { shelf },
      { formerShelves: shelf },
    ];

    /** A search body on the fields a query string cannot name: nested, sub-documents, maps, mixed values and files. */
    const searchBodies = () => [
      { query: { 'location.room': 'B2' } },
      { query: { 'dimensions.axis': 'x' } },
      { query: { 'measures.daily': { $gte: 5 } } },
      { query: { 'labels.en': 'ammonite' } },
      { query: { 'notes.year': 1990 } },
      { query: { 'scan.contentType': 'text/plain' } },
      { query: { 'photos.contentType': 'text/plain' } },
      { query: { tags: { $all: ['rare', 'shiny'] } }, sort: '-weight', select: ['name', 'tags'] },
    ];

    /** Reads each field back with the type a client expects of it. */
    const READS = `
declare const doc: components['schemas']['Specimen'];
export const name: string = doc.name;
export const weight: number | null | undefined = doc.weight;
export const count: number | null | undefined = doc.count;
export const fragile: boolean | null | undefined = doc.fragile;
export const foundAt: string | null | undefined = doc.foundAt;
export const category: 'rock' | 'fossil' | 'mineral' | null | undefined = doc.category;
export const tags: Array<'rare' | 'heavy' | 'shiny'> | null | undefined = doc.tags;
export const readings: number[] | null | undefined = doc.readings;
export const room: string | null | undefined = doc.location?.room;
export const row: number | null | undefined = doc.location?.row;
export const axis: string | undefined = doc.dimensions?.[0]?.axis;
export const length: number | null | undefined = doc.dimensions?.[0]?.length;
export const shelf: string | null | undefined = doc.shelf;
export const formerShelves: string[] | null | undefined = doc.formerShelves;
export const daily: number | undefined = doc.measures?.['daily'];
export const label: string | undefined = doc.labels?.['en'];
export const notes: unknown = doc.notes;
export const scanType: string | undefined = doc.scan?.contentType;
export const scanSize: number | undefined = doc.scan?.size;
export const photoName: string | undefined = doc.photos?.[0]?.name;
export const createdAt: string | null | undefined = doc.createdAt;
`;

    const client = () =>
      [
        "import type { components, paths } from './api';",
        typed('created', bodyType('/specimen', 'post'), create()),
        typed('patched', bodyType('/specimen/{specimen_id}', 'patch'), { tags: ['heavy'], measures: { daily: 6 } }),
        ...searches().map((search, index) => typed(`search${index}`, queryType('/specimens'), search)),
        // Files are uploaded to their own routes, at the document's id.
        typed('upload', "paths['/specimen/{specimen_id}/scan']['put']['parameters']['path']", { specimen_id: shelf }),
        typed('addPhoto', "paths['/specimen/{specimen_id}/photos']['post']['parameters']['path']", { specimen_id: shelf }),
        ...searchBodies().map((search, index) => typed(`searchBody${index}`, bodyType('/specimens', 'post'), search)),
        READS,
      ].join('\n');

    it(
      'compiles, strict, a create, an update and a search of every field type, and every field read back',
      () => {
        expect(compile({ 'api.ts': types, 'client.ts': client() })).toEqual([]);
      },
      COMPILE_TIMEOUT,
    );

    it(
      'refuses, at compile time, values of the wrong type in an enum array and in a Map',
      () => {
        const wrong = [
          "import type { paths } from './api';",
          typed('enumArray', bodyType('/specimen', 'post'), { name: 'x', tags: ['vip'] }),
          typed('mapValue', bodyType('/specimen', 'post'), { name: 'x', measures: { daily: 'lots' } }),
          typed('searchValue', queryType('/specimens'), { tags: 'vip' }),
        ].join('\n');
        const diagnostics = compile({ 'api.ts': types, 'wrong.ts': wrong });
        expect(diagnostics.map((diagnostic) => /wrong\.ts:(\d+)/.exec(diagnostic)?.[1])).toEqual(['2', '3', '4']);
      },
      COMPILE_TIMEOUT,
    );

    it('sends the same bodies and searches to the app, which stores and finds them', async () => {
      const created = (await t.http().post('/specimen').send(create()).expect(201)).body;
      expect(created).toMatchObject(create());
      await t.http().put(`/specimen/${created._id}/scan`).attach('file', Buffer.from('scan'), { filename: 'scan.txt', contentType: 'text/plain' }).expect(200);
      await t
        .http()
        .post(`/specimen/${created._id}/photos`)
        .attach('file', Buffer.from('photo'), { filename: 'photo.txt', contentType: 'text/plain' })
        .expect(201);
      // A second document, so that each search must select.
      const other = (
        await t
          .http()
          .post('/specimen')
          .send({ name: 'Quartz', category: 'mineral', tags: ['heavy'] })
          .expect(201)
      ).body._id;
      const finds = (search: object, ids: string[]) =>
        expect({ search, found: ids.includes(created._id), other: ids.includes(other) }).toEqual({ search, found: true, other: false });
      for (const search of searches()) {
        const found = (await t.http().get('/specimens').query(search).expect(200)).body;
        finds(
          search,
          found.result.map((item: { _id: string }) => item._id),
        );
      }
      for (const search of searchBodies()) {
        const found = (await t.http().post('/specimens').send(search).expect(200)).body;
        finds(
          search,
          found.result.map((item: { _id: string }) => item._id),
        );
      }
      const patched = (
        await t
          .http()
          .patch(`/specimen/${created._id}`)
          .send({ tags: ['heavy'], measures: { daily: 6 } })
          .expect(200)
      ).body;
      expect(patched).toMatchObject({ tags: ['heavy'], measures: { daily: 6 } });
    });
  });

  describe('a client generated from the sample app', () => {
    const document = JSON.parse(readFileSync(new URL('../../openapi/sample-app.openapi.json', import.meta.url), 'utf8')) as OpenAPIObject;

    it(
      'compiles, strict, a create and a search of each of its resources',
      async () => {
        const types = await clientTypes(document);
        const id = '6b0229b1c62bd98e28d0e9b2';
        const client = [
          "import type { components, paths } from './api';",
          typed('user', bodyType('/user', 'post'), { niceName: 'Ada', birth: '1815-12-10T00:00:00.000Z' }),
          typed('company', bodyType('/company', 'post'), { niceName: 'Acme', owner: id, employees: 3, location: 'London' }),
          typed('book', bodyType('/book', 'post'), { slug: 'the-engine', title: 'The Engine', author: id }),
          typed('users', queryType('/users'), { niceName: 'Ada', birth: '1815-12-10T00:00:00.000Z', sort: '-birth', limit: 5 }),
          typed('companies', queryType('/companies'), { niceName: 'Acme', owner: id, employees: 3, location: 'London' }),
          typed('books', queryType('/books'), { slug: 'the-engine', title: 'The Engine', author: id }),
          typed('companiesPost', bodyType('/companies', 'post'), { query: { employees: { $gte: 3 } }, limit: 5 }),
          "declare const doc: components['schemas']['Company'];",
          'export const logo: string | undefined = doc.logo?.contentType;',
          // The sample's owner is expandable (issue 25): an identifier, or the Entrepreneur itself with ?expand=owner.
          "export const owner: string | components['schemas']['Entrepreneur'] | null | undefined = doc.owner;",
          "export const ownerName: string | undefined = typeof doc.owner === 'object' && doc.owner ? doc.owner.niceName : undefined;",
        ].join('\n');
        expect(compile({ 'api.ts': types, 'client.ts': client })).toEqual([]);
      },
      COMPILE_TIMEOUT,
    );
  });
}
