import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { registerFastifyUploads } from '../files/fastify-uploads.js';

/**
 * Lets the import routes read CSV, NDJSON and XLSX as a stream on Fastify, which refuses a content type
 * it has no parser for with a 415: the upload routes' catch-all parser, which leaves the body of a
 * route marked with `markUploadRoute` unread. Provided by `forRoot` when a resource has an import route.
 */
@Injectable()
export class FastifyImports implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() === 'fastify') registerFastifyUploads(adapter.getInstance());
  }
}
