import { historyPage, historyVersion } from '../query/history-query.js';
import { callOf, serving } from './serving.util.js';
import type { HistoryPage } from '../rules/document-history.js';
import { Inject, type Type } from '@nestjs/common';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { ImportBatch, ImportReport } from '../interfaces/import.interface.js';
import type { BulkReport } from '../interfaces/bulk.interface.js';
import { bulkConditions, bulkDryRun, parseBulkQueryString } from '../query/bulk-query.js';
import { exportQuery, parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import { mergeData } from '../write/update-document.util.js';
import { checkWrite } from '../call/write-check.util.js';
import { checkCreate } from '../call/sub-type.util.js';
import type { ExportPages, ModelRepository, PlainDocument } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';

const GENERATED_BASE = Symbol.for('nestjs-model-routes.generated-controller');
/** Marks the methods of `GeneratedController(resource)`'s class: the library's own work (see `isLibraryWork`). */
const LIBRARY_WORK = Symbol('nestjs-model-routes.library-work');

/** Whether `method` is one of the library's own handlers of `GeneratedController(resource)`, not an app's override. */
export function isLibraryWork(method: unknown): boolean {
  return typeof method === 'function' && (method as { [LIBRARY_WORK]?: true })[LIBRARY_WORK] === true;
}

/**
 * What a generated controller does, one method per route; override any of them and call `super`.
 *
 * @publicApi
 */
export interface GeneratedResourceController<T = Record<string, unknown>> {
  /** The resource's repository, injected by `forRoot`. */
  readonly repository: ModelRepository<T>;
  /** `GET /company/:company_id` */
  findOne(id: string): Promise<PlainDocument<T>>;
  /**
   * `POST /company` (the route adds the `Location` header). `serverFields` are set after the
   * client's `body` is checked, and may name hidden and `readonly` fields: what your override
   * computes (`super.create(body, { createdBy: user.id })`).
   */
  create(body: unknown, serverFields?: Partial<T> | Record<string, unknown>): Promise<PlainDocument<T>>;
  /**
   * `PUT /company/:company_id`: merges `body`, then `serverFields` (as for `create`). The request's
   * `If-Match`, if any, applies to this write (the first repository write of the route's document).
   */
  update(id: string, body: unknown, serverFields?: Partial<T> | Record<string, unknown>): Promise<PlainDocument<T>>;
  /** `PATCH /company/:company_id`: the same merge; calls `update`, so an override of `update` serves both. */
  patch(id: string, body: unknown): Promise<PlainDocument<T>>;
  /** `DELETE /company/:company_id`; the request's `If-Match`, if any, applies to the delete. */
  delete(id: string): Promise<PlainDocument<T>>;
  /** `GET /companies` */
  search(query: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>>;
  /** `POST /companies` */
  searchPost(body: unknown): Promise<SearchResult<PlainDocument<T>>>;
  /**
   * `GET /companies/export` (opt-in: `routes: { export: true }`): the pages of the documents to
   * export, which the route streams in the request's format. Override it to change what is
   * exported (filter or map the pages); `query` holds no `format`.
   */
  export(query: Record<string, unknown>): ExportPages<T> | Promise<ExportPages<T>>;
  /** `POST /companies/export` (opt-in: `routes: { exportPost: true }`): the same, from a search body. */
  exportPost(body: unknown): ExportPages<T> | Promise<ExportPages<T>>;
  /**
   * `POST /companies/import` (opt-in: `routes: { import: true }`): the rows of the file, read and
   * bounded; `batch.run()` checks and writes them and answers the report. Override it to refuse an
   * import (throw) or to act on its report.
   */
  import(batch: ImportBatch): Promise<ImportReport>;
  /**
   * `PATCH /companies?<conditions>` (opt-in: `routes: { updateMany: true }`): merges `body`, then
   * `serverFields` (as for `update`), into every document the conditions match, each by its own
   * write (see `ModelRepository.updateMany`); `query` holds the conditions and `dryRun`. A resource
   * with `requireIfMatch` takes no bulk change (428): no `If-Match` names many documents.
   */
  updateMany(query: Record<string, unknown>, body: unknown, serverFields?: Partial<T> | Record<string, unknown>): Promise<BulkReport>;
  /**
   * `DELETE /companies?<conditions>` (opt-in: `routes: { deleteMany: true }`): deletes every
   * document the conditions match, each by its own delete (see `ModelRepository.deleteMany`).
   */
  deleteMany(query: Record<string, unknown>): Promise<BulkReport>;
  /** `GET /companies/trash` (soft delete: `@GeneratedResource({ softDelete: true })`): searches the documents a `DELETE` marked. */
  trash(query: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>>;
  /** `POST /company/:company_id/restore` (soft delete): brings back a marked document; the request's `If-Match`, if any, applies. */
  restore(id: string): Promise<PlainDocument<T>>;
  /** `DELETE /company/:company_id/purge` (soft delete): deletes a marked document for good. */
  purge(id: string): Promise<PlainDocument<T>>;
  /** `GET /company/:company_id/history?limit&skip` (history: `@GeneratedResource({ history: true })`): its versions, the latest first. */
  history(id: string, query: Record<string, unknown>): Promise<HistoryPage<PlainDocument<T>>>;
  /** `POST /company/:company_id/history/restore?version=` (history): writes back the state of a version. */
  revert(id: string, query: Record<string, unknown>): Promise<PlainDocument<T>>;
}

/**
 * The base class of a resource's controller, to extend with your own endpoints and overrides:
 *
 * ```ts
 * @Controller()
 * export class CompanyController extends GeneratedController(Company) {
 *   @Get('stats') stats() { ... }                 // GET /company/stats, never shadowed by /company/:company_id
 *   override async create(body: unknown) {        // POST /company, still validated and stored
 *     const company = await super.create(body, { createdBy: 'api' }); // server-owned fields, set after the check
 *     await this.mailer.welcome(company);
 *     return company;
 *   }
 * }
 * ```
 *
 * List the class in `ModelRoutesModule.forRoot({ controllers: [CompanyController] })`. Its routes
 * live under the model's path (a path that starts with `/` is taken as is). Calling this function
 * only makes a class: routes are built by `forRoot`, from its options.
 *
 * `this.repository` is the resource's `ModelRepository`, injected as a property (so also in a unit
 * test that provides `getModelRepositoryToken(Company)`). To use it in your constructor, take it
 * as a parameter and hand it to `super`:
 * `constructor(@InjectModelRepository(Company) repository: ModelRepository<Company>, private readonly mailer: Mailer) { super(repository); }`.
 *
 * @param resource the class decorated with `@GeneratedResource()`
 * @param connectionName the Mongoose connection of its registration, when not the default one
 *
 * @publicApi
 */
export function GeneratedController<T>(
  resource: Type<T>,
  connectionName?: string,
): (abstract new (repository?: ModelRepository<T>) => GeneratedResourceController<T>) & { resource: Type<T>; connectionName?: string } {
  abstract class GeneratedBase implements GeneratedResourceController<T> {
    static readonly resource = resource;
    static readonly connectionName = connectionName;
    static readonly [GENERATED_BASE] = true;
    /** The resource's repository, injected by `forRoot`. */
    readonly repository!: ModelRepository<T>;

    /** @param repository the resource's repository, to read `this.repository` in your own constructor */
    constructor(repository?: ModelRepository<T>) {
      if (repository) this.repository = repository;
    }

    async findOne(id: string): Promise<PlainDocument<T>> {
      return serving(this, this.repository).getOne(id);
    }

    async create(body: unknown, serverFields?: Record<string, unknown>): Promise<PlainDocument<T>> {
      return serving(this, this.repository).create(await this.checked(body, 'create', serverFields));
    }

    async update(id: string, body: unknown, serverFields?: Record<string, unknown>): Promise<PlainDocument<T>> {
      return this.found(await serving(this, this.repository).update(id, await this.checked(body, 'update', serverFields)), id);
    }

    patch(id: string, body: unknown): Promise<PlainDocument<T>> {
      return this.update(id, body);
    }

    async delete(id: string): Promise<PlainDocument<T>> {
      return this.found(await serving(this, this.repository).delete(id), id);
    }

    search(query: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>> {
      return serving(this, this.repository).search(callOf(this)?.searchFor(query) ?? parseSearchQueryString(query, this.repository.definition));
    }

    searchPost(body: unknown): Promise<SearchResult<PlainDocument<T>>> {
      return serving(this, this.repository).search(callOf(this)?.searchFor(body) ?? parseSearchBody(body, this.repository.definition));
    }

    export(query: Record<string, unknown>): ExportPages<T> {
      const search = exportQuery(query);
      return serving(this, this.repository).exportPages(callOf(this)?.searchFor(search) ?? parseSearchQueryString(search, this.repository.definition));
    }

    exportPost(body: unknown): ExportPages<T> {
      return serving(this, this.repository).exportPages(callOf(this)?.searchFor(body) ?? parseSearchBody(body, this.repository.definition));
    }

    import(batch: ImportBatch): Promise<ImportReport> {
      return batch.run();
    }

    async updateMany(query: Record<string, unknown>, body: unknown, serverFields?: Record<string, unknown>): Promise<BulkReport> {
      const filter = this.bulkFilter(query);
      return serving(this, this.repository).updateMany(filter, await this.checked(body, 'update', serverFields), { dryRun: bulkDryRun(query) });
    }

    deleteMany(query: Record<string, unknown>): Promise<BulkReport> {
      return serving(this, this.repository).deleteMany(this.bulkFilter(query), { dryRun: bulkDryRun(query) });
    }

    trash(query: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>> {
      return serving(this, this.repository).trash(callOf(this)?.searchFor(query) ?? parseSearchQueryString(query, this.repository.definition));
    }

    async restore(id: string): Promise<PlainDocument<T>> {
      return this.found(await serving(this, this.repository).restore(id), id);
    }

    async purge(id: string): Promise<PlainDocument<T>> {
      return this.found(await serving(this, this.repository).purge(id), id);
    }

    async history(id: string, query: Record<string, unknown>): Promise<HistoryPage<PlainDocument<T>>> {
      return this.found(await serving(this, this.repository).history(id, historyPage(query)), id);
    }

    async revert(id: string, query: Record<string, unknown>): Promise<PlainDocument<T>> {
      return this.found(await serving(this, this.repository).revert(id, historyVersion(query)), id);
    }

    /** The engine filter of a bulk change's conditions: the call's, parsed by its entry guard, or parsed here. */
    private bulkFilter(query: Record<string, unknown>): Record<string, unknown> {
      const { definition } = this.repository;
      if (definition.requireIfMatch) {
        throw new ModelRoutesException(
          'MR_PRECONDITION_REQUIRED',
          `Writes to ${definition.name} require If-Match, which no bulk change can carry: change the documents one by one`,
        );
      }
      const conditions = bulkConditions(query);
      return (callOf(this)?.searchFor(conditions) ?? parseBulkQueryString(conditions, definition)).filter;
    }

    /** The body, checked against the resource's rules and DTO, with `serverFields` set after the check. */
    private checked(
      body: unknown,
      kind: 'create' | 'update',
      serverFields?: Record<string, unknown>,
    ): Record<string, unknown> | Promise<Record<string, unknown>> {
      const { definition } = this.repository;
      const checked = (kind === 'create' ? checkCreate : checkWrite)(body, definition, definition.dtos?.[kind], callOf(this));
      // A generated DTO's check is synchronous: no promise (and no await) for it.
      return checked instanceof Promise ? checked.then((data) => mergeData(data, serverFields)) : mergeData(checked, serverFields);
    }

    private found<D>(doc: D | null, id: string): D {
      if (!doc) throw ModelRoutesException.notFound(this.repository.definition.name, id);
      return doc;
    }
  }
  Object.defineProperty(GeneratedBase, 'name', { value: `Generated${resource.name}Controller` });
  for (const name of Object.getOwnPropertyNames(GeneratedBase.prototype)) {
    const method = (GeneratedBase.prototype as unknown as Record<string, unknown>)[name];
    if (name !== 'constructor' && typeof method === 'function') Object.defineProperty(method, LIBRARY_WORK, { value: true });
  }
  // A property, not a constructor parameter: Nest reads inherited constructor metadata by index, so
  // an injected base parameter would take the place of the first parameter of a subclass's own constructor.
  Inject(getModelRepositoryToken(resource, connectionName))(GeneratedBase.prototype, 'repository');
  return GeneratedBase;
}

/** The resource (and connection) a class extends `GeneratedController(resource, connectionName)` for, if it does. */
export function generatedResourceOf(controller: Type): { resource: Type; connectionName?: string } | undefined {
  for (let current: unknown = controller; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    if ((current as { [GENERATED_BASE]?: boolean })[GENERATED_BASE]) return current as unknown as { resource: Type; connectionName?: string };
  }
  return undefined;
}
