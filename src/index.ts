export { GeneratedResource } from './decorators/generated-resource.decorator.js';
export { InjectModelRepository } from './decorators/inject-model-repository.decorator.js';
export { ERROR_CODES, type ErrorCode } from './errors/error-codes.js';
export { mapError, type ErrorResponseBody } from './errors/error-response.mapper.js';
export { CONFIG_ERROR_CODES, ModelRoutesConfigError, type ConfigErrorCode } from './errors/model-routes-config.error.js';
export { ModelRoutesExceptionFilter } from './errors/model-routes-exception.filter.js';
export { ModelRoutesException, type ErrorDetail } from './errors/model-routes.exception.js';
export type { GeneratedResourceOptions } from './interfaces/generated-resource-options.interface.js';
export type {
  ModelRoutesExtras,
  ModelRoutesModuleOptions,
  ModelRoutesSettings,
  ModelRoutesSettingsFactory,
  ResourceRegistration,
} from './interfaces/model-routes-options.interface.js';
export type { ReferenceRoutesOptions, ResourceRoutesOptions, RouteOptions } from './interfaces/route-options.interface.js';
export { GeneratedController, type GeneratedResourceController } from './controllers/generated-controller.js';
export type { FieldRules, ReferenceDefinition, ResourceDefinition } from './interfaces/resource-definition.interface.js';
export type { RouteAction, RouteDefinition, RouteMethod } from './interfaces/route-definition.interface.js';
export type { SearchOptions } from './interfaces/search-options.interface.js';
export { DEFAULT_SEARCH_OPTIONS } from './metadata/search-defaults.js';
export type { SearchResult } from './interfaces/search-result.interface.js';
export {
  MODEL_ROUTES_METADATA,
  MODEL_ROUTES_TABLE,
  ModelRoutesModule,
  type ModelRoutesMetadata,
  formatRouteTable,
  type ModelRoutesModuleAsyncOptions,
} from './model-routes.module.js';
export { MODEL_ROUTES_SETTINGS } from './model-routes.module-definition.js';
export type { SearchParams, SearchRules } from './query/search-params.interface.js';
export { parseSearchBody, parseSearchQueryString } from './query/search-params.parser.js';
export { sanitizeFilter } from './query/filter.sanitizer.js';
export { ALLOWED_OPERATORS, QUERY_OPERATORS } from './query/query-operators.js';
export { checkWriteBody, MAX_ID_LENGTH, type WriteRules } from './write/write-body.validator.js';
export { ModelRepository, type PlainDocument } from './repository/model-repository.js';
export { getModelRepositoryToken } from './repository/model-repository.providers.js';
