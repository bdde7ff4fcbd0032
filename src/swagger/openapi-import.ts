import { ApiQuery } from '@nestjs/swagger';
import { IMPORT_FORMATS, IMPORT_MEDIA_TYPES } from '../import/import-request.js';
import type { OpenApiSchema } from './openapi-schemas.js';

/**
 * The body of an import: a CSV file with a header row, NDJSON (one JSON object a line),
 * a JSON array of objects, or an XLSX workbook (its first sheet read as CSV is).
 */
export function importRequestBody(): object {
  const schemas = {
    csv: { type: 'string' },
    ndjson: { type: 'string' },
    json: { type: 'array', items: { type: 'object' } },
    xlsx: { type: 'string', format: 'binary' },
  };
  return {
    required: true,
    content: Object.fromEntries(Object.entries(IMPORT_MEDIA_TYPES).map(([type, format]) => [type, { schema: schemas[format] }])),
  };
}

/** What `POST /<plural>/import` answers (`ImportReport`). */
export const IMPORT_REPORT_SCHEMA: OpenApiSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['mode', 'dryRun', 'rows', 'created', 'updated', 'unchanged', 'refused', 'ignored', 'errors'],
  properties: {
    mode: { type: 'string', enum: ['create', 'upsert'] },
    dryRun: { type: 'boolean', description: 'true: nothing was written; the counts say what the import would do' },
    rows: { type: 'integer', minimum: 0, description: 'Rows of the file (the CSV header not counted)' },
    created: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    unchanged: { type: 'integer', minimum: 0, description: 'Rows of an upsert whose document already holds every value they give: nothing written' },
    refused: { type: 'integer', minimum: 0 },
    ignored: {
      type: 'array',
      items: { type: 'string' },
      description: 'Columns (keys) no write may set that an export writes (version key, timestamps, readonly fields, virtuals): skipped',
    },
    errors: {
      type: 'array',
      description: 'One per refused row: its number (1-based) and the error that write would answer alone',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['row', 'code', 'message'],
        properties: {
          row: { type: 'integer', minimum: 1 },
          code: { type: 'string' },
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

/** The query parameters of an import. */
export function importParameters(): MethodDecorator[] {
  return [
    ApiQuery({
      name: 'mode',
      required: false,
      schema: { type: 'string', enum: ['create', 'upsert'], default: 'create' },
      description: 'upsert: a row whose id field names a document updates it; the others are created.',
    }),
    ApiQuery({
      name: 'dryRun',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
      description: 'true: check every row, write nothing, answer the same report.',
    }),
    ApiQuery({
      name: 'format',
      required: false,
      schema: { type: 'string', enum: [...IMPORT_FORMATS] },
      description: "The file's format; without it, the Content-Type's.",
    }),
  ];
}
