import { Test } from '@nestjs/testing';
import { Module } from '@nestjs/common';
import { MongooseModule, Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { useEngine } from '../support/engine.js';

@Schema()
class Thing {
  @Prop({ required: true }) name!: string;
}

const engine = useEngine();

it('boots', async () => {
  const schema = SchemaFactory.createForClass(Thing);
  expect(schema.path('name')).toBeDefined();
  @Module({ imports: [MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('smoke') })] })
  class AppModule {}
  const ref = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = ref.createNestApplication();
  await app.init();
  await app.close();
});
