import { describe, expect, it } from 'vitest';
import { userStream, type Right } from '@ledgerline/domain';
import { userRightsDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { admin, alice, bob, idpAdmin, partyRecord, user } from './fixtures';

const rights = spec(userRightsDecider);
const actAlice: Right = { kind: 'CanActAs', party: alice };
const readBob: Right = { kind: 'CanReadAs', party: bob };
const holding = (held: Right[], o = {}) => ({ user: { user: user('u1', o), rights: held }, parties: [] });

describe('user rights decider', () => {
  it('grant: appends the rights not held yet and answers them', () => {
    rights
      .given(holding([actAlice]))
      .when({ kind: 'grant', claims: admin, userId: 'u1', rights: [actAlice, readBob], identityProviderId: '' })
      .then(
        [{ type: 'UserRightsGranted', stream: userStream('u1'), data: { userId: 'u1', rights: [readBob] } }],
        [readBob],
      );
  });

  it('grant of rights all held: nothing appended, nothing answered', () => {
    rights
      .given(holding([actAlice]))
      .when({ kind: 'grant', claims: admin, userId: 'u1', rights: [actAlice], identityProviderId: '' })
      .thenNothing([]);
  });

  it('revoke: appends the held rights among those named and answers them', () => {
    rights
      .given(holding([actAlice]))
      .when({ kind: 'revoke', claims: admin, userId: 'u1', rights: [actAlice, readBob], identityProviderId: '' })
      .then(
        [{ type: 'UserRightsRevoked', stream: userStream('u1'), data: { userId: 'u1', rights: [actAlice] } }],
        [actAlice],
      );
  });

  it('an unknown user is USER_NOT_FOUND', () => {
    rights
      .given({ user: { user: null, rights: [] }, parties: [] })
      .when({ kind: 'grant', claims: admin, userId: 'u1', rights: [], identityProviderId: '' })
      .rejects('USER_NOT_FOUND');
  });

  it('an identity-provider admin: the parties must be in its provider, then the user too', () => {
    const command = {
      kind: 'grant' as const,
      claims: idpAdmin,
      userId: 'u1',
      rights: [actAlice],
      identityProviderId: 'idp1',
    };
    rights
      .given(holding([], { identityProviderId: 'idp1' }))
      .when(command)
      .rejects('UNKNOWN_RESOURCE');
    const alicesRecord = partyRecord(alice, { identityProviderId: 'idp1' });
    rights
      .given({ ...holding([]), parties: [alicesRecord] })
      .when(command)
      .rejects('PERMISSION_DENIED');
    rights
      .given({ ...holding([], { identityProviderId: 'idp1' }), parties: [alicesRecord] })
      .when(command)
      .then(
        [{ type: 'UserRightsGranted', stream: userStream('u1'), data: { userId: 'u1', rights: [actAlice] } }],
        [actAlice],
      );
  });

  it("changes the user's key; reads the parties' records only for a caller they can limit", () => {
    expect(
      conflictKeysOf(userRightsDecider, {
        kind: 'revoke',
        claims: admin,
        userId: 'u1',
        rights: [actAlice],
        identityProviderId: '',
      }).reads,
    ).toEqual(['user:u1']);
    expect(
      conflictKeysOf(userRightsDecider, {
        kind: 'grant',
        claims: idpAdmin,
        userId: 'u1',
        rights: [actAlice],
        identityProviderId: 'idp1',
      }),
    ).toEqual({
      reads: ['user:u1', `party:${alice}`],
      writes: ['user:u1'],
    });
  });
});
