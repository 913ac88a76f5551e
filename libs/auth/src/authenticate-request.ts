import passport from 'passport';
import { isLedgerError, unauthenticated, type Claims } from '@ledgerline/domain';
import { headerDecodeError } from './header-decode-error';
import { JWT_STRATEGY } from './jwt.strategy';

/** Where authenticateBeforeBody leaves the caller's claims on the request (Fastify's request object). */
const AUTHENTICATED = Symbol('ledgerline.authenticated');

type AuthenticatableRequest = { headers: Record<string, unknown>; [AUTHENTICATED]?: Claims };

/**
 * Authenticates a request outside Nest's guard pipeline (the WebSocket upgrade, the directly mounted routes, the
 * pre-body hook) through the very same passport strategy the HTTP guard uses: token from `Authorization: Bearer` or the
 * `jwt.token.<jwt>` WebSocket sub-protocol, the same key resolution, claim rules and user lookup, the same outcomes
 * (401 / 403 "invalid token" / 400 for an empty Bearer). A request already authenticated by the pre-body hook gets
 * those claims again.
 */
export function authenticateRequest(req: { headers: Record<string, unknown> }): Promise<Claims> {
  const early = (req as AuthenticatableRequest)[AUTHENTICATED];
  if (early) return Promise.resolve(early);
  return new Promise((resolve, reject) => {
    const auth = req.headers.authorization;
    if (typeof auth === 'string' && /^Bearer\s*$/i.test(auth.trim())) return reject(headerDecodeError('Authorization'));
    const handler = passport.authenticate(
      JWT_STRATEGY,
      { session: false },
      (err: unknown, user: Claims | false, info: unknown) => {
        if (err) return reject(isLedgerError(err) ? err : unauthenticated(String((err as Error).message ?? err)));
        if (!user)
          return reject(
            isLedgerError(info) ? info : unauthenticated(info instanceof Error ? info.message : 'No valid token'),
          );
        resolve(user);
      },
    );
    handler(req, {}, (e: unknown) => reject(e ?? unauthenticated('No valid token')));
  });
}

/**
 * Authenticates a request before its body is read or parsed (a Fastify preParsing hook calls this): a missing or bad
 * token gets its 401 without the server spending anything on the body. The claims stay on the request, where the guard
 * and authenticateRequest find them.
 */
export async function authenticateBeforeBody(req: { headers: Record<string, unknown> }): Promise<Claims> {
  const claims = await authenticateRequest(req);
  (req as AuthenticatableRequest)[AUTHENTICATED] = claims;
  return claims;
}

/** The claims authenticateBeforeBody established for this request, if it ran. */
export const claimsAuthenticatedBeforeBody = (req: unknown): Claims | undefined =>
  (req as AuthenticatableRequest)[AUTHENTICATED];
