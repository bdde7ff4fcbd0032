import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur, Venture } from '../models.js';
import { connectionOptions, createNestApp, groupsOf, listen, settings } from './serve.js';

/**
 * The database's time limit of every operation, as the harness's request timeout (60 s): the
 * hand-written and peer servers set none, so a slow answer under load is measured as slow on every
 * server rather than refused by the library's default bound (5 s: on 2026-11-26, on a machine
 * shared with another helper's tests, under 8 connections the counts of the `expand=owner` and
 * `owner.niceName` searches, 0.3–0.6 s each alone, passed 5 s: 422 `MR_QUERY_TIMEOUT`).
 * `BENCH_MAX_TIME_MS=<ms>` sets another (`npm run bench:engine-costs` starts a second server with
 * the library's default, 5000, to see which requests it would refuse).
 */
const BENCH_TIME_LIMIT_MS = Number(process.env.BENCH_MAX_TIME_MS) || 60_000;

/**
 * `BENCH_ADMISSION=<concurrency>,<queue>`: another admission limit than the default (to measure what
 * shedding costs); `BENCH_ADMISSION=off`: none (`admission: false`, to measure what the limit costs).
 */
const admissionSetting = process.env.BENCH_ADMISSION === 'off' ? undefined : process.env.BENCH_ADMISSION?.split(',').map(Number);
const admission =
  process.env.BENCH_ADMISSION === 'off' ? (false as const) : admissionSetting ? { concurrency: admissionSetting[0]!, queue: admissionSetting[1]! } : undefined;

/**
 * `BENCH_EXPORT=1` (`npm run bench:export`): the opt-in export routes (`GET|POST /<plural>/export`)
 * of every resource turned on, with the library's export settings; `BENCH_EXPORT_MAX_ROWS=<n>` raises
 * `search.exportMaxRows` (default 100,000) for a larger collection. Unset, the server has no export
 * route, as every other benchmark measures it.
 */
const exportsOn = process.env.BENCH_EXPORT === '1';
const exportMaxRows = Number(process.env.BENCH_EXPORT_MAX_ROWS) || undefined;

/**
 * `BENCH_IMPORT=1` (`npm run bench:import`): the opt-in import route (`POST /<plural>/import`) of
 * every resource turned on, with the library's import settings; `BENCH_IMPORT_MAX_ROWS=<n>` and
 * `BENCH_IMPORT_MAX_BYTES=<n>` raise `search.importMaxRows` (default 10,000) and `importMaxBytes`
 * (default 10 MB) for a larger file. Unset, the server has no import route, as every other
 * benchmark measures it.
 */
const importsOn = process.env.BENCH_IMPORT === '1';
const importMaxRows = Number(process.env.BENCH_IMPORT_MAX_ROWS) || undefined;
const importMaxBytes = Number(process.env.BENCH_IMPORT_MAX_BYTES) || undefined;
const routes = { ...(exportsOn && { export: true, exportPost: true }), ...(importsOn && { import: true }) };

/**
 * The library's generated routes. `Company.owner`, the app's only reference, is declared
 * expandable and filterable here (the module's default for every reference: the test fixture's
 * `Company` stays as the other tests need it), for the scenarios "search with owner expanded" and
 * "search filtered on owner.niceName".
 */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, connectionOptions()),
    ModelRoutesModule.forRoot({
      resources: [Entrepreneur, Company, Venture],
      serializationGroups: groupsOf,
      references: { expand: true, filter: true },
      search: {
        maxTimeMS: BENCH_TIME_LIMIT_MS,
        ...(exportMaxRows && { exportMaxRows }),
        ...(importMaxRows && { importMaxRows }),
        ...(importMaxBytes && { importMaxBytes }),
      },
      ...(admission !== undefined && { admission }),
      ...(Object.keys(routes).length > 0 && { routes }),
    }),
  ],
})
class GeneratedModule {}

await listen(await createNestApp(GeneratedModule));
