import { EXPORT_FORMATS, exportRequest } from '../../../../src/back-office/app/list-export.js';
import type { ResourceRoute } from '../../../../src/back-office/app/metadata.js';
import { containing } from '../../../../src/back-office/app/search-query.js';
import { EXPORT_FORMATS as SERVER_FORMATS } from '../../../../src/export/export-formats.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function listExportSpec(): void {
  describe("a back office list's export request (the export routes' query string and body)", () => {
    const companies = (...routes: ResourceRoute[]) => ({ path: 'company', plural: 'companies', routes });
    /** A list's search as the page sends it: its filter and sort, and its page. */
    const page = {
      filter: { niceName: containing('ac'), employees: { $gte: 10 } },
      sort: '-employees',
      limit: 20,
      skip: 40,
      after: 'eyJ2IjoxfQ.x',
      expand: ['owner'],
    };

    it('none without an export route', () => {
      expect(exportRequest(companies('search', 'searchPost', 'findOne'), page, 'csv')).toBeUndefined();
    });

    it('a list searched with GET: GET /<plural>/export with its filter and sort, never its page nor its expand, and the format', () => {
      const request = exportRequest(companies('search', 'export', 'exportPost'), page, 'csv')!;
      expect(request.action).toBe('export');
      expect([...request.query]).toEqual([
        ['niceName[regex]', 'ac'],
        ['niceName[options]', 'i'],
        ['employees[gte]', '10'],
        ['sort', '-employees'],
        ['format', 'csv'],
      ]);
      expect(request.body).toBeUndefined();
      expect(request).toMatchObject({ filename: 'companies.csv', mediaType: 'text/csv' });
    });

    it('a list searched with POST: POST /<plural>/export with its search body, the format in the query string', () => {
      const request = exportRequest(companies('searchPost', 'export', 'exportPost'), page, 'xlsx')!;
      expect(request.action).toBe('exportPost');
      expect(request.query.toString()).toBe('format=xlsx');
      expect(request.body).toEqual({ query: { niceName: { $regex: 'ac', $options: 'i' }, employees: { $gte: 10 } }, sort: '-employees' });
      expect(request.filename).toBe('companies.xlsx');
    });

    it('takes the other export route when the one of the list’s method is disabled', () => {
      expect(exportRequest(companies('search', 'exportPost'), page, 'json')).toMatchObject({
        action: 'exportPost',
        body: { query: page.filter, sort: '-employees' },
      });
      expect(exportRequest(companies('searchPost', 'export'), page, 'ndjson')?.query.toString()).toBe(
        'niceName%5Bregex%5D=ac&niceName%5Boptions%5D=i&employees%5Bgte%5D=10&sort=-employees&format=ndjson',
      );
    });

    it('a filter on a field named format goes in a POST body when it can (GET takes format as the export’s)', () => {
      expect(exportRequest(companies('search', 'export', 'exportPost'), { filter: { format: 'A4' } }, 'csv')).toMatchObject({
        action: 'exportPost',
        body: { query: { format: 'A4' } },
      });
      expect(exportRequest(companies('search', 'export'), { filter: { format: 'A4' } }, 'csv')?.action).toBe('export');
    });

    it(
      "a reverse list: its relation's reverse export routes, at the referenced document, chosen by the reverse routes as a list's by its search " + 'routes',
      () => {
        const reverse = { target: { path: 'user', plural: 'users' }, id: 'u1', field: 'owner' };
        const list = companies('search', 'export', 'exportPost');
        expect(exportRequest(list, page, 'csv', { ...reverse, routes: ['reverse', 'reversePost'] })).toBeUndefined();
        const get = exportRequest(list, page, 'csv', { ...reverse, routes: ['reverse', 'reversePost', 'reverseExport', 'reverseExportPost'] })!;
        expect(get).toMatchObject({
          action: 'reverseExport',
          at: { resource: reverse.target, id: 'u1', source: list, field: 'owner' },
          filename: 'companies.csv',
        });
        expect(get.query.toString()).toBe('niceName%5Bregex%5D=ac&niceName%5Boptions%5D=i&employees%5Bgte%5D=10&sort=-employees&format=csv');
        expect(exportRequest(list, page, 'json', { ...reverse, routes: ['reversePost', 'reverseExport', 'reverseExportPost'] })).toMatchObject({
          action: 'reverseExportPost',
          body: { query: page.filter, sort: '-employees' },
        });
        expect(exportRequest(list, page, 'json', { ...reverse, routes: ['reverse', 'reverseExportPost'] })?.action).toBe('reverseExportPost');
      },
    );

    it('offers the formats the export routes write, with their extensions', () => {
      expect(Object.keys(EXPORT_FORMATS).sort()).toEqual(Object.keys(SERVER_FORMATS).sort());
      for (const [name, { extension, mediaType }] of Object.entries(EXPORT_FORMATS)) {
        const server = SERVER_FORMATS[name as keyof typeof SERVER_FORMATS];
        expect([extension, mediaType]).toEqual([server.extension, server.mediaType.split(';')[0]]);
      }
      expect(Object.keys(EXPORT_FORMATS)[0]).toBe('csv');
    });
  });
}
