import type { Type } from '@nestjs/common';
import { Type as TransformType } from 'class-transformer';
import { Allow, IsArray, IsDefined, IsIn, IsObject, IsOptional, ValidateBy, ValidateIf, ValidateNested, validateSync } from 'class-validator';
import type { Schema, SchemaType } from 'mongoose';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import { pascalCase } from '../utils/naming.util.js';
import { enumValues } from '../utils/schema-enum.util.js';
import { isRequired, leafValidators, type LeafReference } from './dto-validators.util.js';

/** The body classes of one resource's routes. */
export interface ResourceDtos {
  /** `POST /company`: `CompanyCreateDto`. */
  create: Type;
  /** `PUT|PATCH /company/:company_id`: `CompanyUpdateDto`, every field optional, none nullable if required. */
  update: Type;
  /** `POST /companies`: `CompanySearchDto`. */
  search: Type;
  /**
   * The bodies of the element routes of each top-level array of sub-documents, by field: `add`
   * (`POST /pet/:pet_id/vaccinations`: `PetVaccinationsElementDto`, the rules each element of a whole
   * write is checked with, `PetVaccinationsItemDto`, without `_id`) and `patch` (`PATCH .../:element_id`:
   * `PetVaccinationsElementPatchDto`, its partial).
   */
  elements?: ReadonlyMap<string, { add: Type; patch: Type }>;
}

/** What the DTOs of a resource are made from. */
export interface DtoSource {
  /** The resource's name, which starts every class name (`Company`). */
  name: string;
  schema: Schema;
  fields: Pick<FieldRules, 'writable'>;
  /** Reference fields at every depth, by path (`vaccinations.vet`); `bySlug` when their target is identified by another field than `_id`. */
  references: ReadonlyMap<string, LeafReference>;
}

type Mode = 'create' | 'update';

const REQUIRED = { message: '$property is required' };

/** A writable place of the schema: a scalar (or array of scalars), a nested object, or an array of sub-documents. */
type DtoNode =
  | { kind: 'leaf'; path: string; type: SchemaType }
  | { kind: 'object'; path: string; required: boolean; children: Map<string, DtoNode> }
  | { kind: 'array'; path: string; children: Map<string, DtoNode> };

/**
 * Builds the DTO classes of a resource from its Mongoose schema: one property per field a client
 * may write (the field rules' `writable`: no `_id`, version key, timestamps, `readonly` or hidden
 * field, but `writeOnly` ones), with the class-validator decorators of its type and options, nested
 * objects and sub-documents as classes of their own (`ValidateNested` + `@Type`).
 *
 * - create: a `required` field (without a default) must be there and not `null`; others may be
 *   left out or `null` (no value);
 * - update: any field may be left out (only those sent change); `null` clears a field, so it is
 *   refused on a required one; nested objects merge, so their classes are partial too; an array
 *   of sub-documents is replaced whole, so its elements are checked as on create.
 */
export function createResourceDtos(source: DtoSource): ResourceDtos {
  const tree = buildTree(source.schema, '', source);
  const update = dtoClass(`${source.name}UpdateDto`, tree, 'update', source);
  const elements = new Map<string, { add: Type; patch: Type }>();
  for (const [key, node] of tree) {
    if (node.kind !== 'array' || !generatedDtoShape(update)!.properties.get(key)) continue;
    // The element routes take the element's id from the path and refuse one in the body: their classes leave `_id` out.
    const children = new Map([...node.children].filter(([name]) => name !== '_id'));
    const prefix = `${source.name}${pascalCase(node.path)}`;
    elements.set(key, {
      add: dtoClass(`${prefix}ElementDto`, children, 'create', source, node.path),
      patch: dtoClass(`${prefix}ElementPatchDto`, children, 'update', source, node.path),
    });
  }
  return {
    create: dtoClass(`${source.name}CreateDto`, tree, 'create', source),
    update,
    search: createSearchDto(source.name, `${source.name}SearchDto`),
    elements,
  };
}

