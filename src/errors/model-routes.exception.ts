import { HttpException } from '@nestjs/common';
import { errorBody, type ErrorDetail } from './error-body.util.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export type { ErrorDetail };

/**
 * A failure a client caused or should know about, with a stable `code`. Thrown by the query
 * parser, the repository and the generated handlers. An `HttpException` whose response is the one
 * error shape, so it answers the same in your own controllers, interceptors and filters, with or
 * without `ModelRoutesExceptionFilter`; the status comes from the code.
 *
 * @example throw new ModelRoutesException('MR_VALIDATION_FAILED', 'Validation failed for password', [{ path: 'password', message: 'too short' }]);
 */
export class ModelRoutesException extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(errorBody(code, ERROR_CODES[code].status, message, details), ERROR_CODES[code].status);
  }


  static invalidQuery(path: string, message: string): ModelRoutesException {
    return new ModelRoutesException('MR_INVALID_QUERY', message, [{ path, message }]);
  }

  /** `Company '6b02…' not found`. */
  static notFound(resource: string, id: string): ModelRoutesException {
    return new ModelRoutesException('MR_NOT_FOUND', `${resource} '${id}' not found`);
  }

  static invalidBody(path: string, message: string): ModelRoutesException {
    return new ModelRoutesException('MR_INVALID_BODY', message, [{ path, message }]);
  }

  /** A value of a body that its field refuses: `'meta' must be an object`. */
  static validationFailed(path: string, message: string): ModelRoutesException {
    return new ModelRoutesException('MR_VALIDATION_FAILED', `Validation failed for ${path}: ${message}`, [{ path, message }]);
  }
}
