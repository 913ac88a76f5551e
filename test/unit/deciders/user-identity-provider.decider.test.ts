import { describe, expect, it } from 'vitest';
import { userStream } from '@ledgerline/domain';
import { userIdentityProviderDecider } from '@ledgerline/store';
import { conflictKeysOf, spec } from '../../support/decider-spec';

const move = spec(userIdentityProviderDecider);
const command = { userId: 'u1', source: '', target: 'idp1' };
const both = { sourceExists: true, targetExists: true };

describe('user identity-provider decider', () => {
  it('moves a user of the source provider to the target', () => {
    move
      .given({ user: { id: 'u1', identityProviderId: '' }, ...both })
      .when(command)
      .then([
        {
          type: 'UserIdentityProviderChanged',
          stream: userStream('u1'),
          data: { userId: 'u1', identityProviderId: 'idp1' },
        },
      ]);
  });

  it('refuses an unknown provider, and a user that is not in the source provider', () => {
    move
      .given({ user: { id: 'u1', identityProviderId: '' }, ...both, targetExists: false })
      .when(command)
      .rejects('INVALID_ARGUMENT');
    move
      .given({ user: { id: 'u1', identityProviderId: 'idp2' }, ...both })
      .when(command)
      .rejects('USER_NOT_FOUND');
    move
      .given({ user: null, ...both })
      .when(command)
      .rejects('USER_NOT_FOUND');
  });

  it("changes the user's key and reads both providers'", () => {
    expect(conflictKeysOf(userIdentityProviderDecider, command)).toEqual({
      reads: ['user:u1', 'idp:', 'idp:idp1'],
      writes: ['user:u1'],
    });
  });
});
