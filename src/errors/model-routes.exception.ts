import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** One entry of an error's `details`: which input path failed and why. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * A failure a client caused or should know about. Thrown by the query parser, the
 * repository and the generated handlers; turned into the one error shape by
 * `ModelRoutesExceptionFilter`. Knows no HTTP framework: the status comes from the code.
 */
export class ModelRoutesException extends Error {
  override readonly name = 'ModelRoutesException';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
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
