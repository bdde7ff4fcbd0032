import { ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { OpenApiSchema } from './openapi-schemas.js';

/** What `PATCH /<plural>` (`updated`) or `DELETE /<plural>` (`deleted`) answers (`BulkReport`). */
export function bulkReportSchema(outcome: 'updated' | 'deleted'): OpenApiSchema {
  const count = { type: 'integer', minimum: 0 };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['dryRun', 'matched', outcome, 'skipped', 'refused', 'items'],
    properties: {
      dryRun: { type: 'boolean', description: 'true: the matches were counted and listed, nothing was written' },
      matched: count,
      [outcome]: count,
      skipped: { ...count, description: 'Documents that no longer matched (or were gone) when their turn came: not written' },
      refused: { ...count, description: 'Documents whose own write was refused: their items say why' },
      items: {
        type: 'array',
        description: 'Every match, in _id order, and what became of it',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'result'],
          properties: {
            id: { type: 'string', description: 'The identifier (the id field) of the document' },
            result: { type: 'string', enum: [outcome, 'skipped', 'refused', 'matched'] },
            code: { type: 'string', description: 'A refused item: the code its write alone would answer' },
            message: { type: 'string' },
            details: {
              type: 'array',
              items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
}

/** A bulk change's `dryRun` parameter and its report. */
export function bulkResponses(outcome: 'updated' | 'deleted'): MethodDecorator[] {
  return [
    ApiQuery({
      name: 'dryRun',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
      description: 'true: count and list the matches, write nothing.',
    }),
    ApiResponse({ status: 200, description: 'The report: every match and what became of it', schema: bulkReportSchema(outcome) as never }),
  ];
}
