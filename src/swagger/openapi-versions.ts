import { VERSION_NEUTRAL, VersioningType } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { servedRoutes, type ServedRoute, type Serving } from '../versioning/served-routes.js';
import { componentName, operationId } from './openapi-routes.js';

/**
 * Gives each generated operation of a versioned app an operationId of its own: the route's one
 * name, then its version (`company_findOne_v1`). With URI versioning a route of two versions has
 * two paths (`/v1/company/{company_id}`, `/v2/...`), one operation each; with header or media type
 * versioning it keeps one path, and its operation names every version it answers
 * (`company_findOne_v1_v2`), its 404 for a request of another version, and with header
 * versioning the header. A version-neutral route keeps its plain name. Without versioning,
 * nothing changes.
 */
export function versionOperationIds(document: OpenAPIObject, registrations: readonly ModelRoutesRegistration[], serving: Serving): void {
  if (!serving.versioning) return;
  for (const registration of registrations) {
    const byName = new Map(registration.definitions.map((definition) => [definition.name, definition]));
    const generated = registration.routes.filter((route) => route.action !== 'custom');
    for (const served of servedRoutes(generated, serving)) {
      const { route } = served;
      const owner = byName.get(route.reference?.source ?? route.resource);
      const suffix = versionSuffix(served);
      if (!owner || !suffix) continue;
      const template = served.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = (document.paths[template] as Record<string, Operation> | undefined)?.[route.method.toLowerCase()];
      const name = operationId(route, owner);
      if (!operation?.operationId?.startsWith(name)) continue;
      operation.operationId = `${name}${suffix}`;
      if (served.versions) describeVersionFilter(operation, served.versions, serving);
    }
  }
}

interface Operation {
  operationId?: string;
  parameters?: object[];
  responses?: Record<string, object>;
}

/**
 * What header, media type or custom versioning adds to an operation: the request names one of its
 * versions, else no route of its path answers it (404 `MR_ROUTE_NOT_FOUND`); with header
 * versioning, the header as a parameter.
 */
function describeVersionFilter(operation: Operation, versions: NonNullable<ServedRoute<unknown>['versions']>, serving: Serving): void {
  const named = versions.filter((version): version is string => version !== VERSION_NEUTRAL);
  const neutral = named.length < versions.length;
  const versioning = serving.versioning!;
  if (versioning.type === VersioningType.HEADER) {
    const parameter = { name: versioning.header, in: 'header', required: !neutral, schema: { type: 'string', enum: named }, description: 'The API version.' };
    operation.parameters = [...(operation.parameters ?? []), parameter];
  }
  const responses = (operation.responses ??= {});
  responses['404'] ??= {
    description: 'Error; code: MR_ROUTE_NOT_FOUND (the request names no version of this route)',
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName.error}` } } },
  };
}

/** `_v1` for the version of a URI path, `_v1_v2` for the versions a header names; `''` for none. */
function versionSuffix(served: ServedRoute<unknown>): string {
  const versions = served.versions
    ? served.versions.filter((version): version is string => version !== VERSION_NEUTRAL)
    : served.version !== undefined
      ? [served.version]
      : [];
  return versions.map((version) => `_v${version.replace(/[^a-zA-Z0-9]+/g, '_')}`).join('');
}
