import { Prop, Schema } from '@nestjs/mongoose';
import { Expose } from 'class-transformer';
import { FileProp, FileRef, GeneratedResource } from '../src/index.js';

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

/**
 * Bench-only: a document with one file field, for `npm run bench:files` (issue 14). 64 MB and
 * `application/octet-stream`, so that the 50 MB files and content without a signature are accepted.
 */
@GeneratedResource({ path: 'box', plural: 'boxes' })
@Schema()
export class Box {
  @Prop() name?: string;
  @FileProp({ maxSize: '64MB', accept: ['application/octet-stream', 'image/png'] }) file?: FileRef;
}
