import {
  ClassSerializerInterceptor,
  Module,
  ValidationPipe,
  type DynamicModule,
  type ForwardReference,
  type INestApplication,
  type NestApplicationOptions,
  type Provider,
  type Type,
} from '@nestjs/common';
import { ApplicationConfig, Reflector } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MongooseModule, getConnectionToken, type MongooseModuleOptions } from '@nestjs/mongoose';
import { Test, type TestingModule } from '@nestjs/testing';
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { DocumentBuilder } from '@nestjs/swagger';
import { ModelRoutesExplorer, ModelRoutesModule, type ModelRoutesModuleOptions } from '../../src/index.js';
import { createModelRoutesDocument } from '../../src/swagger/index.js';
import { servedRoutes, servingOf } from '../../src/versioning/served-routes.js';
import type { TestEngine } from './engine.js';
import { ContractWatcher, OpenApiContract } from './openapi-contract.js';

export interface TestApp {
  app: INestApplication;
  /** supertest on the app; each response of a generated route is checked against the OpenAPI document. */
  http: () => ReturnType<typeof request>;
  /** The connection the generated routes use (the named one, if any). */
  connection: Connection;
  /** Every contract violation seen so far (each one also failed the request that got it). */
  violations: readonly string[];
  /** Drops the database (unless `keepDatabase`, for a next boot on it) and closes the app; once. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

type ModuleImport = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;

/** The engine's server and the fresh database of one app. */
export interface TestDatabase {
  uri: string;
  dbName: string;
}

/** Any app made of the library and the spec's own modules, controllers and providers. */
export interface TestAppSetup {
  /** `ModelRoutesModule.forRoot(...)` or `.forRootAsync(...)`; leave it out when `imports` bring their own (a whole app module). */
  modelRoutes?: DynamicModule;
  /** More imports; as a function, given the engine's URI and this app's fresh database name. */
  imports?: ModuleImport[] | ((database: TestDatabase) => ModuleImport[]);
  controllers?: Type[];
  providers?: Provider[];
  /** The connection the generated routes use, opened by the helper under that name (`forRoot({ connectionName })`). */
  connectionName?: string;
  /**
   * Options of the `MongooseModule.forRoot` the helper adds on a fresh database; `false` when
   * `imports` open the connection themselves (then they should use the `dbName` they are given).
   */
  mongoose?: Omit<MongooseModuleOptions, 'dbName' | 'connectionName'> | false;
  /** Over the default `{ logger: false, routeConflictPolicy: { duplicate: 'error' } }`. */
  appOptions?: NestApplicationOptions;
  /** `app.setGlobalPrefix(...)`, set before init; the contract check knows it. */
  globalPrefix?: string;
  /** Runs on the application before init, as a main.ts would (e.g. the sample's configureSampleApp). */
  configure?: (app: INestApplication) => unknown;
  /** The database, to boot a second app on the data of a first one; default: a fresh one, named after the test. */
  dbName?: string;
}

/**
 * Fastify's limits set to Express's, so both platforms answer the same requests alike: bodies up
 * to 100 kB (Fastify's default is 1 MiB) and path parameters of any length the library itself
 * bounds (Fastify answers one over `maxParamLength`, 100 by default, with a 414).
 */
const FASTIFY_OPTIONS = { bodyLimit: 100 * 1024, routerOptions: { maxParamLength: 64 * 1024 } };

/** The HTTP platform the test apps run on: `MODEL_ROUTES_ADAPTER=fastify`, or Express (the default). */
export function testAdapter(): 'express' | 'fastify' {
  return process.env.MODEL_ROUTES_ADAPTER === 'fastify' ? 'fastify' : 'express';
}

/** A Nest application of `moduleRef` on the platform of this run (`testAdapter()`). */
export function createPlatformApp(moduleRef: TestingModule, options: NestApplicationOptions): INestApplication {
  return testAdapter() === 'fastify' ? moduleRef.createNestApplication(new FastifyAdapter(FASTIFY_OPTIONS), options) : moduleRef.createNestApplication(options);
}

/**
 * Whether the test apps run as a Nest app with the usual validation and serialization does
 * (`MODEL_ROUTES_NEST_VALIDATION=1`, a CI step): the generated routes must answer the same.
 */
export function usesNestValidation(): boolean {
  return process.env.MODEL_ROUTES_NEST_VALIDATION === '1';
}

/** The global pipe and serializer of a usual Nest app's main.ts. */
export function useNestValidation(app: INestApplication): void {
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  app.useGlobalInterceptors(new ClassSerializerInterceptor(app.get(Reflector)));
}

/** `app.init()`, and on Fastify its `ready()`, after which supertest can send requests. */
export async function initPlatformApp(app: INestApplication): Promise<void> {
  await app.init();
  if (testAdapter() === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
}

/**
 * Boots a small fixture app (not the sample app) on a fresh database of the file's engine,
 * with every unique index built, so duplicate-key tests do not race index creation.
 * The app is closed (and its database dropped) before the engine stops, or earlier by close().
 *
 * Every response of a generated route that goes through `http()` is checked against the app's
 * OpenAPI document when the request is awaited: a response that does not match (a behaviour
 * change without a documentation change) fails the test that sent the request.
 */
export function createTestApp(
  engine: TestEngine,
  options: ModelRoutesModuleOptions,
  connectionOptions: Omit<MongooseModuleOptions, 'dbName'> = {},
): Promise<TestApp> {
  const { connectionName, ...mongoose } = connectionOptions;
  return bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot(options), connectionName, mongoose });
}

