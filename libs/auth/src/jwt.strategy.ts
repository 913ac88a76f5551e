import type { KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy, type StrategyOptionsWithRequest, type VerifyCallbackWithRequest } from 'passport-jwt';
import { isLedgerError, unauthenticated, type Claims } from '@ledgerline/domain';
import { ClaimsResolver } from './claims-resolver';
import { KeyResolver } from './key-resolver';
import { checkTokenClaims, type TokenPolicy } from './token-rules';

export const JWT_STRATEGY = 'ledger-jwt';

/**
 * passport-jwt's options as it runs them: passport-jwt hands the provider's key to jsonwebtoken, which takes a KeyObject
 * (its typings name strings and Buffers only).
 */
type LedgerJwtOptions = Omit<StrategyOptionsWithRequest, 'secretOrKeyProvider'> & {
  secretOrKeyProvider: (
    req: Record<string, unknown>,
    token: string | Buffer,
    done: (e: unknown, key?: KeyObject) => void,
  ) => void;
};

/** passport-jwt's Strategy with its options typed as above (the one correction of its typings, so the options are checked). */
const JwtStrategy = Strategy as unknown as new (
  options: LedgerJwtOptions,
  verify: VerifyCallbackWithRequest,
) => Strategy;

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
  /**
   * The ledger these settings belong to, when one process serves several (hosted test ledgers): each application marks
   * its requests with it (`request.raw[LEDGER_SCOPE]`), and passport's one registered strategy hands a marked request to
   * the strategy of that ledger (its keys, users and caches).
   */
  abstract readonly scope?: object;
}

/** Where a request carries its ledger's scope (see AuthSettings.scope). */
export const LEDGER_SCOPE = Symbol.for('ledgerline.ledger-scope');

/** Each ledger's strategy, by scope. Passport keeps one strategy per name for the whole process: the last one made. */
const strategiesByScope = new WeakMap<object, LedgerJwtStrategy>();

function scopeOf(req: unknown): object | undefined {
  const r = req as Record<symbol, object | undefined> & { raw?: Record<symbol, object | undefined> };
  return r?.[LEDGER_SCOPE] ?? r?.raw?.[LEDGER_SCOPE];
}

/** How long a token whose signature was verified is taken as verified (bounded by its `exp`); the claims cache lives as long. */
export const VERIFIED_TOKEN_TTL_MS = 1000;

const extractToken = ExtractJwt.fromExtractors([ExtractJwt.fromAuthHeaderAsBearerToken(), tokenFromWebSocketProtocol]);

interface VerifiedToken {
  payload: Record<string, unknown>;
  idp: unknown;
  until: number;
}

/**
 * passport-jwt does the JWT mechanics (extraction, signature, `exp`); the key comes from the KeyResolver; the claim rules
 * and the user lookup run in `validate`. The resulting `Claims` becomes `request.user`.
 *
 * A token whose signature verified is remembered for VERIFIED_TOKEN_TTL_MS (never past its `exp`; forgotten at once when
 * users, rights or identity providers change): a busy client does not pay the signature check on every request. The
 * claim rules and the user lookup still run for every request.
 */
@Injectable()
export class LedgerJwtStrategy extends PassportStrategy(JwtStrategy, JWT_STRATEGY) {
  constructor(
    settings: AuthSettings,
    private readonly claims: ClaimsResolver,
  ) {
    super({
      jwtFromRequest: extractToken,
      ignoreExpiration: false,
      passReqToCallback: true,
      jsonWebTokenOptions: {
        algorithms: ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256'],
      },
      secretOrKeyProvider: (
        req: Record<string, unknown>,
        token: string | Buffer,
        done: (e: unknown, key?: KeyObject) => void,
      ) => {
        settings.keys.resolve(String(token)).then(
          (resolved) => {
            req.ledgerIdp = resolved;
            done(null, resolved.key);
          },
          (e) => done(e),
        );
      },
    });
    this.policy = settings.policy;
    claims.onInvalidate(() => this.verified.clear());
    if (settings.scope) strategiesByScope.set(settings.scope, this);
  }

  private readonly policy: TokenPolicy;
  private readonly verified = new Map<string, VerifiedToken>();

  /** passport's entry point: a recently verified token skips the signature check (see the class comment). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- passport types the request as express's; here it is Fastify's
  override authenticate(req: any, options?: any): void {
    // Passport runs `Object.create(registered strategy)` with its callbacks attached: hand the request to its own ledger's
    // strategy, with the same callbacks, when that is another one.
    const scope = scopeOf(req);
    const own = scope ? strategiesByScope.get(scope) : undefined;
    if (own && !(own === this || Object.getPrototypeOf(this) === own)) {
      const delegate = Object.create(own) as Record<string, unknown> & {
        authenticate(req: unknown, options?: unknown): void;
      };
      for (const k of ['success', 'fail', 'error', 'pass', 'redirect'])
        delegate[k] = (this as unknown as Record<string, unknown>)[k];
      return delegate.authenticate(req, options);
    }
    const token = extractToken(req);
    const hit = token ? this.verified.get(token) : undefined;
    if (!hit || Date.now() >= hit.until) {
      if (hit) this.verified.delete(token!);
      return super.authenticate(req, options);
    }
    req.ledgerIdp = hit.idp;
    const self = this as unknown as { success(user: unknown): void; error(e: unknown): void };
    this.validate(req, hit.payload).then(
      (claims) => self.success(claims),
      (e) => self.error(e),
    );
  }

  async validate(req: Record<string, unknown>, payload: Record<string, unknown>): Promise<Claims> {
    const token = extractToken(req);
    if (token && !this.verified.has(token)) {
      const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
      if (this.verified.size >= 10_000) this.verified.clear();
      this.verified.set(token, {
        payload,
        idp: req.ledgerIdp,
        until: Math.min(Date.now() + VERIFIED_TOKEN_TTL_MS, exp),
      });
    }
    const idp = req.ledgerIdp as { identityProviderId: string; audience?: string } | undefined;
    const policy = idp?.audience ? { ...this.policy, targetAudience: idp.audience } : this.policy;
    const subject = checkTokenClaims(payload, policy);
    try {
      const claims = await this.claims.resolve(subject.userId, idp?.identityProviderId ?? '');
      return typeof payload.exp === 'number' ? { ...claims, expiresAtMs: payload.exp * 1000 } : claims;
    } catch (e) {
      if (isLedgerError(e)) throw e;
      throw unauthenticated(`Could not resolve user: ${(e as Error).message}`);
    }
  }
}
