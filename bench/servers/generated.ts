import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur } from '../models.js';
import { listen, settings } from './serve.js';

/** The library's generated routes. */
@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }),
    ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
  ],
})
class GeneratedModule {}

await listen(await NestFactory.create(GeneratedModule, { logger: ['error'] }));
