import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource } from '../src/index.js';

/** The spec's example models, as the sample app has them: every server of the benchmark serves these. */
@GeneratedResource({ path: 'user', plural: 'users' })
@Schema()
export class Entrepreneur {
  @Prop({ required: true }) niceName!: string;
  @Prop() birth?: Date;
}

@GeneratedResource()
@Schema()
export class Company {
  @Prop({ required: true }) niceName!: string;
  @Prop({ type: Types.ObjectId, ref: 'Entrepreneur', index: true }) owner?: Types.ObjectId;
  @Prop() employees?: number;
  @Prop() location?: string;
}
