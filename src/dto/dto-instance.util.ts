import type { Type } from '@nestjs/common';

/** The DTO classes this library generates: no `@Transform`, no async rule, nested classes known. */
const generatedClasses = new WeakSet<Function>();
/** Their nested classes, by prototype and property. */
const nestedClasses = new WeakMap<object, Map<string, Type>>();

/** Marks a class as generated here, so that `instantiate` may build its instances. */
export function markGenerated(dto: Type): void {
  generatedClasses.add(dto);
}

/** Whether `dto` is a class the library generated (not a user's, nor one extending a generated one). */
export function isGeneratedDto(dto: Function): boolean {
  return generatedClasses.has(dto);
}

/** Records, on a generated class, the class of a nested object or of each element of an array property. */
export function NestedClass(key: string, nested: Type): PropertyDecorator {
  return (prototype) => {
    const classes = nestedClasses.get(prototype) ?? new Map<string, Type>();
    nestedClasses.set(prototype, classes.set(key, nested));
  };
}

/**
 * An instance of a generated DTO class holding `value`'s data, nested objects (and the objects of
 * arrays) as instances of their classes: what class-transformer's `plainToInstance` would build for
 * it, without its cost (these classes declare no transform), for class-validator to check.
 */
export function instantiate(dto: Type, value: Record<string, unknown>): object {
  const instance = Object.create(dto.prototype) as Record<string, unknown>;
  const nested = nestedClasses.get(dto.prototype);
  for (const key of Object.keys(value)) {
    const item = value[key];
    const type = nested?.get(key);
    instance[key] = type ? nestedValue(type, item) : item;
  }
  return instance;
}

function nestedValue(type: Type, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((element) => nestedValue(type, element));
  return isObject(value) ? instantiate(type, value) : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
