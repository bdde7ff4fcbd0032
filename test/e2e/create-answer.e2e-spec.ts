/**
 * A create answers the document as every other route does, whatever `toObject` options the schema
 * sets (the repository reads a created document back without options where the schema has none).
 */
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { GeneratedResource } from '../../src/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';

@GeneratedResource()
@Schema({ toObject: { virtuals: true, getters: true, transform: (_doc: unknown, ret: Record<string, unknown>) => ({ ...ret, transformed: true }) } })
class Badge {
  @Prop({ required: true, get: (value: string) => value?.toUpperCase() }) label!: string;
}
const BadgeSchema = SchemaFactory.createForClass(Badge);
BadgeSchema.virtual('shout').get(function (this: Badge) {
  return `${this.label}!`;
});

@GeneratedResource()
@Schema()
class Sticker {
  @Prop({ required: true }) label!: string;
  @Prop({ default: 3 }) size?: number;
}

const engine = useEngine();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(engine, { resources: [{ resource: Badge, schema: BadgeSchema }, Sticker] });
});
afterAll(() => t?.close());

it("a schema's toObject virtuals, getters and transform stay out of the create's answer", async () => {
  const created = (await t.http().post('/badge').send({ label: 'gold' }).expect(201)).body;
  expect(created).toEqual({ _id: expect.any(String), label: 'gold' });
  expect((await t.http().get(`/badge/${created._id}`).expect(200)).body).toEqual(created);
});

it('without toObject options, the answer is the stored document: defaults in, version key out', async () => {
  const created = (await t.http().post('/sticker').send({ label: 'star' }).expect(201)).body;
  expect(created).toEqual({ _id: expect.any(String), label: 'star', size: 3 });
  expect((await t.http().get(`/sticker/${created._id}`).expect(200)).body).toEqual(created);
});
