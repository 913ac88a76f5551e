import { describe, expect, it } from 'vitest';
import { userStream } from '@ledgerline/domain';
import { userCreationDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { admin, alice, bob, idpAdmin, partyRecord, user } from './fixtures';

const creation = spec(userCreationDecider);
const none = { user: { user: null, rights: [] }, parties: [] };

describe('user creation decider', () => {
  it('given no such user, creating it appends UserCreated with its rights (deduplicated) and answers the stored user', () => {
    const u = user('u1', { annotations: { k: 'v' } });
    const rights = [
      { kind: 'CanActAs' as const, party: alice },
      { kind: 'CanActAs' as const, party: alice },
    ];
    creation
      .given(none)
      .when({ claims: admin, user: u, rights })
      .then([{ type: 'UserCreated', stream: userStream('u1'), data: { user: u, rights: [rights[0]] } }], {
        ...u,
        primaryPartyAuthentication: false,
        resourceVersion: 0,
      });
  });

  it('given the user exists, creating it again is refused', () => {
    creation
      .given({ ...none, user: { user: user('u1'), rights: [] } })
      .when({ claims: admin, user: user('u1'), rights: [] })
      .rejects('USER_ALREADY_EXISTS');
  });

  it('given the user exists, the bootstrap admin (ifAbsent) changes nothing and answers null', () => {
    creation
      .given({ ...none, user: { user: user('admin'), rights: [] } })
      .when({ claims: null, user: user('admin'), rights: [{ kind: 'ParticipantAdmin' }], ifAbsent: true })
      .thenNothing(null);
  });

  it('an identity-provider admin may only name parties whose records are in its provider', () => {
    const u = user('u2', { identityProviderId: 'idp1' });
    const rights = [
      { kind: 'CanActAs' as const, party: alice },
      { kind: 'CanReadAs' as const, party: bob },
    ];
    const inProvider = partyRecord(alice, { identityProviderId: 'idp1' });
    const elsewhere = partyRecord(bob, { identityProviderId: '' });
    creation
      .given({ ...none, parties: [inProvider, elsewhere] })
      .when({ claims: idpAdmin, user: u, rights })
      .rejects('UNKNOWN_RESOURCE', new RegExp(`\\[${bob}\\]`));
    const [event] = creation
      .given({ ...none, parties: [inProvider, { ...elsewhere, identityProviderId: 'idp1' }] })
      .when({ claims: idpAdmin, user: u, rights })
      .decision().events;
    expect(event.type).toBe('UserCreated');
  });

  it("changes the user's key; reads the parties' records only for a caller they can limit", () => {
    const rights = [{ kind: 'CanActAs' as const, party: alice }];
    expect(conflictKeysOf(userCreationDecider, { claims: admin, user: user('u1'), rights })).toEqual({
      reads: ['user:u1'],
      writes: ['user:u1'],
    });
    expect(
      conflictKeysOf(userCreationDecider, {
        claims: idpAdmin,
        user: user('u1', { identityProviderId: 'idp1' }),
        rights,
      }),
    ).toEqual({
      reads: ['user:u1', `party:${alice}`],
      writes: ['user:u1'],
    });
  });
});
