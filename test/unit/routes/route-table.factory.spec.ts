import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types, Schema as MongooseSchema } from 'mongoose';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { createResourceDefinitions } from '../../../src/definitions/resource-definition.factory.js';
import { comparePaths, createRouteTable, referenceControllerName, resourceControllerName, sortRoutes } from '../../../src/routes/route-table.factory.js';
import type { RouteDefinition, RouteMethod } from '../../../src/interfaces/route-definition.interface.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function routeTableFactorySpec(): void {
  @GeneratedResource()
  @Schema()
  class Team {
    @Prop() label?: string;
    @Prop({ type: [{ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }] }) members?: Types.ObjectId[];
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }) co_owner?: Types.ObjectId;
  }

  @Schema()
  class Shot {
    @Prop() name?: string;
  }

  @Schema({ _id: false })
  class Reading {
    @Prop() kg?: number;
  }

  /** An array of sub-documents with `_id`s, one without, and one a client cannot write. */
  @GeneratedResource({ path: 'pet', readonly: ['notes'] })
  @Schema()
  class Pet {
    @Prop({ type: [SchemaFactory.createForClass(Shot)] }) shots?: Shot[];
    @Prop({ type: [SchemaFactory.createForClass(Reading)] }) readings?: Reading[];
    @Prop({ type: [SchemaFactory.createForClass(Shot)] }) notes?: Shot[];
  }

  const definitions = () => createResourceDefinitions({ resources: [Entrepreneur, Company] });
  const line = (route: Pick<RouteDefinition, 'method' | 'path'>) => `${route.method} ${route.path}`;

  describe('createRouteTable', () => {
    const table = createRouteTable(definitions());
    const companyRoutes = table.filter((route) => route.controller.startsWith('Company'));

    it('lists every route of both resources in order: literal segments before :params, GET<POST<PUT<PATCH<DELETE', () => {
      expect(table.map(line)).toEqual([
        'GET /companies',
        'POST /companies',
        'POST /company',
        'GET /company/:company_id',
        'PUT /company/:company_id',
        'PATCH /company/:company_id',
        'DELETE /company/:company_id',
        'GET /company/:company_id/owner',
        'POST /user',
        'GET /user/:user_id',
        'PUT /user/:user_id',
        'PATCH /user/:user_id',
        'DELETE /user/:user_id',
        'GET /user/:user_id/companies/owner',
        'POST /user/:user_id/companies/owner',
        'GET /users',
        'POST /users',
      ]);
    });

    it('gives Company ten routes', () => {
      expect(companyRoutes).toHaveLength(10);
    });

    it.each<[RouteMethod, string, Partial<RouteDefinition>]>([
      ['GET', '/company/:company_id', { action: 'findOne', handler: 'findOne', controller: 'CompanyController', resource: 'Company' }],
      ['POST', '/company', { action: 'create', handler: 'create', controller: 'CompanyController', resource: 'Company' }],
      ['PUT', '/company/:company_id', { action: 'update', handler: 'update', controller: 'CompanyController', resource: 'Company' }],
      ['PATCH', '/company/:company_id', { action: 'patch', handler: 'patch', controller: 'CompanyController', resource: 'Company' }],
      ['DELETE', '/company/:company_id', { action: 'delete', handler: 'delete', controller: 'CompanyController', resource: 'Company' }],
      ['GET', '/companies', { action: 'search', handler: 'search', controller: 'CompanyController', resource: 'Company' }],
      ['POST', '/companies', { action: 'searchPost', handler: 'searchPost', controller: 'CompanyController', resource: 'Company' }],
      [
        'GET',
        '/company/:company_id/owner',
        {
          action: 'find',
          handler: 'find',
          controller: 'CompanyOwnerReferenceController',
          resource: 'Entrepreneur',
          reference: { source: 'Company', field: 'owner', target: 'Entrepreneur' },
        },
      ],
      [
        'GET',
        '/user/:user_id/companies/owner',
        {
          action: 'reverse',
          handler: 'reverse',
          controller: 'CompanyOwnerReferenceController',
          resource: 'Company',
          reference: { source: 'Company', field: 'owner', target: 'Entrepreneur' },
        },
      ],
      [
        'POST',
        '/user/:user_id/companies/owner',
        {
          action: 'reversePost',
          handler: 'reversePost',
          controller: 'CompanyOwnerReferenceController',
          resource: 'Company',
          reference: { source: 'Company', field: 'owner', target: 'Entrepreneur' },
        },
      ],
    ])('%s %s', (method, path, expected) => {
      const matches = table.filter((route) => route.method === method && route.path === path);
      expect(matches).toHaveLength(1);
      expect(matches[0]).toEqual({ method, path, ...expected });
    });

    it('has no reference property on plain resource routes', () => {
      for (const route of table.filter((r) => r.controller !== 'CompanyOwnerReferenceController')) {
        expect(route).not.toHaveProperty('reference');
      }
    });

    it('names the Entrepreneur controller after the class, not the path', () => {
      const controllers = new Set(table.filter((route) => route.path.startsWith('/user') && !route.path.includes('companies')).map((r) => r.controller));
      expect([...controllers]).toEqual(['EntrepreneurController']);
    });

    it('has no duplicate method + path pair', () => {
      const lines = table.map(line);
      expect(new Set(lines).size).toBe(lines.length);
    });

    it('gives an array of references a list, the reverse routes and the relationship routes, and pascal-cases snake_case fields in controller names', () => {
      const routes = createRouteTable(createResourceDefinitions({ resources: [Entrepreneur, Team] }));
      expect(routes.filter((route) => route.reference?.field === 'members').map((route) => [line(route), route.action, route.handler])).toEqual([
        ['GET /team/:team_id/members', 'list', 'list'],
        ['POST /team/:team_id/members/:user_id', 'add', 'add'],
        ['DELETE /team/:team_id/members/:user_id', 'remove', 'remove'],
        ['GET /user/:user_id/teams/members', 'reverse', 'reverse'],
        ['POST /user/:user_id/teams/members', 'reversePost', 'reversePost'],
      ]);
      const coOwner = routes.filter((route) => route.reference?.field === 'co_owner');
      expect(coOwner.map((route) => [line(route), route.handler, route.controller])).toEqual([
        ['GET /team/:team_id/co_owner', 'find', 'TeamCoOwnerReferenceController'],
        ['GET /user/:user_id/teams/co_owner', 'reverse', 'TeamCoOwnerReferenceController'],
        ['POST /user/:user_id/teams/co_owner', 'reversePost', 'TeamCoOwnerReferenceController'],
      ]);
    });

    it(
      'gives an array of sub-documents its element routes, ordered after the document routes, and none to one without _id or that clients cannot ' + 'write',
      () => {
        const routes = createRouteTable(createResourceDefinitions({ resources: [Pet] }));
        expect(routes.map((route) => [line(route), route.handler, route.controller])).toEqual([
          ['POST /pet', 'create', 'PetController'],
          ['GET /pet/:pet_id', 'findOne', 'PetController'],
          ['PUT /pet/:pet_id', 'update', 'PetController'],
          ['PATCH /pet/:pet_id', 'patch', 'PetController'],
          ['DELETE /pet/:pet_id', 'delete', 'PetController'],
          ['POST /pet/:pet_id/shots', 'addElement', 'PetShotsElementController'],
          ['GET /pet/:pet_id/shots/:element_id', 'findElement', 'PetShotsElementController'],
          ['PATCH /pet/:pet_id/shots/:element_id', 'patchElement', 'PetShotsElementController'],
          ['DELETE /pet/:pet_id/shots/:element_id', 'deleteElement', 'PetShotsElementController'],
          ['GET /pets', 'search', 'PetController'],
          ['POST /pets', 'searchPost', 'PetController'],
        ]);
        expect(routes.filter((route) => route.element).every((route) => route.element!.field === 'shots')).toBe(true);
      },
    );

    it('names each route once: its action is its handler and its option key', () => {
      for (const route of table) expect(route.handler).toBe(route.action);
    });

    it('returns an empty table for no resources', () => {
      expect(createRouteTable([])).toEqual([]);
    });
  });

  describe('controller names', () => {
    const [user, company] = definitions();

    it('resourceControllerName is <Name>Controller', () => {
      expect(resourceControllerName(company)).toBe('CompanyController');
      expect(resourceControllerName(user)).toBe('EntrepreneurController');
    });

    it.each([
      ['owner', 'CompanyOwnerReferenceController'],
      ['co_owner', 'CompanyCoOwnerReferenceController'],
      ['mainContact', 'CompanyMainContactReferenceController'],
    ])('referenceControllerName(Company, %s) → %s', (field, expected) => {
      expect(referenceControllerName(company, field)).toBe(expected);
    });
  });

  describe('sortRoutes', () => {
    const route = (method: RouteMethod, path: string) => ({ method, path });

    it('puts /company/stats before /company/:company_id, whatever the input order', () => {
      const routes = [route('GET', '/company/:company_id'), route('GET', '/company/stats')];
      expect(sortRoutes(routes).map(line)).toEqual(['GET /company/stats', 'GET /company/:company_id']);
      expect(sortRoutes([...routes].reverse()).map(line)).toEqual(['GET /company/stats', 'GET /company/:company_id']);
    });

    it('orders methods GET < POST < PUT < DELETE for equal paths', () => {
      const routes = [route('DELETE', '/a/:id'), route('PUT', '/a/:id'), route('POST', '/a/:id'), route('GET', '/a/:id')];
      expect(sortRoutes(routes).map((r) => r.method)).toEqual(['GET', 'POST', 'PUT', 'DELETE']);
    });

    it('puts a shorter path before a longer one sharing its segments', () => {
      const routes = [route('GET', '/company/:company_id/owner'), route('GET', '/company/:company_id'), route('POST', '/company')];
      expect(sortRoutes(routes).map(line)).toEqual(['POST /company', 'GET /company/:company_id', 'GET /company/:company_id/owner']);
    });

    it('compares the first differing segment after equal params', () => {
      const routes = [route('GET', '/a/:x/z'), route('GET', '/a/:y/b'), route('GET', '/a/:x/:y')];
      expect(sortRoutes(routes).map(line)).toEqual(['GET /a/:y/b', 'GET /a/:x/z', 'GET /a/:x/:y']);
    });

    it('keeps the declaration order of routes with the same path and method (stable)', () => {
      const routes = [
        { method: 'GET' as const, path: '/x/:a', id: 1 },
        { method: 'GET' as const, path: '/x/:b', id: 2 },
        { method: 'GET' as const, path: '/x/:c', id: 3 },
      ];
      expect(sortRoutes(routes).map((r) => r.id)).toEqual([1, 2, 3]);
      expect(sortRoutes([...routes].reverse()).map((r) => r.id)).toEqual([3, 2, 1]);
    });

    it('does not mutate its input', () => {
      const routes = [route('GET', '/b'), route('GET', '/a')];
      const sorted = sortRoutes(routes);
      expect(routes.map(line)).toEqual(['GET /b', 'GET /a']);
      expect(sorted).not.toBe(routes);
    });
  });

  describe('comparePaths', () => {
    it.each<[string, string, '<' | '>' | '=']>([
      ['/company/stats', '/company/:company_id', '<'],
      ['/company/:company_id', '/company/stats', '>'],
      ['/:x', '/a', '>'],
      ['/companies', '/company', '<'],
      ['/company', '/companies', '>'],
      ['/company', '/company/:company_id', '<'],
      ['/company/:company_id', '/company/:company_id/owner', '<'],
      ['/user/:user_id/companies/owner', '/users', '<'],
      ['/user', '/users', '<'],
      ['/company/:a', '/company/:b', '='],
      ['/company/', '/company', '='],
      ['/a/b', '/a/b', '='],
    ])('%s vs %s: %s', (a, b, expected) => {
      const result = comparePaths(a, b);
      if (expected === '<') expect(result).toBeLessThan(0);
      if (expected === '>') expect(result).toBeGreaterThan(0);
      if (expected === '=') expect(result).toBe(0);
    });
  });

  @GeneratedResource({ routes: { delete: false, search: { decorators: [] } }, references: { owner: { reverse: false, reversePost: false } } })
  @Schema()
  class Venture {
    @Prop() name?: string;
    @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) owner?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: 'Investor' }) investor?: Types.ObjectId;
  }

  describe('route options in the table', () => {
    const table = createRouteTable(createResourceDefinitions({ resources: [Entrepreneur, Venture] }), { routes: { update: false } });
    const lines = table.filter((route) => route.resource === 'Venture' || route.reference?.source === 'Venture').map(line);

    it('leaves out disabled routes, from the resource and from forRoot defaults', () => {
      expect(lines).not.toContain('DELETE /venture/:venture_id');
      expect(lines).not.toContain('PUT /venture/:venture_id');
      expect(table.map(line)).not.toContain('PUT /user/:user_id');
      expect(lines).toContain('GET /venture/:venture_id');
    });

    it('disables only the route an option names: update, not patch; search, not searchPost', () => {
      expect(lines).toContain('PATCH /venture/:venture_id');
      expect(table.map(line)).toContain('PATCH /user/:user_id');
      expect(lines).toContain('GET /ventures');
      expect(lines).toContain('POST /ventures');
    });

    it('leaves out a disabled reference direction, keeping the other', () => {
      expect(lines).toContain('GET /venture/:venture_id/owner');
      expect(lines).not.toContain('GET /user/:user_id/ventures/owner');
      expect(lines).not.toContain('POST /user/:user_id/ventures/owner');
    });

    it('gives a ref to a model that is not a resource its find route only', () => {
      const investor = table.filter((route) => route.reference?.field === 'investor');
      expect(investor.map(line)).toEqual(['GET /venture/:venture_id/investor']);
      expect(investor[0]).toMatchObject({ resource: 'Investor', reference: { source: 'Venture', field: 'investor', target: 'Investor' } });
    });
  });
}
