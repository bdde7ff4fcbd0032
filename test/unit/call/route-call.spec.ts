import { openRouteCall } from '../../../src/controllers/route-call.guard.js';
import { currentCall, RouteCall, runCall } from '../../../src/call/route-call.js';
import type { RoutePlan } from '../../../src/call/route-plan.js';
import { createResourceDefinitions, resolveResources } from '../../../src/definitions/resource-definition.factory.js';
import { ROUTE_ACTIONS, routeAction, type RouteActionName } from '../../../src/metadata/route-actions.js';
import type { ModelRepository } from '../../../src/repository/model-repository.js';
import { Plain } from '../../fixtures/serialization-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function routeCallSpec(): void {
  /** What the call of one request holds, per row: a checked body, a parsed search (and from where), the write precondition. */
  interface Holds {
    body: boolean;
    search?: 'query' | 'body';
    precondition: boolean;
  }

  const READ: Holds = { body: false, precondition: false };
  const WRITE: Holds = { body: false, precondition: true };

  /** Every row of ROUTE_ACTIONS, and what its call holds for a request that sends every part (a body, a query, If-Match). */
  const EXPECTED: Record<RouteActionName, Holds> = {
    findOne: READ,
    create: { body: true, precondition: false },
    update: { body: true, precondition: true },
    patch: { body: true, precondition: true },
    delete: WRITE,
    search: { ...READ, search: 'query' },
    searchPost: { body: true, search: 'body', precondition: false },
    export: { ...READ, search: 'query' },
    exportPost: { body: true, search: 'body', precondition: false },
    import: READ,
    updateMany: { body: true, search: 'query', precondition: false },
    deleteMany: { ...READ, search: 'query' },
    trash: { ...READ, search: 'query' },
    restore: WRITE,
    purge: WRITE,
    history: READ,
    revert: WRITE,
    find: READ,
    list: { ...READ, search: 'query' },
    reverse: { ...READ, search: 'query' },
    reversePost: { body: true, search: 'body', precondition: false },
    reverseExport: { ...READ, search: 'query' },
    reverseExportPost: { body: true, search: 'body', precondition: false },
    add: WRITE,
    remove: WRITE,
    upload: WRITE,
    addFile: WRITE,
    download: READ,
    deleteFile: WRITE,
    addElement: { body: true, precondition: true },
    findElement: READ,
    patchElement: { body: true, precondition: true },
    deleteElement: WRITE,
  };

  describe('RouteCall, for every row of ROUTE_ACTIONS', () => {
    const [definition] = resolveResources(createResourceDefinitions({ resources: [Plain] }), { requireIfMatch: true }).resources;
    const repository = { definition } as unknown as ModelRepository;
    // A target too, so that every row can name its route (a reverse route's path is the target's).
    const names = {
      source: { name: 'Plain', path: 'plain', plural: 'plains', idParam: 'plain_id' },
      target: { name: 'Plain', path: 'plain', plural: 'plains', idParam: 'other_id' },
    };
    class BodyDto {}

    it('names every row', () => {
      expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(ROUTE_ACTIONS).sort());
    });

    it.each(Object.keys(ROUTE_ACTIONS) as RouteActionName[])('%s', async (action) => {
      const row = routeAction(action);
      const expected = EXPECTED[action];
      const sent = row.body === 'search' ? { query: { label: 'a' }, limit: 2 } : { label: 'a' };
      const request = {
        headers: { 'content-type': 'application/json', 'if-match': '"p1-3"' },
        params: { plain_id: 'p1', element_id: 'e1' },
        // A bulk change takes conditions only: no sort.
        query: row.answers.shape === 'bulk' ? { label: 'b' } : { label: 'b', sort: '-label' },
        body: sent,
      };
      const response = {};
      const checked = { checked: true };
      const plan: RoutePlan = {
        action,
        row,
        names,
        resource: 'Plain',
        answers: 'Plain',
        readPreference: 'secondaryPreferred',
        ...(row.body && { body: { dto: BodyDto, check: (body) => (row.body === 'search' ? body : checked) } }),
        work: () => currentCall(),
      };
      const call = await openRouteCall(plan, request, response, () => repository, {});

      expect(call).toBeInstanceOf(RouteCall);
      expect([call.action, call.row, call.names, call.request, call.response, call.readPreference]).toEqual([
        action,
        row,
        names,
        request,
        response,
        'secondaryPreferred',
      ]);
      // The context the repository is handed: the request, the route, its read preference, its count and (the same object: taken once) its precondition.
      expect(call.context).toEqual({
        request,
        route: `${row.method} ${row.path(names)}`,
        readPreference: 'secondaryPreferred',
        ...(call.precondition && { precondition: call.precondition }),
        ...(call.count && { count: call.count }),
      });
      expect(call.context.precondition).toBe(call.precondition);
      expect(call.requiresIfMatch).toBe(true);
      expect(call.view).toBeUndefined();
      expect(call.body).toEqual(expected.body ? { sent, checked: row.body === 'search' ? sent : checked } : undefined);
      if (expected.body) expect(call.bodyFor(sent, BodyDto)).toBe(call.body!.checked);
      if (expected.body) expect(call.bodyFor(new BodyDto(), BodyDto)).toBe(call.body!.checked);
      expect(call.search?.sent).toBe(expected.search === 'query' ? request.query : expected.search === 'body' ? sent : undefined);
      if (expected.search === 'query')
        expect(call.search!.params).toMatchObject({ filter: { label: 'b' }, ...(row.answers.shape !== 'bulk' && { sort: { label: -1 } }) });
      if (expected.search === 'body') expect(call.search!.params).toMatchObject({ filter: { label: 'a' }, limit: 2 });
      expect(call.precondition).toEqual(expected.precondition ? { resource: 'Plain', id: 'p1', ifMatch: ['"p1-3"'], used: false } : undefined);
      expect(runCall(call, () => currentCall())).toBe(call);
    });

    it('is refused, before any call is made, when its body is not JSON', () => {
      const plan = {
        action: 'create',
        row: ROUTE_ACTIONS.create,
        names,
        resource: 'Plain',
        answers: 'Plain',
        body: { dto: BodyDto, check: () => ({}) },
        work: () => undefined,
      } as RoutePlan;
      expect(() => openRouteCall(plan, { headers: { 'content-type': 'text/plain', 'content-length': '1' }, body: 'x' }, {}, () => repository, {})).toThrow(
        expect.objectContaining({ code: 'MR_UNSUPPORTED_MEDIA_TYPE' }),
      );
    });
  });
}
