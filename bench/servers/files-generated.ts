import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Box } from '../models.js';
import { createNestApp, listen, settings } from './serve.js';

/** `npm run bench:files`: the library's file routes, `PUT|GET|DELETE /box/:box_id/file`. */
@Module({
  imports: [MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }), ModelRoutesModule.forRoot({ resources: [Box] })],
})
class GeneratedFilesModule {}

await listen(await createNestApp(GeneratedFilesModule));
