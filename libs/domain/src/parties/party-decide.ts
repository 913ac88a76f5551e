import { invalidArgument, invalidField, jsonInvalidArgument, missingField, permissionDenied } from '../errors';
import type { Right } from '../auth/rights';
import { TOPOLOGY_TRANSACTION_COMMITTED, type StoredTopologyTransaction } from '../ledger/updates';
import { decideGrantRights, userNotFound, validateUserId, type UserState } from '../users/user-rules';
import type { NewLedgerEvent } from '../ledger/ledger-event';
import {
  decideObjectMetaUpdate,
  mergeAnnotations,
  parseResourceVersion,
  parseUpdateMask,
  validateRequestAnnotations,
} from '../object-meta';
import { partyStream, type PartyAllocatedData, type PartyDetailsUpdatedData, type PartyRecord } from './events';
import {
  cannotDetermineSynchronizer,
  concurrentPartyUpdate,
  identityProviderNotFoundArgument,
  invalidPartyDetailsUpdateRequest,
  maxPartyAnnotationsSizeExceeded,
  partyAlreadyExists,
  partyNotFound,
  synchronizerNotConnected,
} from './party-errors';
import { checkSelfAllocationQuota } from './self-allocation-quota';
import { localPartyId, requireParty, validateIdentityProviderIdField, validatePartyHint } from './party-rules';

export const PARTICIPANT_PERMISSION_SUBMISSION = 'PARTICIPANT_PERMISSION_SUBMISSION';

// ------------------------------------------------------------------------------------------------ allocation

export interface AllocatePartyRequest {
  /** '' → the caller generates one (generatedPartyHint) before deciding. */
  partyIdHint: string;
  annotations: Record<string, string>;
  resourceVersion: string;
  /** Effective provider (after MatchIdentityProviderId). */
  identityProviderId: string;
  synchronizerId: string;
  userId: string;
}

/** Syntax checks of an allocation request, in the reference's order; throws the reference's error. */
export function validateAllocatePartyRequest(req: AllocatePartyRequest): void {
  validatePartyHint(req.partyIdHint);
  if (req.resourceVersion !== '') throw invalidArgument('field local_metadata.resource_version must be not set');
  validateRequestAnnotations(req.annotations, { field: 'local_metadata.annotations', allowEmptyValues: false });
  validateIdentityProviderIdField(req.identityProviderId);
  if (req.synchronizerId !== '' && !/^[A-Za-z0-9:\-_ ]+::1220[0-9a-f]{64}$/.test(req.synchronizerId)) {
    throw invalidField('synchronizer_id', `Invalid unique identifier \`${req.synchronizerId}\``);
  }
  if (req.userId !== '') validateUserId(req.userId, 'user_id');
}

/** Which synchronizer the party goes to: the requested one if connected; else the only one; else an error. */
export function chooseSynchronizer(requested: string, connected: readonly string[]): string {
  if (requested !== '') {
    if (!connected.includes(requested)) throw synchronizerNotConnected(requested);
    return requested;
  }
  if (connected.length === 1) return connected[0];
  if (connected.length === 0) throw synchronizerNotConnected('');
  throw cannotDetermineSynchronizer(connected.length);
}

export interface AllocationState {
  /** The record of the party id the hint gives, if any. */
  existing: PartyRecord | null;
  identityProviderExists: boolean;
  /** The user named by `userId` (null when no user was named). */
  user: UserState | null;
  connectedSynchronizers: readonly string[];
  participantId: string;
  namespace: string;
  /** For self-allocation by a non-admin: the most parties the user may hold rights for afterwards (null = no limit: admins). */
  selfAllocationQuota: number | null;
}

export interface AllocationDecision {
  events: NewLedgerEvent[];
  record: PartyRecord;
}

/** The events of an allocation: PartyAllocated, the ledger-visible topology transaction, and the user's CanActAs grant. */
export function decideAllocateParty(state: AllocationState, req: AllocatePartyRequest): AllocationDecision {
  if (req.partyIdHint === '')
    throw new Error('decideAllocateParty needs a hint (generate one for an empty request hint)');
  if (!state.identityProviderExists) throw identityProviderNotFoundArgument(req.identityProviderId);
  // The self-allocation quota is the participant's check; choosing a synchronizer comes later (the sync service's).
  if (req.userId !== '') {
    if (!state.user?.user || state.user.user.identityProviderId !== req.identityProviderId)
      throw userNotFound(req.userId);
    checkSelfAllocationQuota(state.user, state.selfAllocationQuota);
  }
  const synchronizerId = chooseSynchronizer(req.synchronizerId, state.connectedSynchronizers);
  const party = localPartyId(req.partyIdHint, state.namespace);
  if (state.existing) throw partyAlreadyExists(party);

  const allocated: PartyAllocatedData = {
    party,
    isLocal: true,
    identityProviderId: req.identityProviderId,
    annotations: mergeAnnotations({}, req.annotations),
    synchronizerId,
    participantId: state.participantId,
  };
  const topology: StoredTopologyTransaction = {
    events: [
      {
        ParticipantAuthorizationAdded: {
          partyId: party,
          participantId: state.participantId,
          participantPermission: PARTICIPANT_PERMISSION_SUBMISSION,
        },
      },
    ],
  };
  const events: NewLedgerEvent[] = [
    { type: 'PartyAllocated', stream: partyStream(party), data: allocated },
    {
      type: TOPOLOGY_TRANSACTION_COMMITTED,
      stream: partyStream(party),
      data: topology,
      update: { kind: 'TopologyTransaction', synchronizerId, parties: [party] },
    },
  ];
  if (req.userId !== '') {
    const right: Right = { kind: 'CanActAs', party };
    events.push(...decideGrantRights(state.user!, req.userId, [right]).events);
  }
  return {
    events,
    record: {
      party,
      isLocal: true,
      identityProviderId: req.identityProviderId,
      annotations: allocated.annotations,
      resourceVersion: 0,
      synchronizerId,
    },
  };
}

