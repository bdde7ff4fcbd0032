import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource } from '../src/index.js';

/** The spec's referenced model, served at `/user/:user_id` and `/users`. */
@GeneratedResource({ path: 'user', plural: 'users' })
@Schema()
export class Entrepreneur {
  @Prop({ required: true }) niceName!: string;
  @Prop() birth!: Date;
}

/** The spec's referencing model, served at `/company/:company_id` and `/companies`. */
@GeneratedResource()
@Schema()
export class Company {
  @Prop({ required: true }) niceName!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) owner!: Types.ObjectId;
  @Prop() employees!: number;
  @Prop() location?: string;
}
