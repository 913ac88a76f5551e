import passport from 'passport';
import { isLedgerError, unauthenticated, type Claims } from '@ledgerline/domain';
import { headerDecodeError } from './header-decode-error';
import { JWT_STRATEGY } from './jwt.strategy';

/**
 * Authenticates a request outside Nest's guard pipeline (the WebSocket upgrade) through the very same passport strategy
 * the HTTP guard uses: token from `Authorization: Bearer` or the `jwt.token.<jwt>` WebSocket sub-protocol, the same key
 * resolution, claim rules and user lookup, the same outcomes (401 / 403 "invalid token" / 400 for an empty Bearer).
 */
export function authenticateRequest(req: { headers: Record<string, unknown> }): Promise<Claims> {
  return new Promise((resolve, reject) => {
    const auth = req.headers.authorization;
    if (typeof auth === 'string' && /^Bearer\s*$/i.test(auth.trim())) return reject(headerDecodeError('Authorization'));
    const handler = passport.authenticate(JWT_STRATEGY, { session: false }, (err: unknown, user: Claims | false, info: unknown) => {
      if (err) return reject(isLedgerError(err) ? err : unauthenticated(String((err as Error).message ?? err)));
      if (!user) return reject(isLedgerError(info) ? info : unauthenticated(info instanceof Error ? info.message : 'No valid token'));
      resolve(user);
    });
    handler(req, {}, (e: unknown) => reject(e ?? unauthenticated('No valid token')));
  });
}
