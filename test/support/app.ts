import { Module, type INestApplication } from '@nestjs/common';
import { MongooseModule, getConnectionToken, type MongooseModuleOptions } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { ModelRoutesModule, type ModelRoutesModuleOptions } from '../../src/index.js';
import type { TestEngine } from './engine.js';

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  connection: Connection;
  close(): Promise<void>;
}

/**
 * Boots a small fixture app (not the sample app) on a fresh database of the file's engine,
 * with every unique index built, so duplicate-key tests do not race index creation.
 * The app is closed (and its database dropped) before the engine stops, or earlier by close().
 */
export async function createTestApp(
  engine: TestEngine,
  options: ModelRoutesModuleOptions,
  connectionOptions: Omit<MongooseModuleOptions, 'dbName'> = {},
): Promise<TestApp> {
  const dbName = engine.dbName(expect.getState().currentTestName ?? 'app');
  @Module({
    imports: [MongooseModule.forRoot(engine.get().uri, { ...connectionOptions, dbName }), ModelRoutesModule.forRoot(options)],
  })
  class FixtureAppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [FixtureAppModule] }).compile();
  // As in the sample app: a duplicate route (same method and path) fails the start.
  const app = moduleRef.createNestApplication({ logger: false, routeConflictPolicy: { duplicate: 'error' } });
  await app.init();
  const connection = app.get<Connection>(getConnectionToken());
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await connection.dropDatabase().catch(() => undefined);
      await app.close();
    })());
  engine.beforeStop(close);
  return { app, http: () => request(app.getHttpServer()), connection, close };
}
