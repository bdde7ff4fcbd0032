/**
 * The generated routes the app calls, by their action name in the library's route table
 * (`src/metadata/route-actions.ts`): the method and the path of each, in one place. A pure module;
 * a unit test holds every entry against the table's own method and path, so the two cannot drift.
 */
import type { FileRoute, ResourceMetadata, ResourceRoute } from './metadata.js';

/** Where a route acts. */
export interface RouteAt {
  /** The resource the path starts with: for a reverse route, the referenced one (`/user/<id>/companies/owner`). */
  resource: Pick<ResourceMetadata, 'path' | 'plural'>;
  /** The identifier of the document the path names. */
  id?: string;
  /** A reference or file field (`owner`, `photos`). */
  field?: string;
  /** `add` and `remove`: the related document; a gallery's `download` and `deleteFile`: the file. */
  item?: string;
  /** A reverse route: the resource whose field references the document. */
  source?: Pick<ResourceMetadata, 'plural'>;
}

/** The actions the app calls (the element routes are not: it edits an array of sub-documents as JSON). */
export type AppAction = ResourceRoute | 'reverse' | 'reversePost' | 'reverseExport' | 'reverseExportPost' | 'add' | 'remove' | FileRoute;

export interface AppRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path's segments, unencoded. */
  segments(at: RouteAt): string[];
}

const one = ({ resource, id }: RouteAt) => [resource.path, id!];
const plural = ({ resource }: RouteAt) => [resource.plural];
const reverse = ({ resource, id, source, field }: RouteAt) => [resource.path, id!, source!.plural, field!];
const field = ({ resource, id, field: name }: RouteAt) => [resource.path, id!, name!];
const item = (at: RouteAt) => [...field(at), at.item!];
/** A single file's routes end at the field; a gallery's name one of its files. */
const file = (at: RouteAt) => (at.item === undefined ? field(at) : item(at));

/** Every route the app calls: its method and its path. */
export const ROUTES: { readonly [A in AppAction]: AppRoute } = {
  findOne: { method: 'GET', segments: one },
  create: { method: 'POST', segments: ({ resource }) => [resource.path] },
  update: { method: 'PUT', segments: one },
  patch: { method: 'PATCH', segments: one },
  delete: { method: 'DELETE', segments: one },
  search: { method: 'GET', segments: plural },
  searchPost: { method: 'POST', segments: plural },
  export: { method: 'GET', segments: (at) => [...plural(at), 'export'] },
  exportPost: { method: 'POST', segments: (at) => [...plural(at), 'export'] },
  import: { method: 'POST', segments: (at) => [...plural(at), 'import'] },
  updateMany: { method: 'PATCH', segments: plural },
  deleteMany: { method: 'DELETE', segments: plural },
  trash: { method: 'GET', segments: (at) => [...plural(at), 'trash'] },
  restore: { method: 'POST', segments: (at) => [...one(at), 'restore'] },
  purge: { method: 'DELETE', segments: (at) => [...one(at), 'purge'] },
  history: { method: 'GET', segments: (at) => [...one(at), 'history'] },
  revert: { method: 'POST', segments: (at) => [...one(at), 'history', 'restore'] },
  reverse: { method: 'GET', segments: reverse },
  reversePost: { method: 'POST', segments: reverse },
  reverseExport: { method: 'GET', segments: (at) => [...reverse(at), 'export'] },
  reverseExportPost: { method: 'POST', segments: (at) => [...reverse(at), 'export'] },
  add: { method: 'POST', segments: item },
  remove: { method: 'DELETE', segments: item },
  upload: { method: 'PUT', segments: field },
  addFile: { method: 'POST', segments: field },
  download: { method: 'GET', segments: file },
  deleteFile: { method: 'DELETE', segments: file },
};
