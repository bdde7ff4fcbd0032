import { Controller, Get } from '@nestjs/common';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import {
  GeneratedController,
  GeneratedResource,
  ModelRoutesConfigError,
  ModelRoutesExplorer,
  ModelRoutesModule,
  type ModelRoutesModuleOptions,
} from '../../../src/index.js';
import { Gadget, Part } from '../../fixtures/extend-models.js';
import { FirstOwnerController, OwnerModel, PosterProduct, Product, productSchemaWithDiscriminators } from '../../fixtures/startup-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function startupErrorsSpec(): void {
  /**
   * The configuration errors `forRoot` throws when it is called, before any app or database exists:
   * a ModelRoutesConfigError with a stable code, naming the class, the field and the fix. (A `ref` to
   * a model registered nowhere is found when the app initialises, and the valid configuration is
   * started too: test/e2e/module/startup-errors.e2e-spec.ts.)
   */

  /** Runs forRoot (synchronously, no app, no database); returns what it threw. */
  function startupError(options: ModelRoutesModuleOptions): ModelRoutesConfigError & { code: string } {
    try {
      ModelRoutesModule.forRoot(options);
    } catch (error) {
      return error as ModelRoutesConfigError & { code: string };
    }
    throw new Error('forRoot accepted the options');
  }

  @GeneratedResource({ path: 'thing' })
  @Schema()
  class FirstThing {
    @Prop() name?: string;
  }

  @GeneratedResource({ path: 'thing', plural: 'thing-list' })
  @Schema()
  class SecondThing {
    @Prop() name?: string;
  }

  @GeneratedResource({ id: 'isbn' })
  @Schema()
  class NoIsbnBook {
    @Prop() title?: string;
  }

  @GeneratedResource({ routes: { destroy: false } as never })
  @Schema()
  class DestroyRouteModel {
    @Prop() name?: string;
  }

  @GeneratedResource({ hidden: ['nope'] })
  @Schema()
  class HiddenNopeModel {
    @Prop() name?: string;
  }

  @Schema()
  class PlainSchemaModel {
    @Prop() name?: string;
  }

  @GeneratedResource({ references: { notAField: { reverse: false } } })
  @Schema()
  class NotAFieldModel {
    @Prop({ type: Types.ObjectId, ref: 'OwnerModel' }) owner?: Types.ObjectId;
  }

  @GeneratedResource({ references: { owner: { sideways: false } as never } })
  @Schema()
  class SidewaysModel {
    @Prop({ type: Types.ObjectId, ref: 'OwnerModel' }) owner?: Types.ObjectId;
  }

  @Controller()
  class NotExtendingController {
    @Get('x') x() {
      return {};
    }
  }

  @Controller()
  class UnlistedGadgetController extends GeneratedController(Gadget) {}

  @Controller('x')
  class PathOwnerController extends GeneratedController(OwnerModel) {}

  @Controller()
  class SecondOwnerController extends GeneratedController(OwnerModel) {}

  describe('startup errors: a ModelRoutesConfigError with a code, naming the class and the fix', () => {
    it('MR_CONFIG_DUPLICATE_PATH: two resources on one path', () => {
      const error = startupError({ resources: [FirstThing, SecondThing] });
      expect(error).toBeInstanceOf(ModelRoutesConfigError);
      expect(error.code).toBe('MR_CONFIG_DUPLICATE_PATH');
      expect(error.message).toContain('SecondThing');
      expect(error.message).toContain('FirstThing');
      expect(error.message).toContain("'thing'");
      expect(error.message).toMatch(/@GeneratedResource/);
    });

    it('MR_CONFIG_UNKNOWN_ID_FIELD', () => {
      const error = startupError({ resources: [NoIsbnBook] });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ID_FIELD');
      expect(error.message).toContain('NoIsbnBook');
      expect(error.message).toContain('isbn');
      expect(error.message).toMatch(/@Prop|remove the id option/);
    });

    it('MR_CONFIG_UNKNOWN_ROUTE: @GeneratedResource({ routes: { destroy: false } })', () => {
      const error = startupError({ resources: [DestroyRouteModel] });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
      expect(error.message).toContain('DestroyRouteModel');
      expect(error.message).toContain('destroy');
      expect(error.message).toMatch(/findOne, create, update, patch, delete, search, searchPost/);
    });

    it('MR_CONFIG_UNKNOWN_ROUTE: forRoot({ routes: { destroy: false } })', () => {
      const error = startupError({ resources: [OwnerModel], routes: { destroy: false } as never });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
      expect(error.message).toContain('forRoot');
      expect(error.message).toContain('destroy');
      expect(error.message).toMatch(/findOne, create, update, patch, delete, search, searchPost/);
    });

    it('MR_CONFIG_UNKNOWN_ROUTE: forRoot({ references: { sideways: false } })', () => {
      const error = startupError({ resources: [OwnerModel], references: { sideways: false } as never });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
      expect(error.message).toContain('sideways');
      expect(error.message).toMatch(/find, list, reverse, reversePost, reverseExport, reverseExportPost, add, remove/);
    });

    it('MR_CONFIG_UNKNOWN_ROUTE: references: { notAField: {...} }', () => {
      const error = startupError({ resources: [OwnerModel, NotAFieldModel] });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
      expect(error.message).toContain('NotAFieldModel');
      expect(error.message).toContain('notAField');
      expect(error.message).toContain('owner'); // the fields it could have named
    });

    it('MR_CONFIG_UNKNOWN_ROUTE: references: { owner: { sideways: false } }', () => {
      const error = startupError({ resources: [OwnerModel, SidewaysModel] });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
      expect(error.message).toContain('SidewaysModel');
      expect(error.message).toContain('sideways');
      expect(error.message).toMatch(/find, list, reverse, reversePost, reverseExport, reverseExportPost, add, remove/);
    });

    it('MR_CONFIG_INVALID_CONTROLLER: a controller that does not extend GeneratedController', () => {
      const error = startupError({ resources: [OwnerModel], controllers: [NotExtendingController] });
      expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
      expect(error.message).toContain('NotExtendingController');
      expect(error.message).toContain('GeneratedController(');
    });

    it('MR_CONFIG_INVALID_CONTROLLER: a controller whose resource is not in resources', () => {
      const error = startupError({ resources: [OwnerModel], controllers: [UnlistedGadgetController] });
      expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
      expect(error.message).toContain('UnlistedGadgetController');
      expect(error.message).toContain('Gadget');
      expect(error.message).toContain('resources');
    });

    it("MR_CONFIG_INVALID_CONTROLLER: a controller with @Controller('x')", () => {
      const error = startupError({ resources: [OwnerModel], controllers: [PathOwnerController] });
      expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
      expect(error.message).toContain('PathOwnerController');
      expect(error.message).toContain("'x'");
      expect(error.message).toContain('@Controller()');
    });

    it('MR_CONFIG_INVALID_CONTROLLER: two controllers for one resource', () => {
      const error = startupError({ resources: [OwnerModel], controllers: [FirstOwnerController, SecondOwnerController] });
      expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
      expect(error.message).toContain('FirstOwnerController');
      expect(error.message).toContain('SecondOwnerController');
      expect(error.message).toContain('OwnerModel');
    });

    it('MR_CONFIG_INVALID_CONTROLLER: a controller of another connection than its registration', () => {
      @Controller()
      class DefaultGadgetController extends GeneratedController(Gadget) {}
      @Controller()
      class CatalogGadgetController extends GeneratedController(Gadget, 'catalog') {}
      expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog', controllers: [DefaultGadgetController] })).toThrow(
        expect.objectContaining({ code: 'MR_CONFIG_INVALID_CONTROLLER', message: expect.stringContaining("GeneratedController(Gadget, 'catalog')") }),
      );
      expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], controllers: [CatalogGadgetController] })).toThrow(
        expect.objectContaining({ code: 'MR_CONFIG_INVALID_CONTROLLER', message: expect.stringContaining("on 'catalog'") }),
      );
      expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog', controllers: [CatalogGadgetController] })).not.toThrow();
    });

    it('MR_CONFIG_NOT_A_RESOURCE', () => {
      const error = startupError({ resources: [PlainSchemaModel] });
      expect(error.code).toBe('MR_CONFIG_NOT_A_RESOURCE');
      expect(error.message).toContain('PlainSchemaModel');
      expect(error.message).toContain('@GeneratedResource()');
    });

    it("MR_CONFIG_UNKNOWN_FIELD: hidden: ['nope']", () => {
      const error = startupError({ resources: [HiddenNopeModel] });
      expect(error.code).toBe('MR_CONFIG_UNKNOWN_FIELD');
      expect(error.message).toContain('HiddenNopeModel');
      expect(error.message).toContain('nope');
      expect(error.message).toContain('hidden');
    });

    it('a schema with discriminators is served: one resource for the base, its sub-types by their key', () => {
      const routes = ModelRoutesExplorer.routeTable({ resources: [{ resource: Product, schema: productSchemaWithDiscriminators() }] });
      expect(routes).toContainEqual(expect.objectContaining({ method: 'POST', path: '/product', handler: 'create' }));
      expect(routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/products', handler: 'search' }));
    });

    it('MR_CONFIG_INVALID_OPTION: two sub-types with one field of two types', () => {
      const schema = productSchemaWithDiscriminators();
      schema.discriminator('Poster', SchemaFactory.createForClass(PosterProduct));
      const error = startupError({ resources: [{ resource: Product, schema }] });
      expect(error).toBeInstanceOf(ModelRoutesConfigError);
      expect(error.code).toBe('MR_CONFIG_INVALID_OPTION');
      expect(error.message).toMatch(
        /^Product: the sub-types Shirt and Poster both have a field 'size', of types String and Number\. Give it one type, or two names\./,
      );
    });

    it('a valid configuration of the same classes is accepted (the checks are not too eager)', () => {
      const routes = ModelRoutesExplorer.routeTable({ resources: [OwnerModel], controllers: [FirstOwnerController] });
      expect(routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/owner-models', controller: 'FirstOwnerController', handler: 'search' }));
    });
  });
}
