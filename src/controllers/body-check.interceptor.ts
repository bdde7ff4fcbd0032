import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor, type Type } from '@nestjs/common';
import { from, mergeMap, type Observable } from 'rxjs';
import { toPlainData } from '../dto/dto-validation.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { assertJsonBody } from './json-body.util.js';

interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/** The library's own check of a route's body; returns what the handler is given in its place. */
export type BodyCheck = (body: unknown, repository: ModelRepository) => unknown;

/** What each request's check returned, for its handler, with the body it checked. */
const checked = new WeakMap<object, { body: unknown; result: unknown }>();

/**
 * Makes the interceptor that checks a generated route's body before any pipe runs: that it is JSON
 * (`assertJsonBody`), then the library's own check.
 *
 * Nest runs interceptors before pipes, so the body is checked as the client sent it, whatever the
 * app's pipes would do to it: a global `ValidationPipe` with `whitelist` silently drops unknown
 * fields (which the library refuses), strips `__proto__` keys (which it refuses too), and tells its
 * failures as strings without paths. Its failures are the library's, in the one error shape, with
 * a path per failed constraint; a body that passes passes the app's `ValidationPipe` too (it
 * validates the same DTO class). See `checkedBodyOf` for what the handler is then given.
 *
 * @param repositoryToken the repository whose definition (fields, search limits in force) the check reads
 */
export function createBodyCheckInterceptor(name: string, repositoryToken: string, check: BodyCheck): Type<NestInterceptor> {
  @Injectable()
  class BodyCheckInterceptor implements NestInterceptor {
    constructor(@Inject(repositoryToken) private readonly repository: ModelRepository) {}

    intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
      const request = context.switchToHttp().getRequest<RequestLike>();
      assertJsonBody(request.headers);
      const result = check(request.body, this.repository);
      // One interceptor, synchronous where the check is (a generated DTO's): each layer costs per request.
      if (!(result instanceof Promise)) return this.handle(request, result, next);
      return from(result).pipe(mergeMap((value) => this.handle(request, value, next)));
    }

    private handle(request: RequestLike, result: unknown, next: CallHandler): Observable<unknown> {
      checked.set(request, { body: request.body, result });
      return next.handle();
    }
  }
  Object.defineProperty(BodyCheckInterceptor, 'name', { value: name });
  return BodyCheckInterceptor;
}

/**
 * What a generated handler is given as its body: what the pipes made of the request's body, where
 * they changed it (your pipe that adds or rewrites a field), plain data, to be checked again by the
 * handler; else the result of this request's body check. A pipe has not changed the body when it
 * returned the very object the check saw, or an instance of the route's DTO class (a
 * `ValidationPipe` with `transform`, which validated what the check did).
 */
export function checkedBodyOf(request: object | undefined, piped: unknown, dto: Type | undefined): unknown {
  const check = request && checked.get(request);
  if (check && (piped === check.body || (dto && piped instanceof dto))) return check.result;
  return toPlainData(piped);
}
