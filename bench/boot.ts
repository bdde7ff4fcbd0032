import 'reflect-metadata';
import { Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource, ModelRoutesModule } from '../src/index.js';

/**
 * `node boot.js <n>`: boots an app with n generated resources, each with a reference field to the
 * previous one (so 9 routes each), and prints how long `NestFactory.create` + `init` took and the
 * memory in use afterwards, as one JSON line.
 */
const count = Number(process.argv[2] ?? 10);
// Timed from the decorators on: forRoot() does its work when the module is defined.
const started = performance.now();
const resources: Type[] = [];
for (let i = 0; i < count; i++) {
  const name = `Resource${i}`;
  const resource = { [name]: class {} }[name];
  Prop({ type: String, required: true })(resource.prototype, 'name');
  Prop({ type: Types.ObjectId, ref: `Resource${Math.max(0, i - 1)}` })(resource.prototype, 'parent');
  Schema()(resource);
  GeneratedResource()(resource);
  resources.push(resource);
}

@Module({
  imports: [
    MongooseModule.forRoot(process.env.BENCH_URI ?? '', { dbName: process.env.BENCH_DB ?? 'boot', autoIndex: false }),
    ModelRoutesModule.forRoot({ resources }),
  ],
})
class BootModule {}

const app = await NestFactory.create(BootModule, { logger: false });
await app.init();
const bootMs = performance.now() - started;
const memory = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({
    resources: count,
    bootMs: Math.round(bootMs),
    rssMb: Math.round(memory.rss / 2 ** 20),
    heapMb: Math.round(memory.heapUsed / 2 ** 20),
  })}\n`,
);
await app.close();
