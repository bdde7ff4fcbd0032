import type { Type } from '@nestjs/common';
import { generatedResourceDtos } from '../factories/resource-definition.factory.js';

/** The bodies a resource's routes take: `create` (`POST /company`), `update` (`PUT|PATCH`), `search` (`POST /companies`). */
export type DtoKind = 'create' | 'update' | 'search';

/**
 * The DTO class the library generates from a resource's schema for one kind of body
 * (`CompanyCreateDto`, `CompanyUpdateDto`, `CompanySearchDto`): the same class every call, and the
 * one its routes use unless `@GeneratedResource({ dto })` names another. Extend it to add rules:
 *
 * ```ts
 * export class CreateCompanyDto extends GeneratedDto(Company, 'create') {
 *   @IsEmail() contact!: string;            // a schema field, with a stricter rule
 * }
 * ```
 *
 * Call it after the resource class is declared (in the same file below it, or in a file that
 * imports it), and name the class in `@GeneratedResource({ dto: { create: () => CreateCompanyDto } })`.
 *
 * @param resource a class decorated with `@GeneratedResource()` and `@Schema()`
 */
export function GeneratedDto(resource: Type, kind: DtoKind): Type {
  return generatedResourceDtos(resource)[kind];
}
