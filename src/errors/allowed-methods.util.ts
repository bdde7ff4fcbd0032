import type { RouteDefinition } from '../interfaces/route-definition.interface.js';

interface PathPattern {
  pattern: RegExp;
  methods: readonly string[];
  /** One letter per segment, `L` literal and `P` parameter: the lower, the more specific. */
  shape: string;
}

/**
 * Answers "which methods does this path serve?" from the route table, for the 405 of a request
 * whose path exists but whose method does not. Built once; `/company/:company_id` matches any one
 * segment, as the router does.
 */
export class AllowedMethods {
  private readonly patterns: PathPattern[];

  constructor(table: readonly Pick<RouteDefinition, 'method' | 'path'>[], prefix = '') {
    const byPath = new Map<string, Set<string>>();
    for (const route of table) {
      const methods = byPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      // Express and Fastify answer HEAD with the GET handler.
      if (route.method === 'GET') methods.add('HEAD');
      byPath.set(route.path, methods);
    }
    const base = `/${prefix}`.replace(/\/+$/, '').replace(/^\/+/, '/');
    this.patterns = [...byPath].map(([path, methods]) => ({
      pattern: new RegExp(`^${escape(base === '/' ? '' : base)}${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : escape(part))).join('/')}/?$`, 'i'),
      methods: [...methods],
      shape: path.split('/').map((part) => (part.startsWith(':') ? 'P' : 'L')).join(''),
    }));
  }

  /**
   * The methods served at `path` (without its query string), sorted; empty when no route has this
   * path. Where a literal path and a `:param` path both match (`/appointment/upcoming`, a custom
   * route, and `/appointment/:appointment_id`), the path is the literal one's, as the router would
   * choose it: the methods of the most specific matching paths.
   */
  of(path: string): string[] {
    const matching = this.patterns.filter(({ pattern }) => pattern.test(path));
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
