import { RequestMethod, VERSION_NEUTRAL, VersioningType } from '@nestjs/common';
import { answersVersion, requestedVersion, servedRoutes, type Serving } from '../../../src/versioning/served-routes.js';
import { AllowedMethods } from '../../../src/filters/allowed-methods.util.js';
import type { RouteDefinition } from '../../../src/interfaces/route-definition.interface.js';
import { formatRouteTable } from '../../../src/explorer/model-routes.explorer.js';
import { Prop, Schema } from '@nestjs/mongoose';
import { GeneratedResource, ModelRoutesConfigError, ModelRoutesExplorer } from '../../../src/index.js';
import { routeRequest } from '../../../src/back-office/app/routing.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function servedRoutesSpec(): void {
  const exclusion = (path: RegExp, requestMethod = RequestMethod.ALL) => ({ pathRegex: path, requestMethod });

  describe('servedRoutes: where the app serves each route', () => {
    const routes: Array<Pick<RouteDefinition, 'method' | 'path' | 'version'>> = [
      { method: 'GET', path: '/company/:company_id', version: ['1', '2'] },
      { method: 'GET', path: '/health' },
      { method: 'POST', path: '/company', version: VERSION_NEUTRAL },
    ];

    it('puts URI versions after the prefix, one path each; a neutral version has none', () => {
      const serving: Serving = { prefix: '/api', exclude: [], versioning: { type: VersioningType.URI } };
      expect(servedRoutes(routes, serving).map(({ path, version }) => [path, version])).toEqual([
        ['/api/v1/company/:company_id', '1'],
        ['/api/v2/company/:company_id', '2'],
        ['/api/health', undefined],
        ['/api/company', undefined],
      ]);
    });

    it('leaves out the prefix where an exclusion names the path and method, and keeps the version', () => {
      const serving: Serving = {
        prefix: '/api',
        exclude: [exclusion(/^\/company\/[^/]+\/?$/, RequestMethod.GET)],
        versioning: { type: VersioningType.URI, prefix: 'ver' },
      };
      expect(servedRoutes(routes, serving).map(({ path }) => path)).toEqual([
        '/ver1/company/:company_id',
        '/ver2/company/:company_id',
        '/api/health',
        '/api/company',
      ]);
    });

    it('keeps one path per route with header versioning, and the app default version for routes without one', () => {
      const serving: Serving = { prefix: '', exclude: [], versioning: { type: VersioningType.HEADER, header: 'X-Version', defaultVersion: '3' } };
      expect(servedRoutes(routes, serving).map(({ path, versions, version }) => [path, versions, version])).toEqual([
        ['/company/:company_id', ['1', '2'], '1'],
        ['/health', ['3'], '3'],
        ['/company', [VERSION_NEUTRAL], undefined],
      ]);
    });
  });

  describe('requestedVersion and answersVersion: Nest version filter', () => {
    it('reads the header, the Accept parameter or the custom extractor', () => {
      expect(requestedVersion({ headers: { 'x-version': '2' } }, { type: VersioningType.HEADER, header: 'X-Version' })).toBe('2');
      expect(requestedVersion({ headers: { accept: 'text/html, application/json;q=1;v="2"' } }, { type: VersioningType.MEDIA_TYPE, key: 'v=' })).toBe('2');
      expect(requestedVersion({ headers: {} }, { type: VersioningType.CUSTOM, extractor: () => ['2', '1'] })).toEqual(['2', '1']);
      expect(
        requestedVersion(
          { headers: {} },
          {
            type: VersioningType.CUSTOM,
            extractor: () => {
              throw new Error('no');
            },
          },
        ),
      ).toBeUndefined();
    });

    it('answers a neutral route whatever the request names; a versioned one only its versions', () => {
      expect(answersVersion([VERSION_NEUTRAL], '9')).toBe(true);
      expect(answersVersion(['1', VERSION_NEUTRAL], undefined)).toBe(true);
      expect(answersVersion(['1', '2'], undefined)).toBe(false);
      expect(answersVersion(['1', '2'], '2')).toBe(true);
      expect(answersVersion(['1'], ['3', '1'])).toBe(true);
    });
  });

  describe('AllowedMethods with versions', () => {
    const table = [
      { method: 'GET' as const, path: '/company', version: '1' },
      { method: 'POST' as const, path: '/company', version: '2' },
    ];

    it('answers the methods of the version the request names (header versioning)', () => {
      const allowed = new AllowedMethods(table, { prefix: '', exclude: [], versioning: { type: VersioningType.HEADER, header: 'v' } });
      expect(allowed.of('/company', '1')).toEqual(['GET', 'HEAD']);
      expect(allowed.of('/company', '2')).toEqual(['POST']);
      expect(allowed.of('/company', '3')).toEqual([]);
      expect(allowed.has('/company')).toBe(true);
    });

    it('matches the URI version in the path', () => {
      const allowed = new AllowedMethods(table, { prefix: '/api', exclude: [], versioning: { type: VersioningType.URI } });
      expect(allowed.of('/api/v2/company')).toEqual(['POST']);
      expect(allowed.of('/api/company')).toEqual([]);
    });
  });

  describe('routeRequest: where the back office sends a request', () => {
    const routes = [
      { method: 'GET', path: '/company/:company_id', base: '/api/v2' },
      { method: 'GET', path: '/company/stats', base: '/api', headers: { 'x-version': '1' } },
    ];

    it('sends it to the base of its route, with its headers; a literal path wins', () => {
      expect(routeRequest(routes, '/api', 'GET', '/api/company/abc')).toEqual({ url: '/api/v2/company/abc', headers: {} });
      expect(routeRequest(routes, '/api', 'GET', '/api/company/stats')).toEqual({ url: '/api/company/stats', headers: { 'x-version': '1' } });
    });

    it('leaves a request as it is without routes, or when none matches', () => {
      expect(routeRequest(undefined, '/api', 'GET', '/api/company/abc')).toEqual({ url: '/api/company/abc', headers: {} });
      expect(routeRequest(routes, '/api', 'DELETE', '/api/company/abc')).toEqual({ url: '/api/company/abc', headers: {} });
    });
  });

  describe('formatRouteTable with versions', () => {
    it('adds the versions of each route when any has one', () => {
      const text = formatRouteTable([
        {
          action: 'findOne',
          method: 'GET',
          path: '/company/:company_id',
          resource: 'Company',
          controller: 'CompanyController',
          handler: 'findOne',
          version: ['1', '2'],
        },
        {
          action: 'create',
          method: 'POST',
          path: '/company',
          resource: 'Company',
          controller: 'CompanyController',
          handler: 'create',
          version: VERSION_NEUTRAL,
        },
        { action: 'search', method: 'GET', path: '/companies', resource: 'Company', controller: 'CompanyController', handler: 'search' },
      ]);
      expect(text.split('\n')).toEqual([
        'GET    /company/:company_id  CompanyController.findOne  v1,v2',
        'POST   /company              CompanyController.create   neutral',
        'GET    /companies            CompanyController.search',
      ]);
    });
  });

  describe('version options are checked at startup', () => {
    @GeneratedResource({ routes: { search: { version: '' } } })
    @Schema()
    class Shelf {
      @Prop() name?: string;
    }

    @GeneratedResource({ version: ['1', 2 as unknown as string] })
    @Schema()
    class Crate {
      @Prop() name?: string;
    }

    @GeneratedResource({ version: '3', routes: { findOne: { version: ['1', VERSION_NEUTRAL] } } })
    @Schema()
    class Box {
      @Prop() name?: string;
    }

    it('refuses a version that is not one, naming where it is', () => {
      expect(() => ModelRoutesExplorer.routeTable({ resources: [Shelf] })).toThrow(ModelRoutesConfigError);
      expect(() => ModelRoutesExplorer.routeTable({ resources: [Shelf] })).toThrow(
        /Shelf: @GeneratedResource\(\{ routes \}\): search\.version must be a version/,
      );
      expect(() => ModelRoutesExplorer.routeTable({ resources: [Crate] })).toThrow(/Crate: @GeneratedResource\(\{ version \}\) must be a version/);
      expect(() => ModelRoutesExplorer.routeTable({ resources: [Box], version: [] })).toThrow(/forRoot\(\{ version \}\) must be a version/);
    });

    it("puts each route at its own version, else its resource's, else the module's", () => {
      const table = ModelRoutesExplorer.routeTable({ resources: [Box], version: '9' });
      expect(table.find((route) => route.action === 'findOne')?.version).toEqual(['1', VERSION_NEUTRAL]);
      expect(table.find((route) => route.action === 'search')?.version).toBe('3');
    });
  });
}
