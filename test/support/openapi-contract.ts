import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * Checks responses against an OpenAPI document: the schema documented for a route and status
 * must accept the body the server sent. A change of behaviour without a change of documentation
 * fails here.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenAPIObject) {
    // date-time, byte, uuid...: an ISO date that is not one fails the contract too.
    (addFormats as unknown as (ajv: Ajv) => void)(this.ajv);
    this.ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
    this.ajv.addSchema({ components: document.components }, 'openapi');
  }

  /** Throws unless `body` matches the schema of `method path` (a template: `/company/{company_id}`) for `status`. */
  check(method: string, template: string, status: number, body: unknown): void {
    const operation = (
      this.document.paths[template] as Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }> | undefined
    )?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${template} is not documented`);
    // A range (`4XX`) documents every status of its hundred that the route has no own entry for.
    const response = operation.responses[String(status)] ?? operation.responses[`${Math.floor(status / 100)}XX`];
    if (!response) throw new Error(`${method} ${template} answered ${status}, which is not documented`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    const key = `${method} ${template} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema) as object);
      this.cache.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(`${key}: the body does not match the documented schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
    }
  }

  /** The errors of `body` against the component schema `name` (`CompanyList`), none when it matches. */
  errorsAgainst(name: string, body: unknown): string[] {
    const validate = this.ajv.getSchema(`openapi#/components/schemas/${name}`);
    if (!validate) throw new Error(`${name} is not a schema of the document`);
    return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  }
}

/** `#/components/schemas/X` → `openapi#/components/schemas/X`, so Ajv resolves it in the document. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' ? `openapi${value}` : rebase(value)]),
    );
  }
  return schema;
}

/** Statuses that user code (guards, throttlers) produces, not the library: not part of its contract. */
const USER_STATUSES = new Set([401, 403, 429]);

/**
 * Checks every response of an app's generated routes against the document, and keeps the list of
 * those that did not match. `routes` is the route table, in the order the routes were registered
 * (literal paths before `:param` ones): a request is matched to the first route it fits, and a
 * custom route (the user's own handler, `action: 'custom'`) is the user's contract, not checked.
 * `prefix` is the app's global prefix, if any.
 */
export class ContractWatcher {
  readonly violations: string[] = [];
  private readonly matchers: Array<{ method: string; pattern: RegExp; template: string; custom: boolean }>;

  constructor(
    private readonly contract: OpenApiContract,
    routes: Array<{ method: string; path: string; action?: string }>,
    prefix = '',
  ) {
    const base = prefix ? `/${prefix.replace(/^\/+|\/+$/g, '')}` : '';
    this.matchers = routes.map((route) => ({
      custom: route.action === 'custom',
      method: route.method.toLowerCase(),
      pattern: new RegExp(`^${escape(base + route.path).replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`),
      template: (base + route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
    }));
  }

  /**
   * Throws, and records, when the response does not match what the document says of its route and
   * status. An unknown route (a 404 of the router) is nobody's contract; neither are the statuses
   * of user code (401, 403, 429).
   */
  check(method: string, url: string, status: number, body: unknown): void {
    if (USER_STATUSES.has(status)) return;
    const path = new URL(url, 'http://localhost').pathname;
    const match = this.matchers.find((candidate) => candidate.method === method.toLowerCase() && candidate.pattern.test(path));
    if (!match || match.custom) return;
    try {
      this.contract.check(method.toUpperCase(), match.template, status, body);
    } catch (error) {
      const message = `The response to ${method.toUpperCase()} ${url} breaks the OpenAPI contract: ${(error as Error).message}`;
      this.violations.push(message);
      throw new Error(message, { cause: error });
    }
  }
}

/** A path as a regular expression that matches it literally (`:param` segments aside). */
function escape(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
