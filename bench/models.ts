import { Prop, Schema } from '@nestjs/mongoose';
import { Expose } from 'class-transformer';
import { GeneratedResource } from '../src/index.js';

/** The spec's example models, the same the end-to-end tests use: every server of the benchmark serves these. */
export { Company, Entrepreneur } from '../test/fixtures/models.js';

/**
 * Bench-only (the test fixtures stay as other tests need them): a company-like model with a field
 * only the `admin` group sees, for the scenario "search, 100 items, with a serialization group".
 */
@GeneratedResource({ path: 'venture', plural: 'ventures' })
@Schema()
export class Venture {
  @Prop({ required: true }) niceName!: string;
  @Prop() employees?: number;
  @Prop() location?: string;
  @Expose({ groups: ['admin'] }) @Prop() revenue?: number;
}
