import { describe, expect, it } from 'vitest';
import { userStream } from '@ledgerline/domain';
import { userDeletionDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';
import { admin, idpAdmin, user } from './fixtures';

const deletion = spec(userDeletionDecider);

describe('user deletion decider', () => {
  it('given the user, deleting it appends UserDeleted', () => {
    deletion
      .given({ user: user('u1'), rights: [{ kind: 'CanReadAsAnyParty' }] })
      .when({ claims: admin, userId: 'u1' })
      .then([{ type: 'UserDeleted', stream: userStream('u1'), data: { userId: 'u1' } }]);
  });

  it('an unknown user is USER_NOT_FOUND', () => {
    deletion.given({ user: null, rights: [] }).when({ claims: admin, userId: 'u1' }).rejects('USER_NOT_FOUND');
  });

  it("an identity-provider admin may not delete another provider's user", () => {
    deletion
      .given({ user: user('u1'), rights: [] })
      .when({ claims: idpAdmin, userId: 'u1' })
      .rejects('PERMISSION_DENIED');
  });

  it("changes the user's key", () => {
    expect(conflictKeysOf(userDeletionDecider, { claims: admin, userId: 'u1' })).toEqual({
      reads: ['user:u1'],
      writes: ['user:u1'],
    });
  });
});
