import { instanceToPlain } from 'class-transformer';
import type { Schema } from 'mongoose';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import { isUnderAny } from '../query/field-path.util.js';
import type { SearchRules } from '../query/search-params.interface.js';
import { deletePath, nestedAccess } from '../utils/object-path.util.js';
import type { WriteRules } from '../write/write-body.validator.js';
import { EVERY_GROUP, exposedGroups, probeClass } from './serialization-probe.js';

/** How the responses of one group set differ from what the repository returns. */
export interface SerializationView {
  /** The groups, as class-transformer takes them. */
  groups: string[] | undefined;
  /** Paths these groups do not see (`@Expose({ groups })` of other groups), beyond the model's hidden ones. */
  hidden: ReadonlySet<string>;
  /** The same, split once: `apply` runs for every document of a response. */
  hiddenPaths: readonly string[][];
  /** The field rules of a search by these groups: the paths they do not see are hidden, as unknown as a field that does not exist. */
  fields: SearchRules['fields'];
  /**
   * The field rules of a write by these groups: a path they do not see they cannot write either,
   * refused as a field that does not exist (`Unknown field`), on every body that is checked
   * against them (create, `PUT`, `PATCH`, bulk `PATCH`, import rows).
   */
  writes: WriteRules['fields'];
  /** Paths whose value a `@Transform` of these groups rewrites (dotted in nested classes). */
  transformed: readonly string[];
  /** The same, by the object they are properties of: what `apply` runs through class-transformer. */
  transforms: readonly TransformedObject[];
}

/** The transformed properties of one object of a document: the document itself, or a nested object typed with a class. */
interface TransformedObject {
  /** Its path (`''`: the document). */
  at: string;
  owner: Function;
  keys: string[];
}

/** A bound on the group sets remembered per model: groups come from the app, but may be many. */
const MAX_CACHED_VIEWS = 256;

/**
 * What class-transformer's decorators on a schema class do to its responses, per group set,
 * probed once per group set (see `probeClass`) and cached: applying a view to a document deletes
 * paths, as the repository does for hidden fields, instead of running `instanceToPlain` on it.
 * Only the properties a `@Transform` rewrites go through class-transformer, per document.
 *
 * `@Exclude()` is not here: what no group sees is a hidden field of the resource (`excludedPaths`).
 */
export class SerializationViews {
  private readonly cache = new Map<string, SerializationView>();
  /** The groups the class's decorators name, found the first time the documentation asks. */
  private groups?: string[];

  private constructor(
    readonly target: Function,
    private readonly schema: Schema,
    private readonly rules: FieldRules,
  ) {}

  /**
   * The views of `target`, or `undefined` when no group set sees it otherwise than the model's
   * field rules say and no `@Transform` applies: then its routes cost nothing extra per request.
   */
  static of(target: Function, schema: Schema, rules: FieldRules): SerializationViews | undefined {
    const views = new SerializationViews(target, schema, rules);
    const [none, every] = [views.view(undefined), views.view(EVERY_GROUP)];
    return none.hidden.size || none.transformed.length || every.transformed.length ? views : undefined;
  }

  /** Paths that only some groups see (`@Expose({ groups })`). */
  get groupOnly(): ReadonlySet<string> {
    return this.view(undefined).hidden;
  }

  /**
   * The groups that see a group-only path, each on its own (`['admin']`), for the documentation;
   * empty when the groups cannot be told.
   */
  visibleTo(path: string): string[] {
    this.groups ??= exposedGroups(this.target, this.schema, this.rules.readable);
    return this.groups.filter((group) => !isUnderAny(path, this.view([group]).hidden));
  }

  /** Paths a `@Transform()` rewrites, for some group set. */
  get transformed(): readonly string[] {
    return [...new Set([...this.view(undefined).transformed, ...this.view(EVERY_GROUP).transformed])];
  }

  /** The view of a request with these groups (none: `undefined` or `[]`). */
  view(groups: readonly string[] | undefined): SerializationView {
    const key = groups === EVERY_GROUP ? '*' : JSON.stringify([...new Set(groups ?? [])].sort());
    let view = this.cache.get(key);
    if (!view) {
      if (this.cache.size >= MAX_CACHED_VIEWS) this.cache.clear();
      view = this.createView(groups?.length ? (groups === EVERY_GROUP ? EVERY_GROUP : [...groups]) : undefined);
      this.cache.set(key, view);
    }
    return view;
  }

  /** Applies a view to a document the repository returned: its transforms, then its hidden paths. */
  apply(doc: Record<string, unknown>, view: SerializationView): void {
    for (const transform of view.transforms) {
      const target = transform.at ? nestedAccess(doc).get(transform.at) : doc;
      if (target && typeof target === 'object' && !Array.isArray(target)) runTransforms(target as Record<string, unknown>, transform, view.groups);
    }
    for (const path of view.hiddenPaths) deletePath(doc, path);
  }

  private createView(groups: readonly string[] | undefined): SerializationView {
    const { hidden, transformed, owners } = probeClass(this.target, this.schema, this.rules.readable, groups);
    const own = new Set(hidden);
    const fields: SearchRules['fields'] = own.size
      ? {
          readable: new Set([...this.rules.readable].filter((path) => !isUnderAny(path, own))),
          openPrefixes: this.rules.openPrefixes,
          hidden: new Set([...this.rules.hidden, ...own]),
          enums: this.rules.enums,
        }
      : this.rules;
    const writes: WriteRules['fields'] = own.size
      ? Object.assign({}, this.rules, { writable: new Set([...this.rules.writable].filter((path) => !isUnderAny(path, own))) })
      : this.rules;
    const transforms = new Map<string, TransformedObject>();
    for (const path of transformed) {
      const dot = path.lastIndexOf('.');
      const at = dot < 0 ? '' : path.slice(0, dot);
      if (!transforms.has(at)) transforms.set(at, { at, owner: owners.get(at)!, keys: [] });
      transforms.get(at)!.keys.push(path.slice(dot + 1));
    }
    return {
      groups: groups as string[] | undefined,
      hidden: own,
      hiddenPaths: hidden.map((path) => path.split('.')),
      fields,
      writes,
      transformed,
      transforms: [...transforms.values()],
    };
  }
}

/**
 * Paths of `target` that no group set sees (`@Exclude()`, or a class-level `@Exclude()` without
 * `@Expose()`): the resource treats them as hidden fields.
 */
export function excludedPaths(target: Function, schema: Schema, readable: Iterable<string>): string[] {
  return probeClass(target, schema, readable, EVERY_GROUP).hidden;
}

/**
 * Runs the `@Transform`s of `transform.owner` on `object`: class-transformer sees an instance whose
 * own properties are only the transformed ones, so it transforms nothing else, and whose prototype
 * holds the whole object, so a transform reading `obj.firstName` finds it.
 */
function runTransforms(object: Record<string, unknown>, transform: TransformedObject, groups: string[] | undefined): void {
  const keys = transform.keys.filter((key) => key in object);
  if (keys.length === 0) return;
  const whole = Object.assign(Object.create(transform.owner.prototype), object);
  const instance = Object.create(whole) as Record<string, unknown>;
  for (const key of keys) instance[key] = object[key];
  const plain = instanceToPlain(instance, groups ? { groups } : {});
  for (const key of keys) object[key] = plain[key];
}
