import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur, Venture } from '../models.js';
import { groupsOf, listen, settings, validationPipe } from './serve.js';

/** The library's generated routes. */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }),
    ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company, Venture], serializationGroups: groupsOf }),
  ],
})
class GeneratedModule {}

const app = await NestFactory.create(GeneratedModule, { logger: ['error'] });
if (settings.pipes) app.useGlobalPipes(validationPipe());
await listen(app);
