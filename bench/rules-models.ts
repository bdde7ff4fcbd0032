import { ForbiddenException, Injectable } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { GeneratedResource, type BeforeWriteContext, type ResourceHooks, type ScopeContext, type ScopeFilter } from '../src/index.js';
import { REFUSED_NAME, TENANT_HEADER } from './rules-table.js';

/**
 * Bench-only (`npm run bench:rules`, issue 28): four resources identical but for their rules (the
 * same fields, the same index on `tenant`, the same documents seeded), each in a collection of its
 * own: `plain` (none), `scoped` (a row scope), `hooked` (before-hooks), `ruled` (both).
 */

/** The row scope: the tenant the request names in its `x-tenant` header; none named, no document. */
export function tenantScope({ request }: ScopeContext): ScopeFilter {
  const tenant = (request as { headers: Record<string, string | string[] | undefined> }).headers[TENANT_HEADER];
  return typeof tenant === 'string' && tenant ? { tenant } : false;
}

/**
 * The before-hooks: an injectable class with a trivial check of the data (a name the bench's check
 * sends, to see that the hook is in place, is refused with a 403); nothing else.
 */
@Injectable()
export class RulesBenchHooks implements ResourceHooks {
  beforeCreate({ data }: BeforeWriteContext): void {
    if (data?.niceName === REFUSED_NAME) throw new ForbiddenException('Refused by the hook');
  }

  beforeUpdate({ data }: BeforeWriteContext): void {
    if (data?.niceName === REFUSED_NAME) throw new ForbiddenException('Refused by the hook');
  }
}

@GeneratedResource({ path: 'plain', plural: 'plains' })
@Schema({ collection: 'rules_plain' })
export class PlainItem {
  @Prop({ required: true, index: true }) tenant!: string;
  @Prop({ required: true }) niceName!: string;
  @Prop() employees?: number;
  @Prop() location?: string;
}

@GeneratedResource({ path: 'scoped', plural: 'scopeds', scope: tenantScope })
@Schema({ collection: 'rules_scoped' })
export class ScopedItem {
  @Prop({ required: true, index: true }) tenant!: string;
  @Prop({ required: true }) niceName!: string;
  @Prop() employees?: number;
  @Prop() location?: string;
}

@GeneratedResource({ path: 'hooked', plural: 'hookeds', hooks: RulesBenchHooks })
@Schema({ collection: 'rules_hooked' })
export class HookedItem {
  @Prop({ required: true, index: true }) tenant!: string;
  @Prop({ required: true }) niceName!: string;
  @Prop() employees?: number;
  @Prop() location?: string;
}

@GeneratedResource({ path: 'ruled', plural: 'ruleds', scope: tenantScope, hooks: RulesBenchHooks })
@Schema({ collection: 'rules_ruled' })
export class RuledItem {
  @Prop({ required: true, index: true }) tenant!: string;
  @Prop({ required: true }) niceName!: string;
  @Prop() employees?: number;
  @Prop() location?: string;
}
