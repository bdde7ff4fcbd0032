import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';

/** Admits requests whose `x-api-key` header is `SAMPLE_API_KEY` (default `sample-key`). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (request.headers['x-api-key'] !== (process.env.SAMPLE_API_KEY ?? 'sample-key')) {
      throw new UnauthorizedException('Send the API key in the x-api-key header');
    }
    return true;
  }
}
