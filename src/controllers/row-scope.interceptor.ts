import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { runWithRequest } from '../call/route-call.js';

/**
 * Runs a route's handler as the work of its request (`runWithRequest`), so that the repositories it
 * calls apply the request's row scopes (`@GeneratedResource({ scope })`), as the generated routes
 * do. Your routes on a generated controller (`class CompanyController extends GeneratedController(Company)`)
 * have it already; put it on your other controllers' routes, or on the whole app.
 *
 * @example
 * ```ts
 * @UseInterceptors(RowScopeInterceptor)
 * @Controller('dashboard')
 * export class DashboardController {
 *   constructor(@InjectModelRepository(Company) private readonly companies: ModelRepository<Company>) {}
 *   @Get() companies() { return this.companies.search({ filter: {}, limit: 5, skip: 0 }); } // the request's tenant only
 * }
 * ```
 *
 * @publicApi
 */
@Injectable()
export class RowScopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<object>();
    // Subscribed inside: the handler runs (and its awaits continue) as the request's work.
    return new Observable((subscriber) => runWithRequest(request, () => next.handle().subscribe(subscriber)));
  }
}
