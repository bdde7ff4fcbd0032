/**
 * The rooms of src/ and the one direction imports go between them (`npm run lint:deps`, run by CI).
 *
 * The rooms are listed from the bottom up. A room may import its own files and the rooms listed
 * before it, never one listed after it; no circle of imports closes, type-only imports included.
 * A new folder of src/ gets its line here, at the height of what it imports. See CONTRIBUTING.md
 * ("Where code lives").
 */
const LAYERS = [
  // Small pure helpers (naming, text, object paths) and the private injection tokens: import nothing of src/.
  { name: 'base', path: '^src/(utils/|constants\\.ts$)' },
  // Error codes, the exception classes and the one error body: what every room may throw.
  { name: 'errors', path: '^src/errors/' },
  // Entity tags, If-Match/If-None-Match preconditions, conditional writes, the per-document write queue.
  { name: 'concurrency', path: '^src/concurrency/' },
  // GridFS storage, uploads, content sniffing, images, downloads, and a model's file operations.
  { name: 'files', path: '^src/files/' },
  // The route-action table (one row per action) and the shape of a resource's field rules.
  { name: 'metadata', path: '^src/metadata/' },
  // The public option types (forRoot, @GeneratedResource, routes, search) and the route definitions.
  { name: 'interfaces', path: '^src/interfaces/' },
  // Which route serves which API version (URI, header, media type), and the version a request names.
  { name: 'versioning', path: '^src/versioning/' },
  // The one metadata storage that @GeneratedResource writes and the definitions read.
  { name: 'storages', path: '^src/storages/' },
  // Search input: parsing, the operator allowlist, sanitising, regex bounds; no Nest, no repository.
  { name: 'query', path: '^src/query/' },
  // What a client may write: the write body check and the update of a stored document.
  { name: 'write', path: '^src/write/' },
  // class-transformer views: what each group set exposes and hides.
  { name: 'serialization', path: '^src/serialization/' },
  // The DTO classes of the bodies and their validation with class-validator.
  { name: 'dto', path: '^src/dto/' },
  // The internal model: a resource's definition, read from its schema class and options.
  { name: 'definitions', path: '^src/definitions/' },
  // One record per request to a generated route (RouteCall) and its slot, read by every room above.
  { name: 'call', path: '^src/call/' },
  // Row scopes: the filter of the documents one request may reach, per resource, and their stamps on a create.
  { name: 'scopes', path: '^src/scopes/' },
  // References: resolving and checking the ids a write names, cycles, locks, and the onDelete rules.
  { name: 'references', path: '^src/references/' },
  // Lifecycle hooks and write events: what runs around a repository's writes (the repository calls them).
  { name: 'hooks', path: '^src/hooks/' },
  // The one generic repository over Mongoose, reference resolution, deletes; knows no HTTP.
  { name: 'repository', path: '^src/repository/' },
  // Related data in one request: the references a search may cross, expanding them, filters across them.
  { name: 'relations', path: '^src/relations/' },
  // The public decorators: they record, and read nothing above the repository's token.
  { name: 'decorators', path: '^src/decorators/' },
  // The HTTP side of a generated route: its entry guard, its answer, the GeneratedController base.
  { name: 'controllers', path: '^src/controllers/' },
  // Exports: formats, columns, cells, the streaming writers, and the HTTP side of an export route.
  { name: 'export', path: '^src/export/' },
  // Imports: reading a CSV, NDJSON or JSON file within its bounds, checking and writing its rows, the report.
  { name: 'import', path: '^src/import/' },
  // The route table and the plan of one forRoot (definitions, user controllers, routes), pure data.
  { name: 'routes', path: '^src/routes/' },
  // ModelRoutesExplorer: the registrations and routes of a running app.
  { name: 'explorer', path: '^src/explorer/' },
  // The exception filter that gives every failure the one shape, and the 405's Allow header.
  { name: 'filters', path: '^src/filters/' },
  // The controller classes built from the route table: resource, reference, file and element families.
  { name: 'factories', path: '^src/factories/' },
  // ModelRoutesModule: forRoot/forRootAsync, its providers and lifecycle.
  { name: 'module', path: '^src/(module/|model-routes\\.module\\.ts$)' },
  // ModelRoutesHealthModule: the database probe and its route.
  { name: 'health', path: '^src/health/' },
  // The ./openapi entry: everything that touches @nestjs/swagger.
  { name: 'swagger', path: '^src/swagger/' },
  // The ./back-office entry: the admin app, its assets and its metadata endpoint.
  { name: 'back-office', path: '^src/back-office/' },
  // The main entry: exports only.
  { name: 'entry', path: '^src/index\\.ts$' },
];

const backImports = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-back-import-from-${layer.name}`,
  comment: `${layer.name} imports only the rooms listed before it in LAYERS (.dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(index + 1).map((above) => above.path) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No circle of imports, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-room-without-layer',
      comment: 'Every file of src/ belongs to a room of LAYERS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map((layer) => layer.path) },
      to: {},
    },
    {
      name: 'no-tests-from-src',
      comment: 'src/ imports neither the tests, the sample app, the benchmarks nor the scripts',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|sample-app|bench|scripts)/' },
    },
    ...backImports,
  ],
  options: {
    // Type-only imports count: `import type` and `import { type X }` close circles too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
