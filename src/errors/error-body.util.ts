import { HttpStatus } from '@nestjs/common';
import type { ErrorCode } from './error-codes.js';

/**
 * One entry of an error's `details`: which input path failed and why.
 *
 * @publicApi
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * The one error shape of every generated route.
 *
 * @publicApi
 */
export interface ErrorResponseBody {
  statusCode: number;
  error: string;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

/** `{ statusCode, error, code, message, details? }`, `error` being the status's name (`Bad Request`). */
export function errorBody(code: ErrorCode, statusCode: number, message: string, details?: ErrorDetail[]): ErrorResponseBody {
  const error = (HttpStatus[statusCode] ?? 'Error')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_match: string, sep: string, letter: string) => (sep ? ' ' : '') + letter.toUpperCase());
  return { statusCode, error, code, message, ...(details?.length ? { details } : {}) };
}
