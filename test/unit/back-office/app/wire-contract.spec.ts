import { apiUrl, errorOf, type Envelope, type ErrorShape } from '../../../../src/back-office/app/api-wire.js';
import type { ElementRoute, FileRoute, ReferenceRoute, ResourceMetadata, ResourceRoute } from '../../../../src/back-office/app/metadata.js';
import { ROUTES, type AppAction, type RouteAt } from '../../../../src/back-office/app/routes.js';
import type { ImportReport as AppImportReport } from '../../../../src/back-office/app/import-request.js';
import { errorBody, type ErrorResponseBody } from '../../../../src/errors/error-body.util.js';
import type { ImportReport } from '../../../../src/interfaces/import.interface.js';
import type { SearchResult } from '../../../../src/interfaces/search-result.interface.js';
import {
  actionsOf,
  ROUTE_ACTIONS,
  type ElementActionName,
  type FileActionName,
  type ReferenceActionName,
  type ResourceActionName,
  type RouteNames,
} from '../../../../src/metadata/route-actions.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function wireContractSpec(): void {
  // The browser app cannot import the library's sources (its own program, DOM only): its contract
  // types are restated in app/metadata.ts, app/api-wire.ts and app/routes.ts, and held here against
  // the route-action table and the server's types. The type checks fail `npm run typecheck`; the
  // runtime ones fail this spec.

  /** `true` when A and B are the same type. */
  type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
  type ReverseRoute = ResourceMetadata['referencedBy'][number]['routes'][number];

  const TYPES_AGREE: [
    Equal<ResourceRoute, ResourceActionName>,
    Equal<ReferenceRoute | ReverseRoute, ReferenceActionName>,
    Equal<FileRoute, FileActionName>,
    Equal<ElementRoute, ElementActionName>,
    Equal<Envelope['status'], SearchResult['status']>,
    ErrorResponseBody extends ErrorShape ? true : false,
    Equal<AppImportReport, ImportReport>,
  ] = [true, true, true, true, true, true, true];

  /** The app's route names, one entry per member of each union: a missing or unknown name fails the type check. */
  const APP_NAMES: {
    resource: Record<ResourceRoute, true>;
    reference: Record<ReferenceRoute | ReverseRoute, true>;
    file: Record<FileRoute, true>;
    element: Record<ElementRoute, true>;
  } = {
    resource: {
      findOne: true,
      create: true,
      update: true,
      patch: true,
      delete: true,
      search: true,
      searchPost: true,
      export: true,
      exportPost: true,
      import: true,
      updateMany: true,
      deleteMany: true,
      trash: true,
      restore: true,
      purge: true,
      history: true,
      revert: true,
    },
    reference: { find: true, list: true, add: true, remove: true, reverse: true, reversePost: true, reverseExport: true, reverseExportPost: true },
    file: { upload: true, addFile: true, download: true, deleteFile: true },
    element: { addElement: true, findElement: true, patchElement: true, deleteElement: true },
  };

  const NAMES: RouteNames = {
    source: { name: 'Company', path: 'company', plural: 'companies', idParam: 'company_id' },
    field: 'owner',
    target: { name: 'User', path: 'user', idParam: 'user_id' },
    relatedParam: 'related_id',
  };

  /** The table's path with its parameters filled: `/company/:company_id/owner` → `/company/c%201/owner`. */
  function filled(action: AppAction, names: RouteNames, values: Record<string, string>): string {
    return ROUTE_ACTIONS[action].path(names).replace(/:(\w+)/g, (_match, param: string) => encodeURIComponent(values[param]));
  }

  describe("the back office app's wire contract, held against the route-action table", () => {
    it('the type checks agree (see TYPES_AGREE: npm run typecheck fails when they do not)', () => {
      expect(TYPES_AGREE.every(Boolean)).toBe(true);
    });

    it.each(['resource', 'reference', 'file', 'element'] as const)('knows every %s action of the table, and no other', (scope) => {
      expect(Object.keys(APP_NAMES[scope]).sort()).toEqual([...actionsOf(scope)].sort());
    });

    it.each(Object.keys(ROUTES) as AppAction[])("calls %s with the table's method and path", (action) => {
      const route = ROUTES[action];
      expect(route.method).toBe(ROUTE_ACTIONS[action].method);
      const company = { path: 'company', plural: 'companies' };
      const values = { company_id: 'c 1', user_id: 'u/1', related_id: 'r?1', file_id: 'f#1' };
      const scope = ROUTE_ACTIONS[action].scope;
      let at: RouteAt;
      let expected: string;
      if (action === 'reverse' || action === 'reversePost' || action === 'reverseExport' || action === 'reverseExportPost') {
        at = { resource: { path: 'user', plural: 'users' }, id: values.user_id, source: company, field: 'owner' };
        expected = filled(action, NAMES, values);
      } else if (scope === 'file') {
        // A single file's routes end at the field; a gallery's name one file.
        expect(apiUrl('', route.segments({ resource: company, id: values.company_id, field: 'logo' }))).toBe(
          filled(action, { ...NAMES, field: 'logo' }, values),
        );
        at = { resource: company, id: values.company_id, field: 'photos', item: values.file_id };
        const gallery = { ...NAMES, field: 'photos', fileParam: 'file_id' };
        expected = filled(action, gallery, values);
      } else {
        at = { resource: company, id: values.company_id, field: 'owner', item: values.related_id };
        expected = filled(action, NAMES, values);
      }
      expect(apiUrl('/api', route.segments(at))).toBe(`/api${expected}`);
    });

    it("reads the error shape the library's errorBody writes", async () => {
      const body = errorBody('MR_VALIDATION_FAILED', 400, 'Validation failed', [{ path: 'niceName', message: 'niceName is required' }]);
      const error = await errorOf(new Response(JSON.stringify(body), { status: 400 }));
      expect(error).toMatchObject({
        status: 400,
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed',
        details: [{ path: 'niceName', message: 'niceName is required' }],
      });
      const bare = await errorOf(new Response(JSON.stringify(errorBody('MR_NOT_FOUND', 404, 'Company c1 not found')), { status: 404 }));
      expect(bare).toMatchObject({ status: 404, code: 'MR_NOT_FOUND', message: 'Company c1 not found', details: [] });
    });
  });
}
