import { ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { isLedgerError, unauthenticated } from '@ledgerline/domain';
import { headerDecodeError } from './header-decode-error';
import { JWT_STRATEGY } from './jwt.strategy';

export const PUBLIC_ROUTE = 'ledgerline:public';
/** Marks a route that needs no token (health, metrics, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

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
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
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
