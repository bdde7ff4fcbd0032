import { Types } from 'mongoose';
import { RowScopes } from '../../../src/scopes/row-scope.js';
import type { RowScope, ScopeContext } from '../../../src/interfaces/row-scope.interface.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function rowScopesSpec(): void {
  describe("RowScopes (a resource's row scope, resolved per request)", () => {
    const request = (tenant?: string) => ({ headers: tenant === undefined ? {} : { 'x-tenant': tenant } });
    const byTenant = ({ request: sent }: ScopeContext) => {
      const tenant = sent.headers['x-tenant'];
      return tenant === '*' ? undefined : tenant ? { tenant } : false;
    };

    it('scopes nothing outside a request, and nothing for a request whose scope answers nothing', () => {
      const scopes = new RowScopes('Company', byTenant);
      expect(scopes.read({})).toBeUndefined();
      expect(scopes.read({ request: request('*') })).toBeUndefined();
      const data = { niceName: 'x' };
      scopes.stamp(data, { request: request('*') });
      expect(data).toEqual({ niceName: 'x' });
    });

    it('answers the filter of the request of the call it is handed, resolved once per request', () => {
      let calls = 0;
      const scopes = new RowScopes('Company', (context) => (calls++, byTenant(context)));
      const north = request('north');
      expect(scopes.read({ request: north })).toEqual({ tenant: 'north' });
      expect(scopes.write({ request: north })).toEqual({ tenant: 'north' });
      // Another call of the same request: the scope resolved for it.
      scopes.read({ request: north, route: 'GET /company' });
      expect(calls).toBe(1);
      expect(scopes.read({ request: request('south') })).toEqual({ tenant: 'south' });
      expect(calls).toBe(2);
    });

    it('false is a filter no document matches, and no create', () => {
      const scopes = new RowScopes('Company', byTenant);
      const call = { request: request() };
      expect(scopes.read(call)).toEqual({ _id: { $in: [] } });
      expect(() => scopes.stamp({}, call)).toThrow(expect.objectContaining({ code: 'MR_OUT_OF_SCOPE' }));
    });

    it('stamps the equality fields of a create, accepts the same value (an ObjectId as its hex text), refuses another', () => {
      const owner = new Types.ObjectId();
      const scopes = new RowScopes('Company', () => ({
        tenant: 'north',
        owner: { $eq: owner },
        employees: { $gte: 1 },
        'address.city': 'Lyon',
        $or: [{ a: 1 }],
      }));
      const call = { request: request('north') };
      const data: Record<string, unknown> = { niceName: 'x' };
      scopes.stamp(data, call);
      // Only equalities on top-level fields are stamped: no operator, no dotted path, no $or.
      expect(data).toEqual({ niceName: 'x', tenant: 'north', owner });
      const same = { tenant: 'north', owner: owner.toHexString() };
      scopes.stamp(same, call);
      expect(same.owner).toBe(owner.toHexString());
      expect(() => scopes.stamp({ tenant: 'south' }, call)).toThrow(
        expect.objectContaining({ code: 'MR_OUT_OF_SCOPE', details: [{ path: 'tenant', message: 'set by the scope' }] }),
      );
    });

    it('refuses an update that changes or removes a stamped field, and lets one that names its own value pass', () => {
      const scopes = new RowScopes('Company', byTenant);
      const call = { request: request('north') };
      expect(() => scopes.checkChanges({ tenant: 'north', niceName: 'y' }, undefined, call)).not.toThrow();
      expect(() => scopes.checkChanges({ tenant: 'south' }, undefined, call)).toThrow(expect.objectContaining({ code: 'MR_OUT_OF_SCOPE' }));
      expect(() => scopes.checkChanges(undefined, { tenant: '' }, call)).toThrow(expect.objectContaining({ code: 'MR_OUT_OF_SCOPE' }));
      // A field named with no value (undefined) changes nothing.
      expect(() => scopes.checkChanges({ tenant: undefined }, undefined, call)).not.toThrow();
    });

    it('a write scope of its own narrows the reads (both ANDed), and stamps its equalities', () => {
      const scope: RowScope = {
        read: ({ request: sent }) => ({ $or: [{ published: true }, { tenant: sent.headers['x-tenant'] }] }),
        write: ({ request: sent }) => ({ tenant: sent.headers['x-tenant'] }),
      };
      const scopes = new RowScopes('Note', scope);
      const call = { request: request('north') };
      expect(scopes.read(call)).toEqual({ $or: [{ published: true }, { tenant: 'north' }] });
      expect(scopes.write(call)).toEqual({ $or: [{ published: true }, { tenant: 'north' }], tenant: 'north' });
      expect(scopes.writesFewer(call)).toBe(true);
      const data: Record<string, unknown> = {};
      scopes.stamp(data, call);
      expect(data).toEqual({ tenant: 'north' });
      expect(new RowScopes('Company', byTenant).writesFewer(call)).toBe(false);
    });

    it('a scope that answers a promise, an array or a string is a bug of the application: an Error naming the resource', () => {
      for (const answer of [Promise.resolve({ tenant: 'x' }), [{ tenant: 'x' }], 'tenant']) {
        const scopes = new RowScopes('Company', () => answer as never);
        expect(() => scopes.read({ request: request('north') })).toThrow(/row scope of Company \(read\)/);
      }
    });

    it('tells a scope class from a function', () => {
      class TenantScope implements RowScope {
        read() {
          return undefined;
        }
      }
      expect(RowScopes.isClass(TenantScope)).toBe(true);
      expect(RowScopes.isClass(byTenant)).toBe(false);
      expect(RowScopes.isClass(undefined)).toBe(false);
    });
  });
}
