import { describe, expect, it } from 'vitest';
import { userStream, type VerifiedAllocation } from '@ledgerline/domain';
import { externalPartyAllocationDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { PARTICIPANT, SYNC_A, SYNC_B, user } from './fixtures';

const allocation = spec(externalPartyAllocationDecider);
const fingerprint = `1220${'ef'.repeat(32)}`;
const partyId = `ext::${fingerprint}`;
const verified: VerifiedAllocation = {
  partyId,
  permission: 'PARTICIPANT_PERMISSION_CONFIRMATION',
  keys: [
    {
      fingerprint,
      keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      keyFormat: 'CRYPTO_KEY_FORMAT_RAW',
      publicKey: Buffer.alloc(32, 7).toString('base64'),
    },
  ],
  threshold: 1,
  synchronizerId: SYNC_A,
  topologyTransactionHash: `1220${'12'.repeat(32)}`,
};
const hosting = { participantId: PARTICIPANT, connectedSynchronizers: [SYNC_A, SYNC_B] };
const command = (userId = '') => ({ verified, hosting, options: { identityProviderId: '', userId } });
const fresh = { partyExists: false, identityProviderExists: true, user: null };

describe('external party allocation decider', () => {
  it('registers the party, its keys and its topology update; answers the party id', () => {
    const { events, answer } = allocation.given(fresh).when(command()).decision();
    expect(answer).toBe(partyId);
    expect(events.map((e) => e.type)).toEqual([
      'PartyAllocated',
      'ExternalPartyAllocated',
      'TopologyTransactionCommitted',
    ]);
    expect(events[1].data).toMatchObject({
      partyId,
      keys: verified.keys,
      threshold: 1,
      permission: 'PARTICIPANT_PERMISSION_CONFIRMATION',
    });
    expect(events[2].update).toEqual({ kind: 'TopologyTransaction', synchronizerId: SYNC_A, parties: [partyId] });
  });

  it('grants the named user CanActAs', () => {
    const { events } = allocation
      .given({ ...fresh, user: { user: user('u1'), rights: [] } })
      .when(command('u1'))
      .decision();
    expect(events.at(-1)).toEqual({
      type: 'UserRightsGranted',
      stream: userStream('u1'),
      data: { userId: 'u1', rights: [{ kind: 'CanActAs', party: partyId }] },
    });
  });

  it('refuses a party that exists and an unknown user', () => {
    allocation
      .given({ ...fresh, partyExists: true })
      .when(command())
      .rejects('INVALID_ARGUMENT', /Party already exists/);
    allocation.given(fresh).when(command('u1')).rejects('USER_NOT_FOUND');
  });

  it("changes the party's key and the granted user's; reads the provider's", () => {
    expect(conflictKeysOf(externalPartyAllocationDecider, command('u1'))).toEqual({
      reads: [`party:${partyId}`, 'idp:', 'user:u1'],
      writes: [`party:${partyId}`, 'user:u1'],
    });
  });
});
