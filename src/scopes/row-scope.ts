import type { Type } from '@nestjs/common';
import { isValidObjectId } from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { allOf } from '../utils/all-of.util.js';
import type { RowScope, RowScopeFunction, ScopeContext } from '../interfaces/row-scope.interface.js';

/** What one request's scope of one resource resolved to. */
interface ResolvedScope {
  /** The filter of its reads; `undefined`: every document. */
  read?: Record<string, unknown>;
  /** The filter of its writes (the read filter and the write one); `undefined`: every document. */
  write?: Record<string, unknown>;
  /** Whether the write filter names fewer documents than the read one may (a `write` of its own). */
  narrower: boolean;
  /** The fields a create sets and an update may not change (the equality conditions of both filters). */
  stamps: ReadonlyMap<string, unknown>;
  /** `false` somewhere: no document may be created. */
  none: boolean;
}

/** A filter no document matches (a scope of `false`). */
const NO_DOCUMENT = Object.freeze({ _id: { $in: [] } });

const UNSCOPED: ResolvedScope = Object.freeze({ narrower: false, stamps: new Map(), none: false });

/**
 * The row scope of one resource, resolved once per request (the request of the call it is handed)
 * and remembered for it: the filters the repository ANDs into its queries. A call without a
 * request (your own code outside one) is not scoped.
 */
export class RowScopes {
  private readonly resolved = new WeakMap<object, ResolvedScope>();
  private readonly scope: RowScope;

  constructor(
    private readonly resource: string,
    scope: RowScope | RowScopeFunction,
  ) {
    this.scope = typeof scope === 'function' ? { read: scope } : scope;
  }

  /** Whether a `scope` option names a class (a provider to inject), not a function. */
  static isClass(scope: unknown): scope is Type<RowScope> {
    return typeof scope === 'function' && typeof (scope as { prototype?: { read?: unknown } }).prototype?.read === 'function';
  }

  /** The read filter of the call's request, if it is scoped. */
  read(call: CallContext): Record<string, unknown> | undefined {
    return this.of(call).read;
  }

  /** The write filter of the call's request (read and write), if it is scoped. */
  write(call: CallContext): Record<string, unknown> | undefined {
    return this.of(call).write;
  }

  /** Whether the request's write filter may exclude documents its read filter includes. */
  writesFewer(call: CallContext): boolean {
    return this.of(call).narrower;
  }

  /**
   * Sets the scope's equality fields that `values` (a create's data) leaves out; a 403
   * `MR_OUT_OF_SCOPE` where it sets one to another value, or the request may create nothing.
   */
  stamp(values: Record<string, unknown>, call: CallContext): void {
    const scope = this.of(call);
    if (scope.none) throw outOfScope(`No ${this.resource} may be created by this request: its row scope reaches no document`, undefined);
    for (const [field, value] of scope.stamps) {
      if (values[field] === undefined || values[field] === null) values[field] = value;
      else if (!sameValue(values[field], value)) throw outOfScope(`${this.resource}.${field} is set by the request's row scope: send its value or none`, field);
    }
  }

  /** A 403 `MR_OUT_OF_SCOPE` where an update's `$set` or `$unset` changes one of the scope's equality fields. */
  checkChanges(set: Record<string, unknown> | undefined, unset: Record<string, unknown> | undefined, call: CallContext): void {
    const { stamps } = this.of(call);
    if (stamps.size === 0) return;
    for (const [field, value] of stamps) {
      const changed = (unset && Object.hasOwn(unset, field)) || (set && Object.hasOwn(set, field) && set[field] !== undefined && !sameValue(set[field], value));
      if (changed) throw outOfScope(`${this.resource}.${field} is set by the request's row scope: it cannot be changed`, field);
    }
  }

  private of({ request }: CallContext): ResolvedScope {
    if (!request) return UNSCOPED;
    let resolved = this.resolved.get(request);
    if (!resolved) {
      resolved = this.resolve(request);
      this.resolved.set(request, resolved);
    }
    return resolved;
  }

  private resolve(request: object): ResolvedScope {
    const context: ScopeContext = { request, resource: this.resource };
    const read = checked(this.scope.read(context), this.resource, 'read');
    const own = this.scope.write ? checked(this.scope.write(context), this.resource, 'write') : read;
    const write = this.scope.write ? allOf(read, own) : read;
    const none = read === NO_DOCUMENT || own === NO_DOCUMENT;
    const stamps = new Map([...equalities(read), ...equalities(own)]);
    return { narrower: this.scope.write !== undefined && own !== undefined, stamps, none, ...(read && { read }), ...(write && { write }) };
  }
}

/** What a scope's filter means: `undefined` for every document, `NO_DOCUMENT` for none; an Error (a bug of the app) for anything but a filter. */
function checked(filter: unknown, resource: string, which: string): Record<string, unknown> | undefined {
  if (filter === false) return NO_DOCUMENT;
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== 'object' || Array.isArray(filter) || typeof (filter as { then?: unknown }).then === 'function') {
    throw new Error(`The row scope of ${resource} (${which}) must answer a filter object, false, or nothing, at once (not a promise: do the I/O in a guard)`);
  }
  return Object.keys(filter).length ? (filter as Record<string, unknown>) : undefined;
}

/** The top-level fields a filter holds to one value (`{ tenant: 'a' }`, `{ tenant: { $eq: 'a' } }`). */
function equalities(filter: Record<string, unknown> | undefined): Array<[string, unknown]> {
  if (!filter) return [];
  const found: Array<[string, unknown]> = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$') || field.includes('.')) continue;
    const value = isOperatorObject(condition) ? (Object.keys(condition as object).length === 1 ? (condition as { $eq?: unknown }).$eq : undefined) : condition;
    if (isLiteral(value)) found.push([field, value]);
  }
  return found;
}

function isOperatorObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !isValidObjectId(value) &&
    !(value instanceof Date) &&
    Object.keys(value).some((key) => key.startsWith('$'))
  );
}

function isLiteral(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value instanceof Date ||
    (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId')
  );
}

/** Whether a written value is the scope's (an ObjectId and its hex text are the same value; a Date and its time too). */
function sameValue(written: unknown, scoped: unknown): boolean {
  if (scoped instanceof Date)
    return written instanceof Date ? written.getTime() === scoped.getTime() : new Date(String(written)).getTime() === scoped.getTime();
  return String(written) === String(scoped);
}

function outOfScope(message: string, field: string | undefined): ModelRoutesException {
  return new ModelRoutesException('MR_OUT_OF_SCOPE', message, field ? [{ path: field, message: 'set by the scope' }] : undefined);
}

/** The read filter of each model that has one (a row scope, soft delete), by model: what a write's reference check reads of its targets. */
const readFiltersOfModels = new WeakMap<object, (call: CallContext) => Record<string, unknown> | undefined>();

/** Records how to read the filter of a model's documents that a call may reach, for the checks of the references that name it. */
export function registerReadFilter(model: object, filter: (call: CallContext) => Record<string, unknown> | undefined): void {
  readFiltersOfModels.set(model, filter);
}

/** The filter of a model's documents the call may reach (its row scope, its living documents), if it has one. */
export function readScopeOf(model: object, call: CallContext): Record<string, unknown> | undefined {
  return readFiltersOfModels.get(model)?.(call);
}
