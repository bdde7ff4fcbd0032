import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Exclude, Expose } from 'class-transformer';
import { Types, Schema as MongooseSchema } from 'mongoose';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { ModelRoutesConfigError, type ConfigErrorCode } from '../../../src/errors/model-routes-config.error.js';
import { createResourceDefinition, createResourceDefinitions, resolveResources } from '../../../src/definitions/resource-definition.factory.js';
import type { ModelRoutesModuleOptions } from '../../../src/interfaces/model-routes-options.interface.js';
import type { ResourceDefinition } from '../../../src/definitions/resource-definition.interface.js';
import { DEFAULT_SEARCH_OPTIONS } from '../../../src/query/search-defaults.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function resourceDefinitionFactorySpec(): void {
  @GeneratedResource()
  @Schema()
  class BlogPost {
    @Prop() title?: string;
  }

  @GeneratedResource()
  @Schema()
  class HTTPLog {
    @Prop() line?: string;
  }

  @GeneratedResource({ path: 'person' })
  @Schema()
  class Human {
    @Prop() name?: string;
  }

  @GeneratedResource({ id: 'slug' })
  @Schema()
  class Article {
    @Prop({ required: true, unique: true }) slug!: string;
  }

  /** Every spelling of a single reference the library accepts. */
  @GeneratedResource()
  @Schema()
  class Holding {
    @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) bsonByName?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: () => Entrepreneur }) bsonByClass?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: Entrepreneur.name }) bsonByClassName?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }) schemaByName?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: () => Entrepreneur }) schemaByClass?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: Entrepreneur.name }) schemaByClassName?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: () => 'Entrepreneur' }) bsonByNameFunction?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId }) plainId?: Types.ObjectId;
    @Prop() label?: string;
  }

  @GeneratedResource()
  @Schema()
  class Crew {
    @Prop({ type: [{ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }] }) members?: Types.ObjectId[];
    @Prop({ type: [{ type: Types.ObjectId, ref: () => Entrepreneur }] }) mentors?: Types.ObjectId[];
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }) lead?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur', select: false }) secretSponsor?: Types.ObjectId;
    @Prop({ type: [MongooseSchema.Types.ObjectId], ref: 'Entrepreneur' }) alumni?: Types.ObjectId[];
  }

  @GeneratedResource()
  @Schema()
  class Indexed {
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur', index: true }) alreadyIndexed?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur', unique: true }) uniqueRef?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: 'Entrepreneur', required: true }) requiredRef!: Types.ObjectId;
  }

  @Schema()
  class NotAResource {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'company' })
  @Schema()
  class OtherCompany {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'Company', plural: 'Companies' })
  @Schema()
  class UpperCompany {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'companies' })
  @Schema()
  class CompaniesPath {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'staff', plural: 'staff' })
  @Schema()
  class Staff {
    @Prop() name?: string;
  }

  @GeneratedResource({ id: 'code' })
  @Schema()
  class MissingId {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'a/b' })
  @Schema()
  class SlashPath {
    @Prop() name?: string;
  }

  @GeneratedResource({ plural: 'many things' })
  @Schema()
  class SpacePlural {
    @Prop() name?: string;
  }

  @GeneratedResource()
  @Schema()
  class Registered {
    @Prop() fromClass?: string;
  }

  function configError(run: () => unknown): ModelRoutesConfigError {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ModelRoutesConfigError);
      return error as ModelRoutesConfigError;
    }
    throw new Error('expected a ModelRoutesConfigError');
  }

  function definitionOf(definitions: ResourceDefinition[], name: string): ResourceDefinition {
    const found = definitions.find((definition) => definition.name === name);
    if (!found) throw new Error(`no definition named ${name}`);
    return found;
  }

  describe('createResourceDefinitions: paths and identifiers', () => {
    it.each<[string, Function, { path: string; plural: string; idParam: string; idField: string }]>([
      ['Company (defaults)', Company, { path: 'company', plural: 'companies', idParam: 'company_id', idField: '_id' }],
      ['BlogPost (kebab-case)', BlogPost, { path: 'blog-post', plural: 'blog-posts', idParam: 'blog_post_id', idField: '_id' }],
      ['HTTPLog (acronym)', HTTPLog, { path: 'http-log', plural: 'http-logs', idParam: 'http_log_id', idField: '_id' }],
      ['Entrepreneur (custom path and plural)', Entrepreneur, { path: 'user', plural: 'users', idParam: 'user_id', idField: '_id' }],
      ['Human (custom path, plural derived)', Human, { path: 'person', plural: 'people', idParam: 'person_id', idField: '_id' }],
      ['Article (id option)', Article, { path: 'article', plural: 'articles', idParam: 'article_id', idField: 'slug' }],
    ])('%s', (_label, resource, expected) => {
      const resources = resource === Entrepreneur ? [Entrepreneur] : [Entrepreneur, resource as never];
      const definition = definitionOf(createResourceDefinitions({ resources }), (resource as { name: string }).name);
      expect({ path: definition.path, plural: definition.plural, idParam: definition.idParam, idField: definition.idField }).toEqual(expected);
      expect(definition.name).toBe((resource as { name: string }).name);
      expect(definition.target).toBe(resource);
    });

    it('keeps the order of the resources list', () => {
      const definitions = createResourceDefinitions({ resources: [Company, Entrepreneur, BlogPost] });
      expect(definitions.map((definition) => definition.name)).toEqual(['Company', 'Entrepreneur', 'BlogPost']);
    });

    it('fills the default search options, and merges given ones', () => {
      expect(resolved({ resources: [BlogPost] })[0].search).toEqual(DEFAULT_SEARCH_OPTIONS);
      expect(resolved({ resources: [BlogPost], search: { maxLimit: 50, maxSkip: 0 } })[0].search).toEqual({
        ...DEFAULT_SEARCH_OPTIONS,
        maxLimit: 50,
        maxSkip: 0,
      });
    });

    it('builds field rules from the schema', () => {
      const [definition] = createResourceDefinitions({ resources: [Entrepreneur, Company] }).slice(1);
      expect([...definition.fields.writable].sort()).toEqual(['employees', 'location', 'niceName', 'owner']);
      expect(definition.fields.protected.has('_id')).toBe(true);
    });
  });

  /** The resources as an app with these options serves them. */
  function resolved(options: ModelRoutesModuleOptions) {
    return resolveResources(createResourceDefinitions(options), options).resources;
  }

  describe('resolveResources', () => {
    @GeneratedResource({ search: { maxLimit: 7 }, requireIfMatch: false })
    @Schema()
    class Ledger {
      @Prop() label?: string;
    }

    it("resolves each app's settings on new objects, under the resource's own options, leaving the plan's definitions as they were", () => {
      const definitions = createResourceDefinitions({ resources: [BlogPost, Ledger] });
      const before = definitions.map((definition) => ({ ...definition }));
      const first = resolveResources(definitions, { search: { maxLimit: 3 }, requireIfMatch: true });
      const second = resolveResources(definitions, {});
      expect(first.resources.map(({ search, requireIfMatch }) => [search.maxLimit, requireIfMatch])).toEqual([
        [3, true],
        [7, false],
      ]);
      expect(second.resources.map(({ search, requireIfMatch }) => [search.maxLimit, requireIfMatch])).toEqual([
        [100, false],
        [7, false],
      ]);
      expect([first.search.maxLimit, second.search.maxLimit]).toEqual([3, 100]);
      expect(definitions).toEqual(before);
      expect(definitions[0]).not.toHaveProperty('search');
      expect(definitions[0]).not.toHaveProperty('requireIfMatch');
    });
  });

  describe('createResourceDefinition', () => {
    it('works on a single resource, whose search options resolve to DEFAULT_SEARCH_OPTIONS', () => {
      const definition = createResourceDefinition({ resource: BlogPost });
      expect(definition.path).toBe('blog-post');
      expect(resolveResources([definition], {}).resources[0].search).toStrictEqual(DEFAULT_SEARCH_OPTIONS);
      expect(definition.references).toEqual([]);
    });

    it('does not check that references resolve (that is the set-level check)', () => {
      const definition = createResourceDefinition({ resource: Company });
      expect(definition.references).toEqual([
        { field: 'owner', targetName: 'Entrepreneur', isArray: false, targetIdField: '_id', checkExists: true, expand: false, filter: false },
      ]);
    });

    it('throws MR_CONFIG_NOT_A_RESOURCE for a class without @GeneratedResource()', () => {
      expect(configError(() => createResourceDefinition({ resource: NotAResource })).code).toBe('MR_CONFIG_NOT_A_RESOURCE');
    });
  });

  describe('createResourceDefinitions: reference discovery', () => {
    const holding = definitionOf(createResourceDefinitions({ resources: [Entrepreneur, Holding] }), 'Holding');
    const byField = new Map(holding.references.map((reference) => [reference.field, reference]));

    it.each(['bsonByName', 'bsonByClass', 'bsonByClassName', 'schemaByName', 'schemaByClass', 'schemaByClassName', 'bsonByNameFunction'])(
      '%s is a single reference to Entrepreneur stored as an ObjectId path',
      (field) => {
        expect(byField.get(field)).toEqual({
          field,
          targetName: 'Entrepreneur',
          isArray: false,
          targetIdField: '_id',
          checkExists: true,
          expand: false,
          filter: false,
        });
        expect(holding.schema.path(field).instance).toBe('ObjectId');
      },
    );

    it('finds nothing else (no ref, not a reference; _id is never one)', () => {
      expect(holding.references).toHaveLength(7);
      expect(byField.has('plainId')).toBe(false);
      expect(byField.has('_id')).toBe(false);
      expect(byField.has('label')).toBe(false);
    });

    it('indexes every single reference field', () => {
      const indexed = holding.schema.indexes().map(([fields]) => Object.keys(fields));
      for (const field of byField.keys()) {
        expect(indexed).toContainEqual([field]);
      }
      expect(indexed).not.toContainEqual(['plainId']);
      expect(indexed).not.toContainEqual(['label']);
    });

    it('flags arrays of references as isArray, and skips hidden (select: false) references', () => {
      const crew = definitionOf(createResourceDefinitions({ resources: [Entrepreneur, Crew] }), 'Crew');
      const sorted = [...crew.references].sort((a, b) => a.field.localeCompare(b.field));
      expect(sorted).toEqual([
        { field: 'alumni', targetName: 'Entrepreneur', isArray: true, targetIdField: '_id', checkExists: true, expand: false, filter: false },
        { field: 'lead', targetName: 'Entrepreneur', isArray: false, targetIdField: '_id', checkExists: true, expand: false, filter: false },
        { field: 'members', targetName: 'Entrepreneur', isArray: true, targetIdField: '_id', checkExists: true, expand: false, filter: false },
        { field: 'mentors', targetName: 'Entrepreneur', isArray: true, targetIdField: '_id', checkExists: true, expand: false, filter: false },
      ]);
    });

    it('adds no second index to a reference that is already indexed or unique, and keeps other options', () => {
      const definition = definitionOf(createResourceDefinitions({ resources: [Entrepreneur, Indexed] }), 'Indexed');
      const indexes = definition.schema.indexes();
      const count = (field: string) => indexes.filter(([fields]) => Object.keys(fields)[0] === field).length;
      expect(count('alreadyIndexed')).toBe(1);
      expect(count('uniqueRef')).toBe(1);
      expect(count('requiredRef')).toBe(1);
      const requiredRef = definition.schema.path('requiredRef');
      expect(requiredRef.instance).toBe('ObjectId');
      expect(requiredRef.isRequired).toBe(true);
      expect((requiredRef.options as { ref?: unknown }).ref).toBe('Entrepreneur');
    });
  });

  describe('createResourceDefinitions: { resource, schema } registrations', () => {
    it('uses the given schema instead of building one from the class', () => {
      const schema = new MongooseSchema({
        fromSchema: String,
        boss: { type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' },
      });
      const definitions = createResourceDefinitions({ resources: [Entrepreneur, { resource: Registered, schema }] });
      const definition = definitionOf(definitions, 'Registered');
      expect(definition.schema).toBe(schema);
      expect(definition.path).toBe('registered');
      expect(definition.fields.readable.has('fromSchema')).toBe(true);
      expect(definition.fields.readable.has('fromClass')).toBe(false);
      expect(definition.references).toEqual([
        { field: 'boss', targetName: 'Entrepreneur', isArray: false, targetIdField: '_id', checkExists: true, expand: false, filter: false },
      ]);
      expect(schema.indexes()).toContainEqual([{ boss: 1 }, expect.anything()]);
    });

    it('still requires @GeneratedResource() on the class', () => {
      const schema = SchemaFactory.createForClass(NotAResource);
      const error = configError(() => createResourceDefinitions({ resources: [{ resource: NotAResource, schema }] }));
      expect(error.code).toBe('MR_CONFIG_NOT_A_RESOURCE');
    });
  });

  describe('createResourceDefinitions: startup errors', () => {
    it.each<[string, ModelRoutesModuleOptions, ConfigErrorCode, string]>([
      ['a class without @GeneratedResource()', { resources: [NotAResource] }, 'MR_CONFIG_NOT_A_RESOURCE', 'NotAResource'],
      ['two resources with the same path', { resources: [Entrepreneur, Company, OtherCompany] }, 'MR_CONFIG_DUPLICATE_PATH', 'company'],
      ['a path equal to another resource plural', { resources: [Entrepreneur, Company, CompaniesPath] }, 'MR_CONFIG_DUPLICATE_PATH', 'companies'],
      ['a path equal to its own plural', { resources: [Staff] }, 'MR_CONFIG_DUPLICATE_PATH', 'staff'],
      ['an id option naming a missing field', { resources: [MissingId] }, 'MR_CONFIG_UNKNOWN_ID_FIELD', 'code'],
      ['a path that is not one URL segment', { resources: [SlashPath] }, 'MR_CONFIG_INVALID_OPTION', 'a/b'],
      ['a plural that is not one URL segment', { resources: [SpacePlural] }, 'MR_CONFIG_INVALID_OPTION', 'many things'],
      ['maxLimit 0', { resources: [BlogPost], search: { maxLimit: 0 } }, 'MR_CONFIG_INVALID_OPTION', 'maxLimit'],
      ['defaultLimit 0', { resources: [BlogPost], search: { defaultLimit: 0 } }, 'MR_CONFIG_INVALID_OPTION', 'defaultLimit'],
      ['defaultLimit > maxLimit', { resources: [BlogPost], search: { defaultLimit: 200 } }, 'MR_CONFIG_INVALID_OPTION', 'defaultLimit'],
      ['defaultLimit > a given maxLimit', { resources: [BlogPost], search: { defaultLimit: 11, maxLimit: 10 } }, 'MR_CONFIG_INVALID_OPTION', 'maxLimit'],
      ['a negative maxSkip', { resources: [BlogPost], search: { maxSkip: -1 } }, 'MR_CONFIG_INVALID_OPTION', 'maxSkip'],
      ['a non-integer maxRegexLength', { resources: [BlogPost], search: { maxRegexLength: 1.5 } }, 'MR_CONFIG_INVALID_OPTION', 'maxRegexLength'],
      ['maxRegexLength 0', { resources: [BlogPost], search: { maxRegexLength: 0 } }, 'MR_CONFIG_INVALID_OPTION', 'maxRegexLength'],
      ['a misspelled search option', { resources: [BlogPost], search: { maxLimt: 5 } as never }, 'MR_CONFIG_INVALID_OPTION', 'maxLimt'],
      ['a cursorSecret shorter than 16 characters', { resources: [BlogPost], search: { cursorSecret: 'short' } }, 'MR_CONFIG_INVALID_OPTION', 'cursorSecret'],
      ['a cursorSecret that is not a string', { resources: [BlogPost], search: { cursorSecret: 16 as never } }, 'MR_CONFIG_INVALID_OPTION', 'cursorSecret'],
      ['two paths that differ only in case', { resources: [Entrepreneur, Company, UpperCompany] }, 'MR_CONFIG_DUPLICATE_PATH', 'Company'],
    ])('%s', (_label, options, code, mentioned) => {
      const error = configError(() => createResourceDefinitions(options));
      expect(error.code).toBe(code);
      expect(error.name).toBe('ModelRoutesConfigError');
      expect(error.message).toContain(mentioned);
      expect(error.message).toContain(`[${code}]`);
    });

    it('knows the id field of a referenced resource identified by a slug, and checkExists, expand and filter from the options', () => {
      @GeneratedResource({ id: 'slug' })
      @Schema()
      class Shelf {
        @Prop({ required: true }) slug!: string;
      }
      @GeneratedResource({ references: { shelf: { checkExists: false, expand: true, filter: false } } })
      @Schema()
      class Volume {
        @Prop({ type: Types.ObjectId, ref: 'Shelf' }) shelf?: Types.ObjectId;
        @Prop({ type: Types.ObjectId, ref: 'Shelf' }) previous?: Types.ObjectId;
      }
      const [, volume] = createResourceDefinitions({ resources: [Shelf, Volume], references: { checkExists: true, filter: true } });
      expect(volume.references).toEqual([
        { field: 'shelf', targetName: 'Shelf', isArray: false, targetIdField: 'slug', checkExists: false, expand: true, filter: false },
        { field: 'previous', targetName: 'Shelf', isArray: false, targetIdField: 'slug', checkExists: true, expand: false, filter: true },
      ]);
      const [, unchecked] = createResourceDefinitions({ resources: [Shelf, Volume], references: { checkExists: false } });
      expect(unchecked.references.map((reference) => reference.checkExists)).toEqual([false, false]);
    });

    it('gives the referenced resource the reverse paths declared to it, and refuses a name that is a field, taken, or aims at no resource', () => {
      @GeneratedResource()
      @Schema()
      class Harbor {
        @Prop() name?: string;
      }
      const vessel = (reverse: string, ref = 'Harbor', visited = `${reverse}Too`) => {
        @GeneratedResource({ references: { home: { expandReverse: reverse }, visited: { expandReverse: visited } } })
        @Schema()
        class Vessel {
          @Prop({ type: Types.ObjectId, ref }) home?: Types.ObjectId;
          @Prop({ type: [{ type: Types.ObjectId, ref }] }) visited?: Types.ObjectId[];
        }
        return Vessel;
      };
      const [harbor] = createResourceDefinitions({ resources: [Harbor, vessel('vessels')] });
      expect(harbor.reverseExpansions).toEqual([
        { name: 'vessels', source: 'Vessel', field: 'home' },
        { name: 'vesselsToo', source: 'Vessel', field: 'visited' },
      ]);
      expect(configError(() => createResourceDefinitions({ resources: [Harbor, vessel('name')] })).message).toMatch(
        /expandReverse 'name' is a field of Harbor/,
      );
      expect(configError(() => createResourceDefinitions({ resources: [Harbor, vessel('x', 'Harbor', 'x')] })).message).toMatch(
        /expandReverse 'x' is already Vessel.home's name/,
      );
      expect(configError(() => createResourceDefinitions({ resources: [Harbor, vessel('ok', 'Entrepreneur')] })).message).toMatch(
        /references Entrepreneur, which is not a resource/,
      );
      expect(() => createResourceDefinitions({ resources: [Harbor, vessel('not a name')] })).toThrow(/expandReverse must be a name of letters, digits and _/);
    });

    it.each(['checkExists', 'expand', 'filter'])('refuses a %s that is not a boolean', (setting) => {
      expect(() => createResourceDefinitions({ resources: [Company], references: { [setting]: 'no' as never } })).toThrow(
        new RegExp(`${setting} must be true or false`),
      );
    });

    it('leaves a ref to a model that is not a resource to be resolved when the app starts', () => {
      const [company] = createResourceDefinitions({ resources: [Company] });
      expect(company.references).toEqual([
        { field: 'owner', targetName: 'Entrepreneur', isArray: false, targetIdField: '_id', checkExists: true, expand: false, filter: false },
      ]);
    });

    it('lowers an inherited defaultLimit to a smaller maxLimit', () => {
      const [definition] = resolved({ resources: [BlogPost], search: { maxLimit: 5 } });
      expect(definition.search).toMatchObject({ maxLimit: 5, defaultLimit: 5 });
    });

    it('takes an option given as undefined for its default', () => {
      const [definition] = resolved({ resources: [BlogPost], search: { maxLimit: undefined, defaultLimit: 5 } });
      expect(definition.search).toMatchObject({ maxLimit: 100, defaultLimit: 5 });
    });

    it('accepts maxSkip 0 and defaultLimit equal to maxLimit', () => {
      expect(() => createResourceDefinitions({ resources: [BlogPost], search: { maxSkip: 0, defaultLimit: 100, maxLimit: 100 } })).not.toThrow();
    });

    it('names both resources in a duplicate path error', () => {
      const error = configError(() => createResourceDefinitions({ resources: [Entrepreneur, Company, OtherCompany] }));
      expect(error.message).toContain('OtherCompany');
      expect(error.message).toContain('Company (path)');
    });
  });

  @GeneratedResource()
  @Schema()
  class Dossier {
    @Prop() title?: string;
    @Exclude() @Prop() source?: string;
    @Expose({ groups: ['admin'] }) @Prop() rating?: number;
    @Exclude() @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) informant?: Types.ObjectId;
  }

  @GeneratedResource()
  @Schema()
  class Leak {
    @Expose({ groups: ['admin'] }) @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) handler?: Types.ObjectId;
  }

  describe('createResourceDefinition: class-transformer', () => {
    it('hides the @Exclude()d fields, and gets no reference routes for them', () => {
      const definition = createResourceDefinition({ resource: Dossier });
      expect([...definition.fields.hidden].sort()).toEqual(['informant', 'source']);
      expect(definition.fields.writable.has('source')).toBe(false);
      expect(definition.references).toEqual([]);
    });

    it('keeps the group-only fields readable and writable, in its serialization views', () => {
      const definition = createResourceDefinition({ resource: Dossier });
      expect(definition.fields.readable.has('rating')).toBe(true);
      expect(definition.fields.writable.has('rating')).toBe(true);
      expect([...definition.serialization!.groupOnly]).toEqual(['rating']);
      expect(createResourceDefinition({ resource: BlogPost }).serialization).toBeUndefined();
    });

    it('refuses a reference field shown to some groups only: its reference routes would show it to all', () => {
      expect(() => createResourceDefinition({ resource: Leak })).toThrow(
        /^Leak\.handler: a reference field cannot be shown to some groups only .*\[MR_CONFIG_INVALID_OPTION\]$/,
      );
    });
  });
}