/**
 * The body of a search, `{ query, limit, skip, sort, select, expand, after }`. Every key is only allowed here: the
 * search parser checks them with the schema and the limits in force, and answers what is wrong
 * with its own codes (`MR_INVALID_QUERY`, `MR_INVALID_VALUE`).
 */
export function createSearchDto(resource: string, name: string, base?: Type): Type {
  const dto = namedClass(name, base);
  const keys = ['query', 'limit', 'skip', 'sort', 'select', 'expand', 'after'];
  if (!base) for (const key of keys) Allow()(dto.prototype, key);
  shapes.set(dto, { resource, body: 'search', path: '', properties: new Map(keys.map((key) => [key, undefined])) });
  return dto;
}

/** What a generated DTO class is made of, for its documentation (`src/swagger/`). */
export interface GeneratedDtoShape {
  /** The resource's name (`Company`). */
  resource: string;
  /** The body its properties follow: `create` and `update` as the schema says, or the search body. */
  body: Mode | 'search';
  /** The dotted schema path of the object it checks: `''` for the body, `address`, or `lines` for each element of that array. */
  path: string;
  /** Its properties, with the class of each nested object or array element. */
  properties: ReadonlyMap<string, Type | undefined>;
}

const shapes = new WeakMap<Type, GeneratedDtoShape>();

/** The shape of a class the library generated (not of a subclass of one); `undefined` for any other class. */
export function generatedDtoShape(dto: Type): GeneratedDtoShape | undefined {
  return shapes.get(dto);
}

function buildTree(schema: Schema, prefix: string, source: DtoSource): Map<string, DtoNode> {
  const root = new Map<string, DtoNode>();
  schema.eachPath((path, type) => {
    const full = prefix + path;
    if (path.includes('.$*') || !source.fields.writable.has(full)) return;
    // `profile.age` of a nested object: the object is a node of its own.
    const parts = path.split('.');
    let level = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const at = prefix + parts.slice(0, i + 1).join('.');
      let node = level.get(parts[i]);
      if (!node) level.set(parts[i], (node = { kind: 'object', path: at, required: false, children: new Map() }));
      if (node.kind === 'leaf') return;
      level = node.children;
    }
    const sub = (type as SchemaType & { schema?: Schema }).schema;
    const name = parts[parts.length - 1];
    if (sub && type.instance === 'Embedded')
      level.set(name, { kind: 'object', path: full, required: isRequired(type), children: buildTree(sub, `${full}.`, source) });
    else if (sub && type.instance === 'Array') level.set(name, { kind: 'array', path: full, children: buildTree(sub, `${full}.`, source) });
    else level.set(name, { kind: 'leaf', path: full, type });
  });
  return root;
}

function dtoClass(name: string, nodes: Map<string, DtoNode>, mode: Mode, source: DtoSource, path = ''): Type {
  const dto = namedClass(name);
  const properties = new Map<string, Type | undefined>();
  for (const [key, node] of nodes) {
    const nested = nestedClass(node, mode, source);
    properties.set(key, nested);
    for (const decorate of propertyDecorators(key, node, mode, source, nested)) decorate(dto.prototype, key);
  }
  shapes.set(dto, { resource: source.name, body: mode, path, properties });
  return dto;
}

/** The class of a nested object, or of each sub-document of an array. */
function nestedClass(node: DtoNode, mode: Mode, source: DtoSource): Type | undefined {
  if (node.kind === 'object') return dtoClass(`${source.name}${pascalCase(node.path)}${pascalCase(mode)}Dto`, node.children, mode, source, node.path);
  // Replaced whole on update too: every element is a complete sub-document.
  if (node.kind === 'array') return dtoClass(`${source.name}${pascalCase(node.path)}ItemDto`, node.children, 'create', source, node.path);
  return undefined;
}

