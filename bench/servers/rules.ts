import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { HookedItem, PlainItem, RuledItem, ScopedItem } from '../rules-models.js';
import { connectionOptions, createNestApp, listen, settings } from './serve.js';

/**
 * `npm run bench:rules` (issue 28): the library's generated routes of four resources identical but
 * for their rules (`bench/rules-models.ts`): none, a row scope, before-hooks, both. The library's
 * settings but the time limit, which is the harness's request timeout as in `generated.ts` (a slow
 * answer under load is measured as slow, not refused).
 */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, connectionOptions()),
    ModelRoutesModule.forRoot({ resources: [PlainItem, ScopedItem, HookedItem, RuledItem], search: { maxTimeMS: 60_000 } }),
  ],
})
class RulesModule {}

await listen(await createNestApp(RulesModule));
