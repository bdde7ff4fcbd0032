import { instanceToPlain } from 'class-transformer';
import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';

/** What `instanceToPlain` does to a schema class's paths for one group set. */
export interface ProbeResult {
  /** Paths it leaves out (`@Exclude()`, `@Expose({ groups })` of other groups), dotted for nested classes. */
  hidden: string[];
  /** Paths whose value a `@Transform` rewrites, dotted for nested classes. */
  transformed: string[];
  /** The class of the object each transformed path is a property of, by that object's path (`''`: the document). */
  owners: Map<string, Function>;
}

/**
 * A group set that every `@Expose({ groups })` and `@Transform(..., { groups })` matches: what is
 * left out for it is left out for every request (`@Exclude()`). class-transformer has no public
 * reader of its metadata, and it matches groups with `options.groups.some(...)`; should that ever
 * change, this set matches no group, and group-only fields are hidden from everyone (never shown).
 */
class EveryGroup extends Array<string> {
  override some(): boolean {
    return true;
  }

  override includes(): boolean {
    return true;
  }
}

export const EVERY_GROUP: readonly string[] = EveryGroup.from(['*']);

/**
 * A group set like `EVERY_GROUP` that also records the groups it is compared with: class-transformer
 * asks `groups.includes(group)` of the decorator's own array in the predicate it gives `some`, so
 * `Array.prototype.includes` is watched for that one synchronous call, and put back at once.
 */
class GroupRecorder extends EveryGroup {
  readonly seen = new Set<string>();

  override some(predicate?: (value: string, index: number, array: string[]) => unknown): boolean {
    const seen = this.seen;
    const includes = Array.prototype.includes;
    Array.prototype.includes = function (this: unknown[], ...args: [unknown, number?]) {
      for (const group of this) if (typeof group === 'string') seen.add(group);
      return includes.apply(this, args);
    };
    try {
      predicate?.('*', 0, this);
    } finally {
      Array.prototype.includes = includes;
    }
    return true;
  }
}

/**
 * The groups the `@Expose({ groups })` and `@Transform(..., { groups })` of a schema class (and
 * of its nested classes) name, sorted; empty should class-transformer ever compare groups otherwise.
 */
export function exposedGroups(target: Function, schema: Schema, paths: Iterable<string>): string[] {
  const recorder = GroupRecorder.from(['*']) as GroupRecorder;
  probeClass(target, schema, paths, recorder);
  return [...recorder.seen].sort();
}

/** Constructors a property's `design:type` names that are values, not classes that carry decorators. */
const VALUE_TYPES = new Set<unknown>([Object, String, Number, Boolean, Date, Array, Map, Set, Buffer, BigInt, Symbol, Function]);

/**
 * Runs `instanceToPlain` on an instance of `target` (its constructor is not called) whose
 * properties are set to marker values, twice, with two sets of markers of each path's type:
 * a property absent from the output is hidden; one whose value comes back changed (from either
 * set) has a `@Transform` for these groups. A transform that returns both markers unchanged acts
 * as the identity on them and is not run. Nested objects whose property is typed with a class
 * (`@Prop({ type: Address }) address: Address`) are probed as instances of that class, their
 * transforms included; arrays of sub-documents are not (the element's class is not known from the property).
 *
 * @param paths the readable schema paths (`name`, `address`, `address.city`); `_id` is never hidden
 */
export function probeClass(target: Function, schema: Schema, paths: Iterable<string>, groups: readonly string[] | undefined): ProbeResult {
  const result: ProbeResult = { hidden: [], transformed: [], owners: new Map() };
  probeLevel(target, schema, tree(paths), '', groups, result);
  return result;
}

type PathTree = Map<string, PathTree>;

function tree(paths: Iterable<string>): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    let node = root;
    for (const part of path.split('.')) node = node.get(part) ?? node.set(part, new Map()).get(part)!;
  }
  return root;
}

function probeLevel(target: Function, schema: Schema, level: PathTree, prefix: string, groups: readonly string[] | undefined, result: ProbeResult): void {
  const keys = [...level.keys()].filter((key) => `${prefix}${key}` !== '_id');
  const markers = keys.map((key) => markersOf(schema, `${prefix}${key}`));
  const outputs = [0, 1].map((set) => {
    const instance = Object.create(target.prototype) as Record<string, unknown>;
    keys.forEach((key, index) => (instance[key] = markers[index][set]));
    return run(target, instance, keys, groups);
  });
  keys.forEach((key, index) => {
    const path = `${prefix}${key}`;
    if (!(key in outputs[0])) {
      result.hidden.push(path);
      return;
    }
    if (outputs.some((output, set) => !sameValue(output[key], markers[index][set]))) {
      result.transformed.push(path);
      result.owners.set(prefix.slice(0, -1), target);
    }
    const nested = nestedClass(target, key);
    const children = level.get(key)!;
    if (nested && children.size > 0) probeLevel(nested, schema, children, `${path}.`, groups, result);
  });
}

function run(target: Function, instance: object, keys: string[], groups: readonly string[] | undefined): Record<string, unknown> {
  let output: Record<string, unknown>;
  try {
    output = instanceToPlain(instance, groups ? { groups: groups as string[] } : {});
  } catch (error) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${target.name}: class-transformer failed on a value of each field's type (${(error as Error).message}). ` +
        `A @Transform() of ${target.name} must accept any value of its field, and undefined.`,
    );
  }
  const renamed = Object.keys(output).find((key) => !keys.includes(key) && output[key] !== undefined);
  if (renamed) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${target.name}: class-transformer writes a property '${renamed}' the schema does not have; @Expose({ name }) cannot rename ` +
        `a field of a resource (filters, sorts and writes use the schema's names). Remove the name option.`,
    );
  }
  return output;
}

/** Two distinct values of the path's type: a transform written for that type gets what it expects. */
function markersOf(schema: Schema, path: string): readonly [unknown, unknown] {
  switch (schema.path(path)?.instance) {
    case 'Number':
      return [7001, 7002];
    case 'Date':
      return [new Date(7001), new Date(7002)];
    case 'Boolean':
      return [true, false];
    default:
      return ['mr-probe-1', 'mr-probe-2'];
  }
}

function sameValue(output: unknown, marker: unknown): boolean {
  if (marker instanceof Date) return output instanceof Date && output.getTime() === marker.getTime();
  return output === marker;
}

/** The class a property is declared with, when it is one that may carry decorators. */
function nestedClass(target: Function, key: string): Function | undefined {
  const type: unknown = Reflect.getMetadata?.('design:type', target.prototype, key);
  if (typeof type !== 'function' || VALUE_TYPES.has(type) || !type.prototype) return undefined;
  return type;
}
