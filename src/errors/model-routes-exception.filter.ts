import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { mapError } from './error-response.mapper.js';

/**
 * Gives every failure of a generated route the one error shape
 * `{ statusCode, error, code, message, details? }`. Unexpected errors are logged here,
 * with their stack, and reach the client only as a generic 500.
 */
@Catch()
export class ModelRoutesExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ModelRoutes');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { body, unexpected } = mapError(exception);
    if (unexpected) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    const response = host.switchToHttp().getResponse();
    this.adapterHost.httpAdapter.reply(response, body, body.statusCode);
  }
}
