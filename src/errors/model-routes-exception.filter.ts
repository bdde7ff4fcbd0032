import { Catch, Inject, Logger, Optional, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { MODEL_ROUTES_TABLE } from '../constants.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { AllowedMethods } from './allowed-methods.util.js';
import { mapError, methodNotAllowed } from './error-response.mapper.js';

interface RequestLike {
  method?: string;
  originalUrl?: string;
  url?: string;
}

/**
 * Gives every failure of a generated route the one error shape
 * `{ statusCode, error, code, message, details? }`. Unexpected errors are logged here,
 * with their stack, and reach the client only as a generic 500. A request for a path of the
 * route table with a method it does not serve is a 405 with an `Allow` header.
 */
@Catch()
export class ModelRoutesExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ModelRoutes');
  private allowed?: AllowedMethods;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Optional() @Inject(MODEL_ROUTES_TABLE) private readonly table?: RouteDefinition[],
    @Optional() private readonly config?: ApplicationConfig,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    let { body, unexpected } = mapError(exception);
    const http = host.switchToHttp();
    const response = http.getResponse();
    const { httpAdapter } = this.adapterHost;
    if (body.code === 'MR_ROUTE_NOT_FOUND' && this.table) {
      const request = http.getRequest<RequestLike>();
      const methods = this.allowedMethods().of((request.originalUrl ?? request.url ?? '').split('?')[0]);
      if (methods.length) {
        ({ body, unexpected } = methodNotAllowed(request.method ?? '', methods));
        httpAdapter.setHeader(response, 'Allow', methods.join(', '));
      }
    }
    if (unexpected) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    httpAdapter.reply(response, body, body.statusCode);
  }

  private allowedMethods(): AllowedMethods {
    // Built on first use: the global prefix is set after the module is defined.
    return (this.allowed ??= new AllowedMethods(this.table ?? [], this.config?.getGlobalPrefix() ?? ''));
  }
}
