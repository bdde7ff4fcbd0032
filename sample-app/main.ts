import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MongooseModuleOptions } from '@nestjs/mongoose';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { createModelRoutesDocument } from '../src/swagger/index.js';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabaseOptions } from '../src/embedded/index.js';
import { cacheDir } from '../src/embedded/engine/choice.js';
import { AppModule } from './app.module.js';
import { configureSampleApp } from './app.setup.js';
import { startFailureLine } from './start-failure.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';

/**
 * Starts the sample app on PORT (default 3000) against MONGODB_URI, or against the embedded
 * database when MONGODB_URI is not set (`startEmbeddedDatabase()` of `nestjs-model-routes/embedded`,
 * as a user's app would; its backend from MODEL_ROUTES_ENGINE), whose data is kept in SAMPLE_DATA_DIR (default
 * `sample-data` in the cache folder; one running sample at a time per folder). SIGTERM or Ctrl-C (SIGINT) stops it: the server stops
 * accepting connections, the requests in flight are answered, the Mongoose connection closes, the
 * process exits with 0, and the embedded engine (if any) stops with it.
 */
async function main(): Promise<void> {
  const logger = new Logger('Sample');
  // The embedded engine keeps the sample's data between runs, outside the repo.
  const dataDir = resolve(process.env.SAMPLE_DATA_DIR ?? join(cacheDir(), 'sample-data'));
  const engine = await startEmbeddedDatabase({
    uri: process.env.MONGODB_URI,
    dataDir,
    backend: sampleBackend(),
    owner: `the sample app on http://${host}:${port}`,
    log: (line) => logger.log(line),
  });
  const options = {
    // Two routes with the same method and path stop the start. 'shadow' stays off: it flags every
    // literal sibling of a :param route (GET /company/stats beside GET /company/:company_id) even
    // though the library registers the literal one first, which is what makes it reachable.
    routeConflictPolicy: { duplicate: 'error' as const },
  };
  const module = AppModule.forDatabase(engine.uri, undefined, connectionOptions());
  // ADAPTER=fastify serves the same app on Fastify, with the options docs/configuration.md gives for it.
  const fastify = process.env.ADAPTER === 'fastify';
  const app = configureSampleApp(
    fastify
      ? await NestFactory.create(module, new FastifyAdapter({ routerOptions: { maxParamLength: 256 }, bodyLimit: 100 * 1024 }), options)
      : await NestFactory.create(module, options),
  );
  // OpenAPI: the UI at /docs, the JSON document at /docs-json.
  const document = createModelRoutesDocument(
    app,
    new DocumentBuilder().setTitle('model-routes sample').addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key').build(),
  );
  // The UI needs @fastify/static on Fastify; the JSON document does not.
  SwaggerModule.setup('docs', app, document, { ui: !fastify });

  await app.listen(port, host);
  logger.log(`Listening on http://${host}:${port} (${fastify ? 'Fastify' : 'Express'}; database: ${engine.description})`);
  logger.log(`Back office: http://${host}:${port}/admin`);
  logger.log(`Try: curl -s http://${host}:${port}/companies, or the API docs at http://${host}:${port}/${fastify ? 'docs-json' : 'docs'}`);

  // On SIGINT or SIGTERM Nest closes the app: the server stops listening and closes its idle
  // keep-alive connections, the requests in flight are answered, then the Mongoose connection
  // closes. By default Nest then raises the signal again, and the process ends killed by it (exit
  // status 143 for SIGTERM); useProcessExit makes it exit with 0 instead. The embedded engine stops
  // when this process exits: its watchdog sees the pipe to it close (src/embedded/engine/watchdog.ts), and
  // that only happens after the Mongoose connection closed.
  app.enableShutdownHooks(['SIGINT', 'SIGTERM'], { useProcessExit: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.log(`${signal}: shutting down`);
      closeConnectionsOnceIdle(app.getHttpServer());
    });
  }
}

/**
 * server.close() closes the keep-alive connections that are idle when it is called, but a
 * connection whose request was in flight stays open after its answer until its keep-alive timeout
 * (Node's 5 s, Fastify's 72 s), and the close waits for it: measured by `npm run soak`. So, once
 * shutting down, close the connections that have become idle, every 100 ms.
 */
function closeConnectionsOnceIdle(server: Server): void {
  setInterval(() => server.closeIdleConnections(), 100).unref();
}

/** The backend MODEL_ROUTES_ENGINE names, as the tests read it (`auto`, `ferretdb-postgresql`, `ferretdb-sqlite`). */
function sampleBackend(): EmbeddedDatabaseOptions['backend'] {
  const engine = process.env.MODEL_ROUTES_ENGINE || 'auto';
  if (engine === 'auto') return 'auto';
  if (engine === 'ferretdb-postgresql' || engine === 'ferretdb-sqlite') return engine.slice('ferretdb-'.length) as 'postgresql' | 'sqlite';
  throw new Error(`MODEL_ROUTES_ENGINE=${engine}: expected one of auto, ferretdb-postgresql, ferretdb-sqlite`);
}

/**
 * Mongoose's connection options, as docs/production.md gives them: a short
 * server selection timeout, so that a request answers 503 MR_DATABASE_UNAVAILABLE within about
 * that time when the database cannot be reached (the driver's default is 30 s;
 * `MONGODB_SERVER_SELECTION_TIMEOUT_MS` changes it), and socket and connection timeouts, so that a
 * server that stops answering on open connections cannot hold a request for good.
 */
function connectionOptions(): MongooseModuleOptions {
  return { serverSelectionTimeoutMS: Number(process.env.MONGODB_SERVER_SELECTION_TIMEOUT_MS ?? 5000), socketTimeoutMS: 10000, connectTimeoutMS: 5000 };
}

main().catch((error) => {
  // A failure the user fixes with a setting is one line that says which; anything else, whole.
  console.error(startFailureLine(error, { host, port }) ?? error);
  process.exit(1);
});
