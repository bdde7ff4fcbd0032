import { resolveResources } from '../../../src/definitions/resource-definition.factory.js';
import { Controller, Get, Post } from '@nestjs/common';
import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { Expose } from 'class-transformer';
import { GeneratedController, GeneratedResource } from '../../../src/index.js';
import { backOfficeMetadata, normalizePrefix } from '../../../src/back-office/back-office-metadata.js';
import { planModelRoutes } from '../../../src/routes/model-routes-plan.js';
import type { ModelRoutesModuleOptions } from '../../../src/interfaces/model-routes-options.interface.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeMetadataSpec(): void {
  @Schema()
  class Dimensions {
    @Prop() width?: number;
    @Prop() height?: number;
  }

  @GeneratedResource({ hidden: ['internal.code', 'internal.owner'], writeOnly: ['pin'] })
  @Schema()
  class Widget {
    @Prop() pin?: string;
    @Prop() serial?: number;
    @Prop(raw({ code: { type: String }, owner: { type: String } })) internal?: { code?: string; owner?: string };
    @Prop({ type: SchemaFactory.createForClass(Dimensions) }) size?: Dimensions;
    @Prop({ type: [{ type: String, enum: ['red', 'blue'] }] }) colors?: string[];
    @Prop({ type: [Number] }) readings?: number[];
    @Prop({ type: Map, of: String }) labels?: Map<string, string>;
    @Prop({ type: Buffer }) blob?: Buffer;
    @Prop({ type: [{ type: MongooseSchema.Types.ObjectId }] }) loose?: Types.ObjectId[];
    @Prop({ required: [true, 'a name is needed'], min: [1, 'too small'] }) rank!: number;
  }

  @GeneratedResource({ id: 'code' })
  @Schema()
  class Gadget {
    @Prop({ required: true, unique: true }) code!: string;
    @Prop() note?: string;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Widget' }) widget?: Types.ObjectId;
  }

  /** Overrides two handlers: `findOne` on its generated path, `search` on another one. */
  @Controller()
  class GadgetController extends GeneratedController(Gadget) {
    @Get(':gadget_id')
    override findOne(id: string) {
      return super.findOne(id);
    }

    @Post('lookup')
    override searchPost(body: unknown) {
      return super.searchPost(body);
    }
  }

  function metadata(options: ModelRoutesModuleOptions, prefix = '') {
    const { definitions, table } = planModelRoutes(options);
    return backOfficeMetadata(
      [{ definitions: resolveResources(definitions, options).resources, routes: table }],
      { title: 'T', auth: { header: 'x-api-key' } },
      prefix,
    );
  }

  describe('backOfficeMetadata', () => {
    it.each([
      ['', ''],
      ['/', ''],
      ['api', '/api'],
      ['/api/', '/api'],
      ['v1/api', '/v1/api'],
    ])('the global prefix %j is the API base %j', (prefix, base) => {
      expect(normalizePrefix(prefix)).toBe(base);
      expect(metadata({ resources: [Widget] }, prefix).apiBase).toBe(base);
    });

    it('describes sub-documents as groups, arrays by their items, and anything else as JSON', () => {
      const [widget] = metadata({ resources: [Widget] }).resources;
      expect(widget.fields).toEqual([
        { path: '_id', type: 'objectId', readOnly: true },
        { path: 'pin', type: 'string', writeOnly: true },
        { path: 'serial', type: 'number' },
        {
          path: 'size',
          type: 'object',
          fields: [
            { path: 'size.width', type: 'number' },
            { path: 'size.height', type: 'number' },
            { path: 'size._id', type: 'objectId', readOnly: true },
          ],
        },
        { path: 'colors', type: 'array', items: 'string', enum: ['red', 'blue'] },
        { path: 'readings', type: 'array', items: 'number' },
        { path: 'labels', type: 'json' },
        { path: 'blob', type: 'json' },
        { path: 'loose', type: 'array', items: 'objectId' },
        { path: 'rank', type: 'number', required: true, min: 1 },
      ]);
    });

    it('takes as label the first required text, else the first text the page shows, else the id field', () => {
      const { resources } = metadata({ resources: [Widget, Gadget] });
      // Widget: its one text field is write-only; no text to show.
      expect(resources.map((resource) => resource.labelField)).toEqual(['_id', 'code']);
    });

    it('takes a required title over a slug id field', () => {
      @GeneratedResource({ id: 'slug' })
      @Schema()
      class Chapter {
        @Prop({ required: true }) slug!: string;
        @Prop({ required: true }) title!: string;
      }
      expect(metadata({ resources: [Chapter] }).resources[0].labelField).toBe('title');
    });

    it('keeps an overridden action on its generated path, drops one moved elsewhere, and lists the references to a resource', () => {
      const { resources } = metadata({ resources: [Widget, Gadget], controllers: [GadgetController], references: { reversePost: false } });
      const [widget, gadget] = resources;
      expect(gadget.routes).toEqual(['findOne', 'create', 'update', 'patch', 'delete', 'search']);
      expect(gadget.fields.find((field) => field.path === 'widget')).toEqual({ path: 'widget', type: 'reference', target: 'Widget', routes: ['find'] });
      expect(widget.referencedBy).toEqual([{ resource: 'Gadget', field: 'widget', isArray: false, routes: ['reverse'] }]);
      expect(gadget.referencedBy).toEqual([]);
    });

    it("says which reference fields are expandable: those declared expand (per field, or forRoot's default)", () => {
      const reference = (options: ModelRoutesModuleOptions) => metadata(options).resources[1].fields.find((field) => field.path === 'widget');
      expect(reference({ resources: [Widget, Gadget] })).not.toHaveProperty('expandable');
      expect(reference({ resources: [Widget, Gadget], references: { expand: true } })).toMatchObject({ type: 'reference', expandable: true });
      @GeneratedResource({ references: { widget: { expand: true } } })
      @Schema()
      class Gizmo {
        @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Widget' }) widget?: Types.ObjectId;
        @Prop({ type: [{ type: MongooseSchema.Types.ObjectId, ref: 'Widget' }] }) spares?: Types.ObjectId[];
      }
      const gizmo = metadata({ resources: [Widget, Gizmo] }).resources[1].fields;
      expect(gizmo.find((field) => field.path === 'widget')).toMatchObject({ type: 'reference', expandable: true });
      expect(gizmo.find((field) => field.path === 'spares')).not.toHaveProperty('expandable');
      // How many of them one request may expand, for a resource with expandable fields only.
      expect(metadata({ resources: [Widget, Gizmo], search: { maxExpandPaths: 3 } }).resources.map((resource) => resource.maxExpandPaths)).toEqual([
        undefined,
        3,
      ]);
    });

    it(
      "says which reference fields are filterable (declared filter) and which of the target's fields a filter may use: never a hidden or " + 'write-only one',
      () => {
        const reference = (options: ModelRoutesModuleOptions) => metadata(options).resources[1].fields.find((field) => field.path === 'widget');
        expect(reference({ resources: [Widget, Gadget] })).not.toHaveProperty('filterable');
        expect(reference({ resources: [Widget, Gadget] })).not.toHaveProperty('filterFields');
        // Widget's top-level text, number, date and boolean fields: `pin` is write-only, `internal` hidden, the rest not filtered by a panel input.
        expect(reference({ resources: [Widget, Gadget], references: { filter: true } })).toMatchObject({
          type: 'reference',
          filterable: true,
          filterFields: ['serial', 'rank'],
        });
        @GeneratedResource({ references: { spares: { filter: true } } })
        @Schema()
        class Gizmo {
          @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Gadget' }) widget?: Types.ObjectId;
          @Prop({ type: [{ type: MongooseSchema.Types.ObjectId, ref: 'Gadget' }] }) spares?: Types.ObjectId[];
        }
        const gizmo = metadata({ resources: [Widget, Gadget, Gizmo] }).resources[2].fields;
        expect(gizmo.find((field) => field.path === 'widget')).not.toHaveProperty('filterable');
        // An array of references too; the target's own reference (Gadget.widget) is not followed: no second hop.
        expect(gizmo.find((field) => field.path === 'spares')).toMatchObject({ type: 'references', filterable: true, filterFields: ['code', 'note'] });
      },
    );

    it('keeps a write-only field a client may write, and leaves out one it may not (also readonly): the page could neither show nor send it', () => {
      const [vault] = metadata({ resources: [Vault] }).resources;
      expect(vault.fields).toEqual([
        { path: '_id', type: 'objectId', readOnly: true },
        { path: 'secret', type: 'string', writeOnly: true },
      ]);
      expect(vault.labelField).toBe('_id');
    });

    it(
      "names the mark of a resource with soft delete (the option's field, else deletedAt) and lists its enabled trash routes; none without soft " + 'delete',
      () => {
        const [bin, archive, widget] = metadata({ resources: [Bin, Archive, Widget] }).resources;
        expect(bin.softDelete).toEqual({ field: 'deletedAt' });
        expect(bin.routes).toEqual(expect.arrayContaining(['delete', 'trash', 'restore', 'purge']));
        expect(bin.fields.find((field) => field.path === 'deletedAt')).toEqual({ path: 'deletedAt', type: 'date', readOnly: true });
        expect(archive.softDelete).toEqual({ field: 'removedOn' });
        expect(archive.routes).toEqual(expect.arrayContaining(['trash', 'restore']));
        expect(archive.routes).not.toContain('purge');
        expect(widget.softDelete).toBeUndefined();
        expect(widget.routes.filter((route) => ['trash', 'restore', 'purge'].includes(route))).toEqual([]);
      },
    );

    it("leaves out the fields a request's groups do not see (a nested class's too), per group set, and from a filter across a reference", () => {
      const { definitions, table } = planModelRoutes({ resources: [Payroll, Desk] });
      const registration = { definitions: resolveResources(definitions, {}).resources, routes: table };
      const paths = (groups: string[] | undefined) => {
        const result = backOfficeMetadata([registration], { title: 'T', auth: { header: 'x-api-key' } }, '', [groups]);
        const flat = (fields: (typeof result.resources)[number]['fields']): string[] => fields.flatMap((field) => [field.path, ...flat(field.fields ?? [])]);
        const desk = result.resources.find((resource) => resource.name === 'Desk')!;
        return { payroll: flat(result.resources[0].fields), filter: desk.fields.find((field) => field.path === 'holder')?.filterFields };
      };
      expect(paths(undefined)).toEqual({ payroll: ['_id', 'name', 'bank', 'bank.iban', 'bank._id'], filter: ['name'] });
      expect(paths(['hr'])).toEqual({ payroll: ['_id', 'name', 'salary', 'bank', 'bank.iban', 'bank.sortCode', 'bank._id'], filter: ['name', 'salary'] });
    });

    it('lists a reference field whose every route is disabled with no routes, and keeps the resources of several registrations in order', () => {
      const first = planModelRoutes({ resources: [Widget, Gadget], references: { find: false, reverse: false, reversePost: false } });
      const second = planModelRoutes({ resources: [Dimensionless] });
      const result = backOfficeMetadata(
        [
          { definitions: resolveResources(first.definitions, {}).resources, routes: first.table },
          { definitions: resolveResources(second.definitions, {}).resources, routes: second.table },
        ],
        { title: 'T', auth: { header: 'authorization', scheme: 'Bearer' } },
        '',
      );
      expect(result.resources.map((resource) => resource.name)).toEqual(['Widget', 'Gadget', 'Dimensionless']);
      expect(result.resources[0].referencedBy).toEqual([{ resource: 'Gadget', field: 'widget', isArray: false, routes: [] }]);
      expect(result.resources[1].fields.find((field) => field.path === 'widget')?.routes).toEqual([]);
      expect(result).toMatchObject({ title: 'T', auth: { header: 'authorization', scheme: 'Bearer' } });
    });
  });

  @GeneratedResource()
  @Schema({ versionKey: false })
  class Dimensionless {
    @Prop() name?: string;
  }

  @GeneratedResource({ softDelete: true })
  @Schema()
  class Bin {
    @Prop() name?: string;
  }

  @GeneratedResource({ softDelete: { field: 'removedOn' }, routes: { purge: false } })
  @Schema()
  class Archive {
    @Prop() name?: string;
  }

  @GeneratedResource({ writeOnly: ['secret', 'locked'], readonly: ['locked'] })
  @Schema()
  class Vault {
    @Prop() secret?: string;
    @Prop() locked?: string;
  }

  @Schema()
  class Bank {
    @Prop() iban?: string;
    @Expose({ groups: ['hr'] }) @Prop() sortCode?: string;
  }

  @GeneratedResource()
  @Schema()
  class Payroll {
    @Prop() name?: string;
    @Expose({ groups: ['hr'] }) @Prop() salary?: number;
    @Prop({ type: SchemaFactory.createForClass(Bank) }) bank?: Bank;
  }

  @GeneratedResource({ references: { holder: { filter: true } } })
  @Schema()
  class Desk {
    @Prop() label?: string;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Payroll' }) holder?: Types.ObjectId;
  }
}
