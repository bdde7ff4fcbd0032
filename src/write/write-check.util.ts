import type { Type } from '@nestjs/common';
import { validateDto } from '../dto/dto-validation.js';
import { checkWriteBody, type WriteRules } from './write-body.validator.js';

/** Bodies this module produced: checked already, so a second check (an override's `super` call) is skipped. */
const checkedBodies = new WeakSet<object>();

/**
 * The whole check of a create or update body, in the order a client's mistakes are best told:
 * first which fields it may write at all (`checkWriteBody`: `MR_INVALID_BODY` for unknown, hidden
 * and protected fields), then their values with the route's DTO class (`MR_VALIDATION_FAILED`, one
 * detail per failed constraint). Returns the data to store, marked as checked: at once for the
 * library's own DTO classes, as a promise for a user's (whose rules may be asynchronous).
 */
export function checkWrite(body: unknown, rules: WriteRules, dto: Type | undefined): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (isCheckedWrite(body)) return body;
  const allowed = checkWriteBody(body, rules);
  const data = dto ? validateDto(dto, allowed) : allowed;
  return data instanceof Promise ? data.then(markChecked) : markChecked(data);
}

function markChecked(data: Record<string, unknown>): Record<string, unknown> {
  checkedBodies.add(data);
  return data;
}

/** Whether `body` is the result of `checkWrite` (and so needs no other check). */
export function isCheckedWrite(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && checkedBodies.has(body);
}
