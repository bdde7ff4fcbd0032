import { Module, type DynamicModule } from '@nestjs/common';
import { MongooseModule, type MongooseModuleOptions } from '@nestjs/mongoose';
import { BackOfficeModule } from '../src/back-office/index.js';
import { ModelRoutesModule, type ModelRoutesModuleOptions } from '../src/index.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { CompanyController } from './company.controller.js';
import { Book, Company, Entrepreneur } from './models.js';
import { SeedService } from './seed.service.js';

/** The sample's resources and controllers: also what `npm run routes` prints. */
export const modelRoutesOptions: ModelRoutesModuleOptions = {
  resources: [Entrepreneur, Company, Book],
  controllers: [CompanyController],
};

@Module({})
export class AppModule {
  /**
   * The sample app on the database at `uri` (a MongoDB URI; the database name is `dbName`).
   * An empty database gets the example data at startup, unless `SAMPLE_SEED=0`. `connection` adds
   * Mongoose's connection options (timeouts, pool size). The back office is at `/admin`; it sends
   * the API key the user enters in the `x-api-key` header, as the guarded routes want it.
   */
  static forDatabase(uri: string, dbName = 'model_routes_sample', connection: MongooseModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MongooseModule.forRoot(uri, { ...connection, dbName }),
        ModelRoutesModule.forRoot(modelRoutesOptions),
        BackOfficeModule.forRoot({ path: '/admin', title: 'model-routes sample', auth: { header: 'x-api-key' } }),
      ],
      providers: [ApiKeyGuard, SeedService],
    };
  }
}
