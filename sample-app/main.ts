import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { createModelRoutesDocument } from '../src/swagger/index.js';
import { join } from 'node:path';
import { cacheDir, startEngine } from '../scripts/mongo-engine.js';
import { AppModule } from './app.module.js';
import { configureSampleApp } from './app.setup.js';

/**
 * Starts the sample app on PORT (default 3000) against MONGODB_URI, or against an embedded
 * FerretDB when MONGODB_URI is not set. Ctrl-C stops the app, then the engine.
 */
async function main(): Promise<void> {
  const logger = new Logger('Sample');
  // The embedded engine keeps the sample's data between runs, outside the repo.
  const engine = await startEngine({ log: (line) => logger.log(line), dataDir: join(cacheDir(), 'sample-data') });
  const options = {
    // Two routes with the same method and path stop the start. 'shadow' stays off: it flags every
    // literal sibling of a :param route (GET /company/stats beside GET /company/:company_id) even
    // though the library registers the literal one first, which is what makes it reachable.
    routeConflictPolicy: { duplicate: 'error' as const },
  };
  const module = AppModule.forDatabase(engine.uri);
  // ADAPTER=fastify serves the same app on Fastify, with the options the README gives for it.
  const fastify = process.env.ADAPTER === 'fastify';
  const app = configureSampleApp(
    fastify
      ? await NestFactory.create(module, new FastifyAdapter({ routerOptions: { maxParamLength: 256 }, bodyLimit: 100 * 1024 }), options)
      : await NestFactory.create(module, options),
  );
  // OpenAPI: the UI at /docs, the JSON document at /docs-json.
  const document = createModelRoutesDocument(app, new DocumentBuilder().setTitle('model-routes sample').addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key').build());
  // The UI needs @fastify/static on Fastify; the JSON document does not.
  SwaggerModule.setup('docs', app, document, { ui: !fastify });

  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  await app.listen(port, host);
  logger.log(`Listening on http://${host}:${port} (${fastify ? 'Fastify' : 'Express'}; database: ${engine.description})`);
  logger.log(`Try: curl -s http://${host}:${port}/companies, or the API docs at http://${host}:${port}/${fastify ? 'docs-json' : 'docs'}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: shutting down`);
    await app.close();
    await engine.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
