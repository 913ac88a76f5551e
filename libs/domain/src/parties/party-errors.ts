import { contention, failedPrecondition, invalidArgument, LedgerError, notFound } from '../errors';
import { ErrorCategories } from '../errors/error-category';

/** The reference's party-management errors (Canton's PartyManagementServiceErrors, ledger-api-core: ledger/error/groups/). */
const partyResource = (party: string): Array<[string, string]> => [['PARTY', party]];

export const partyNotFound = (party: string) =>
  notFound('PARTY_NOT_FOUND', `Party: '${party}' was not found when updating a party record`, partyResource(party));

export const invalidPartyDetailsUpdateRequest = (party: string, reason: string) =>
  new LedgerError(
    'INVALID_PARTY_DETAILS_UPDATE_REQUEST',
    ErrorCategories.InvalidIndependentOfSystemState,
    `Update operation for party '${party}' failed due to: ${reason}`,
    { resources: partyResource(party) },
  );

export const concurrentPartyUpdate = (party: string) =>
  contention(
    'CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED',
    `Update operation for party '${party}' failed due to a concurrent update to the same party`,
    {
      resources: partyResource(party),
    },
  );

export const maxPartyAnnotationsSizeExceeded = (party: string) =>
  failedPrecondition(
    'MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED',
    `Maximum annotations size for party '${party}' has been exceeded`,
    {
      resources: partyResource(party),
    },
  );

export const identityProviderNotFoundArgument = (id: string) =>
  invalidArgument(`Provided identity_provider_id ${id} has not been found.`);

export const partyAlreadyExists = (party: string) =>
  invalidArgument(`Party already exists: party '${party}' is already allocated on this participant`);

export const cannotDetermineSynchronizer = (count: number) =>
  failedPrecondition(
    'PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER',
    `Cannot determine the synchronizer to allocate the party on: the participant is connected to ${count} synchronizers. Specify synchronizerId.`,
  );

export const synchronizerNotConnected = (id: string) =>
  failedPrecondition(
    'PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER',
    id
      ? `Cannot allocate the party: the participant is not connected to synchronizer ${id}`
      : 'Cannot allocate the party: the participant is not connected to any synchronizer',
  );
