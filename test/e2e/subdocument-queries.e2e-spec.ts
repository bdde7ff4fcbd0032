/**
 * The clinic app of issue 23: searches and writes below sub-documents and arrays of them. Errors
 * name the full dotted path (item 16); an element of an array of sub-documents is checked as on
 * create (item 18); the `$elemMatch` forms FerretDB v1 gets wrong are refused there, with the code
 * of an engine limit (item 25).
 */
import { ModelRoutesModule } from '../../src/index.js';
import { Appointment, AppointmentController, Pet } from '../fixtures/subdocument-models.js';
import { bootTestApp, type TestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';
import { expectError } from '../support/expect-error.js';

const engine = useEngine();
let t: TestApp;

beforeAll(async () => {
  t = await bootTestApp(engine, {
    modelRoutes: ModelRoutesModule.forRoot({ resources: [Pet, Appointment], controllers: [AppointmentController] }),
  });
  await t.connection.model('Pet').create([
    { microchip: 'rex', name: 'Rex', vaccinations: [{ name: 'rabies', date: new Date('2024-01-01') }, { name: 'lepto', date: new Date('2025-06-01') }], photo: { url: 'r.png', size: 3 }, tags: ['dog', 'old'] },
    { microchip: 'tom', name: 'Tom', vaccinations: [{ name: 'typhus', date: new Date('2023-01-01') }], photo: { url: 't.png', size: 9 }, tags: ['cat'] },
  ]);
});
afterAll(() => t?.close());

describe('a value that cannot be cast below a sub-document is named by its full dotted path (item 16)', () => {
  it.each([
    ['GET ?vaccinations.date[gte]=notadate', () => t.http().get('/pets?vaccinations.date[gte]=notadate'), 'query.vaccinations.date.$gte', 'vaccinations.date'],
    ['GET ?photo.size[gt]=big', () => t.http().get('/pets?photo.size[gt]=big'), 'query.photo.size.$gt', 'photo.size'],
    ['GET ?vaccinations.date=bad', () => t.http().get('/pets?vaccinations.date=bad'), 'query.vaccinations.date', 'vaccinations.date'],
    ['POST under $or', () => t.http().post('/pets').send({ query: { $or: [{ name: 'Rex' }, { 'vaccinations.date': 'bad' }] } }), 'query.$or.1.vaccinations.date', 'vaccinations.date'],
    ['POST $in', () => t.http().post('/pets').send({ query: { 'photo.size': { $in: [1, 'big'] } } }), 'query.photo.size.$in.1', 'photo.size'],
    ['POST a position in the array', () => t.http().post('/pets').send({ query: { 'vaccinations.0.date': { $lt: 'bad' } } }), 'query.vaccinations.0.date.$lt', 'vaccinations.0.date'],
    [
      'POST inside $elemMatch',
      () => t.http().post('/pets').send({ query: { vaccinations: { $elemMatch: { name: 'rabies', date: { $gte: 'bad' } } } } }),
      'query.vaccinations.$elemMatch.date.$gte',
      'vaccinations.date',
    ],
  ])('%s', async (_label, send, path, field) => {
    const response = await send();
    expectError(response, 400, 'MR_INVALID_VALUE');
    expect(response.body.details).toEqual([{ path, message: expect.stringContaining('cannot be converted') }]);
    expect(response.body.message).toContain(`Invalid value for '${field}'`);
  });

  it('a top-level field keeps its own name beside a sub-field of the same name', async () => {
    const response = await t.http().post('/pets').send({ query: { name: 'Rex', 'vaccinations.name': 'rabies', 'photo.size': 'big' } });
    expectError(response, 400, 'MR_INVALID_VALUE');
    expect(response.body.details[0].path).toBe('query.photo.size');
  });
});
