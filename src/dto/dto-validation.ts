import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import type { ErrorDetail } from '../errors/error-body.util.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { instantiateGenerated } from './dto-instance.util.js';
import { elementRulesOf } from './resource-dto.factory.js';

/**
 * The options of the library's own validation, those of the usual global pipe
 * (`whitelist` + `forbidNonWhitelisted`): a property no decorator of the class names is refused,
 * never silently dropped. Errors carry neither the object nor the value.
 */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  validationError: { target: false, value: false },
};

/**
 * Validates `value` with a DTO class as `ValidationPipe` would (class-transformer builds the
 * instance, so the class's `@Type` and `@Transform` apply), and returns the instance's data as
 * plain objects and arrays: what to store. A failure is a 400 `MR_VALIDATION_FAILED` with one
 * detail per failed constraint, its path dotted from the body's root (`items.0.qty`). At once for a
 * class the library generated, as a promise for any other (whose rules may be asynchronous).
 */
export function validateDto(dto: Type, value: Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>> {
  // A generated class has no transform and no async rule: its check needs neither class-transformer
  // nor promises (measured: about half the cost of a create body's check), and the data is `value`.
  const generated = instantiateGenerated(dto, value);
  if (generated) {
    const errors = validateSync(generated, VALIDATOR_OPTIONS);
    if (errors.length > 0) throw validationFailed(validationDetails(errors, generated));
    return value;
  }
  return validateUserDto(dto, value);
}

async function validateUserDto(dto: Type, value: Record<string, unknown>): Promise<Record<string, unknown>> {
  const instance = plainToInstance(dto, value) as object;
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw validationFailed(validationDetails(errors, instance));
  return toPlainData(instance) as Record<string, unknown>;
}

/**
 * One detail per failed constraint, at the dotted path of its property, array positions included:
 * an array of scalars that fails a rule of its elements (`each value in tags must be a mongodb id`)
 * has one detail per failing element (`tags.1`), a Map one per failing value (`limits.daily`). `instance` is the object the errors are about.
 */
export function validationDetails(errors: readonly ValidationError[], instance?: object, parent = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const value = instance && (instance as Record<string, unknown>)[error.property];
    const element = instance && elementRulesOf(instance, error.property);
    // (A Map's rules of one value are recorded alike: an array sent for a Map fails its `isObject`.)
    if (element && Array.isArray(value) && !error.constraints?.isArray && !error.constraints?.isObject) {
      value.forEach((item, index) => {
        const itemErrors = validateSync(Object.assign(new element(), { [error.property]: item }), VALIDATOR_OPTIONS);
        details.push(...validationDetails(itemErrors).map((detail) => Object.assign({}, detail, { path: `${path}.${index}` })));
      });
      continue;
    }
    if (element && error.constraints?.mapValues && value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const itemErrors = validateSync(Object.assign(new element(), { [error.property]: item }), VALIDATOR_OPTIONS);
        details.push(...validationDetails(itemErrors).map((detail) => Object.assign({}, detail, { path: `${path}.${key}` })));
      }
      continue;
    }
    for (const message of failures(error.constraints)) details.push({ path, message });
    if (error.children?.length) details.push(...validationDetails(error.children, value && typeof value === 'object' ? value : undefined, path));
  }
  return details;
}

/** The rules that say what a value is; when one fails, the value's other rules cannot say anything more. */
const TYPE_RULES = ['isDefined', 'isString', 'isNumber', 'isInt', 'isBoolean', 'isDateString', 'isMongoId', 'isUuid', 'isObject', 'isArray'];

/**
 * The messages of a property's failed rules: a missing value, or one of the wrong type, is one
 * failure (`name is required`, `score must be a number`), not one per rule it cannot meet.
 */
function failures(constraints: Record<string, string> | undefined): string[] {
  if (!constraints) return [];
  const type = TYPE_RULES.find((rule) => rule in constraints);
  return type ? [constraints[type]] : Object.values(constraints);
}

/** The one exception of a failed validation, naming the failed paths in its message. */
export function validationFailed(details: ErrorDetail[]): ModelRoutesException {
  const paths = [...new Set(details.map((detail) => detail.path))].join(', ');
  return new ModelRoutesException('MR_VALIDATION_FAILED', `Validation failed for ${paths || 'the body'}`, details);
}

/**
 * The data of a DTO instance (or of what a pipe returned) as plain objects and arrays: nested DTO
 * instances become objects, and properties left `undefined` (a class field no value was given
 * for) are dropped. Dates, buffers and BSON values (an `ObjectId` a pipe set) stay as they are.
 */
export function toPlainData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlainData);
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value) || '_bsontype' in value) return value;
  const plain: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) plain[key] = toPlainData(item);
  }
  return plain;
}
