/**
 * A resource whose schema has Mongoose discriminators (issue 42, item 2): one resource for the base,
 * a create that picks the sub-type by the key and checks the sub-type's fields, reads, searches and
 * filters across sub-types, updates checked against the stored document's sub-type.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { BackOfficeModule, type BackOfficeMetadata, type FieldMetadata } from '../../../src/back-office/index.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { bodyType, clientTypes, compile, COMPILE_TIMEOUT, typed } from '../../support/typed-client.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function discriminatorsSpec(): void {
  @GeneratedResource()
  @Schema()
  class Writer {
    @Prop({ required: true }) name!: string;
  }

  @Schema()
  class Book {
    @Prop({ required: true }) isbn!: string;
    @Prop({ type: Types.ObjectId, ref: 'Writer' }) author?: Types.ObjectId;
    @Prop() pages?: number;
    @Prop() published?: Date;
  }

  @Schema()
  class Shirt {
    @Prop({ required: true, enum: ['S', 'M', 'L'] }) size!: string;
    @Prop() color?: string;
  }

  @GeneratedResource({ discriminators: [Book, Shirt] })
  @Schema({ discriminatorKey: 'kind' })
  class Product {
    @Prop({ required: true }) name!: string;
    @Prop() price?: number;
  }

  // The same, declared the way Mongoose documents it: `schema.discriminator()` on a schema given to forRoot.
  @GeneratedResource({ path: 'device' })
  @Schema({ discriminatorKey: 'type' })
  class Device {
    @Prop({ required: true }) name!: string;
  }
  @Schema()
  class Phone {
    @Prop({ required: true }) screen!: number;
  }
  const DeviceSchema = SchemaFactory.createForClass(Device);
  DeviceSchema.discriminator('Phone', SchemaFactory.createForClass(Phone), { value: 'phone' });

  // And as `@nestjs/mongoose`'s forFeature takes them: `discriminators: [{ name, schema }]` beside the resource.
  @GeneratedResource()
  @Schema({ discriminatorKey: 'kind' })
  class Vehicle {
    @Prop({ required: true }) wheels!: number;
  }
  @Schema()
  class Truck {
    @Prop({ required: true }) load!: number;
    @Prop({ select: false }) vin?: string;
  }

  const engine = useEngine();
  let t: TestApp;
  /** A create of a product, with `body` as sent. */
  const create = (body: string | object) => t.http().post('/product').send(body);
  beforeAll(async () => {
    t = await createTestApp(engine, {
      resources: [
        Writer,
        Product,
        { resource: Device, schema: DeviceSchema },
        { resource: Vehicle, discriminators: [{ name: 'Truck', schema: SchemaFactory.createForClass(Truck) }] },
      ],
    });
  });
  afterAll(() => t?.close());

  const book = { kind: 'Book', name: 'Dune', price: 12, isbn: '978-0441013593', pages: 412, published: '1965-08-01T00:00:00.000Z' };
  const shirt = { kind: 'Shirt', name: 'Tee', price: 9, size: 'M', color: 'blue' };

  async function created(body: object, path = '/product'): Promise<Record<string, unknown>> {
    return (await t.http().post(path).send(body).expect(201)).body as Record<string, unknown>;
  }

  describe('create picks the sub-type by the key', () => {
    it('creates a Book and a Shirt at /product, each with its own fields, and reads them back', async () => {
      const b = await created(book);
      expect(b).toEqual({ _id: expect.any(String), ...book });
      const s = await created(shirt);
      expect(s).toEqual({ _id: expect.any(String), ...shirt });
      expect(
        (
          await t
            .http()
            .get(`/product/${String(b._id)}`)
            .expect(200)
        ).body,
      ).toEqual(b);
      expect(
        (
          await t
            .http()
            .get(`/product/${String(s._id)}`)
            .expect(200)
        ).body,
      ).toEqual(s);
    });

    it('refuses a body without the key, or with a value no sub-type has, at the key (400 MR_VALIDATION_FAILED)', async () => {
      const missing = await create({ name: 'x' });
      expectError(missing, 400, 'MR_VALIDATION_FAILED');
      expect(missing.body.details).toEqual([{ path: 'kind', message: 'kind is required: one of Book, Shirt' }]);
      for (const kind of ['Toy', 7, { $ne: 'Book' }, '']) {
        const wrong = await create({ name: 'x', kind });
        expectError(wrong, 400, 'MR_VALIDATION_FAILED');
        expect(wrong.body.details).toEqual([{ path: 'kind', message: 'kind must be one of Book, Shirt' }]);
      }
    });

    it("refuses a field of another sub-type as an unknown field, and checks the sub-type's own rules", async () => {
      const foreign = await create({ ...book, size: 'M' });
      expectError(foreign, 400, 'MR_INVALID_BODY');
      expect(foreign.body.details).toEqual([{ path: 'size', message: "Unknown field 'size'" }]);
      const { isbn: _isbn, ...noIsbn } = book;
      const required = await create(noIsbn);
      expectError(required, 400, 'MR_VALIDATION_FAILED');
      expect(required.body.details.map((detail: { path: string }) => detail.path)).toEqual(['isbn']);
      expectError(await create({ ...shirt, size: 'XXL' }), 400, 'MR_VALIDATION_FAILED');
      expectError(await create({ ...book, pages: 'many' }), 400, 'MR_VALIDATION_FAILED');
      expectError(await create({ ...shirt, isbn: '1' }), 400, 'MR_INVALID_BODY');
    });
  });

  describe('updates keep the sub-type', () => {
    it("PATCH and PUT change a Book's own fields, cast and checked by its schema", async () => {
      const b = await created(book);
      const patched = (
        await t
          .http()
          .patch(`/product/${String(b._id)}`)
          .send({ pages: 500, price: 15 })
          .expect(200)
      ).body;
      expect(patched).toMatchObject({ kind: 'Book', pages: 500, price: 15, isbn: book.isbn });
      const put = (
        await t
          .http()
          .put(`/product/${String(b._id)}`)
          .send({ kind: 'Book', published: '1966-01-01' })
          .expect(200)
      ).body;
      expect(put).toMatchObject({ kind: 'Book', pages: 500, published: '1966-01-01T00:00:00.000Z' });
      expectError(
        await t
          .http()
          .patch(`/product/${String(b._id)}`)
          .send({ pages: 'many' }),
        400,
        'MR_VALIDATION_FAILED',
      );
      expectError(
        await t
          .http()
          .patch(`/product/${String(b._id)}`)
          .send({ isbn: null }),
        400,
        'MR_VALIDATION_FAILED',
      );
    });

    it("refuses another sub-type's field (unknown field) and a change of the key (400 MR_INVALID_BODY)", async () => {
      const b = await created(book);
      const foreign = await t
        .http()
        .patch(`/product/${String(b._id)}`)
        .send({ size: 'M' });
      expectError(foreign, 400, 'MR_INVALID_BODY');
      expect(foreign.body.details).toEqual([{ path: 'size', message: "Unknown field 'size'" }]);
      const change = await t
        .http()
        .patch(`/product/${String(b._id)}`)
        .send({ kind: 'Shirt' });
      expectError(change, 400, 'MR_INVALID_BODY');
      expect(change.body.details[0].path).toBe('kind');
      expectError(
        await t
          .http()
          .patch(`/product/${String(b._id)}`)
          .send({ kind: 'Toy' }),
        400,
        'MR_VALIDATION_FAILED',
      );
      expect(
        (
          await t
            .http()
            .get(`/product/${String(b._id)}`)
            .expect(200)
        ).body,
      ).toEqual(b);
    });

    it("checks an update of a document of no sub-type (written without the key) against the base's fields", async () => {
      const { insertedId } = await t.connection.collection('products').insertOne({ name: 'Legacy', __v: 0 });
      const id = String(insertedId);
      // (Its answer to a valid change is no document of the OpenAPI document's `oneOf`: the routes never create one.)
      expectError(await t.http().patch(`/product/${id}`).send({ isbn: '1' }), 400, 'MR_INVALID_BODY');
      expectError(await t.http().patch(`/product/${id}`).send({ kind: 'Book' }), 400, 'MR_INVALID_BODY');
      await t.connection.collection('products').deleteOne({ _id: insertedId });
    });

    it('answers 404 for an update or a delete of no document, and deletes a sub-type document', async () => {
      expectError(await t.http().patch('/product/5f0000000000000000000000').send({ pages: 1 }), 404, 'MR_NOT_FOUND');
      const s = await created(shirt);
      expect(
        (
          await t
            .http()
            .delete(`/product/${String(s._id)}`)
            .expect(200)
        ).body,
      ).toEqual(s);
      expectError(await t.http().get(`/product/${String(s._id)}`), 404, 'MR_NOT_FOUND');
    });
  });

  describe('searches across sub-types', () => {
    let ids: { book: string; shirt: string };
    beforeAll(async () => {
      await t.connection.collection('products').deleteMany({});
      ids = { book: String((await created(book))._id), shirt: String((await created(shirt))._id) };
    });

    it('lists both sub-types, and filters by the key', async () => {
      const all = (await t.http().get('/products').query({ sort: 'name' }).expect(200)).body;
      expect(all.result.map((doc: { _id: string }) => doc._id)).toEqual([ids.book, ids.shirt]);
      const books = (await t.http().get('/products').query({ kind: 'Book' }).expect(200)).body;
      expect(books.result).toEqual([expect.objectContaining({ _id: ids.book, isbn: book.isbn })]);
    });

    it("filters on a sub-type's fields: documents of the other sub-types do not match", async () => {
      expect((await t.http().get('/products').query({ size: 'M' }).expect(200)).body.result.map((doc: { _id: string }) => doc._id)).toEqual([ids.shirt]);
      const long = (
        await t
          .http()
          .post('/products')
          .send({ query: { pages: { $gte: 100 } } })
          .expect(200)
      ).body;
      expect(long.result.map((doc: { _id: string }) => doc._id)).toEqual([ids.book]);
      // Cast by the sub-type's schema: a number from the query string, a date from a string.
      const idsOf = (body: { result: Array<{ _id: string }> }) => body.result.map((doc) => doc._id);
      expect(idsOf((await t.http().get('/products').query({ pages: '412' }).expect(200)).body)).toEqual([ids.book]);
      expect(
        idsOf(
          (
            await t
              .http()
              .post('/products')
              .send({ query: { published: { $lt: '1970-01-01' } } })
              .expect(200)
          ).body,
        ),
      ).toEqual([ids.book]);
      expectError(
        await t
          .http()
          .post('/products')
          .send({ query: { pages: 'many' } }),
        400,
        'MR_INVALID_VALUE',
      );
      const none = (
        await t
          .http()
          .post('/products')
          .send({ query: { kind: 'Shirt', isbn: book.isbn } })
          .expect(200)
      ).body;
      expect(none.result).toEqual([]);
    });

    it("selects a sub-type's fields, and refuses a field no sub-type has", async () => {
      const selected = (
        await t
          .http()
          .post('/products')
          .send({ select: ['kind', 'isbn'], sort: { name: 1 } })
          .expect(200)
      ).body;
      expect(selected.result).toEqual([
        { _id: ids.book, kind: 'Book', isbn: book.isbn },
        { _id: ids.shirt, kind: 'Shirt' },
      ]);
      expect((await t.http().get('/products').query({ nope: 1 })).status).toBe(400);
    });
  });

  describe('a reference declared on a sub-type', () => {
    it('is checked on write, followed by its route, and found by the reverse route', async () => {
      const writer = (await t.http().post('/writer').send({ name: 'Frank Herbert' }).expect(201)).body;
      const b = await created({ ...book, author: writer._id });
      expectError(await create({ ...book, author: '5f0000000000000000000000' }), 400, 'MR_REFERENCE_NOT_FOUND');
      expectError(await create({ ...shirt, author: writer._id }), 400, 'MR_INVALID_BODY');
      expect(
        (
          await t
            .http()
            .get(`/product/${String(b._id)}/author`)
            .expect(200)
        ).body,
      ).toEqual(writer);
      const reverse = (
        await t
          .http()
          .get(`/writer/${String(writer._id)}/products/author`)
          .expect(200)
      ).body;
      expect(reverse.result.map((doc: { _id: string }) => doc._id)).toEqual([b._id]);
      expect(
        (
          await t
            .http()
            .get('/products')
            .query({ author: String(writer._id) })
            .expect(200)
        ).body.result,
      ).toHaveLength(1);
    });
  });

  describe('the other ways of declaring sub-types', () => {
    it("serves discriminators declared on the schema (Mongoose's schema.discriminator, with a value of its own)", async () => {
      const phone = (await t.http().post('/device').send({ type: 'phone', name: 'P1', screen: 6 }).expect(201)).body;
      expect(phone).toEqual({ _id: expect.any(String), type: 'phone', name: 'P1', screen: 6 });
      const wrong = await t.http().post('/device').send({ type: 'Phone', name: 'P1', screen: 6 });
      expectError(wrong, 400, 'MR_VALIDATION_FAILED');
      expect(wrong.body.details).toEqual([{ path: 'type', message: 'type must be one of phone' }]);
    });

    it("serves discriminators given beside the resource in forRoot, as @nestjs/mongoose's forFeature takes them", async () => {
      const truck = (await t.http().post('/vehicle').send({ kind: 'Truck', wheels: 6, load: 12 }).expect(201)).body;
      expect(truck).toEqual({ _id: expect.any(String), kind: 'Truck', wheels: 6, load: 12 });
      expectError(await t.http().post('/vehicle').send({ kind: 'Truck', wheels: 6 }), 400, 'MR_VALIDATION_FAILED');
    });

    it("keeps a sub-type's hidden field (select: false) out of every answer, filter, sort and select", async () => {
      const truck = (await t.http().post('/vehicle').send({ kind: 'Truck', wheels: 4, load: 3 }).expect(201)).body;
      expectError(await t.http().post('/vehicle').send({ kind: 'Truck', wheels: 4, load: 3, vin: 'x' }), 400, 'MR_INVALID_BODY');
      await t.connection.collection('vehicles').updateMany({}, { $set: { vin: 'SECRET' } });
      const read = await t
        .http()
        .get(`/vehicle/${String(truck._id)}`)
        .expect(200);
      expect(read.text).not.toContain('SECRET');
      const patched = await t
        .http()
        .patch(`/vehicle/${String(truck._id)}`)
        .send({ load: 4 })
        .expect(200);
      expect(patched.text).not.toContain('SECRET');
      expectError(
        await t
          .http()
          .patch(`/vehicle/${String(truck._id)}`)
          .send({ vin: 'y' }),
        400,
        'MR_INVALID_BODY',
      );
      const listed = await t.http().get('/vehicles').expect(200);
      expect(listed.body.result.length).toBeGreaterThan(0);
      expect(listed.text).not.toContain('SECRET');
      expect((await t.http().get('/vehicles').query({ vin: 'SECRET' })).status).toBe(400);
      expect(
        (
          await t
            .http()
            .post('/vehicles')
            .send({ select: ['vin'] })
        ).status,
      ).toBe(400);
      expect(
        (
          await t
            .http()
            .post('/vehicles')
            .send({ sort: { vin: 1 } })
        ).status,
      ).toBe(400);
      const deleted = await t
        .http()
        .delete(`/vehicle/${String(truck._id)}`)
        .expect(200);
      expect(deleted.text).not.toContain('SECRET');
    });
  });

  describe('OpenAPI', () => {
    let document: OpenAPIObject;
    beforeAll(() => {
      document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
    });
    const schemas = () => document.components!.schemas as Record<string, Record<string, unknown>>;

    it('is a valid OpenAPI document', async () => {
      await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    });

    it("describes a document as oneOf its sub-types, by the key, each with its own fields and the key's own value", () => {
      expect(schemas().Product).toEqual({
        oneOf: [{ $ref: '#/components/schemas/Book' }, { $ref: '#/components/schemas/Shirt' }],
        discriminator: { propertyName: 'kind', mapping: { Book: '#/components/schemas/Book', Shirt: '#/components/schemas/Shirt' } },
      });
      const bookSchema = schemas().Book as { properties: Record<string, unknown>; required: string[] };
      expect(Object.keys(bookSchema.properties)).toEqual(expect.arrayContaining(['_id', 'name', 'price', 'kind', 'isbn', 'pages', 'published']));
      expect(bookSchema.properties).not.toHaveProperty('size');
      expect(bookSchema.properties.kind).toEqual({ type: 'string', enum: ['Book'] });
      expect(bookSchema.required).toEqual(expect.arrayContaining(['name', 'isbn', 'kind']));
      expect(schemas().Device).toEqual(expect.objectContaining({ discriminator: { propertyName: 'type', mapping: { phone: '#/components/schemas/Phone' } } }));
    });

    it("describes the create's body as oneOf the sub-types' create bodies, which refuse other properties", () => {
      const body = (document.paths['/product'].post!.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json'].schema;
      expect(body).toEqual({
        oneOf: [{ $ref: '#/components/schemas/BookCreateDto' }, { $ref: '#/components/schemas/ShirtCreateDto' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { Book: '#/components/schemas/BookCreateDto', Shirt: '#/components/schemas/ShirtCreateDto' },
        },
      });
      const shirtBody = schemas().ShirtCreateDto as { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
      expect(Object.keys(shirtBody.properties).sort()).toEqual(['color', 'kind', 'name', 'price', 'size']);
      expect(shirtBody.required.sort()).toEqual(['kind', 'name', 'size']);
      expect(shirtBody.additionalProperties).toBe(false);
      expect(shirtBody.properties.kind).toEqual({ type: 'string', enum: ['Shirt'] });
    });

    it(
      'gives a generated client (openapi-typescript) a union it narrows by the key, and refuses a body of mixed sub-types at compile time',
      async () => {
        const types = await clientTypes(document);
        const client = [
          "import type { components, paths } from './api';",
          "type Product = components['schemas']['Product'];",
          "export const label = (p: Product): string => (p.kind === 'Book' ? p.isbn : p.size);",
          typed('book', bodyType('/product', 'post'), { kind: 'Book', name: 'Dune', isbn: '1' }),
          typed('shirt', bodyType('/product', 'post'), { kind: 'Shirt', name: 'Tee', size: 'M' }),
        ].join('\n');
        expect(compile({ 'api.ts': types, 'client.ts': client })).toEqual([]);
        const wrong = ["import type { paths } from './api';", typed('mixed', bodyType('/product', 'post'), { kind: 'Book', name: 'Dune', size: 'M' })].join(
          '\n',
        );
        expect(compile({ 'api.ts': types, 'wrong.ts': wrong }).length).toBeGreaterThan(0);
      },
      COMPILE_TIMEOUT,
    );
  });

  describe('back office', () => {
    let office: TestApp;
    beforeAll(async () => {
      office = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Writer, Product] }), imports: [BackOfficeModule.forRoot()] });
    });
    afterAll(() => office?.close());

    it("gives the form each sub-type's fields by the key, with the sub-type's own required ones", async () => {
      const metadata = (await office.http().get('/admin/metadata').expect(200)).body as BackOfficeMetadata;
      const product = metadata.resources.find((resource) => resource.name === 'Product')!;
      const paths = (fields: FieldMetadata[]) => fields.map((field) => field.path);
      expect(paths(product.fields)).toEqual(expect.arrayContaining(['name', 'kind', 'isbn', 'size']));
      expect(product.subTypes?.key).toBe('kind');
      const [bookFields, shirtFields] = product.subTypes!.types.map((type) => type.fields);
      expect(product.subTypes!.types.map((type) => type.value)).toEqual(['Book', 'Shirt']);
      expect(paths(bookFields)).toEqual(expect.arrayContaining(['name', 'price', 'isbn', 'pages', 'published']));
      expect(paths(bookFields)).not.toContain('size');
      expect(paths(shirtFields)).toEqual(expect.arrayContaining(['name', 'size', 'color']));
      expect(paths(shirtFields)).not.toContain('isbn');
      expect(bookFields.find((field) => field.path === 'isbn')?.required).toBe(true);
      expect(shirtFields.find((field) => field.path === 'size')).toEqual(expect.objectContaining({ required: true, enum: ['S', 'M', 'L'] }));
    });
  });
}
