import type { DiscriminatorDefinition, SubTypeDefinition } from '../definitions/resource-definition.interface.js';
import { ownsField, subTypeOfBody } from '../definitions/sub-types.util.js';
import type { WriteRules } from '../write/write-body.validator.js';
import type { Type } from '@nestjs/common';
import type { RouteCall } from './route-call.js';
import { checkWrite, writeRulesOf, type ViewedRules } from './write-check.util.js';

/**
 * `checkWrite` for a create: with sub-types, the body is checked as the sub-type its key names
 * (its DTO, its fields; another sub-type's fields are unknown fields), on every way in (the route,
 * an override's `super.create(body)`, an import's row).
 */
export function checkCreate(
  body: unknown,
  rules: WriteRules & ViewedRules & { discriminator?: DiscriminatorDefinition },
  dto: Type | undefined,
  call?: Pick<RouteCall, 'groups' | 'isCheckedWrite'>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (call?.isCheckedWrite(body)) return body as Record<string, unknown>;
  const type = rules.discriminator && subTypeOfBody(body, rules.discriminator);
  if (!type) return checkWrite(body, rules, dto, call);
  return checkWrite(body, subTypeRules(call ? writeRulesOf(rules, call.groups) : rules, type), type.dtos.create);
}

const byRules = new WeakMap<object, Map<string, WriteRules>>();

/**
 * The rules a write to one sub-type is checked with: the resource's (the request's view of them),
 * less the fields of the other sub-types, which are unknown fields to it.
 */
export function subTypeRules(rules: WriteRules, type: SubTypeDefinition): WriteRules {
  let cached = byRules.get(rules.fields);
  if (!cached) byRules.set(rules.fields, (cached = new Map()));
  let own = cached.get(type.name);
  if (!own) {
    const writable = new Set([...rules.fields.writable].filter((path) => ownsField(type, path)));
    own = Object.assign({}, rules, { fields: Object.assign({}, rules.fields, { writable }) });
    cached.set(type.name, own);
  }
  return own;
}
