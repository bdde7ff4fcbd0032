import {
  Allow,
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsMongoId,
  IsNumber,
  IsObject,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import type { SchemaType } from 'mongoose';
import { enumValues } from '../utils/schema-enum.util.js';

/** What a leaf of a DTO knows of the reference it may hold. */
export interface LeafReference {
  /** The referenced resource is identified by another field than `_id` (a slug), which a write may send instead. */
  bySlug: boolean;
}

/**
 * The class-validator decorators of one schema leaf (a scalar, or each element of an array of
 * scalars with `each`), from its Mongoose type and options: the type check, then `enum`,
 * `min`/`max`, `minlength`/`maxlength` and `match`. Types Mongoose casts in ways JSON cannot
 * express (Buffer, Decimal128, BigInt, Mixed) are left to its cast: `@Allow()`; so are the rules
 * of a string that Mongoose trims or changes the case of before it checks them.
 */
export function leafValidators(type: SchemaType, reference: LeafReference | undefined, each = false): PropertyDecorator[] {
  const options = (type.options ?? {}) as Record<string, unknown>;
  const v = { each };
  const decorators: PropertyDecorator[] = [];
  switch (type.instance) {
    case 'String':
      decorators.push(IsString(v));
      // Mongoose checks a string after `trim`, `lowercase` and `uppercase` change it: so must its rules.
      if (options.trim || options.lowercase || options.uppercase) return decorators;
      // Mongoose takes both spellings: `minlength` and `minLength`.
      if ((options.minlength ?? options.minLength) !== undefined) decorators.push(MinLength(Number(valueOf(options.minlength ?? options.minLength)), v));
      if ((options.maxlength ?? options.maxLength) !== undefined) decorators.push(MaxLength(Number(valueOf(options.maxlength ?? options.maxLength)), v));
      if (valueOf(options.match) instanceof RegExp) decorators.push(Matches(valueOf(options.match) as RegExp, v));
      break;
    case 'Number':
    case 'Double':
      decorators.push(
        IsNumber({ allowNaN: false, allowInfinity: false }, Object.assign({}, v, { message: `${each ? 'each value in ' : ''}$property must be a number` })),
        ...bounds(options, v),
      );
      break;
    case 'Int32':
      decorators.push(IsInt(v), ...bounds(options, v));
      break;
    case 'Boolean':
      decorators.push(IsBoolean(v));
      break;
    case 'Date':
      // `strict`: a date that does not exist (February 30th) is refused, not rolled over into March.
      decorators.push(IsDateString({ strict: true }, v));
      break;
    case 'ObjectId':
      // A reference to a resource identified by a slug may name it by that slug.
      decorators.push(reference?.bySlug ? IsString(v) : IsMongoId(v));
      break;
    case 'UUID':
      decorators.push(IsUUID('all', v));
      break;
    case 'Map':
      decorators.push(IsObject(v));
      break;
    default:
      decorators.push(Allow(v));
  }
  const values = enumValues(options.enum);
  if (values) decorators.push(IsIn(values, v));
  return decorators;
}

function bounds(options: Record<string, unknown>, v: { each: boolean }): PropertyDecorator[] {
  const min = valueOf(options.min);
  const max = valueOf(options.max);
  return [...(typeof min === 'number' ? [Min(min, v)] : []), ...(typeof max === 'number' ? [Max(max, v)] : [])];
}

/** A validator option's value: `min: 0` or, with its message, `min: [0, 'too small']`. */
function valueOf(option: unknown): unknown {
  return Array.isArray(option) ? option[0] : option;
}

/** Whether Mongoose requires the path on create: `required: true` (or `[true, message]`) without a default. */
export function isRequired(type: SchemaType): boolean {
  const options = (type.options ?? {}) as { required?: unknown; default?: unknown };
  return valueOf(options.required) === true && options.default === undefined;
}
