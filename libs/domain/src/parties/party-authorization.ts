import { isIdpAdmin, operatesAsParty, type Claims } from '../auth/rights';
import { matchIdentityProviderId, requireAdminOrIdpAdmin } from '../auth/requirements';
import { permissionDenied } from '../errors';

/**
 * Required claims of the party-management operations (Canton's PartyManagementServiceAuthorization, ledger-api-core:
 * ledger/api/auth/services/). Each returns the effective identity provider id of the request (MatchIdentityProviderId)
 * or throws PERMISSION_DENIED.
 */

/** PATCH /v2/parties/{party}: AdminOrIdpAdmin + MatchIdentityProviderId(partyDetails.identityProviderId). */
export function authorizeUpdatePartyDetails(claims: Claims, requestedIdp: string | null): string {
  requireAdminOrIdpAdmin(claims);
  return requestedIdp === null ? claims.identityProviderId : matchIdentityProviderId(claims, requestedIdp);
}

/** GET /v2/parties/{party}: AdminOrIdpAdminOrOperateAsParty(parties) + MatchIdentityProviderId. */
export function authorizeGetParties(claims: Claims, parties: readonly string[], requestedIdp: string): string {
  if (!isIdpAdmin(claims)) {
    const missing = parties.find((p) => !operatesAsParty(claims, p));
    if (missing !== undefined) throw permissionDenied(`Claims do not authorize to read party '${missing}'`);
  }
  return matchIdentityProviderId(claims, requestedIdp);
}

/** GET /v2/parties: AdminOrIdpAdmin + MatchIdentityProviderId. */
export function authorizeListParties(claims: Claims, requestedIdp: string): string {
  requireAdminOrIdpAdmin(claims);
  return matchIdentityProviderId(claims, requestedIdp);
}

/**
 * POST /v2/parties: AdminOrIdpAdminOrSelfAdmin(userId) + MatchIdentityProviderId. `selfAllocation` is true when the caller
 * is allowed only because it allocates for itself (the quota applies then).
 */
export function authorizeAllocateParty(
  claims: Claims,
  userId: string,
  requestedIdp: string,
): { identityProviderId: string; selfAllocation: boolean } {
  const admin = isIdpAdmin(claims);
  if (!admin && (userId === '' || userId !== claims.userId)) {
    throw permissionDenied(
      'Claims do not authorize to allocate parties (admin, identity provider admin, or the user itself)',
    );
  }
  return { identityProviderId: matchIdentityProviderId(claims, requestedIdp), selfAllocation: !admin };
}
