import type { Type } from '@nestjs/common';
import type { RouteCall } from './route-call.js';
import type { ErrorDetail } from '../errors/error-body.util.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { validateDto } from '../dto/dto-validation.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import { inspectWriteBody, valueFailures, type WriteRules } from '../write/write-body.validator.js';

/**
 * The whole check of a create or update body, in the order a client's mistakes are best told:
 * first which fields it may write at all (`checkWriteBody`: `MR_INVALID_BODY` for unknown, hidden
 * and protected fields), then their values with the route's DTO class (`MR_VALIDATION_FAILED`, one
 * detail per failed constraint). Returns the data to store: at once for the library's own DTO
 * classes, as a promise for a user's (whose rules may be asynchronous). The body the request's
 * call checked already (an override's `super` call, a generated `patch` calling `update`) is
 * returned as it is. Given the generated route's call, the rules are those of the request's groups
 * (`writeRulesOf`): a field they do not see is an unknown field, on a route's body and on each row
 * of an import alike.
 */
export function checkWrite(
  body: unknown,
  rules: WriteRules & ViewedRules,
  dto: Type | undefined,
  call?: Pick<RouteCall, 'groups' | 'isCheckedWrite'>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (call?.isCheckedWrite(body)) return body as Record<string, unknown>;
  return checkBodyValues(body, call ? writeRulesOf(rules, call.groups) : rules, dto);
}

/** Rules that may carry the serialization views of their model (a resource's definition does). */
export interface ViewedRules {
  serialization?: SerializationViews;
}

/**
 * The rules a write by a request of these groups is checked against: the model's, less the paths
 * the groups do not see (`@Expose({ groups })` of other groups), which it may not write either and
 * which are refused in the words a field that does not exist gets (no oracle). The rules as given
 * where the model has no group-only field.
 */
export function writeRulesOf(rules: WriteRules & ViewedRules, groups: readonly string[] | undefined): WriteRules {
  const view = rules.serialization?.view(groups);
  if (!view?.hidden.size) return rules;
  return { fields: view.writes, ...(rules.idField !== undefined && { idField: rules.idField }) };
}

/**
 * `checkWriteBody`, then the DTO class; values of the wrong shape found by the first (a string for
 * a nested object) do not hide the class's findings on the other fields: one 400 tells them all,
 * the first's detail standing for everything the class says at or below its path.
 */
export function checkBodyValues(body: unknown, rules: WriteRules, dto: Type | undefined): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { data, failures } = inspectWriteBody(body, rules);
  if (!dto) {
    if (failures.length > 0) throw valueFailures(failures);
    return data;
  }
  if (failures.length === 0) return validateDto(dto, data);
  const all = (found: readonly ErrorDetail[]) => valueFailures([...failures, ...beside(found, failures)]);
  const fail = (error: unknown): never => {
    throw error instanceof ModelRoutesException && error.code === 'MR_VALIDATION_FAILED' ? all(error.details ?? []) : error;
  };
  let checked: ReturnType<typeof validateDto>;
  try {
    checked = validateDto(dto, data);
  } catch (error) {
    return fail(error);
  }
  // The class found nothing more: the shape's failures alone.
  if (checked instanceof Promise) return checked.then(() => Promise.reject(all([])), fail);
  throw all([]);
}

/** The details not at or below the path of one of `failures`. */
function beside(details: readonly ErrorDetail[], failures: readonly ErrorDetail[]): ErrorDetail[] {
  return details.filter((detail) => !failures.some((failure) => detail.path === failure.path || detail.path.startsWith(`${failure.path}.`)));
}
