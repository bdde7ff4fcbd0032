// The public API. Everything else under src/ is internal; test/unit/package/exports.spec.ts pins this list.

// Declaring resources and registering the module
export { GeneratedResource } from './decorators/generated-resource.decorator.js';
export type { DtoOption, GeneratedResourceOptions, HistoryOptions } from './interfaces/generated-resource-options.interface.js';
export { ModelRoutesModule, type ModelRoutesModuleAsyncOptions } from './model-routes.module.js';
export type {
  DiscriminatorRegistration,
  ModelRoutesExtras,
  ModelRoutesModuleOptions,
  ModelRoutesSettings,
  ModelRoutesSettingsFactory,
  ResourceRegistration,
} from './interfaces/model-routes-options.interface.js';
export type {
  ElementRoutesOptions,
  FileRoutesOptions,
  ReferenceRoutesOptions,
  ResourceRoutesOptions,
  RouteOptions,
  RouteVersion,
} from './interfaces/route-options.interface.js';
export type { SearchOptions } from './interfaces/search-options.interface.js';
export type { OnDelete } from './interfaces/on-delete.interface.js';
export { DEFAULT_SEARCH_OPTIONS } from './query/search-defaults.js';
export type { CountPolicy } from './metadata/count-policies.js';

// File fields (GridFS)
export { FileProp } from './files/file-prop.decorator.js';
export { FileRef, FileRefSchema } from './files/file-ref.js';
export type { FilePropOptions, ImageFormat, VariantOptions } from './files/file-options.js';
export type { ImageOptions } from './files/image-work.js';
export type { AdmissionOptions } from './concurrency/admission.js';

// Extending the generated routes
export { GeneratedController, type GeneratedResourceController } from './controllers/generated-controller.js';
export { InjectModelRepository } from './decorators/inject-model-repository.decorator.js';
export { getModelRepositoryToken } from './repository/model-repository.token.js';
export type { WriteOptions } from './concurrency/conditional-write.js';
export { ModelRepository, type ExportPages, type PlainDocument } from './repository/model-repository.js';
export type { AfterWriteContext, BeforeWriteContext, ResourceHooks, WriteData, WriteEvent, WriteOperation } from './hooks/write-hooks.js';
export type { RowScope, RowScopeFunction, ScopeContext, ScopeFilter } from './interfaces/row-scope.interface.js';
export type { HistoryEntry, HistoryPage } from './rules/document-history.js';
export { runWithRequest } from './call/route-call.js';
export type { CallContext } from './call/call-context.js';
export { RowScopeInterceptor } from './controllers/row-scope.interceptor.js';
export type { ExportFormat } from './export/export-formats.js';
export type { ImportBatch, ImportMode, ImportReport, ImportRow, ImportRowError } from './interfaces/import.interface.js';
export type { BulkItem, BulkOptions, BulkReport } from './interfaces/bulk.interface.js';
export { etagOf } from './concurrency/entity-tag.js';
export type { SearchResult } from './interfaces/search-result.interface.js';
export type { SearchParams } from './query/search-params.interface.js';
export { parseSearchBody, parseSearchQueryString } from './query/search-params.parser.js';
export { sanitizeFilter } from './query/filter.sanitizer.js';
export { checkWriteBody } from './write/write-body.validator.js';

// Validation
export { GeneratedDto, type DtoKind } from './definitions/generated-dto.js';

// Liveness and readiness routes (opt-in)
export { ModelRoutesHealthModule, type ModelRoutesHealthModuleAsyncOptions } from './health/model-routes-health.module.js';
export type {
  HealthBody,
  ModelRoutesHealthExtras,
  ModelRoutesHealthOptions,
  ModelRoutesHealthSettings,
  ModelRoutesHealthSettingsFactory,
  ReadyBody,
} from './health/health-options.interface.js';

// Errors
export { ModelRoutesException } from './errors/model-routes.exception.js';
export type { ErrorDetail, ErrorResponseBody } from './errors/error-body.util.js';
export { ERROR_CODES, type ErrorCode } from './errors/error-codes.js';
export { ModelRoutesExceptionFilter } from './filters/model-routes-exception.filter.js';
export { CONFIG_ERROR_CODES, ModelRoutesConfigError, type ConfigErrorCode } from './errors/model-routes-config.error.js';

// The route table
export { formatRouteTable, ModelRoutesExplorer, type ModelRoutesRegistration } from './explorer/model-routes.explorer.js';
export type { RouteAction, RouteDefinition, RouteMethod } from './interfaces/route-definition.interface.js';
