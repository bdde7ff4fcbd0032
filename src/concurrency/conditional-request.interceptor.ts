import { Injectable, UseInterceptors, type CallHandler, type ExecutionContext, type NestInterceptor, type Type } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { ModelRoutesException, NotModifiedException } from '../errors/model-routes.exception.js';
import { setHeader, type HttpResponse } from '../controllers/http-response.util.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import { etagOf, matchesWeakly, parseEntityTags } from './entity-tag.js';
import { runWithPrecondition } from './request-precondition.js';

const CONDITIONAL_ROUTE = Symbol('nestjs-model-routes:conditional-route');

/**
 * How a generated route takes part in conditional requests: `read` answers a document's `ETag`
 * and honours `If-None-Match` (304); `tag` only answers it (a create); `write` honours `If-Match`
 * (and `requireIfMatch`) for the document its path names, and answers the new `ETag`.
 */
export type ConditionalKind = 'read' | 'tag' | 'write';

interface ConditionalRoute {
  kind: ConditionalKind;
  /** The resource whose document the path names (`Company`). */
  resource: string;
  /** Its path parameter (`company_id`). */
  idParam: string;
}

interface HttpRequest {
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
}

/**
 * `ETag`, `If-None-Match` and `If-Match` on the generated routes that answer one document.
 *
 * A write route's `If-Match` is handed to the repository for the document the path names (see
 * `takePrecondition`), which checks it in the filter of the write itself: a 412 when it names
 * another version, and nothing written. Without the header, a resource with `requireIfMatch`
 * answers 428. Nothing is kept for a request without conditional headers.
 */
@Injectable()
export class ConditionalRequestInterceptor implements NestInterceptor {
  constructor(private readonly targets: ReferenceTargets) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const route = Reflect.getMetadata(CONDITIONAL_ROUTE, context.getHandler()) as ConditionalRoute | undefined;
    if (!route) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<HttpRequest>();
    const response = http.getResponse<HttpResponse>();
    const answer = (handled: Observable<unknown>) =>
      handled.pipe(
        map((doc) => {
          const tag = etagOf(doc);
          if (tag) setHeader(response, 'ETag', tag);
          return doc;
        }),
      );
    if (route.kind === 'tag') return answer(next.handle());
    if (route.kind === 'read') {
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch === undefined) return answer(next.handle());
      const condition = parseEntityTags(ifNoneMatch);
      return answer(next.handle()).pipe(
        map((doc) => {
          const tag = etagOf(doc);
          if (tag && matchesWeakly(condition, tag)) throw new NotModifiedException(tag);
          return doc;
        }),
      );
    }
    const ifMatch = request.headers['if-match'];
    if (ifMatch === undefined) {
      if (this.targets.get(route.resource).definition.requireIfMatch) {
        throw new ModelRoutesException('MR_PRECONDITION_REQUIRED', `Writes to ${route.resource} require If-Match: send the ETag of the document as read`);
      }
      return answer(next.handle());
    }
    const precondition = { resource: route.resource, id: request.params?.[route.idParam] ?? '', condition: parseEntityTags(ifMatch), used: false };
    // Nest binds the handler to the async context in which next.handle() is called: this one.
    return runWithPrecondition(precondition, () => answer(next.handle()));
  }
}

/** Puts the `ConditionalRequestInterceptor` on a generated route's handler, of this kind, for this resource's document. */
export function conditionalRoute(controller: Type, handler: string, route: ConditionalRoute): void {
  const prototype = controller.prototype as Record<string, Function>;
  Reflect.defineMetadata(CONDITIONAL_ROUTE, route, prototype[handler]);
  UseInterceptors(ConditionalRequestInterceptor)(prototype, handler, Object.getOwnPropertyDescriptor(prototype, handler)!);
}
