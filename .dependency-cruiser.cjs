/**
 * The rooms of src/ and the one direction imports go between them (`npm run lint:deps`, run by CI).
 *
 * The rooms are grouped into a few tiers and listed from the bottom up. A room may import its own
 * files and the rooms listed before it, never one listed after it; no circle of imports closes,
 * type-only imports included. On top of that order, a few walls are named ("never" rules below):
 * they hold even if a room moves within the list. A new folder of src/ gets its line here, at the
 * height of what it imports; a file in a folder with no line fails the check. See CONTRIBUTING.md
 * ("Where code lives"); test/unit/package/lint-deps.spec.ts plants violations to prove it fails.
 */
const TIERS = [
  {
    // What every room may use: helpers, errors, preconditions, files, the action table, the public
    // option types, versions and the metadata storage. Knows no request.
    name: 'foundation',
    rooms: [
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
    ],
  },
  {
    // What a client may send and what a resource is: search input, write bodies, views, DTOs, definitions.
    name: 'input',
    rooms: [
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
    ],
  },
  {
    // One request's record, and the rules that run around the repository's work for it.
    name: 'call-and-rules',
    rooms: [
      // One record per request to a generated route (RouteCall), its plan, and the call context
      // (call-context.ts) handed to the repository.
      { name: 'call', path: '^src/call/' },
      // Row scopes: the filter of the documents one request may reach, per resource, and their stamps on a create.
      { name: 'scopes', path: '^src/scopes/' },
      // References: resolving and checking the ids a write names, cycles, locks, and the onDelete rules.
      { name: 'references', path: '^src/references/' },
      // Lifecycle hooks and write events: what runs around a repository's writes (the repository calls them).
      { name: 'hooks', path: '^src/hooks/' },
      // The rules pipeline: ordered stages around the repository's reads and writes (row scope, soft
      // delete, hooks, history, events).
      { name: 'rules', path: '^src/rules/' },
    ],
  },
  {
    // The data of a resource, through Mongoose: knows no HTTP.
    name: 'data',
    rooms: [
      // The one generic repository over Mongoose, reference resolution, deletes; knows no HTTP.
      { name: 'repository', path: '^src/repository/' },
      // Related data in one request: the references a search may cross, expanding them, filters across them.
      { name: 'relations', path: '^src/relations/' },
    ],
  },
  {
    // The HTTP side: the decorators that record, the generated routes, their table and their controllers.
    name: 'http',
    rooms: [
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
    ],
  },
  {
    // The modules an app imports and the package's entries.
    name: 'assembly',
    rooms: [
      // ModelRoutesModule: forRoot/forRootAsync, its providers and lifecycle.
      { name: 'module', path: '^src/(module/|model-routes\\.module\\.ts$)' },
      // ModelRoutesHealthModule: the database probe and its route.
      { name: 'health', path: '^src/health/' },
      // The ./openapi entry: everything that touches @nestjs/swagger.
      { name: 'swagger', path: '^src/swagger/' },
      // The ./back-office entry: the admin app, its assets and its metadata endpoint.
      { name: 'back-office', path: '^src/back-office/' },
      // The ./embedded entry: starts and stops the embedded database (FerretDB) for development and
      // tests. It imports no other room (only node:, Nest, @nestjs/mongoose and mongoose), and no
      // other room imports it (a named wall below): the main entry never loads process-spawning code.
      { name: 'embedded', path: '^src/embedded/' },
      // The main entry: exports only.
      { name: 'entry', path: '^src/index\\.ts$' },
    ],
  },
];

/** Every room, from the bottom up, with the name of its tier. */
const LAYERS = TIERS.flatMap((tier) => tier.rooms.map((room) => ({ ...room, tier: tier.name })));
const ROOM_PATHS = LAYERS.map((layer) => layer.path);

const backImports = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-back-import-from-${layer.name}`,
  comment: `${layer.name} (tier ${layer.tier}) imports only the rooms listed before it in LAYERS (.dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(index + 1).map((above) => above.path) },
}));

// A package as dependency-cruiser names it: its resolved path under node_modules (after a symlink
// to another checkout's node_modules, `../../<checkout>/node_modules/...`), or a core module's bare name.
const pkg = (name) => `(^|/)node_modules/${name}/`;

/** The named walls: each says what one part of src/ never imports, whatever the order of LAYERS. */
const nevers = [
  {
    // The repository and the rules around it get a call's context (src/call/call-context.ts),
    // never the request itself: they run the same under a generated route, a user's service or a script.
    name: 'repository-never-imports-http',
    comment:
      'src/repository, src/rules, src/hooks and src/scopes know no HTTP: no controllers, routes or modules, no RouteCall ' +
      '(route-call, http-response, write-check of src/call; call-context is theirs), no HTTP platform',
    severity: 'error',
    from: { path: '^src/(repository|rules|hooks|scopes)/' },
    to: {
      path: [
        '^src/(controllers|factories|filters|module|routes|explorer|export|import|back-office|swagger)/',
        '^src/call/(route-call|http-response\\.util|write-check\\.util)\\.ts$',
        pkg('@nestjs/platform-express'),
        pkg('@nestjs/platform-fastify'),
        pkg('express'),
        pkg('fastify'),
        '^(http|https|http2)$',
      ],
    },
  },
  {
    // Search input is parsed by pure functions, which run alike under a route, in a unit test or in a script.
    name: 'query-never-imports-nest-or-repository',
    comment: 'src/query is pure: it imports neither Nest (@nestjs/*) nor src/repository',
    severity: 'error',
    from: { path: '^src/query/' },
    to: { path: [pkg('@nestjs/[^/]+'), '^src/repository/'] },
  },
  {
    // The code that spawns servers is reached only through its own entry, nestjs-model-routes/embedded.
    name: 'only-the-embedded-entry-imports-embedded',
    comment: 'src/embedded (the ./embedded entry, which starts processes) is imported by no other part of src/',
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/embedded/' },
    to: { path: '^src/embedded/' },
  },
  {
    // Decorators record metadata at import time; the factories read it later, from the storage.
    name: 'decorators-never-import-factories',
    comment: 'src/decorators only record metadata: they never import src/factories, which read it',
    severity: 'error',
    from: { path: '^src/decorators/' },
    to: { path: '^src/factories/' },
  },
];

// A file of src/ outside every room of LAYERS fails, whichever way it is found: it imports something,
// something imports it, or neither (an orphan). The three checks carry the one name.
const withoutLayer = {
  name: 'no-room-without-layer',
  comment: 'Every file of src/ belongs to a room of LAYERS (.dependency-cruiser.cjs)',
  severity: 'error',
};
const roomsWithoutLayer = [
  { ...withoutLayer, from: { path: '^src/', pathNot: ROOM_PATHS }, to: {} },
  { ...withoutLayer, from: {}, to: { path: '^src/', pathNot: ROOM_PATHS } },
  { ...withoutLayer, from: { orphan: true, path: '^src/', pathNot: ROOM_PATHS }, to: {} },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No circle of imports, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...roomsWithoutLayer,
    {
      name: 'no-tests-from-src',
      comment: 'src/ imports neither the tests, the sample app, the benchmarks nor the scripts',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|sample-app|bench|scripts)/' },
    },
    ...nevers,
    ...backImports,
  ],
  options: {
    // Type-only imports count: `import type` and `import { type X }` close circles too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
