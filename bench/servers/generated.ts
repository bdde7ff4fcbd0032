import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur, Venture } from '../models.js';
import { createNestApp, groupsOf, listen, settings } from './serve.js';

/** The library's generated routes. */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }),
    ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company, Venture], serializationGroups: groupsOf }),
  ],
})
class GeneratedModule {}

await listen(await createNestApp(GeneratedModule));
