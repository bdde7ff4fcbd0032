import { Module, type INestApplication } from '@nestjs/common';
import { MongooseModule, getConnectionToken, type MongooseModuleOptions } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { DocumentBuilder } from '@nestjs/swagger';
import { MODEL_ROUTES_TABLE, ModelRoutesModule, type ModelRoutesModuleOptions, type RouteDefinition } from '../../src/index.js';
import { createModelRoutesDocument } from '../../src/swagger/index.js';
import type { TestEngine } from './engine.js';
import { ContractWatcher, OpenApiContract } from './openapi-contract.js';

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
 *
 * Every response of a generated route that goes through `http()` is checked against the app's
 * OpenAPI document; close() fails if one did not match (a behaviour change without a
 * documentation change).
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
  const routes = app.get<RouteDefinition[]>(MODEL_ROUTES_TABLE).filter((route) => route.action !== 'custom');
  const watcher = new ContractWatcher(new OpenApiContract(createModelRoutesDocument(app, new DocumentBuilder().build())), routes);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await connection.dropDatabase().catch(() => undefined);
      await app.close();
      if (watcher.violations.length) {
        throw new Error(`Responses that do not match the OpenAPI document:\n${watcher.violations.join('\n')}`);
      }
    })());
  engine.beforeStop(close);
  return { app, http: () => watched(request(app.getHttpServer()), watcher), connection, close };
}

/** supertest, with every response shown to the contract watcher. */
function watched(agent: ReturnType<typeof request>, watcher: ContractWatcher): ReturnType<typeof request> {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !['get', 'post', 'put', 'delete', 'patch'].includes(String(property))) return value;
      return (url: string) => {
        const test = value.call(target, url);
        test.on('response', (response: { status: number; body: unknown }) => watcher.observe(String(property), url, response.status, response.body));
        return test;
      };
    },
  });
}
