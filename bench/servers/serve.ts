import { ValidationPipe, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getConnectionToken, SchemaFactory } from '@nestjs/mongoose';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import mongoose, { Schema, type Connection } from 'mongoose';
import { Company } from '../models.js';

/** What every benchmark server reads from its environment. */
export const settings = {
  uri: process.env.BENCH_URI ?? '',
  dbName: process.env.BENCH_DB ?? 'bench',
  port: Number(process.env.BENCH_PORT ?? 0),
  /** A global `ValidationPipe`, as most Nest apps have (the scenarios with `setup: 'pipes'`). */
  pipes: process.env.BENCH_PIPES === '1',
  /** The Nest servers' HTTP platform: `BENCH_ADAPTER=fastify`, or Express (the default). */
  adapter: process.env.BENCH_ADAPTER === 'fastify' ? ('fastify' as const) : ('express' as const),
  /** `BENCH_COMMANDS_PORT=<port>`: count the database commands, answered on that port (see `serveCommandCount`). */
  commandsPort: Number(process.env.BENCH_COMMANDS_PORT ?? 0),
  /** `BENCH_TRACE_PORT=<port>`: time each request and its database commands, answered on that port (see `serveTrace`). */
  tracePort: Number(process.env.BENCH_TRACE_PORT ?? 0),
};

/** The Mongoose connection's options of every server: the database, and the driver's command monitoring when commands are counted. */
export function connectionOptions(): { dbName: string; monitorCommands: boolean } {
  return { dbName: settings.dbName, monitorCommands: settings.commandsPort > 0 || settings.tracePort > 0 };
}

/**
 * With `BENCH_COMMANDS_PORT`: every command the driver starts (`commandStarted`, which the
 * driver's own monitoring and handshakes do not emit) is recorded by name, and a plain HTTP server
 * on that port answers the names recorded so far as a JSON array. The harness reads it before and
 * after one request (`countCommands` in `bench/harness.ts`).
 */
function serveCommandCount(connection: Connection): Promise<void> {
  const names: string[] = [];
  connection.getClient().on('commandStarted', (event) => names.push(event.commandName));
  const server = createServer((_request, response) => response.end(JSON.stringify(names)));
  return new Promise((resolve) => server.listen(settings.commandsPort, '127.0.0.1', resolve));
}

/** One moment of a traced request: the request arrives or is answered, a database command starts or ends. */
export interface TraceEvent {
  /** Milliseconds, from `performance.now()` in the server. */
  at: number;
  what: 'request' | 'answered' | 'command' | 'reply';
  /** The command's name and the driver's request id, for a command and its reply. */
  command?: string;
  id?: number;
}

/**
 * With `BENCH_TRACE_PORT`: the moments of every HTTP request (arrived, answered) and of every
 * database command (started, answered or failed, from the driver's command monitoring), on one
 * clock; a plain HTTP server on that port answers the events recorded since its last answer as a
 * JSON array, and forgets them. `bench/trace.ts` sends one request at a time and splits its time.
 */
function serveTrace(connection: Connection, http: Server): Promise<void> {
  let events: TraceEvent[] = [];
  const client = connection.getClient();
  client.on('commandStarted', (event) => events.push({ at: performance.now(), what: 'command', command: event.commandName, id: event.requestId }));
  const reply = (event: { commandName: string; requestId: number }) =>
    events.push({ at: performance.now(), what: 'reply', command: event.commandName, id: event.requestId });
  client.on('commandSucceeded', reply);
  client.on('commandFailed', reply);
  http.on('request', (_request, response: ServerResponse) => {
    events.push({ at: performance.now(), what: 'request' });
    response.once('finish', () => events.push({ at: performance.now(), what: 'answered' }));
  });
  const server = createServer((_request, response) => {
    response.end(JSON.stringify(events));
    events = [];
  });
  return new Promise((resolve) => server.listen(settings.tracePort, '127.0.0.1', resolve));
}

/**
 * Fastify's limits set to Express's, as in the library's tests (`test/support/app.ts`): bodies up to
 * 100 kB (Fastify's default is 1 MiB), path parameters of any length (Fastify's default is 100).
 */
