import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { isLedgerError, unauthenticated, type Claims } from '@ledgerline/domain';
import { ClaimsResolver } from './claims-resolver';
import { KeyResolver } from './key-resolver';
import { checkTokenClaims, type TokenPolicy } from './token-rules';

export const JWT_STRATEGY = 'ledger-jwt';

/** WebSocket clients pass the token as a sub-protocol: `Sec-WebSocket-Protocol: daml.ws.auth, jwt.token.<jwt>`. */
export function tokenFromWebSocketProtocol(req: { headers?: Record<string, unknown> }): string | null {
  const raw = req.headers?.['sec-websocket-protocol'];
  if (typeof raw !== 'string') return null;
  const entry = raw
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith('jwt.token.'));
  return entry ? entry.slice('jwt.token.'.length) : null;
}

export abstract class AuthSettings {
  abstract readonly policy: TokenPolicy;
  abstract readonly keys: KeyResolver;
}

/**
 * passport-jwt does the JWT mechanics (extraction, signature, `exp`); the key comes from the KeyResolver; the claim rules
 * and the user lookup run in `validate`. The resulting `Claims` becomes `request.user`.
 */
@Injectable()
export class LedgerJwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(
    settings: AuthSettings,
    private readonly claims: ClaimsResolver,
  ) {
    super({
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      jwtFromRequest: ExtractJwt.fromExtractors([ExtractJwt.fromAuthHeaderAsBearerToken(), tokenFromWebSocketProtocol]),
      ignoreExpiration: false,
      passReqToCallback: true,
      jsonWebTokenOptions: { algorithms: ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256'] },
      secretOrKeyProvider: (req: unknown, token: string | Buffer, done: (e: unknown, key?: never) => void) => {
        settings.keys.resolve(String(token)).then(
          (resolved) => {
            (req as Record<string, unknown>).ledgerIdp = resolved;
            done(null, resolved.key as never);
          },
          (e) => done(e),
        );
      },
    } as never);
    this.policy = settings.policy;
  }

  private readonly policy: TokenPolicy;

  async validate(req: Record<string, unknown>, payload: Record<string, unknown>): Promise<Claims> {
    const idp = req.ledgerIdp as { identityProviderId: string; audience?: string } | undefined;
    const policy = idp?.audience ? { ...this.policy, targetAudience: idp.audience } : this.policy;
    const subject = checkTokenClaims(payload, policy);
    try {
      return await this.claims.resolve(subject.userId, idp?.identityProviderId ?? '');
    } catch (e) {
      if (isLedgerError(e)) throw e;
      throw unauthenticated(`Could not resolve user: ${(e as Error).message}`);
    }
  }
}
