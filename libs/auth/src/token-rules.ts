import { unauthenticated } from '@ledgerline/domain';

/** Audience prefix of Canton's audience-based tokens. */
export const PARTICIPANT_AUDIENCE_PREFIX = 'https://daml.com/jwt/aud/participant/';
export const LEDGER_API_SCOPE = 'daml_ledger_api';

export interface TokenPolicy {
  participantId: string;
  /** If set, `aud` must contain it (Canton's target-audience). */
  targetAudience?: string;
  /** If set, `scope` must contain it (Canton's target-scope). */
  targetScope?: string;
}

export interface TokenSubject {
  userId: string;
  issuer: string | undefined;
}

/**
 * Canton's rules for standard user tokens (AuthServiceJWTPayload, daml-jwt; AuthServiceJWT, base: auth/), applied to an
 * already signature-verified payload:
 * `sub` is the user; with no target configured, either an audience `https://daml.com/jwt/aud/participant/<id>` naming this
 * participant, or the (deprecated) scope `daml_ledger_api` with at most one audience naming this participant.
 * Anything else is unauthenticated (401).
 */
export function checkTokenClaims(payload: Record<string, unknown>, policy: TokenPolicy): TokenSubject {
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '') throw unauthenticated('Token has no sub claim (user id)');
  const aud = (
    Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined || payload.aud === '' ? [] : [payload.aud]
  ).filter((a): a is string => typeof a === 'string' && a !== '');
  const scopes = [
    ...(typeof payload.scope === 'string' ? payload.scope.split(' ') : []),
    ...(Array.isArray(payload.scp) ? payload.scp.filter((s): s is string => typeof s === 'string') : []),
  ].filter(Boolean);
  const issuer = typeof payload.iss === 'string' ? payload.iss : undefined;

  if (policy.targetAudience) {
    if (!aud.includes(policy.targetAudience))
      throw unauthenticated(`Token audience does not contain ${policy.targetAudience}`);
    if (policy.targetScope && !scopes.includes(policy.targetScope))
      throw unauthenticated(`Token scope does not contain ${policy.targetScope}`);
    return { userId: sub, issuer };
  }
  if (policy.targetScope) {
    if (!scopes.includes(policy.targetScope))
      throw unauthenticated(`Token scope does not contain ${policy.targetScope}`);
    return { userId: sub, issuer };
  }

  const participantAuds = aud.filter((a) => a.startsWith(PARTICIPANT_AUDIENCE_PREFIX));
  if (participantAuds.length > 0) {
    if (participantAuds.length !== 1) throw unauthenticated('Token has more than one participant audience');
    const pid = participantAuds[0].slice(PARTICIPANT_AUDIENCE_PREFIX.length);
    if (pid !== policy.participantId)
      throw unauthenticated(`Token is for participant ${pid}, not ${policy.participantId}`);
    return { userId: sub, issuer };
  }
  if (scopes.includes(LEDGER_API_SCOPE)) {
    if (aud.length > 1) throw unauthenticated('Scope-based token with more than one audience');
    if (aud.length === 1 && aud[0] !== policy.participantId)
      throw unauthenticated(`Token is for participant ${aud[0]}`);
    return { userId: sub, issuer };
  }
  if (scopes.length > 0) throw unauthenticated('Access token with unknown scope');
  throw unauthenticated('Token has neither a participant audience nor the daml_ledger_api scope');
}
