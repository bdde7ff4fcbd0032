import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur, Venture } from '../models.js';
import { connectionOptions, createNestApp, groupsOf, listen, settings } from './serve.js';

/**
 * The library's generated routes. `Company.owner`, the app's only reference, is declared
 * expandable and filterable here (the module's default for every reference: the test fixture's
 * `Company` stays as the other tests need it), for the scenarios "search with owner expanded" and
 * "search filtered on owner.niceName".
 */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, connectionOptions()),
    ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company, Venture], serializationGroups: groupsOf, references: { expand: true, filter: true } }),
  ],
})
class GeneratedModule {}

await listen(await createNestApp(GeneratedModule));
