import type { CanActivate, NestInterceptor, PipeTransform, Type } from '@nestjs/common';

/**
 * How one generated route is served: `false` removes it (a 404, and absent from OpenAPI),
 * `true` keeps it as configured in `forRoot`, an object configures it. Guards, interceptors,
 * pipes and decorators are applied exactly as if written on a hand-made handler.
 *
 * @example
 * ```ts
 * { delete: { guards: [ApiKeyGuard] }, update: false, search: { decorators: [Header('Cache-Control', 'max-age=60')] } }
 * ```
 */
export type RouteOptions =
  | boolean
  | {
      /** Default true. */
      enabled?: boolean;
      guards?: Array<Type<CanActivate> | CanActivate>;
      interceptors?: Array<Type<NestInterceptor> | NestInterceptor>;
      pipes?: Array<Type<PipeTransform> | PipeTransform>;
      /** Any method decorators: `UseGuards(...)`, `Header(...)`, `applyDecorators(...)`, Swagger's... */
      decorators?: MethodDecorator[];
    };

/** The routes of a resource, by name. `search` covers both `GET` and `POST /<plural>`. */
export interface ResourceRoutesOptions {
  get?: RouteOptions;
  create?: RouteOptions;
  update?: RouteOptions;
  delete?: RouteOptions;
  search?: RouteOptions;
}

/**
 * The routes of one reference field: `forward` is `GET /company/:company_id/owner`, `reverse`
 * covers `GET` and `POST /user/:user_id/companies/owner`, and for an array of references
 * `relationship` covers adding and removing one (`POST|DELETE /company/:company_id/owners/:user_id`).
 */
export interface ReferenceRoutesOptions {
  forward?: RouteOptions;
  reverse?: RouteOptions;
  /** Arrays of references only: `POST` and `DELETE /company/:company_id/owners/:user_id`. */
  relationship?: RouteOptions;
  /**
   * Whether a write must name an existing document in this field (every element of an array of
   * references): a write whose reference names none is a 400 `MR_REFERENCE_NOT_FOUND`. It costs
   * one query per written reference field. Default true.
   */
  checkExists?: boolean;
}

export const RESOURCE_ROUTE_NAMES = ['get', 'create', 'update', 'delete', 'search'] as const;
export const REFERENCE_ROUTE_NAMES = ['forward', 'reverse', 'relationship'] as const;
/** Keys of `ReferenceRoutesOptions` that are settings of the field, not routes. */
export const REFERENCE_SETTING_NAMES = ['checkExists'] as const;
