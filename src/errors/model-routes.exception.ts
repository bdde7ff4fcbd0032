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
 *
 * @publicApi
 */
export class ModelRoutesException extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Headers the response carries (the current `ETag` of a 412); `ModelRoutesExceptionFilter` sets them. */
    readonly headers?: Readonly<Record<string, string>>,
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

  /**
   * 412: `If-Match` names no version the document has, or (`failed: 'If-None-Match'`) `If-None-Match`
   * names the one it has (`*`: any); `current` is its tag now.
   */
  static preconditionFailed(
    resource: string,
    id: string,
    current: string | undefined,
    failed: 'If-Match' | 'If-None-Match' = 'If-Match',
  ): ModelRoutesException {
    return new ModelRoutesException(
      'MR_PRECONDITION_FAILED',
      failed === 'If-Match'
        ? `${resource} '${id}' has changed since the ETag in If-Match was read: nothing was written`
        : `${resource} '${id}' exists at a version that If-None-Match names: nothing was written`,
      undefined,
      current ? { ETag: current } : undefined,
    );
  }

  static invalidBody(path: string, message: string): ModelRoutesException {
    return new ModelRoutesException('MR_INVALID_BODY', message, [{ path, message }]);
  }

  /** A value of a body that its field refuses: `meta must be an object`. */
  static validationFailed(path: string, message: string): ModelRoutesException {
    return new ModelRoutesException('MR_VALIDATION_FAILED', `Validation failed for ${path}: ${message}`, [{ path, message }]);
  }
}

/**
 * A conditional `GET` whose `If-None-Match` names the document's current tag: answered `304 Not
 * Modified` with that `ETag` and no body, by `ModelRoutesExceptionFilter` (how a Nest handler
 * answers a status other than its route's).
 */
export class NotModifiedException extends HttpException {
  constructor(readonly etag: string) {
    super('Not Modified', 304);
  }
}