// ------------------------------------------------------------------------------------------------ PATCH

/** Mask leaves of PartyDetails (proto snake_case names). */
export const PARTY_DETAILS_UPDATE_LEAVES = [
  'party',
  'is_local',
  'local_metadata.annotations',
  'local_metadata.resource_version',
  'identity_provider_id',
] as const;

/** The body of PATCH /v2/parties/{party} as decoded (absent fields at their proto defaults, absent messages null). */
export interface UpdatePartyDetailsBody {
  partyDetails: {
    party: string;
    isLocal: boolean;
    localMetadata: { resourceVersion: string; annotations: Record<string, string> } | null;
    identityProviderId: string;
  } | null;
  updateMask: { paths: string[] } | null;
}

/** JSON-layer check: the path party must equal `partyDetails.party` (also fails when partyDetails is absent). */
export function checkPathMatchesBody(pathParty: string, body: UpdatePartyDetailsBody): void {
  const d = body.partyDetails;
  if (d && d.party === pathParty) return;
  const rendered = d
    ? `Some(PartyDetails(${d.party},${d.isLocal},${
        d.localMetadata
          ? `Some(ObjectMeta(${d.localMetadata.resourceVersion},Map(${Object.entries(d.localMetadata.annotations)
              .map(([k, v]) => `${k} -> ${v}`)
              .join(', ')})))`
          : 'None'
      },${d.identityProviderId}))`
    : 'None';
  throw jsonInvalidArgument(`${pathParty} does not match party in body ${rendered}`);
}

export interface ValidatedPartyUpdate {
  party: string;
  isLocal: boolean;
  annotations: Record<string, string>;
  expectedVersion: bigint | null;
  maskPaths: string[];
  identityProviderId: string;
}

/**
 * Syntax checks of the update request, in the order of Canton's ApiPartyManagementService.updatePartyDetails
 * (ledger-api-core: platform/apiserver/services/admin/). `identityProviderId` is the effective one (MatchIdentityProviderId
 * has already run).
 */
export function validateUpdatePartyDetails(
  body: UpdatePartyDetailsBody,
  identityProviderId: string,
): ValidatedPartyUpdate {
  const d = body.partyDetails;
  if (!d) throw missingField('party_details');
  const party = requireParty(d.party);
  const meta = d.localMetadata ?? { resourceVersion: '', annotations: {} };
  const expectedVersion = parseResourceVersion(meta.resourceVersion, 'party_details.local_metadata');
  validateRequestAnnotations(meta.annotations, {
    field: 'party_details.local_metadata.annotations',
    allowEmptyValues: true,
  });
  if (!body.updateMask) throw missingField('update_mask');
  validateIdentityProviderIdField(identityProviderId);
  return {
    party,
    isLocal: d.isLocal,
    annotations: meta.annotations,
    expectedVersion,
    maskPaths: body.updateMask.paths,
    identityProviderId,
  };
}

export interface PartyUpdateState {
  identityProviderExists: boolean;
  record: PartyRecord | null;
}

export interface PartyUpdateDecision {
  events: NewLedgerEvent[];
  record: PartyRecord;
}

/**
 * PATCH /v2/parties/{party} after validation (the rest of ApiPartyManagementService.updatePartyDetails and of
 * PersistentPartyRecordStore, ledger-api-core: ledger/localstore/): provider exists, mask → update, party exists, is_local
 * unchanged, same provider, resource version matches (if given), annotations merged, size after merge. Every success
 * increments the version, a no-op included.
 */
export function decideUpdatePartyDetails(state: PartyUpdateState, req: ValidatedPartyUpdate): PartyUpdateDecision {
  if (!state.identityProviderExists) throw identityProviderNotFoundArgument(req.identityProviderId);
  const parsed = parseUpdateMask(req.maskPaths, PARTY_DETAILS_UPDATE_LEAVES);
  if (!parsed.ok) throw invalidPartyDetailsUpdateRequest(req.party, parsed.problem.message);
  const mask = parsed.mask;
  const { record, annotations, resourceVersion } = decideObjectMetaUpdate(
    state.record,
    {
      identityProviderId: req.identityProviderId,
      expectedVersion: req.expectedVersion,
      annotations: mask.covers('local_metadata.annotations') ? req.annotations : null,
    },
    {
      notFound: () => partyNotFound(req.party),
      checkRecord: (r) => {
        if (mask.exact('is_local') && req.isLocal !== r.isLocal) {
          throw invalidPartyDetailsUpdateRequest(
            req.party,
            "Update request attempted to modify not-modifiable 'is_local' attribute",
          );
        }
      },
      otherProvider: (current) =>
        permissionDenied(
          `Party ${req.party} belongs to identity provider '${current}', the request names '${req.identityProviderId}'`,
        ),
      concurrentUpdate: () => concurrentPartyUpdate(req.party),
      annotationsTooLarge: () => maxPartyAnnotationsSizeExceeded(req.party),
    },
  );
  const data: PartyDetailsUpdatedData = {
    party: record.party,
    annotations,
    previousResourceVersion: record.resourceVersion,
    resourceVersion,
  };
  return {
    events: [{ type: 'PartyDetailsUpdated', stream: partyStream(record.party), data }],
    record: { ...record, annotations, resourceVersion: data.resourceVersion },
  };
}
