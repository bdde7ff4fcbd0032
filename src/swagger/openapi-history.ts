import { ApiQuery, ApiResponse } from '@nestjs/swagger';
import { HISTORY_MAX_LIMIT } from '../query/history-query.js';
import type { OpenApiSchema } from './openapi-schemas.js';

/** What `GET /<path>/:id/history` answers (`HistoryPage`), its documents of `document`'s schema. */
export function historyPageSchema(document: object): OpenApiSchema {
  const count = { type: 'integer', minimum: 0 };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['result', 'status'],
    properties: {
      result: {
        type: 'array',
        description: 'The versions, the latest first',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['version', 'at', 'operation', 'document'],
          properties: {
            version: { ...count, description: "The document's version after the write (a delete's: after the last)" },
            at: { type: 'string', format: 'date-time' },
            by: { type: 'string', description: "Who wrote (the resource's history actor), if known" },
            route: { type: 'string', description: 'The route that wrote (PATCH /company/:company_id), if a generated route did' },
            operation: { type: 'string', description: 'What the write did, as lifecycle hooks are told (update, addReference, delete, revert...)' },
            changed: { type: 'array', items: { type: 'string' }, description: 'The paths it changed' },
            document,
          },
        },
      },
      status: {
        type: 'object',
        additionalProperties: false,
        required: ['count', 'limit', 'skip'],
        properties: { count: { ...count, description: 'The versions kept' }, limit: count, skip: count },
      },
    },
  };
}

/** A history's page parameters and its answer. */
export function historyResponses(document: object): MethodDecorator[] {
  return [
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: HISTORY_MAX_LIMIT, default: 20 } }),
    ApiQuery({ name: 'skip', required: false, schema: { type: 'integer', minimum: 0, default: 0 } }),
    ApiResponse({ status: 200, description: 'The versions of the document, the latest first', schema: historyPageSchema(document) as never }),
  ];
}

/** The `version` a restore of a history's version names. */
export function historyVersionParameter(): MethodDecorator[] {
  return [
    ApiQuery({ name: 'version', required: true, schema: { type: 'integer', minimum: 0 }, description: 'The version to write back, from GET .../history' }),
  ];
}
