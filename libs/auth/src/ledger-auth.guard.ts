import { applyDecorators, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { isLedgerError, unauthenticated } from '@ledgerline/domain';
import { claimsAuthenticatedBeforeBody } from './authenticate-request';
import { headerDecodeError } from './header-decode-error';
import { JWT_STRATEGY } from './jwt.strategy';

export const PUBLIC_ROUTE = 'ledgerline:public';
/** Marks a route that needs no token (health, metrics, docs). */
/** Route config key of a public route, for hooks that run before Nest's guard (see isPublicRouteConfig). */
export const PUBLIC_ROUTE_CONFIG = 'ledgerlinePublic';
/** Marks a route that needs no token (health, metrics, docs), for the guard and for the pre-body authentication. */
export const Public = () =>
  applyDecorators(SetMetadata(PUBLIC_ROUTE, true), RouteConfig({ [PUBLIC_ROUTE_CONFIG]: true }));
export const isPublicRouteConfig = (config: unknown): boolean =>
  (config as Record<string, unknown> | undefined)?.[PUBLIC_ROUTE_CONFIG] === true;

/**
 * The global guard: every route needs a valid token unless marked @Public. Failures become the reference's outcomes:
 * no or invalid token → 401; unknown or deactivated user → 403 with context.ledger_api_error "invalid token";
 * an empty `Bearer ` → 400 text/plain.
 */
@Injectable()
export class LedgerAuthGuard extends AuthGuard(JWT_STRATEGY) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()]))
      return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: unknown }>();
    // Authenticated before its body was read (authenticateBeforeBody): the same strategy ran already.
    const early = claimsAuthenticatedBeforeBody(req);
    if (early) {
      req.user = early;
      return true;
    }
    const auth = req.headers.authorization;
    if (auth !== undefined && /^Bearer\s*$/i.test(auth.trim())) throw headerDecodeError('Authorization');
    return super.canActivate(context);
  }

  override handleRequest<T>(err: unknown, user: T, info: unknown): T {
    if (err) throw isLedgerError(err) ? err : unauthenticated(String((err as Error).message ?? err));
    if (!user) {
      if (isLedgerError(info)) throw info;
      throw unauthenticated(info instanceof Error ? info.message : 'No valid token');
    }
    return user;
  }
}
