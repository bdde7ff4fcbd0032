import { ValidationPipe, type INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import mongoose, { type Connection } from 'mongoose';

/** What every benchmark server reads from its environment. */
export const settings = {
  uri: process.env.BENCH_URI ?? '',
  dbName: process.env.BENCH_DB ?? 'bench',
  port: Number(process.env.BENCH_PORT ?? 0),
  /** A global `ValidationPipe`, as most Nest apps have (the scenarios with `setup: 'pipes'`). */
  pipes: process.env.BENCH_PIPES === '1',
};

/** The pipe a Nest user installs app-wide, with the options the NestJS docs recommend. */
export const validationPipe = () => new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });

/** The groups of a request, from its `x-groups` header (comma-separated), for both Nest servers. */
export function groupsOf(request: { headers: Record<string, string | string[] | undefined> }): string[] {
  const header = request.headers['x-groups'];
  return typeof header === 'string' && header ? header.split(',') : [];
}

/** Listens, then tells the harness on stdout; stops on SIGTERM. */
export async function listen(app: INestApplication | { listen(port: number, host: string, done: () => void): unknown; close?: () => unknown }): Promise<void> {
  // Indexes are built before the first request, so no scenario measures an index build.
  const connection = 'getHttpServer' in app ? app.get<Connection>(getConnectionToken()) : mongoose.connection;
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  if ('getHttpServer' in app) {
    await app.listen(settings.port, '127.0.0.1');
    process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  } else {
    await new Promise<void>((resolve) => app.listen(settings.port, '127.0.0.1', resolve));
    process.on('SIGTERM', () => process.exit(0));
  }
  process.stdout.write(`READY ${settings.port}\n`);
}