function propertyDecorators(key: string, node: DtoNode, mode: Mode, source: DtoSource, nested: Type | undefined): PropertyDecorator[] {
  if (node.kind === 'object') return [...presence(key, node.required, mode), IsObject(), ValidateNested(), TransformType(() => nested!)];
  if (node.kind === 'array') return [IsOptional(), IsArray(), ValidateNested({ each: true }), TransformType(() => nested!)];
  const { type } = node;
  const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
  if (type.instance === 'Array') {
    if (!element || element.instance === 'Array' || element.instance === 'Mixed') return [IsOptional(), IsArray(), Allow()];
    const reference = source.references.get(node.path);
    // `{ type: [String], enum: [...] }`: the array's enum is its elements' (Mongoose checks each one).
    const values = enumValues((type.options as { enum?: unknown } | undefined)?.enum);
    const inEnum = (each: boolean) => (values ? [IsIn(values, { each })] : []);
    return [
      IsOptional(),
      IsArray(),
      ...leafValidators(element, reference, true),
      ...inEnum(true),
      ElementRules(key, [...leafValidators(element, reference), ...inEnum(false)]),
    ];
  }
  const values = (type as SchemaType & { $__schemaType?: SchemaType }).$__schemaType;
  if (type.instance === 'Map' && values && !['Mixed', 'Array', 'Embedded', 'Map'].includes(values.instance)) {
    // Each value of a Map is checked as a field of its type (`of: Number`), at its key's path (`limits.daily`).
    return [...presence(key, isRequired(type), mode), IsObject(), MapValues(key, leafValidators(values, undefined))];
  }
  return [...presence(key, isRequired(type), mode), ...leafValidators(type, source.references.get(node.path))];
}

/** Left out, `null`, or neither: what a field's presence may be in a body of this mode. */
function presence(key: string, required: boolean, mode: Mode): PropertyDecorator[] {
  if (!required) return [IsOptional()];
  if (mode === 'create') return [IsDefined(REQUIRED)];
  // An update may leave a required field out, but not clear it.
  return [ValidateIf((object: Record<string, unknown>) => object[key] !== undefined), IsDefined(REQUIRED)];
}

/** The rules of one element of each array of scalars, by DTO class and property: to tell which elements failed. */
const elementRules = new WeakMap<object, Map<string, Type>>();

/** Records, on a DTO class, the class that checks one element of an array property (its rules without `each`). */
function ElementRules(key: string, decorators: PropertyDecorator[]): PropertyDecorator {
  return (prototype) => {
    const element = namedClass(`${prototype.constructor.name}${pascalCase(key)}Element`);
    for (const decorate of decorators) decorate(element.prototype, key);
    const rules = elementRules.get(prototype) ?? new Map<string, Type>();
    elementRules.set(prototype, rules.set(key, element));
  };
}

/**
 * Checks every value of a Map property with the rules of its values' type; records the class that
 * checks one value, as for an array's elements, so that each failing value gets its own detail.
 */
function MapValues(key: string, decorators: PropertyDecorator[]): PropertyDecorator {
  return (prototype, property) => {
    ElementRules(key, decorators)(prototype, property);
    const element = elementRules.get(prototype)!.get(key)!;
    ValidateBy({
      name: 'mapValues',
      validator: {
        validate: (value: unknown) =>
          !isPlainObject(value) || Object.values(value).every((item) => validateSync(Object.assign(new element(), { [key]: item })).length === 0),
        defaultMessage: () => `each value of ${key} must be valid`,
      },
    })(prototype, property);
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The class that checks one element of the array `property` of a DTO (of its class or a parent's),
 * or one value of its Map `property`, as `{ [property]: element }`; undefined for other properties.
 */
export function elementRulesOf(dto: object, property: string): Type | undefined {
  for (let prototype = Object.getPrototypeOf(dto); prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
    const rules = elementRules.get(prototype)?.get(property);
    if (rules) return rules;
  }
  return undefined;
}

/** A fresh class with a meaningful name (OpenAPI schemas and error messages show it). */
function namedClass(name: string, base?: Type): Type {
  const Base = base ?? class {};
  return { [name]: class extends Base {} }[name] as Type;
}
