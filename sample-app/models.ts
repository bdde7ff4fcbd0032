import { Prop, Schema } from '@nestjs/mongoose';
import { ApiSecurity } from '@nestjs/swagger';
import { Types } from 'mongoose';
import { FileProp, FileRef, GeneratedResource } from '../src/index.js';
import { ApiKeyGuard } from './api-key.guard.js';

/**
 * The spec's referenced model, served at `/user/:user_id` and `/users`, with a photo gallery:
 * `POST /user/:user_id/photos`, `GET|DELETE /user/:user_id/photos/:file_id`.
 */
@GeneratedResource({ path: 'user', plural: 'users' })
@Schema()
export class Entrepreneur {
  @Prop({ required: true }) niceName!: string;
  @Prop() birth!: Date;
  @FileProp({ maxSize: '5MB', accept: ['image/png', 'image/jpeg', 'image/webp'], variants: true }) photos?: FileRef[];
}

/**
 * The spec's referencing model, served at `/company/:company_id` and `/companies`.
 * Deleting a company, and uploading or deleting its logo, needs the API key (header `x-api-key`). A user who owns a company cannot be
 * deleted (`onDelete: 'restrict'`: a 409 `MR_REFERENCED`). Its logo: `PUT|GET|DELETE
 * /company/:company_id/logo`, resized on request (`?w=200&h=200&format=webp`). Its owner can be
 * expanded (`GET /companies?expand=owner`): the back office lists companies with their owners' names
 * in one request. Its owner's fields can be filtered on (`GET /companies?owner.niceName[regex]=^A`):
 * the back office's company list offers filters on the owner's name and birth. Its list is exported
 * (`GET /companies/export?format=csv|xlsx|json|ndjson`, the same search), and the back office's list has an Export button.
 */
const apiKey = { guards: [ApiKeyGuard], decorators: [ApiSecurity('api-key')] };

@GeneratedResource({
  routes: { delete: apiKey, export: true, exportPost: true },
  files: { logo: { upload: apiKey, deleteFile: apiKey } },
  references: { owner: { expand: true, filter: true } },
})
@Schema()
export class Company {
  @Prop({ required: true }) niceName!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' }) owner!: Types.ObjectId;
  @Prop() employees!: number;
  @Prop() location?: string;
  @FileProp({ maxSize: '2MB', accept: ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'], variants: true }) logo?: FileRef;
}

/** A resource identified by a slug: `/book/the-analytical-engine`, `/user/:user_id/books/author`; its author can be expanded. */
@GeneratedResource({ id: 'slug', references: { author: { expand: true } } })
@Schema({ timestamps: true })
export class Book {
  @Prop({ required: true, match: /^[a-z0-9-]+$/ }) slug!: string;
  @Prop({ required: true }) title!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) author?: Types.ObjectId;
}
