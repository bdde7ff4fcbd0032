import { Module, type DynamicModule } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../src/index.js';
import { Company, Entrepreneur } from './models.js';

@Module({})
export class AppModule {
  /** The sample app on the database at `uri` (a MongoDB URI; the database name is `dbName`). */
  static forDatabase(uri: string, dbName = 'model_routes_sample'): DynamicModule {
    return {
      module: AppModule,
      imports: [MongooseModule.forRoot(uri, { dbName }), ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] })],
    };
  }
}