const FASTIFY_OPTIONS = { bodyLimit: 100 * 1024, routerOptions: { maxParamLength: 64 * 1024 } };

/** A Nest app of `module` on the platform `BENCH_ADAPTER` names, with the global pipe if `BENCH_PIPES=1`. */
export async function createNestApp(module: Type): Promise<INestApplication> {
  const options = { logger: ['error' as const] };
  const app =
    settings.adapter === 'fastify' ? await NestFactory.create(module, new FastifyAdapter(FASTIFY_OPTIONS), options) : await NestFactory.create(module, options);
  if (settings.pipes) app.useGlobalPipes(validationPipe());
  return app;
}

/** The pipe a Nest user installs app-wide, with the options the NestJS docs recommend. */
export const validationPipe = () => new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });

/**
 * `Company`'s schema for the servers without the library, with `owner` declared as a user without
 * the library declares it: a `Schema.Types.ObjectId` path. The fixture writes
 * `@Prop({ type: Types.ObjectId, ref })`, which the library restores to an ObjectId path, but which
 * `@nestjs/mongoose` alone makes Mixed: ids are then neither cast in queries (`{ owner: '<hex>' }`
 * matches nothing) nor on write (stored as strings). Until 2026-11-24 the hand-written and peer
 * servers ran with that Mixed path, so their reverse routes answered empty pages.
 */
export function companySchema(): Schema {
  const schema = SchemaFactory.createForClass(Company);
  schema.remove('owner');
  schema.add({ owner: { type: Schema.Types.ObjectId, ref: 'Entrepreneur' } });
  return schema;
}

/** The groups of a request, from its `x-groups` header (comma-separated), for both Nest servers. */
export function groupsOf(request: { headers: Record<string, string | string[] | undefined> }): string[] {
  const header = request.headers['x-groups'];
  return typeof header === 'string' && header ? header.split(',') : [];
}

/**
 * With `BENCH_PROFILE=<file>`: a CPU profile of the load only, not of the start-up. SIGUSR2 starts
 * the sampling (the harness sends it after the warm-up); on SIGTERM the profile is written to the
 * file before the server stops.
 */
async function loadProfiler(): Promise<{ start(): Promise<void>; stop(): Promise<void> } | undefined> {
  const file = process.env.BENCH_PROFILE;
  if (!file) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // Every 100 µs (V8's default is 1 ms): a search's few milliseconds of CPU get tens of samples.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  let started = false;
  return {
    async start() {
      await session.post('Profiler.start');
      started = true;
    },
    async stop() {
      if (!started) return;
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
    },
  };
}

/** Listens, then tells the harness on stdout; stops on SIGTERM. */
export async function listen(app: INestApplication | { listen(port: number, host: string, done: () => void): unknown; close?: () => unknown }): Promise<void> {
  // Indexes are built before the first request, so no scenario measures an index build.
  const connection = 'getHttpServer' in app ? app.get<Connection>(getConnectionToken()) : mongoose.connection;
  const profiler = await loadProfiler();
  process.on('SIGUSR2', () => void profiler?.start().then(() => process.stdout.write('PROFILING\n')));
  const stopProfiler = () => profiler?.stop() ?? Promise.resolve();
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  if (settings.commandsPort) await serveCommandCount(connection);
  if ('getHttpServer' in app) {
    await app.init();
    // Fastify registers its routes on ready(); listen() would too, but READY must mean ready.
    if (settings.adapter === 'fastify') await (app.getHttpAdapter().getInstance() as { ready(): Promise<unknown> }).ready();
    await app.listen(settings.port, '127.0.0.1');
    if (settings.tracePort) await serveTrace(connection, app.getHttpServer() as Server);
    process.on(
      'SIGTERM',
      () =>
        void stopProfiler()
          .then(() => app.close())
          .then(() => process.exit(0)),
    );
  } else {
    await new Promise<void>((resolve) => app.listen(settings.port, '127.0.0.1', resolve));
    process.on('SIGTERM', () => void stopProfiler().then(() => process.exit(0)));
  }
  process.stdout.write(`READY ${settings.port}\n`);
}
