import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateUpdatePartyDetails, type Claims } from '@ledgerline/domain';
import {
  EventStore,
  PartiesRepository,
  partyAllocationDecider,
  partyUpdateDecider,
  userCreationDecider,
  userRightsDecider,
  UsersRepository,
  type Database,
} from '@ledgerline/store';
import { openTestDatabase } from '../../support/database';

/*
 * A decider's answer is made from its decision, not read back: what the projections hold after the commit must be
 * what it answered.
 */

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});

const NS = '1220' + 'ef'.repeat(32);
const SYNC = 'global::1220' + '44'.repeat(32);
const PARTICIPANT = `p::${NS}`;
const admin: Claims = { userId: 'admin', identityProviderId: '', rights: [{ kind: 'ParticipantAdmin' }] };
const parties = new PartiesRepository();
const users = new UsersRepository();

describe('decider answers and the projections', () => {
  it('party allocation and PATCH answer the record party_details then holds', async () => {
    const store = new EventStore(database.db, { participantId: PARTICIPANT });
    try {
      const allocated = await store.decide(partyAllocationDecider, {
        request: {
          partyIdHint: 'answers',
          annotations: { a: '1' },
          resourceVersion: '',
          identityProviderId: '',
          synchronizerId: '',
          userId: '',
        },
        participant: {
          connectedSynchronizers: [SYNC],
          participantId: PARTICIPANT,
          namespace: NS,
          selfAllocationQuota: null,
        },
      });
      expect(await parties.get(database.db, allocated.party)).toEqual(allocated);
      const patched = await store.decide(
        partyUpdateDecider,
        validateUpdatePartyDetails(
          {
            partyDetails: {
              party: allocated.party,
              isLocal: true,
              identityProviderId: '',
              localMetadata: { resourceVersion: '0', annotations: { a: '', b: '2' } },
            },
            updateMask: { paths: ['local_metadata.annotations'] },
          },
          '',
        ),
      );
      expect(patched).toMatchObject({ annotations: { b: '2' }, resourceVersion: 1 });
      expect(await parties.get(database.db, allocated.party)).toEqual(patched);
    } finally {
      await store.close();
    }
  });

  it('user creation answers the user the users projection then holds; grants and revokes the rights that changed', async () => {
    const store = new EventStore(database.db, { participantId: PARTICIPANT });
    try {
      const user = {
        id: 'answers-user',
        primaryParty: '',
        isDeactivated: false,
        annotations: { k: 'v' },
        identityProviderId: '',
      };
      const created = await store.decide(userCreationDecider, {
        claims: admin,
        user,
        rights: [{ kind: 'CanReadAsAnyParty' }],
      });
      expect(await users.get(database.db, user.id)).toEqual(created);
      const granted = await store.decide(userRightsDecider, {
        kind: 'grant',
        claims: admin,
        userId: user.id,
        rights: [{ kind: 'CanReadAsAnyParty' }, { kind: 'CanActAs', party: `x::${NS}` }],
        identityProviderId: '',
      });
      expect(granted).toEqual([{ kind: 'CanActAs', party: `x::${NS}` }]);
      const revoked = await store.decide(userRightsDecider, {
        kind: 'revoke',
        claims: admin,
        userId: user.id,
        rights: [{ kind: 'CanReadAsAnyParty' }],
        identityProviderId: '',
      });
      expect(revoked).toEqual([{ kind: 'CanReadAsAnyParty' }]);
      expect(await users.rights(database.db, user.id)).toEqual(granted);
    } finally {
      await store.close();
    }
  });
});