/**
 * createTestApp for any module configuration: forRootAsync, named connections, the spec's own
 * controllers, providers and modules, application options.
 *
 * @example
 * ```ts
 * t = await bootTestApp(engine, {
 *   modelRoutes: ModelRoutesModule.forRoot({ resources: [Label, Memo], globalErrorFilter: false }),
 *   providers: [{ provide: APP_GUARD, useClass: BlockHeaderGuard }],
 * });
 * ```
 */
export async function bootTestApp(engine: TestEngine, setup: TestAppSetup): Promise<TestApp> {
  const { uri } = engine.get();
  const database = { uri, dbName: setup.dbName ?? engine.dbName(expect.getState().currentTestName ?? 'app') };
  const imports = typeof setup.imports === 'function' ? setup.imports(database) : (setup.imports ?? []);
  @Module({
    imports: [
      ...(setup.mongoose === false ? [] : [MongooseModule.forRoot(uri, { ...setup.mongoose, dbName: database.dbName, connectionName: setup.connectionName })]),
      ...imports,
      ...(setup.modelRoutes ? [setup.modelRoutes] : []),
    ],
    controllers: setup.controllers ?? [],
    providers: setup.providers ?? [],
  })
  class FixtureAppModule {}
  // A start that fails while Nest creates the providers leaves no app to close, and the connections
  // it began to open would keep the test process alive: close them once they are open.
  const before = new Set(mongoose.connections);
  const moduleRef = await Test.createTestingModule({ imports: [FixtureAppModule] })
    .compile()
    .catch(async (error: unknown) => {
      const opened = mongoose.connections.filter((connection) => !before.has(connection));
      await Promise.all(
        opened.map((connection) =>
          connection.asPromise().then(
            () => connection.close(),
            () => undefined,
          ),
        ),
      );
      throw error;
    });
  // As in the sample app: a duplicate route (same method and path) fails the start.
  const app = createPlatformApp(moduleRef, { logger: false, routeConflictPolicy: { duplicate: 'error' }, ...setup.appOptions });
  if (setup.globalPrefix) app.setGlobalPrefix(setup.globalPrefix);
  if (usesNestValidation()) useNestValidation(app);
  setup.configure?.(app);
  try {
    await initPlatformApp(app);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const connection = app.get<Connection>(getConnectionToken(setup.connectionName));
  let closed: Promise<void> | undefined;
  const close = ({ keepDatabase = false } = {}) =>
    (closed ??= (async () => {
      if (!keepDatabase) await connection.dropDatabase().catch(() => undefined);
      await app.close();
    })());
  engine.beforeStop(() => close());
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  const { http, violations } = contractChecked(app);
  return { app, http, connection, violations, close };
}

/** supertest on an app, each response of a generated route checked against its OpenAPI document. */
export interface ContractCheckedHttp {
  http: () => ReturnType<typeof request>;
  /** Every contract violation seen so far (each one also failed the request that got it). */
  violations: readonly string[];
}

/**
 * The contract check of bootTestApp for an app a spec boots itself (the sample app, a back
 * office session, an adapter of its own): the app's route table and its OpenAPI document, as
 * createModelRoutesDocument builds it, read once the app is initialised, each route where the
 * app serves it (under its global prefix unless excluded, and at its URI versions). `target`: a
 * URL (`http://127.0.0.1:<port>`) to send the requests to instead of `app`, another process that
 * serves the same modules, whose responses are checked against this app's document.
 */
export function contractChecked(app: INestApplication, options: { target?: string } = {}): ContractCheckedHttp {
  const routes = servedRoutes(app.get(ModelRoutesExplorer).routes(), servingOf(app.get(ApplicationConfig, { strict: false })));
  const document = createModelRoutesDocument(app, new DocumentBuilder().build());
  const watcher = new ContractWatcher(
    new OpenApiContract(document),
    routes.map(({ route, path }) => ({ ...route, path })),
  );
  return { http: () => watched(request(options.target ?? app.getHttpServer()), watcher), violations: watcher.violations };
}

const METHODS = new Set(['get', 'post', 'put', 'delete', 'del', 'patch']);

/**
 * supertest, with the contract checked when a request ends, after the test's own assertions
 * (`.expect(200)` fails first, with its own message): a violation rejects the awaited request,
 * so the test that sent it fails, pointing at the line that sent it, and fast-check shrinks it
 * like any other failure.
 */
function watched(agent: ReturnType<typeof request>, watcher: ContractWatcher): ReturnType<typeof request> {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !METHODS.has(String(property))) return value;
      const method = String(property) === 'del' ? 'delete' : String(property);
      return (url: string) => {
        const sentFrom = new Error().stack ?? '';
        const test = value.call(target, url) as request.Test;
        const end = test.end;
        test.end = function (callback) {
          return end.call(this, (error, response) => {
            if (!error && response) {
              try {
                watcher.check(method, url, response.status, response.body);
              } catch (violation) {
                error = violation as Error;
                // The frames of the test that sent the request, not those of this helper.
                error.stack = [
                  String(error),
                  ...sentFrom
                    .split('\n')
                    .slice(1)
                    .filter((line) => !line.includes('test/support/app.')),
                ].join('\n');
              }
            }
            callback?.call(this, error, response);
          });
        };
        return test;
      };
    },
  });
}
