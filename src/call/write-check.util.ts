import type { Type } from '@nestjs/common';
import { currentCall } from './route-call.js';
import { validateDto } from '../dto/dto-validation.js';
import { checkWriteBody, type WriteRules } from '../write/write-body.validator.js';

/**
 * The whole check of a create or update body, in the order a client's mistakes are best told:
 * first which fields it may write at all (`checkWriteBody`: `MR_INVALID_BODY` for unknown, hidden
 * and protected fields), then their values with the route's DTO class (`MR_VALIDATION_FAILED`, one
 * detail per failed constraint). Returns the data to store: at once for the library's own DTO
 * classes, as a promise for a user's (whose rules may be asynchronous). The body the request's
 * call checked already (an override's `super` call, a generated `patch` calling `update`) is
 * returned as it is.
 */
export function checkWrite(body: unknown, rules: WriteRules, dto: Type | undefined): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (currentCall()?.isCheckedWrite(body)) return body as Record<string, unknown>;
  const allowed = checkWriteBody(body, rules);
  return dto ? validateDto(dto, allowed) : allowed;
}
