import type { INestApplication } from '@nestjs/common';

/** What every benchmark server reads from its environment. */
export const settings = {
  uri: process.env.BENCH_URI ?? '',
  dbName: process.env.BENCH_DB ?? 'bench',
  port: Number(process.env.BENCH_PORT ?? 0),
};

/** Listens, then tells the harness on stdout; stops on SIGTERM. */
export async function listen(app: INestApplication | { listen(port: number, host: string, done: () => void): unknown; close?: () => unknown }): Promise<void> {
  if ('getHttpServer' in app) {
    await app.listen(settings.port, '127.0.0.1');
    process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  } else {
    await new Promise<void>((resolve) => app.listen(settings.port, '127.0.0.1', resolve));
    process.on('SIGTERM', () => process.exit(0));
  }
  process.stdout.write(`READY ${settings.port}\n`);
}
