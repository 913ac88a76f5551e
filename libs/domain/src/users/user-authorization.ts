import { isParticipantAdmin, type Claims, type Right } from '../auth/rights';
import { matchIdentityProviderId, requireAdminOrIdpAdmin, requireParticipantAdmin } from '../auth/requirements';
import { notFound } from '../errors';

/**
 * Who may hand out which rights (Canton's UserManagementServiceAuthorization `needsParticipantAdmin`, ledger-api-core:
 * ledger/api/auth/services/, and ApiUserManagementService `verifyPartiesExistInIdp`, platform/apiserver/services/admin/).
 */

/** Rights only a participant admin may grant or revoke (an identity-provider admin may grant IdentityProviderAdmin). */
export function needsParticipantAdmin(rights: readonly Right[]): boolean {
  return rights.some(
    (r) =>
      r.kind === 'ParticipantAdmin' ||
      r.kind === 'CanReadAsAnyParty' ||
      r.kind === 'CanExecuteAsAnyParty' ||
      r.kind === 'CanActAsAnyParty',
  );
}

/**
 * Create user, grant and revoke rights: Admin when the rights need it, else AdminOrIdpAdmin; then MatchIdentityProviderId.
 * Returns the effective identity provider of the request.
 */
export function authorizeUserRightsChange(claims: Claims, rights: readonly Right[], requestedIdp: string): string {
  if (needsParticipantAdmin(rights)) requireParticipantAdmin(claims);
  else requireAdminOrIdpAdmin(claims);
  return matchIdentityProviderId(claims, requestedIdp);
}

/** The parties the rights name (CanActAs, CanReadAs, CanExecuteAs), each once, in request order. */
export function partiesOfRights(rights: readonly Right[]): string[] {
  return [...new Set(rights.flatMap((r) => ('party' in r ? [r.party] : [])))];
}

/**
 * A caller who is not a participant admin may only name parties whose party records are in the request's identity
 * provider. `inProvider` holds the parties found there (the caller looks them up only when this can fail).
 */
export function verifyPartiesExistInIdentityProvider(
  claims: Claims,
  rights: readonly Right[],
  identityProviderId: string,
  inProvider: ReadonlySet<string>,
): void {
  if (isParticipantAdmin(claims)) return;
  const unknown = partiesOfRights(rights).filter((p) => !inProvider.has(p));
  if (unknown.length === 0) return;
  throw notFound(
    'UNKNOWN_RESOURCE',
    `The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=\`${identityProviderId}\`: [${unknown.join(',')}].`,
    unknown.map((p) => ['PARTIES', p]),
  );
}

/** Whether verifyPartiesExistInIdentityProvider needs the party records (a non-admin caller naming parties). */
export const needsPartyRecordsForRights = (claims: Claims, rights: readonly Right[]): boolean =>
  !isParticipantAdmin(claims) && partiesOfRights(rights).length > 0;
