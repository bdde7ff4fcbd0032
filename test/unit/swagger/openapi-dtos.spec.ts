import { Body, Controller, Post, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { ApiProperty, DECORATORS, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { IsEmail } from 'class-validator';
import { GeneratedDto } from '../../../src/definitions/generated-dto.js';
import { generatedDtoShape } from '../../../src/dto/resource-dto.factory.js';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { createResourceDefinition, resolveResources } from '../../../src/definitions/resource-definition.factory.js';
import type { ResolvedResource } from '../../../src/definitions/resource-definition.interface.js';
import { describeDto } from '../../../src/swagger/openapi-dtos.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function openapiDtosSpec(): void {
  @Schema({ _id: false })
  class Visit {
    @Prop({ required: true }) at!: Date;
  }

  @GeneratedResource()
  @Schema()
  class Patient {
    @Prop({ required: true, minlength: 2 }) name!: string;
    @Prop({ enum: ['a', 'b'] }) ward?: string;
    @Prop() email?: string;
    @Prop({ type: { city: { type: String, required: true } } }) address?: { city: string };
    @Prop({ type: [SchemaFactory.createForClass(Visit)] }) visits?: Visit[];
  }

  /** As a user writes it: its decorators run at import time, before any document is built. */
  class CreatePatientDto extends GeneratedDto(Patient, 'create') {
    @ApiProperty({ description: 'Where the results go', format: 'email', required: false }) @IsEmail() email!: string;
  }

  /** What swagger's CLI plugin adds to a class: a static metadata factory, read when the document is built. */
  class UpdatePatientDto extends GeneratedDto(Patient, 'update') {
    static _OPENAPI_METADATA_FACTORY() {
      return { ward: { required: false, description: 'From the plugin', type: () => String } };
    }
  }

  const properties = (dto: Type) => ((Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, dto.prototype) ?? []) as string[]).map((key) => key.slice(1));
  const property = (dto: Type, key: string) => Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype, key) as Record<string, unknown>;

  describe('describeDto', () => {
    const [definition] = resolveResources([createResourceDefinition({ resource: Patient })], {}).resources;
    const definitions = new Map<string, ResolvedResource>([['Patient', definition]]);
    const generated = new Map<string, Type>();
    const create = GeneratedDto(Patient, 'create');
    beforeAll(() => {
      for (const dto of [CreatePatientDto, UpdatePatientDto, GeneratedDto(Patient, 'search')]) describeDto(dto, definitions, generated);
    });

    it('puts on a generated class one property per field, from the schema', () => {
      expect(properties(create).sort()).toEqual(['address', 'email', 'name', 'visits', 'ward']);
      expect(property(create, 'name')).toMatchObject({ type: 'string', minLength: 2, required: true });
      expect(property(create, 'ward')).toMatchObject({ type: 'string', enum: ['a', 'b'], nullable: true, required: false });
    });

    it('refers to the nested classes by type, and lists every generated class it described', () => {
      const address = generatedDtoShape(create)!.properties.get('address')!;
      const visit = generatedDtoShape(create)!.properties.get('visits')!;
      expect(address.name).toBe('PatientAddressCreateDto');
      expect(property(create, 'address')).toMatchObject({ nullable: true, required: false, isArray: false });
      expect((property(create, 'address').type as () => Type)()).toBe(address);
      expect(property(create, 'visits')).toMatchObject({ isArray: true });
      expect(property(visit, 'at')).toMatchObject({ type: 'string', format: 'date-time', required: true });
      expect([...generated.keys()].sort()).toEqual(
        ['PatientAddressCreateDto', 'PatientAddressUpdateDto', 'PatientCreateDto', 'PatientSearchDto', 'PatientUpdateDto', 'PatientVisitsItemDto'].sort(),
      );
    });

    it("merges a user class's own @ApiProperty over the generated parent's, and keeps the parent's other properties", () => {
      expect(properties(CreatePatientDto).sort()).toEqual(['address', 'email', 'name', 'visits', 'ward']);
      expect(property(CreatePatientDto, 'email')).toMatchObject({
        type: String,
        description: 'Where the results go',
        format: 'email',
        nullable: true,
        required: false,
      });
      expect(property(CreatePatientDto, 'name')).toMatchObject({ type: 'string', minLength: 2 });
      // The parent is left as it was.
      expect(property(create, 'email').description).toBeUndefined();
    });

    it('leaves a class without metadata of its own to inherit the parent’s, where the CLI plugin’s factory applies too', () => {
      expect(Reflect.getOwnMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, UpdatePatientDto.prototype)).toBeUndefined();
      expect(properties(UpdatePatientDto).sort()).toEqual(['address', 'email', 'name', 'visits', 'ward']);
    });

    it('describes the search body', () => {
      const search = GeneratedDto(Patient, 'search');
      expect(properties(search)).toEqual(['query', 'limit', 'skip', 'sort', 'select', 'expand', 'after']);
      expect(property(search, 'limit')).toMatchObject({ type: 'integer', minimum: 1 });
      expect(property(search, 'sort').oneOf).toHaveLength(2);
    });
  });

  @Controller('patient')
  class PatientController {
    @Post() create(@Body() body: CreatePatientDto) {
      return body;
    }

    @Post('update') update(@Body() body: UpdatePatientDto) {
      return body;
    }
  }

  describe('the described classes, as @nestjs/swagger documents them', () => {
    it("show the user's properties (decorators and the CLI plugin's factory) over the generated parent's", async () => {
      const definitions = new Map<string, ResolvedResource>([
        ['Patient', resolveResources([createResourceDefinition({ resource: Patient })], {}).resources[0]],
      ]);
      for (const dto of [CreatePatientDto, UpdatePatientDto]) describeDto(dto, definitions, new Map());
      const module = await Test.createTestingModule({ controllers: [PatientController] }).compile();
      // No contract check: this app only has its document built, and answers no request.
      const app = module.createNestApplication({ logger: false });
      await app.init();
      const schemas = SwaggerModule.createDocument(app, new DocumentBuilder().build()).components!.schemas as Record<
        string,
        { properties: Record<string, Record<string, unknown>>; required?: string[] }
      >;
      await app.close();
      expect(schemas.CreatePatientDto.properties.email).toMatchObject({ type: 'string', format: 'email', description: 'Where the results go' });
      expect(schemas.CreatePatientDto.properties.name).toMatchObject({ type: 'string', minLength: 2 });
      expect(schemas.CreatePatientDto.required).toEqual(['name']);
      expect(schemas.CreatePatientDto.properties.address).toMatchObject({ allOf: [{ $ref: '#/components/schemas/PatientAddressCreateDto' }] });
      expect(schemas.UpdatePatientDto.properties.ward).toMatchObject({ type: 'string', enum: ['a', 'b'], description: 'From the plugin' });
      expect(Object.keys(schemas.UpdatePatientDto.properties).sort()).toEqual(['address', 'email', 'name', 'visits', 'ward']);
    });
  });
}
