import { Controller, Get, Header, Headers, Inject, Param, Req, Res, UseFilters, UseGuards, VERSION_NEUTRAL, type Type } from '@nestjs/common';
import { setHeader, type HttpResponse } from '../call/http-response.util.js';
import { ModelRoutesExceptionFilter } from '../filters/model-routes-exception.filter.js';
import type { BackOfficeMetadata } from './app/metadata.js';
import type { ResolvedBackOfficeOptions } from './back-office-options.interface.js';
import { PAGE_HEADERS } from './back-office-page.js';
import { type BackOfficeService } from './back-office.service.js';
import { BACK_OFFICE } from '../constants.js';

/**
 * `@ApiExcludeController()`'s metadata, set without importing `@nestjs/swagger` (an optional
 * peer): the back office's routes are not part of the app's API, and stay out of its OpenAPI document.
 */
const SWAGGER_EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';

/**
 * A fresh controller class per registration: its path and the guards of its metadata route are
 * route metadata on its own class and handler functions, so two registrations never share them.
 * Its failures (an unknown file, a guard's refusal) have the library's error shape.
 */
export function createBackOfficeController({ path, guards }: Pick<ResolvedBackOfficeOptions, 'path' | 'guards'>): Type {
  // Served whatever the versioning (no `/v1` in its URL, whatever the app's `defaultVersion`).
  @Controller({ path, version: VERSION_NEUTRAL })
  @UseFilters(ModelRoutesExceptionFilter)
  class BackOfficeController {
    constructor(@Inject(BACK_OFFICE) private readonly backOffice: BackOfficeService) {}

    /** The page (at `<path>` and `<path>/`): an empty body, the app's stylesheet and scripts. */
    @Get()
    page(@Res({ passthrough: true }) response: HttpResponse): string {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) setHeader(response, name, value);
      return this.backOffice.page();
    }

    /** The app's scripts and stylesheet, revalidated by their `ETag` on every load. */
    @Get('assets/:file')
    asset(@Param('file') file: string, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) response: HttpResponse): string {
      setHeader(response, 'Cache-Control', 'no-cache');
      setHeader(response, 'X-Content-Type-Options', 'nosniff');
      const asset = this.backOffice.asset(file, ifNoneMatch);
      setHeader(response, 'Content-Type', asset.contentType);
      setHeader(response, 'ETag', asset.etag);
      return asset.body;
    }

    /** The resources, their enabled routes and their fields, for the page. */
    @Get('metadata')
    @Header('Cache-Control', 'no-store')
    metadata(@Req() request: unknown): BackOfficeMetadata {
      return this.backOffice.metadata(request);
    }
  }
  if (guards.length)
    UseGuards(...guards)(BackOfficeController.prototype, 'metadata', Object.getOwnPropertyDescriptor(BackOfficeController.prototype, 'metadata')!);
  Reflect.defineMetadata(SWAGGER_EXCLUDE_CONTROLLER, [true], BackOfficeController);
  return BackOfficeController;
}
