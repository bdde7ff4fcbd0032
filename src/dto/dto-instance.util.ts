import type { Type } from '@nestjs/common';
import { generatedDtoShape } from './resource-dto.factory.js';

/**
 * An instance of a DTO class the library generated, holding `value`'s data, nested objects (and
 * the objects of arrays) as instances of their classes: what class-transformer's `plainToInstance`
 * would build for it, without its cost, for class-validator to check. `undefined` for any other
 * class (a user's DTO, or one extending a generated one), which may declare transforms.
 */
export function instantiateGenerated(dto: Type, value: Record<string, unknown>): object | undefined {
  const shape = generatedDtoShape(dto);
  if (!shape) return undefined;
  const instance = Object.create(dto.prototype) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const nested = shape.properties.get(key);
    instance[key] = nested ? nestedValue(nested, value[key]) : value[key];
  }
  return instance;
}

function nestedValue(dto: Type, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((element) => nestedValue(dto, element));
  return typeof value === 'object' && value !== null ? instantiateGenerated(dto, value as Record<string, unknown>) : value;
}
