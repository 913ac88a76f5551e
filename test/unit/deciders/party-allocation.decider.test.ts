import { describe, expect, it } from 'vitest';
import { partyStream, userStream, type AllocatePartyRequest } from '@ledgerline/domain';
import { partyAllocationDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { NAMESPACE, PARTICIPANT, partyRecord, SYNC_A, SYNC_B, user } from './fixtures';

const allocation = spec(partyAllocationDecider);
const party = `carol::${NAMESPACE}`;
const request = (o: Partial<AllocatePartyRequest> = {}): AllocatePartyRequest => ({
  partyIdHint: 'carol',
  annotations: { k: 'v' },
  resourceVersion: '',
  identityProviderId: '',
  synchronizerId: '',
  userId: '',
  ...o,
});
const participant = {
  connectedSynchronizers: [SYNC_A],
  participantId: PARTICIPANT,
  namespace: NAMESPACE,
  selfAllocationQuota: null,
};
const fresh = { existing: null, identityProviderExists: true, user: null };

describe('party allocation decider', () => {
  it('allocates the party of the hint on the only synchronizer: PartyAllocated and its topology update; answers the record', () => {
    allocation
      .given(fresh)
      .when({ request: request(), participant })
      .then(
        [
          {
            type: 'PartyAllocated',
            stream: partyStream(party),
            data: {
              party,
              isLocal: true,
              identityProviderId: '',
              annotations: { k: 'v' },
              synchronizerId: SYNC_A,
              participantId: PARTICIPANT,
            },
          },
          {
            type: 'TopologyTransactionCommitted',
            stream: partyStream(party),
            data: {
              events: [
                {
                  ParticipantAuthorizationAdded: {
                    partyId: party,
                    participantId: PARTICIPANT,
                    participantPermission: 'PARTICIPANT_PERMISSION_SUBMISSION',
                  },
                },
              ],
            },
            update: { kind: 'TopologyTransaction', synchronizerId: SYNC_A, parties: [party] },
          },
        ],
        partyRecord(party, { annotations: { k: 'v' } }),
      );
  });

  it('grants the named user CanActAs on the new party', () => {
    const { events } = allocation
      .given({ ...fresh, user: { user: user('u1'), rights: [] } })
      .when({ request: request({ userId: 'u1' }), participant })
      .decision();
    expect(events.at(-1)).toEqual({
      type: 'UserRightsGranted',
      stream: userStream('u1'),
      data: { userId: 'u1', rights: [{ kind: 'CanActAs', party }] },
    });
  });

  it('refuses a party that exists, an unknown provider, an unknown user, a self-allocation over quota', () => {
    allocation
      .given({ ...fresh, existing: partyRecord(party) })
      .when({ request: request(), participant })
      .rejects('INVALID_ARGUMENT', /Party already exists/);
    allocation
      .given({ ...fresh, identityProviderExists: false })
      .when({ request: request({ identityProviderId: 'idp9' }), participant })
      .rejects('INVALID_ARGUMENT', /idp9/);
    allocation
      .given(fresh)
      .when({ request: request({ userId: 'u1' }), participant })
      .rejects('USER_NOT_FOUND');
    const full = { user: user('u1'), rights: [{ kind: 'CanActAs' as const, party: 'x::1220aa' }] };
    allocation
      .given({ ...fresh, user: full })
      .when({ request: request({ userId: 'u1' }), participant: { ...participant, selfAllocationQuota: 1 } })
      .rejects('PERMISSION_DENIED', 'User quota of party allocations exhausted');
  });

  it('with several synchronizers connected and none named, no synchronizer can be chosen', () => {
    allocation
      .given(fresh)
      .when({ request: request(), participant: { ...participant, connectedSynchronizers: [SYNC_A, SYNC_B] } })
      .rejects('PARTY_ALLOCATION_CANNOT_DETERMINE_SYNCHRONIZER');
  });

  it("changes the party's key and the granted user's; reads the provider's", () => {
    expect(
      conflictKeysOf(partyAllocationDecider, {
        request: request({ userId: 'u1', identityProviderId: 'idp1' }),
        participant,
      }),
    ).toEqual({
      reads: [`party:${party}`, 'idp:idp1', 'user:u1'],
      writes: [`party:${party}`, 'user:u1'],
    });
    expect(conflictKeysOf(partyAllocationDecider, { request: request(), participant }).writes).toEqual([
      `party:${party}`,
    ]);
  });
});
