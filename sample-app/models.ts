import { Prop, Schema } from '@nestjs/mongoose';
import { ApiSecurity } from '@nestjs/swagger';
import { Types } from 'mongoose';
import { GeneratedResource } from '../src/index.js';
import { ApiKeyGuard } from './api-key.guard.js';

/** The spec's referenced model, served at `/user/:user_id` and `/users`. */
@GeneratedResource({ path: 'user', plural: 'users' })
@Schema()
export class Entrepreneur {
  @Prop({ required: true }) niceName!: string;
  @Prop() birth!: Date;
}

/**
 * The spec's referencing model, served at `/company/:company_id` and `/companies`.
 * Deleting a company needs the API key (header `x-api-key`). A user who owns a company cannot be
 * deleted (`onDelete: 'restrict'`: a 409 `MR_REFERENCED`).
 */
@GeneratedResource({ routes: { delete: { guards: [ApiKeyGuard], decorators: [ApiSecurity('api-key')] } } })
@Schema()
export class Company {
  @Prop({ required: true }) niceName!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' }) owner!: Types.ObjectId;
  @Prop() employees!: number;
  @Prop() location?: string;
}

/** A resource identified by a slug: `/book/the-analytical-engine`, `/user/:user_id/books/author`. */
@GeneratedResource({ id: 'slug' })
@Schema({ timestamps: true })
export class Book {
  @Prop({ required: true, match: /^[a-z0-9-]+$/ }) slug!: string;
  @Prop({ required: true }) title!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) author?: Types.ObjectId;
}
