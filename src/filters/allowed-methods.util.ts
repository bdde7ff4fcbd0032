import { answersVersion, servedRoutes, servingOf, type ServedRoute, type Serving } from '../versioning/served-routes.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';

interface PathPattern {
  pattern: RegExp;
  methods: readonly string[];
  /** One letter per segment, `L` literal and `P` parameter: the lower, the more specific. */
  shape: string;
  /** The versions its methods answer (header, media type or custom versioning); absent: any request. */
  versions?: ServedRoute<unknown>['versions'];
}

/**
 * Answers "which methods does this path serve?" from the route table, for the 405 of a request
 * whose path exists but whose method does not. Built once; `/company/:company_id` matches any one
 * segment, as the router does. Paths are matched as the app serves them (`servedRoutes`: the
 * global prefix and its exclusions, URI versions), and, with header or media type versioning,
 * only the routes of the version the request names count.
 */
export class AllowedMethods {
  private readonly patterns: PathPattern[];

  constructor(table: readonly Pick<RouteDefinition, 'method' | 'path' | 'version'>[], serving: Serving | string = '') {
    const how =
      typeof serving === 'string' ? Object.assign({}, servingOf(undefined), { prefix: `/${serving}`.replace(/\/+$/, '').replace(/^\/+/, '/') }) : serving;
    const byPath = new Map<string, { methods: Set<string>; versions?: ServedRoute<unknown>['versions'] }>();
    for (const { route, path, versions } of servedRoutes(table, how)) {
      const key = `${path} ${versions?.map(String).join(',') ?? ''}`;
      const entry = byPath.get(key) ?? { methods: new Set<string>(), ...(versions && { versions }) };
      entry.methods.add(route.method);
      // Express and Fastify answer HEAD with the GET handler.
      if (route.method === 'GET') entry.methods.add('HEAD');
      byPath.set(key, entry);
    }
    this.patterns = [...byPath].map(([key, { methods, versions }]) => {
      const path = key.slice(0, key.lastIndexOf(' '));
      return {
        pattern: new RegExp(
          `^${path
            .split('/')
            .map((part) => (part.startsWith(':') ? '[^/]+' : escape(part)))
            .join('/')}/?$`,
          'i',
        ),
        methods: [...methods],
        shape: path
          .split('/')
          .map((part) => (part.startsWith(':') ? 'P' : 'L'))
          .join(''),
        ...(versions && { versions }),
      };
    });
  }

  /**
   * The methods served at `path` (without its query string), sorted; empty when no route has this
   * path. Where a literal path and a `:param` path both match (`/appointment/upcoming`, a custom
   * route, and `/appointment/:appointment_id`), the path is the literal one's, as the router would
   * choose it: the methods of the most specific matching paths. `version`: what the request names
   * (`requestedVersion`), with header, media type or custom versioning.
   */
  of(path: string, version?: string | readonly string[]): string[] {
    return this.methodsOf(path, ({ versions }) => answersVersion(versions, version));
  }

  /** Whether a route of the table has this path, in any version. */
  has(path: string): boolean {
    return this.methodsOf(path, () => true).length > 0;
  }

  private methodsOf(path: string, answers: (pattern: PathPattern) => boolean): string[] {
    const matching = this.patterns.filter((candidate) => candidate.pattern.test(path) && answers(candidate));
    const best = matching.reduce<string | undefined>((shape, pattern) => (shape === undefined || pattern.shape < shape ? pattern.shape : shape), undefined);
    const methods = new Set<string>();
    for (const { shape, methods: served } of matching) {
      if (shape === best) served.forEach((method) => methods.add(method));
    }
    return [...methods].sort();
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
