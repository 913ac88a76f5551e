import { invalidToken, permissionDenied } from '../errors';
import { Claims, isIdpAdmin, isParticipantAdmin } from './rights';

/**
 * Rules shared by several operations (Canton's Authorizer, base: auth/Authorizer.scala, and RequiredClaims,
 * ledger-api-core: ledger/api/auth/). Each either returns the effective value or throws the reference's error. Pure: the
 * caller passes the resolved claims.
 */

/** MatchUserId: an empty request userId defaults to the token's user; a different one is refused. */
export function matchUserId(claims: Claims, requested: string | undefined | null): string {
  if (!requested) {
    if (!claims.userId) {
      throw invalidToken(
        'Cannot default user_id field because claims do not specify an user-id. Is authentication turned on?',
      );
    }
    return claims.userId;
  }
  if (requested !== claims.userId) throw permissionDenied(`Claims do not authorize to use user id '${requested}'`);
  return requested;
}

/**
 * MatchIdentityProviderId: an empty request IDP id is implied from the caller's IDP (unless the caller is ParticipantAdmin);
 * a caller bound to an IDP may only address that IDP.
 */
export function matchIdentityProviderId(claims: Claims, requested: string | undefined | null): string {
  const req = requested ?? '';
  if (isParticipantAdmin(claims)) return req;
  if (req === '') return claims.identityProviderId;
  if (req !== claims.identityProviderId) {
    throw permissionDenied(`Claims do not authorize to access identity provider '${req}'`);
  }
  return req;
}

export function requireAdminOrIdpAdmin(claims: Claims): void {
  if (!isIdpAdmin(claims)) throw permissionDenied('Claims do not authorize the use of administrative services.');
}

export function requireParticipantAdmin(claims: Claims): void {
  if (!isParticipantAdmin(claims))
    throw permissionDenied('Claims do not authorize the use of participant administrative services.');
}

export function requireThat(ok: boolean, reason: string): void {
  if (!ok) throw permissionDenied(reason);
}

/** An identity-provider admin manages only the users of its own provider; a participant admin manages all. */
export function requireUserInCallerIdentityProvider(claims: Claims, userIdentityProviderId: string | undefined): void {
  if (
    userIdentityProviderId !== undefined &&
    !isParticipantAdmin(claims) &&
    userIdentityProviderId !== claims.identityProviderId
  ) {
    throw permissionDenied('The user belongs to another identity provider');
  }
}
