import type { ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { routeNames } from '../routes/route-table.factory.js';
import type { ResolvedResource, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { actionsOf, ROUTE_ACTIONS, type ResourceActionName } from '../metadata/route-actions.js';
import { VersioningType, type VersioningOptions } from '@nestjs/common';
import { servedRoutes, servingOf, type Serving } from '../versioning/served-routes.js';
import type {
  BackOfficeMetadata,
  ElementRoute,
  ServedRouteMetadata,
  FieldMetadata,
  FileRoute,
  ReferenceRoute,
  ResourceMetadata,
  ResourceRoute,
} from './app/metadata.js';
import type { ResolvedBackOfficeOptions } from './back-office-options.interface.js';
import { isUnderAny } from '../query/field-path.util.js';
import { declaredRank, filterFieldsOf, resourceFields, type FieldContext } from './back-office-fields.js';

const REVERSE_ACTIONS: ReadonlyArray<'reverse' | 'reversePost' | 'reverseExport' | 'reverseExportPost'> = [
  'reverse',
  'reversePost',
  'reverseExport',
  'reverseExportPost',
];
type FieldRoute = ReferenceRoute | FileRoute | ElementRoute;
/** The routes of a reference, file or sub-document array field, in the order of `ROUTE_ACTIONS`; the reverse ones are the target's (`referencedBy`). */
const FIELD_ACTIONS: ReadonlyArray<FieldRoute> = [...actionsOf('reference'), ...actionsOf('file'), ...actionsOf('element')].filter(
  (action): action is FieldRoute => !(REVERSE_ACTIONS as readonly string[]).includes(action),
);

/**
 * What `GET <path>/metadata` answers: every resource of every registration of `ModelRoutesModule`,
 * in registration order, with its enabled routes and the fields a client may see or send.
 * `globalPrefix` is the app's (`app.setGlobalPrefix('api')`), under which the page calls the routes.
 */
export function backOfficeMetadata(
  registrations: ReadonlyArray<Pick<ModelRoutesRegistration, 'definitions' | 'routes'>>,
  settings: Pick<ResolvedBackOfficeOptions, 'title' | 'auth'>,
  globalPrefix: string | Serving,
  groups: ReadonlyArray<readonly string[] | undefined> = [],
): BackOfficeMetadata {
  const serving = typeof globalPrefix === 'string' ? { ...servingOf(undefined), prefix: normalizePrefix(globalPrefix) } : globalPrefix;
  const routes = servedRouteMetadata(
    registrations.flatMap((registration) => registration.routes),
    serving,
  );
  return {
    title: settings.title,
    apiBase: serving.prefix,
    auth: { ...settings.auth },
    resources: registrations.flatMap((registration, index) =>
      registration.definitions.map((definition) => resourceMetadata(definition, registration, groups[index])),
    ),
    ...(routes && { routes }),
  };
}

/**
 * Where the page must send each generated request, when the app does not serve it at `apiBase`
 * and its table path with no header: under a URI version, without the excluded prefix, with the
 * version's header (or `Accept` parameter). `undefined` when every route is served plainly.
 * Custom versioning has no header the page could know: its routes are sent without one.
 */
function servedRouteMetadata(routes: readonly RouteDefinition[], serving: Serving): ServedRouteMetadata[] | undefined {
  const served = servedRoutes(
    routes.filter((route) => route.action !== 'custom'),
    serving,
  ).map(({ route, path, version }): ServedRouteMetadata => {
    const base = path.slice(0, path.length - route.path.length);
    const headers = version === undefined ? undefined : versionHeaders(serving.versioning, version);
    return { method: route.method, path: route.path, base, ...(headers && { headers }) };
  });
  // With URI versioning, a route of two versions has two bases: the page uses the first (the table's order of versions).
  const plain = served.every((route) => route.base === serving.prefix && !route.headers);
  return plain ? undefined : served;
}

function versionHeaders(versioning: VersioningOptions | undefined, version: string): Record<string, string> | undefined {
  if (versioning?.type === VersioningType.HEADER) return { [versioning.header.toLowerCase()]: version };
  if (versioning?.type === VersioningType.MEDIA_TYPE) return { accept: `application/json;${versioning.key}${version}` };
  return undefined;
}

/** `'api'`, `'/api/'` → `'/api'`; no prefix → `''`. */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : '';
}

/**
 * The fields of `definition` less those the request's groups do not see (`@Expose({ groups })` of
 * other groups): the page neither shows nor sends them, as the routes neither answer nor take them.
 */
function seenFields(fields: FieldMetadata[], definition: Pick<ResolvedResource, 'serialization'>, groups: readonly string[] | undefined): FieldMetadata[] {
  const hidden = definition.serialization?.view(groups).hidden;
  if (!hidden?.size) return fields;
  const keep = (list: FieldMetadata[]): FieldMetadata[] =>
    list.filter((field) => !isUnderAny(field.path, hidden)).map((field) => (field.fields ? { ...field, fields: keep(field.fields) } : field));
  return keep(fields);
}

function resourceMetadata(
  definition: ResolvedResource,
  registration: Pick<ModelRoutesRegistration, 'definitions' | 'routes'>,
  groups?: readonly string[],
): ResourceMetadata {
  const names = new Set(registration.definitions.map((candidate) => candidate.name));
  const context = (of: ResolvedResource): Omit<FieldContext, 'filterFields'> => ({
    isResource: (name) => names.has(name),
    fieldRoutes: (field) => fieldRoutes(registration.routes, of.name, field),
    isExpandable: (reference) => reference.expand === true,
  });
  const fieldContext: FieldContext = {
    ...context(definition),
    // The target's fields as its own page has them for this request (no hidden field); its own references' filters are not followed.
    filterFields: (reference) => {
      const target = reference.filter ? registration.definitions.find((candidate) => candidate.name === reference.targetName) : undefined;
      return target && filterFieldsOf(seenFields(resourceFields(target, { ...context(target), filterFields: () => undefined }), target, groups));
    },
  };
  const fields = seenFields(resourceFields(definition, fieldContext), definition, groups);
  const subTypes = definition.discriminator && {
    key: definition.discriminator.key,
    types: definition.discriminator.types.map(({ value, schema }) => ({
      value,
      fields: seenFields(resourceFields({ ...definition, schema }, fieldContext), definition, groups),
    })),
  };
  return {
    name: definition.name,
    path: definition.path,
    plural: definition.plural,
    idField: definition.idField,
    labelField: labelField(fields, definition.idField),
    requireIfMatch: definition.requireIfMatch,
    ...(definition.references.some((reference) => reference.expand) && { maxExpandPaths: definition.search.maxExpandPaths }),
    routes: resourceRoutes(definition, registration.routes),
    ...(definition.softDelete && { softDelete: { field: definition.softDelete.field } }),
    fields,
    ...(subTypes && { subTypes }),
    referencedBy: registration.definitions.flatMap((source) => {
      const rank = declaredRank(source.schema);
      return source.references
        .filter((reference) => reference.targetName === definition.name)
        .sort((a, b) => rank(a.field) - rank(b.field))
        .map((reference) => ({
          resource: source.name,
          field: reference.field,
          isArray: reference.isArray,
          routes: enabledOf(
            REVERSE_ACTIONS,
            registration.routes,
            (route) => route.reference?.source === source.name && route.reference.field === reference.field,
          ),
        }));
    }),
  };
}

/**
 * The resource actions whose route exists. A handler the user overrides with a route decorator
 * of its own is a `custom` row of the table: the action still counts as enabled when that row has
 * the generated route's method and path (`@Get(':company_id') findOne()`), since the page's
 * requests still reach it; under another method or path the page cannot know what it does.
 */
function resourceRoutes(definition: ResourceDefinition, routes: readonly RouteDefinition[]): ResourceRoute[] {
  const own = routes.filter((route) => route.resource === definition.name && !route.reference && !route.file && !route.element);
  const names = routeNames(definition);
  const enabled = (action: ResourceActionName) => {
    const { method, path } = ROUTE_ACTIONS[action];
    return own.some(
      (route) => route.action === action || (route.action === 'custom' && route.handler === action && route.method === method && route.path === path(names)),
    );
  };
  return actionsOf('resource').filter(enabled);
}

function fieldRoutes(routes: readonly RouteDefinition[], resource: string, field: string): FieldRoute[] {
  const ofField = ({ reference, file, element }: RouteDefinition) =>
    (reference ?? file ?? element)?.source === resource && (reference ?? file ?? element)?.field === field;
  return enabledOf(FIELD_ACTIONS, routes, ofField);
}

/** Those of `actions` (in their order) that a route of the table matching `belongs` serves. */
function enabledOf<A extends string>(actions: readonly A[], routes: readonly RouteDefinition[], belongs: (route: RouteDefinition) => boolean): A[] {
  const present = new Set<string>(routes.filter(belongs).map((route) => route.action));
  return actions.filter((action) => present.has(action));
}

/**
 * The first required text field (other than the id field), else a slug id field, else the first
 * text field, else `_id`; never one the page cannot show.
 */
function labelField(fields: readonly FieldMetadata[], idField: string): string {
  const leaves = (list: readonly FieldMetadata[]): FieldMetadata[] => list.flatMap((field) => (field.type === 'object' ? leaves(field.fields ?? []) : [field]));
  const texts = leaves(fields).filter((field) => field.type === 'string' && !field.writeOnly && field.path !== '_id');
  // A slug names the document in its URL already: a required title says more, when there is one.
  const title = texts.find((field) => field.required && field.path !== idField);
  if (title) return title.path;
  if (idField !== '_id') return idField;
  return texts[0]?.path ?? idField;
}
