import type { RouteDefinition } from '../interfaces/route-definition.interface.js';

interface PathPattern {
  pattern: RegExp;
  methods: readonly string[];
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
    }));
  }

  /** The methods served at `path` (without its query string), sorted; empty when no route has this path. */
  of(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: served } of this.patterns) {
      if (pattern.test(path)) served.forEach((method) => methods.add(method));
    }
    return [...methods].sort();
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
