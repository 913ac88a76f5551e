import { parseUniqueIdentifier, validatePartyHint } from '@ledgerline/canton';
import { invalidArgument, notFound } from '../errors';

/**
 * GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party} (Canton 3.5.10's JoseService, ApiJoseService.scala): an
 * external party's signing public keys on a synchronizer as a JWKS, for tokens a party signs itself. Any authenticated
 * caller may read them (RequiredClaim.Public). Checks in Canton's order: the synchronizer id, the party id (both unique
 * identifiers), the synchronizer known here, then the party's signing keys there.
 */

/** A unique identifier of the request (`identifier::namespace`), else INVALID_ARGUMENT as Canton's UniqueIdentifier parser words it. */
export function jwksIdentifier(value: string, field: 'synchronizerId' | 'partyId'): string {
  if (parseUniqueIdentifier(value)) return value;
  const pos = value.indexOf('::');
  let reason: string;
  if (value === '') reason = 'Empty string is not a valid unique identifier.';
  else if (pos === 0) reason = `Invalid unique identifier \`${value}\` with empty identifier.`;
  else if (pos < 0) reason = `Invalid unique identifier \`${value}\` with missing namespace.`;
  else if (!validatePartyHint(value.slice(0, pos)).ok)
    reason = `Identifier decoding of \`${value.slice(0, 200)}\` failed with: invalid identifier`;
  else reason = `Fingerprint decoding of \`${value.slice(0, 200)}\` failed with: invalid fingerprint`;
  throw invalidArgument(`Unable to convert field \`${field}\`: ${reason}`);
}

/** 404 SYNCHRONIZER_NOT_FOUND: not a synchronizer of this participant. */
export const synchronizerNotFound = (synchronizerId: string) =>
  notFound('SYNCHRONIZER_NOT_FOUND', 'Could not find synchronizer.', [['SYNCHRONIZER_ID', synchronizerId]]);

/** 404 PARTY_SIGNING_KEYS_NOT_FOUND: the party has no signing keys on the synchronizer (a local or unknown party). */
export const partySigningKeysNotFound = (partyId: string) =>
  notFound('PARTY_SIGNING_KEYS_NOT_FOUND', 'Could not find signing keys for the requested party.', [
    ['PARTY', partyId],
  ]);
