import type { RouteDefinition } from '../../../src/interfaces/route-definition.interface.js';
import { isUnderPrefix, matchesRoute, requestsOutsideRoutes, type RecordedRequest } from '../../support/browser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function browserRoutesSpec(): void {
  /** The browser harness's request matcher (test/support/browser.ts), without a browser. */

  type Route = Pick<RouteDefinition, 'method' | 'path'>;

  const table: Route[] = [
    { method: 'GET', path: '/companies' },
    { method: 'POST', path: '/companies' },
    { method: 'GET', path: '/company/:company_id' },
    { method: 'PATCH', path: '/company/:company_id' },
    { method: 'DELETE', path: '/company/:company_id' },
    { method: 'GET', path: '/company/:company_id/owner' },
    { method: 'GET', path: '/user/:user_id/companies/owner' },
    { method: 'POST', path: '/company/:company_id/tags/:tag_id' },
  ];

  function request(method: string, path: string, sameOrigin = true): RecordedRequest {
    return { method, path, resourceType: 'fetch', url: `http://127.0.0.1:4321${path}`, sameOrigin };
  }

  describe('matchesRoute', () => {
    const one: Route = { method: 'GET', path: '/company/:company_id' };

    it('matches literal paths and :param segments', () => {
      expect(matchesRoute({ method: 'GET', path: '/companies' }, 'GET', '/companies')).toBe(true);
      expect(matchesRoute(one, 'GET', '/company/65f0c0ffee0000000000beef')).toBe(true);
      expect(matchesRoute({ method: 'POST', path: '/company/:company_id/tags/:tag_id' }, 'POST', '/company/a/tags/b')).toBe(true);
    });

    it('ignores the query string and the fragment', () => {
      expect(matchesRoute({ method: 'GET', path: '/companies' }, 'GET', '/companies?sort=-employees&limit=20&name=%2Fac%2Fi')).toBe(true);
      expect(matchesRoute(one, 'GET', '/company/abc?fields=name#top')).toBe(true);
    });

    it('matches percent-encoded ids as one segment, and not malformed escapes', () => {
      expect(matchesRoute(one, 'GET', '/company/acme%20corp')).toBe(true);
      expect(matchesRoute(one, 'GET', '/company/caf%C3%A9')).toBe(true);
      expect(matchesRoute(one, 'GET', '/company/a%2Fb')).toBe(true); // an encoded slash stays in the segment
      expect(matchesRoute(one, 'GET', '/company/%E0%A4%A')).toBe(false);
      expect(matchesRoute({ method: 'GET', path: '/companies' }, 'GET', '/compan%69es')).toBe(true); // decoded before comparing
    });

    it('needs a non-empty segment for a parameter', () => {
      expect(matchesRoute(one, 'GET', '/company/')).toBe(false);
      expect(matchesRoute(one, 'GET', '/company')).toBe(false);
      expect(matchesRoute(one, 'GET', '/company//')).toBe(false);
    });

    it('does not match a path with an extra or a missing segment', () => {
      expect(matchesRoute(one, 'GET', '/company/abc/owner')).toBe(false);
      expect(matchesRoute(one, 'GET', '/company/abc/')).toBe(false);
      expect(matchesRoute({ method: 'GET', path: '/company/:company_id/owner' }, 'GET', '/company/abc')).toBe(false);
      expect(matchesRoute({ method: 'GET', path: '/companies' }, 'GET', '/companies/extra')).toBe(false);
    });

    it('compares literal segments exactly', () => {
      expect(matchesRoute({ method: 'GET', path: '/company/:company_id/owner' }, 'GET', '/company/abc/owners')).toBe(false);
      expect(matchesRoute({ method: 'GET', path: '/companies' }, 'GET', '/Companies')).toBe(false);
    });

    it('needs the method, HEAD matching GET and ALL matching any', () => {
      expect(matchesRoute(one, 'POST', '/company/abc')).toBe(false);
      expect(matchesRoute(one, 'DELETE', '/company/abc')).toBe(false);
      expect(matchesRoute(one, 'HEAD', '/company/abc')).toBe(true);
      expect(matchesRoute(one, 'get', '/company/abc')).toBe(true);
      expect(matchesRoute({ method: 'DELETE', path: '/company/:company_id' }, 'HEAD', '/company/abc')).toBe(false);
      expect(matchesRoute({ method: 'ALL', path: '/company/:company_id' }, 'PUT', '/company/abc')).toBe(true);
    });

    it('puts the global prefix before the route, however it is written', () => {
      for (const prefix of ['api', '/api', '/api/']) {
        expect(matchesRoute(one, 'GET', '/api/company/abc', prefix)).toBe(true);
        expect(matchesRoute(one, 'GET', '/company/abc', prefix)).toBe(false);
      }
      expect(matchesRoute(one, 'GET', '/v1/api/company/abc', '/v1/api')).toBe(true);
      expect(matchesRoute(one, 'GET', '/company/abc', '/')).toBe(true);
    });
  });

  describe('isUnderPrefix', () => {
    it('covers the prefix itself and what is under it, segment-wise', () => {
      expect(isUnderPrefix('/admin', '/admin')).toBe(true);
      expect(isUnderPrefix('/admin/', '/admin')).toBe(true);
      expect(isUnderPrefix('/admin/app.js', '/admin/')).toBe(true);
      expect(isUnderPrefix('/admin?tab=users', 'admin')).toBe(true);
      expect(isUnderPrefix('/admin/metadata', '/admin')).toBe(true);
      expect(isUnderPrefix('/administrators', '/admin')).toBe(false);
      expect(isUnderPrefix('/company/admin', '/admin')).toBe(false);
    });
  });

  describe('requestsOutsideRoutes', () => {
    it('keeps only the requests that are neither under an allowed prefix nor a route', () => {
      const requests = [
        request('GET', '/admin'),
        request('GET', '/admin/app.js'),
        request('GET', '/admin/metadata'),
        request('GET', '/companies?sort=-employees&skip=0&limit=20'),
        request('POST', '/companies'),
        request('GET', '/company/65f0c0ffee0000000000beef/owner'),
        request('GET', '/user/65f0c0ffee0000000000beef/companies/owner?limit=20'),
        request('PATCH', '/company/65f0c0ffee0000000000beef'),
        request('HEAD', '/company/65f0c0ffee0000000000beef'),
        // not routes:
        request('PUT', '/company/65f0c0ffee0000000000beef'), // PUT is not in the table (disabled)
        request('GET', '/company/65f0c0ffee0000000000beef/owner/extra'),
        request('GET', '/users'),
        request('GET', '/administrator'),
        request('GET', '/companies', false), // another origin: never a route of this app
      ];
      const outside = requestsOutsideRoutes(requests, table, { allowedPrefixes: ['/admin'] });
      expect(outside.map((r) => `${r.method} ${r.path}${r.sameOrigin ? '' : ' (other origin)'}`)).toEqual([
        'PUT /company/65f0c0ffee0000000000beef',
        'GET /company/65f0c0ffee0000000000beef/owner/extra',
        'GET /users',
        'GET /administrator',
        'GET /companies (other origin)',
      ]);
    });

    it('applies the global prefix to the routes, not to the allowed prefixes', () => {
      const requests = [request('GET', '/api/admin/app.js'), request('GET', '/api/companies'), request('GET', '/companies')];
      const outside = requestsOutsideRoutes(requests, table, { allowedPrefixes: ['/api/admin'], globalPrefix: 'api' });
      expect(outside.map((r) => r.path)).toEqual(['/companies']);
    });

    it('allows nothing but the table without options', () => {
      expect(requestsOutsideRoutes([request('GET', '/admin')], table).map((r) => r.path)).toEqual(['/admin']);
      expect(requestsOutsideRoutes([request('GET', '/companies')], [])).toHaveLength(1);
    });
  });
}
